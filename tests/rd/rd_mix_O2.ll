; ModuleID = 'tests/data/rd_mix.c'
source_filename = "tests/data/rd_mix.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@counter = dso_local local_unnamed_addr global i32 0, align 4

; Function Attrs: nofree nosync nounwind memory(none) uwtable
define dso_local i32 @fib(i32 noundef %0) local_unnamed_addr #0 {
  %2 = icmp slt i32 %0, 2
  br i1 %2, label %11, label %3

3:                                                ; preds = %1, %3
  %4 = phi i32 [ %8, %3 ], [ %0, %1 ]
  %5 = phi i32 [ %9, %3 ], [ 0, %1 ]
  %6 = add nsw i32 %4, -1
  %7 = tail call i32 @fib(i32 noundef %6)
  %8 = add nsw i32 %4, -2
  %9 = add nsw i32 %7, %5
  %10 = icmp samesign ult i32 %4, 4
  br i1 %10, label %11, label %3

11:                                               ; preds = %3, %1
  %12 = phi i32 [ 0, %1 ], [ %9, %3 ]
  %13 = phi i32 [ %0, %1 ], [ %8, %3 ]
  %14 = add nsw i32 %13, %12
  ret i32 %14
}

; Function Attrs: nofree norecurse nosync nounwind memory(none) uwtable
define dso_local range(i32 0, 2) i32 @is_even(i32 noundef %0) local_unnamed_addr #1 {
  br label %2

2:                                                ; preds = %4, %1
  %3 = phi i32 [ %0, %1 ], [ %5, %4 ]
  switch i32 %3, label %4 [
    i32 0, label %6
    i32 1, label %7
  ]

4:                                                ; preds = %2
  %5 = add nsw i32 %3, -2
  br label %2

6:                                                ; preds = %2
  br label %7

7:                                                ; preds = %2, %6
  %8 = phi i32 [ 1, %6 ], [ 0, %2 ]
  ret i32 %8
}

; Function Attrs: nofree norecurse nosync nounwind memory(none) uwtable
define dso_local range(i32 0, 2) i32 @is_odd(i32 noundef %0) local_unnamed_addr #1 {
  %2 = icmp eq i32 %0, 0
  br i1 %2, label %10, label %3

3:                                                ; preds = %1
  %4 = add nsw i32 %0, -1
  br label %5

5:                                                ; preds = %7, %3
  %6 = phi i32 [ %4, %3 ], [ %8, %7 ]
  switch i32 %6, label %7 [
    i32 0, label %10
    i32 1, label %9
  ]

7:                                                ; preds = %5
  %8 = add nsw i32 %6, -2
  br label %5

9:                                                ; preds = %5
  br label %10

10:                                               ; preds = %5, %9, %1
  %11 = phi i32 [ 0, %1 ], [ 0, %9 ], [ 1, %5 ]
  ret i32 %11
}

