; clang-22 -Oz -Xclang -disable-llvm-passes -emit-llvm -S of a C file with calls of every size:
; IR before any pass, as MLGO corpora hold it (examples/python_policy.py asks about its calls).
; ModuleID = 'inline-demo.c'
source_filename = "inline-demo.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: minsize nounwind optsize uwtable
define dso_local i32 @api1(i32 noundef %0) #0 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4, !tbaa !5
  %3 = load i32, ptr %2, align 4, !tbaa !5
  %4 = call i32 @big(i32 noundef %3) #2
  %5 = load i32, ptr %2, align 4, !tbaa !5
  %6 = call i32 @leaf(i32 noundef %5) #2
  %7 = add nsw i32 %4, %6
  ret i32 %7
}

; Function Attrs: minsize nounwind optsize uwtable
define internal i32 @big(i32 noundef %0) #0 {
  %2 = alloca i32, align 4
  %3 = alloca i32, align 4
  store i32 %0, ptr %2, align 4, !tbaa !5
  call void @llvm.lifetime.start.p0(ptr %3) #3
  %4 = load i32, ptr %2, align 4, !tbaa !5
  %5 = call i32 @mid(i32 noundef %4) #2
  store i32 %5, ptr %3, align 4, !tbaa !5
  %6 = load i32, ptr %3, align 4, !tbaa !5
  %7 = and i32 %6, 1
  %8 = icmp ne i32 %7, 0
  br i1 %8, label %9, label %14

9:                                                ; preds = %1
  %10 = load i32, ptr %3, align 4, !tbaa !5
  %11 = call i32 @mid(i32 noundef %10) #2
  %12 = load i32, ptr %3, align 4, !tbaa !5
  %13 = add nsw i32 %12, %11
  store i32 %13, ptr %3, align 4, !tbaa !5
  br label %19

14:                                               ; preds = %1
  %15 = load i32, ptr %3, align 4, !tbaa !5
  %16 = call i32 @leaf(i32 noundef %15) #2
  %17 = load i32, ptr %3, align 4, !tbaa !5
  %18 = sub nsw i32 %17, %16
  store i32 %18, ptr %3, align 4, !tbaa !5
  br label %19

19:                                               ; preds = %14, %9
  %20 = load i32, ptr %3, align 4, !tbaa !5
  %21 = load i32, ptr %2, align 4, !tbaa !5
  %22 = add nsw i32 %21, 1
  %23 = call i32 @mid(i32 noundef %22) #2
  %24 = mul nsw i32 %20, %23
  call void @llvm.lifetime.end.p0(ptr %3) #3
  ret i32 %24
}

; Function Attrs: minsize nounwind optsize uwtable
define internal i32 @leaf(i32 noundef %0) #0 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4, !tbaa !5
  %3 = load i32, ptr %2, align 4, !tbaa !5
  %4 = mul nsw i32 %3, 3
  %5 = add nsw i32 %4, 1
  ret i32 %5
}

; Function Attrs: minsize nounwind optsize uwtable
define dso_local i32 @api2(i32 noundef %0) #0 {
  %2 = alloca i32, align 4
  store i32 %0, ptr %2, align 4, !tbaa !5
  %3 = load i32, ptr %2, align 4, !tbaa !5
  %4 = call i32 @mid(i32 noundef %3) #2
  %5 = load i32, ptr %2, align 4, !tbaa !5
  %6 = call i32 @leaf(i32 noundef %5) #2
  %7 = call i32 @big(i32 noundef %6) #2
  %8 = sub nsw i32 %4, %7
  ret i32 %8
}

; Function Attrs: minsize nounwind optsize uwtable
define internal i32 @mid(i32 noundef %0) #0 {
  %2 = alloca i32, align 4
  %3 = alloca i32, align 4
  %4 = alloca i32, align 4
  store i32 %0, ptr %2, align 4, !tbaa !5
  call void @llvm.lifetime.start.p0(ptr %3) #3
  store i32 0, ptr %3, align 4, !tbaa !5
  call void @llvm.lifetime.start.p0(ptr %4) #3
  store i32 0, ptr %4, align 4, !tbaa !5
  br label %5

