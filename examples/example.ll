; ModuleID = example.c (clang-22 -O1)
source_filename = "example.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.item = type { ptr, double, i32 }

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i32 @hash(ptr noundef readonly captures(none) %0) local_unnamed_addr #0 {
  %2 = load i8, ptr %0, align 1, !tbaa !9
  %3 = icmp eq i8 %2, 0
  br i1 %3, label %14, label %4

4:                                                ; preds = %1, %4
  %5 = phi i8 [ %12, %4 ], [ %2, %1 ]
  %6 = phi i32 [ %11, %4 ], [ 5381, %1 ]
  %7 = phi ptr [ %9, %4 ], [ %0, %1 ]
  %8 = mul i32 %6, 33
  %9 = getelementptr inbounds nuw i8, ptr %7, i64 1
  %10 = zext i8 %5 to i32
  %11 = xor i32 %8, %10
  %12 = load i8, ptr %9, align 1, !tbaa !9
  %13 = icmp eq i8 %12, 0
  br i1 %13, label %14, label %4, !llvm.loop !10

14:                                               ; preds = %4, %1
  %15 = phi i32 [ 5381, %1 ], [ %11, %4 ]
  ret i32 %15
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local double @total(ptr noundef readonly captures(none) %0, i64 noundef %1) local_unnamed_addr #0 {
  %3 = icmp eq i64 %1, 0
  br i1 %3, label %4, label %6

4:                                                ; preds = %18, %2
  %5 = phi double [ 0.000000e+00, %2 ], [ %19, %18 ]
  ret double %5

6:                                                ; preds = %2, %18
  %7 = phi i64 [ %20, %18 ], [ 0, %2 ]
  %8 = phi double [ %19, %18 ], [ 0.000000e+00, %2 ]
  %9 = getelementptr inbounds nuw %struct.item, ptr %0, i64 %7
  %10 = getelementptr inbounds nuw i8, ptr %9, i64 16
  %11 = load i32, ptr %10, align 8, !tbaa !13
  %12 = icmp sgt i32 %11, 0
  br i1 %12, label %13, label %18

13:                                               ; preds = %6
  %14 = getelementptr inbounds nuw i8, ptr %9, i64 8
  %15 = load double, ptr %14, align 8, !tbaa !18
  %16 = uitofp nneg i32 %11 to double
  %17 = tail call double @llvm.fmuladd.f64(double %15, double %16, double %8)
  br label %18

18:                                               ; preds = %6, %13
  %19 = phi double [ %17, %13 ], [ %8, %6 ]
  %20 = add nuw i64 %7, 1
  %21 = icmp eq i64 %20, %1
  br i1 %21, label %4, label %6, !llvm.loop !19
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #1

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @insertion_sort(ptr noundef captures(none) %0, i32 noundef %1) local_unnamed_addr #2 {
  %3 = icmp sgt i32 %1, 1
  br i1 %3, label %4, label %6

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64
  br label %7

6:                                                ; preds = %20, %2
  ret void

7:                                                ; preds = %4, %20
  %8 = phi i64 [ 1, %4 ], [ %25, %20 ]
  %9 = getelementptr inbounds nuw i32, ptr %0, i64 %8
  %10 = load i32, ptr %9, align 4, !tbaa !5
  br label %11

11:                                               ; preds = %7, %17
  %12 = phi i64 [ %8, %7 ], [ %13, %17 ]
  %13 = add nsw i64 %12, -1
  %14 = getelementptr inbounds nuw i32, ptr %0, i64 %13
  %15 = load i32, ptr %14, align 4, !tbaa !5
  %16 = icmp sgt i32 %15, %10
  br i1 %16, label %17, label %20

17:                                               ; preds = %11
  %18 = getelementptr inbounds nuw i32, ptr %0, i64 %12
  store i32 %15, ptr %18, align 4, !tbaa !5
  %19 = icmp sgt i64 %12, 1
  br i1 %19, label %11, label %20, !llvm.loop !20

20:                                               ; preds = %17, %11
  %21 = phi i64 [ 0, %17 ], [ %12, %11 ]
  %22 = shl i64 %21, 32
  %23 = ashr exact i64 %22, 30
  %24 = getelementptr inbounds i8, ptr %0, i64 %23
  store i32 %10, ptr %24, align 4, !tbaa !5
  %25 = add nuw nsw i64 %8, 1
  %26 = icmp eq i64 %25, %5
  br i1 %26, label %6, label %7, !llvm.loop !21
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local range(i32 -1, 3) i32 @classify(i32 noundef %0) local_unnamed_addr #3 {
  switch i32 %0, label %3 [
    i32 32, label %6
    i32 9, label %6
    i32 10, label %6
    i32 48, label %2
    i32 49, label %2
    i32 50, label %2
    i32 51, label %2
    i32 52, label %2
    i32 53, label %2
    i32 54, label %2
    i32 55, label %2
    i32 56, label %2
    i32 57, label %2
  ]

2:                                                ; preds = %1, %1, %1, %1, %1, %1, %1, %1, %1, %1
  br label %6

3:                                                ; preds = %1
  %4 = icmp sgt i32 %0, -1
  %5 = select i1 %4, i32 2, i32 -1
  br label %6

6:                                                ; preds = %1, %1, %1, %3, %2
  %7 = phi i32 [ %5, %3 ], [ 1, %2 ], [ 0, %1 ], [ 0, %1 ], [ 0, %1 ]
  ret i32 %7
}

attributes #0 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

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
!9 = !{!7, !7, i64 0}
!10 = distinct !{!10, !11, !12}
!11 = !{!"llvm.loop.mustprogress"}
!12 = !{!"llvm.loop.unroll.disable"}
!13 = !{!14, !6, i64 16}
!14 = !{!"item", !15, i64 0, !17, i64 8, !6, i64 16}
!15 = !{!"p1 omnipotent char", !16, i64 0}
!16 = !{!"any pointer", !7, i64 0}
!17 = !{!"double", !7, i64 0}
!18 = !{!14, !17, i64 8}
!19 = distinct !{!19, !11, !12}
!20 = distinct !{!20, !11, !12}
!21 = distinct !{!21, !11, !12}