; Function Attrs: nofree norecurse nosync nounwind memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define dso_local i32 @sum(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #2 {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %30

4:                                                ; preds = %2
  %5 = load i32, ptr @counter, align 4
  %6 = zext nneg i32 %1 to i64
  %7 = and i64 %6, 1
  %8 = icmp eq i32 %1, 1
  br i1 %8, label %13, label %9

9:                                                ; preds = %4
  %10 = and i64 %6, 2147483646
  br label %32

11:                                               ; preds = %56
  %12 = icmp eq i64 %7, 0
  br i1 %12, label %26, label %13

13:                                               ; preds = %11, %4
  %14 = phi i64 [ 0, %4 ], [ %59, %11 ]
  %15 = phi i32 [ 0, %4 ], [ %51, %11 ]
  %16 = phi i32 [ 0, %4 ], [ %58, %11 ]
  %17 = phi i32 [ %5, %4 ], [ %57, %11 ]
  %18 = icmp ne i64 %7, 0
  tail call void @llvm.assume(i1 %18)
  %19 = getelementptr inbounds nuw i32, ptr %0, i64 %14
  %20 = load i32, ptr %19, align 4, !tbaa !5
  %21 = add nsw i32 %20, %15
  %22 = icmp sgt i32 %20, 3
  br i1 %22, label %23, label %26

23:                                               ; preds = %13
  %24 = add nsw i32 %16, 1
  %25 = add nsw i32 %17, 1
  store i32 %25, ptr @counter, align 4, !tbaa !5
  br label %26

26:                                               ; preds = %13, %23, %11
  %27 = phi i32 [ %58, %11 ], [ %24, %23 ], [ %16, %13 ]
  %28 = phi i32 [ %51, %11 ], [ %21, %23 ], [ %21, %13 ]
  %29 = add nsw i32 %28, %27
  br label %30

30:                                               ; preds = %26, %2
  %31 = phi i32 [ 0, %2 ], [ %29, %26 ]
  ret i32 %31

32:                                               ; preds = %56, %9
  %33 = phi i64 [ 0, %9 ], [ %59, %56 ]
  %34 = phi i32 [ 0, %9 ], [ %51, %56 ]
  %35 = phi i32 [ 0, %9 ], [ %58, %56 ]
  %36 = phi i32 [ %5, %9 ], [ %57, %56 ]
  %37 = phi i64 [ 0, %9 ], [ %60, %56 ]
  %38 = getelementptr inbounds nuw i32, ptr %0, i64 %33
  %39 = load i32, ptr %38, align 4, !tbaa !5
  %40 = add nsw i32 %39, %34
  %41 = icmp sgt i32 %39, 3
  br i1 %41, label %42, label %45

42:                                               ; preds = %32
  %43 = add nsw i32 %35, 1
  %44 = add nsw i32 %36, 1
  store i32 %44, ptr @counter, align 4, !tbaa !5
  br label %45

45:                                               ; preds = %32, %42
  %46 = phi i32 [ %44, %42 ], [ %36, %32 ]
  %47 = phi i32 [ %43, %42 ], [ %35, %32 ]
  %48 = getelementptr inbounds nuw i32, ptr %0, i64 %33
  %49 = getelementptr inbounds nuw i8, ptr %48, i64 4
  %50 = load i32, ptr %49, align 4, !tbaa !5
  %51 = add nsw i32 %50, %40
  %52 = icmp sgt i32 %50, 3
  br i1 %52, label %53, label %56

53:                                               ; preds = %45
  %54 = add nsw i32 %47, 1
  %55 = add nsw i32 %46, 1
  store i32 %55, ptr @counter, align 4, !tbaa !5
  br label %56

56:                                               ; preds = %53, %45
  %57 = phi i32 [ %55, %53 ], [ %46, %45 ]
  %58 = phi i32 [ %54, %53 ], [ %47, %45 ]
  %59 = add nuw nsw i64 %33, 2
  %60 = add i64 %37, 2
  %61 = icmp eq i64 %60, %10
  br i1 %61, label %11, label %32, !llvm.loop !9
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable
define dso_local void @sort(ptr noundef captures(none) %0, i32 noundef %1) local_unnamed_addr #3 {
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
  br i1 %19, label %11, label %20, !llvm.loop !11

20:                                               ; preds = %17, %11
  %21 = phi i64 [ 0, %17 ], [ %12, %11 ]
  %22 = shl i64 %21, 32
  %23 = ashr exact i64 %22, 30
  %24 = getelementptr inbounds i8, ptr %0, i64 %23
  store i32 %10, ptr %24, align 4, !tbaa !5
  %25 = add nuw nsw i64 %8, 1
  %26 = icmp eq i64 %25, %5
  br i1 %26, label %6, label %7, !llvm.loop !12
}

; Function Attrs: nofree nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable
define dso_local i32 @run(ptr noundef captures(none) %0, i32 noundef %1) local_unnamed_addr #4 {
  %3 = icmp sgt i32 %1, 1
  br i1 %3, label %4, label %26

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64
  br label %6

6:                                                ; preds = %19, %4
  %7 = phi i64 [ 1, %4 ], [ %24, %19 ]
  %8 = getelementptr inbounds nuw i32, ptr %0, i64 %7
  %9 = load i32, ptr %8, align 4, !tbaa !5
  br label %10

10:                                               ; preds = %16, %6
  %11 = phi i64 [ %7, %6 ], [ %12, %16 ]
  %12 = add nsw i64 %11, -1
  %13 = getelementptr inbounds nuw i32, ptr %0, i64 %12
  %14 = load i32, ptr %13, align 4, !tbaa !5
  %15 = icmp sgt i32 %14, %9
  br i1 %15, label %16, label %19

16:                                               ; preds = %10
  %17 = getelementptr inbounds nuw i32, ptr %0, i64 %11
  store i32 %14, ptr %17, align 4, !tbaa !5
  %18 = icmp sgt i64 %11, 1
  br i1 %18, label %10, label %19, !llvm.loop !11

19:                                               ; preds = %16, %10
  %20 = phi i64 [ 0, %16 ], [ %11, %10 ]
  %21 = shl i64 %20, 32
  %22 = ashr exact i64 %21, 30
  %23 = getelementptr inbounds i8, ptr %0, i64 %22
  store i32 %9, ptr %23, align 4, !tbaa !5
  %24 = add nuw nsw i64 %7, 1
  %25 = icmp eq i64 %24, %5
  br i1 %25, label %26, label %6, !llvm.loop !12

26:                                               ; preds = %19, %2
  %27 = icmp sgt i32 %1, 0
  br i1 %27, label %28, label %84

28:                                               ; preds = %26
  %29 = load i32, ptr @counter, align 4
  %30 = zext nneg i32 %1 to i64
  %31 = and i64 %30, 1
  %32 = icmp eq i32 %1, 1
  br i1 %32, label %37, label %33