5:                                                ; preds = %18, %1
  %6 = load i32, ptr %4, align 4, !tbaa !5
  %7 = load i32, ptr %2, align 4, !tbaa !5
  %8 = icmp slt i32 %6, %7
  br i1 %8, label %10, label %9

9:                                                ; preds = %5
  call void @llvm.lifetime.end.p0(ptr %4) #3
  br label %21

10:                                               ; preds = %5
  %11 = load i32, ptr %4, align 4, !tbaa !5
  %12 = call i32 @leaf(i32 noundef %11) #2
  %13 = load i32, ptr %3, align 4, !tbaa !5
  %14 = call i32 @leaf(i32 noundef %13) #2
  %15 = xor i32 %12, %14
  %16 = load i32, ptr %3, align 4, !tbaa !5
  %17 = add nsw i32 %16, %15
  store i32 %17, ptr %3, align 4, !tbaa !5
  br label %18

18:                                               ; preds = %10
  %19 = load i32, ptr %4, align 4, !tbaa !5
  %20 = add nsw i32 %19, 1
  store i32 %20, ptr %4, align 4, !tbaa !5
  br label %5, !llvm.loop !9

21:                                               ; preds = %9
  %22 = load i32, ptr %3, align 4, !tbaa !5
  call void @llvm.lifetime.end.p0(ptr %3) #3
  ret i32 %22
}

; Function Attrs: minsize nounwind optsize uwtable
define dso_local i32 @api3(ptr noundef %0, i32 noundef %1) #0 {
  %3 = alloca ptr, align 8
  %4 = alloca i32, align 4
  %5 = alloca i32, align 4
  %6 = alloca i32, align 4
  store ptr %0, ptr %3, align 8, !tbaa !11
  store i32 %1, ptr %4, align 4, !tbaa !5
  call void @llvm.lifetime.start.p0(ptr %5) #3
  store i32 0, ptr %5, align 4, !tbaa !5
  call void @llvm.lifetime.start.p0(ptr %6) #3
  store i32 0, ptr %6, align 4, !tbaa !5
  br label %7

7:                                                ; preds = %28, %2
  %8 = load i32, ptr %6, align 4, !tbaa !5
  %9 = load i32, ptr %4, align 4, !tbaa !5
  %10 = icmp slt i32 %8, %9
  br i1 %10, label %12, label %11

11:                                               ; preds = %7
  call void @llvm.lifetime.end.p0(ptr %6) #3
  br label %31

12:                                               ; preds = %7
  %13 = load ptr, ptr %3, align 8, !tbaa !11
  %14 = load i32, ptr %6, align 4, !tbaa !5
  %15 = sext i32 %14 to i64
  %16 = getelementptr inbounds i32, ptr %13, i64 %15
  %17 = load i32, ptr %16, align 4, !tbaa !5
  %18 = call i32 @api1(i32 noundef %17) #2
  %19 = load ptr, ptr %3, align 8, !tbaa !11
  %20 = load i32, ptr %6, align 4, !tbaa !5
  %21 = sext i32 %20 to i64
  %22 = getelementptr inbounds i32, ptr %19, i64 %21
  %23 = load i32, ptr %22, align 4, !tbaa !5
  %24 = call i32 @api2(i32 noundef %23) #2
  %25 = add nsw i32 %18, %24
  %26 = load i32, ptr %5, align 4, !tbaa !5
  %27 = add nsw i32 %26, %25
  store i32 %27, ptr %5, align 4, !tbaa !5
  br label %28

28:                                               ; preds = %12
  %29 = load i32, ptr %6, align 4, !tbaa !5
  %30 = add nsw i32 %29, 1
  store i32 %30, ptr %6, align 4, !tbaa !5
  br label %7, !llvm.loop !14

31:                                               ; preds = %11
  %32 = load i32, ptr %5, align 4, !tbaa !5
  call void @llvm.lifetime.end.p0(ptr %5) #3
  ret i32 %32
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #1

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #1

attributes #0 = { minsize nounwind optsize uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { minsize optsize }
attributes #3 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.ident = !{!4}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!4 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!12, !12, i64 0}
!12 = !{!"p1 int", !13, i64 0}
!13 = !{!"any pointer", !7, i64 0}
!14 = distinct !{!14, !10}