33:                                               ; preds = %28
  %34 = and i64 %30, 2147483646
  br label %54

35:                                               ; preds = %78
  %36 = icmp eq i64 %31, 0
  br i1 %36, label %50, label %37

37:                                               ; preds = %35, %28
  %38 = phi i64 [ 0, %28 ], [ %81, %35 ]
  %39 = phi i32 [ 0, %28 ], [ %73, %35 ]
  %40 = phi i32 [ 0, %28 ], [ %80, %35 ]
  %41 = phi i32 [ %29, %28 ], [ %79, %35 ]
  %42 = icmp ne i64 %31, 0
  tail call void @llvm.assume(i1 %42)
  %43 = getelementptr inbounds nuw i32, ptr %0, i64 %38
  %44 = load i32, ptr %43, align 4, !tbaa !5
  %45 = add nsw i32 %44, %39
  %46 = icmp sgt i32 %44, 3
  br i1 %46, label %47, label %50

47:                                               ; preds = %37
  %48 = add nsw i32 %40, 1
  %49 = add nsw i32 %41, 1
  store i32 %49, ptr @counter, align 4, !tbaa !5
  br label %50

50:                                               ; preds = %37, %47, %35
  %51 = phi i32 [ %80, %35 ], [ %48, %47 ], [ %40, %37 ]
  %52 = phi i32 [ %73, %35 ], [ %45, %47 ], [ %45, %37 ]
  %53 = add nsw i32 %51, %52
  br label %84

54:                                               ; preds = %78, %33
  %55 = phi i64 [ 0, %33 ], [ %81, %78 ]
  %56 = phi i32 [ 0, %33 ], [ %73, %78 ]
  %57 = phi i32 [ 0, %33 ], [ %80, %78 ]
  %58 = phi i32 [ %29, %33 ], [ %79, %78 ]
  %59 = phi i64 [ 0, %33 ], [ %82, %78 ]
  %60 = getelementptr inbounds nuw i32, ptr %0, i64 %55
  %61 = load i32, ptr %60, align 4, !tbaa !5
  %62 = add nsw i32 %61, %56
  %63 = icmp sgt i32 %61, 3
  br i1 %63, label %64, label %67

64:                                               ; preds = %54
  %65 = add nsw i32 %57, 1
  %66 = add nsw i32 %58, 1
  store i32 %66, ptr @counter, align 4, !tbaa !5
  br label %67

67:                                               ; preds = %64, %54
  %68 = phi i32 [ %66, %64 ], [ %58, %54 ]
  %69 = phi i32 [ %65, %64 ], [ %57, %54 ]
  %70 = getelementptr inbounds nuw i32, ptr %0, i64 %55
  %71 = getelementptr inbounds nuw i8, ptr %70, i64 4
  %72 = load i32, ptr %71, align 4, !tbaa !5
  %73 = add nsw i32 %72, %62
  %74 = icmp sgt i32 %72, 3
  br i1 %74, label %75, label %78

75:                                               ; preds = %67
  %76 = add nsw i32 %69, 1
  %77 = add nsw i32 %68, 1
  store i32 %77, ptr @counter, align 4, !tbaa !5
  br label %78

78:                                               ; preds = %75, %67
  %79 = phi i32 [ %77, %75 ], [ %68, %67 ]
  %80 = phi i32 [ %76, %75 ], [ %69, %67 ]
  %81 = add nuw nsw i64 %55, 2
  %82 = add i64 %59, 2
  %83 = icmp eq i64 %82, %34
  br i1 %83, label %35, label %54, !llvm.loop !9

84:                                               ; preds = %26, %50
  %85 = phi i32 [ 0, %26 ], [ %53, %50 ]
  %86 = tail call i32 @fib(i32 noundef %1)
  br label %87

87:                                               ; preds = %89, %84
  %88 = phi i32 [ %1, %84 ], [ %90, %89 ]
  switch i32 %88, label %89 [
    i32 0, label %92
    i32 1, label %91
  ]

89:                                               ; preds = %87
  %90 = add nsw i32 %88, -2
  br label %87

91:                                               ; preds = %87
  br label %92

92:                                               ; preds = %87, %91
  %93 = phi i32 [ 0, %91 ], [ 1, %87 ]
  %94 = add nsw i32 %86, %85
  %95 = add nsw i32 %94, %93
  %96 = load i32, ptr @counter, align 4, !tbaa !5
  %97 = add nsw i32 %95, %96
  ret i32 %97
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #5

attributes #0 = { nofree nosync nounwind memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree norecurse nosync nounwind memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree norecurse nosync nounwind memory(readwrite, argmem: read, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nofree norecurse nosync nounwind memory(argmem: readwrite) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nofree nosync nounwind memory(readwrite, inaccessiblemem: none, target_mem0: none, target_mem1: none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

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
!11 = distinct !{!11, !10}
!12 = distinct !{!12, !10}
