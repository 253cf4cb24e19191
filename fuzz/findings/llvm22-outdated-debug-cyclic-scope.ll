; debug.ll with an outdated "Debug Info Version" (2): LLVM drops the debug info on load.
source_filename = "debug.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.point = type { i32, float }

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local i32 @scale(i32 noundef %0) local_unnamed_addr #0 !dbg !19 {
    #dbg_value(i32 %0, !23, !DIExpression(), !24)
  %2 = mul nsw i32 %0, 3, !dbg !25
  ret i32 %2, !dbg !26
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i32 @sum_points(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #1 !dbg !27 {
    #dbg_value(ptr %0, !37, !DIExpression(), !42)
    #dbg_value(i32 %1, !38, !DIExpression(), !42)
    #dbg_value(i32 0, !39, !DIExpression(), !42)
    #dbg_value(i32 0, !40, !DIExpression(), !43)
  %3 = icmp sgt i32 %1, 0, !dbg !44
  br i1 %3, label %4, label %6, !dbg !46

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !47
  br label %8, !dbg !48

6:                                                ; preds = %8, %2
  %7 = phi i32 [ 0, %2 ], [ %17, %8 ], !dbg !42
  ret i32 %7, !dbg !49

8:                                                ; preds = %4, %8
  %9 = phi i64 [ 0, %4 ], [ %18, %8 ]
  %10 = phi i32 [ 0, %4 ], [ %17, %8 ]
    #dbg_value(i64 %9, !40, !DIExpression(), !43)
    #dbg_value(i32 %10, !39, !DIExpression(), !42)
  %11 = getelementptr inbounds nuw %struct.point, ptr %0, i64 %9, !dbg !50
  %12 = load i32, ptr %11, align 4, !dbg !51, !tbaa !52
  %13 = getelementptr inbounds nuw i8, ptr %11, i64 4, !dbg !55
  %14 = load float, ptr %13, align 4, !dbg !55, !tbaa !56
  %15 = fptosi float %14 to i32, !dbg !57
  %16 = mul nsw i32 %12, %15, !dbg !58
  %17 = add nsw i32 %16, %10, !dbg !59
    #dbg_value(i32 %17, !39, !DIExpression(), !42)
  %18 = add nuw nsw i64 %9, 1, !dbg !60
    #dbg_value(i64 %18, !40, !DIExpression(), !43)
  %19 = icmp eq i64 %18, %5, !dbg !47
  br i1 %19, label %6, label %8, !dbg !61, !llvm.loop !62
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local float @average(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #1 !dbg !66 {
    #dbg_value(ptr %0, !72, !DIExpression(), !77)
    #dbg_value(i32 %1, !73, !DIExpression(), !77)
    #dbg_value(float 0.000000e+00, !74, !DIExpression(), !77)
    #dbg_value(i32 0, !75, !DIExpression(), !78)
  %3 = icmp sgt i32 %1, 0, !dbg !79
  br i1 %3, label %4, label %6, !dbg !81

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !82
  br label %12, !dbg !83

6:                                                ; preds = %12, %2
  %7 = phi float [ 0.000000e+00, %2 ], [ %17, %12 ], !dbg !77
  %8 = icmp eq i32 %1, 0, !dbg !84
  %9 = sitofp i32 %1 to float, !dbg !85
  %10 = fdiv float %7, %9, !dbg !85
  %11 = select i1 %8, float 0.000000e+00, float %10, !dbg !85
  ret float %11, !dbg !86

12:                                               ; preds = %4, %12
  %13 = phi i64 [ 0, %4 ], [ %18, %12 ]
  %14 = phi float [ 0.000000e+00, %4 ], [ %17, %12 ]
    #dbg_value(i64 %13, !75, !DIExpression(), !78)
    #dbg_value(float %14, !74, !DIExpression(), !77)
  %15 = getelementptr inbounds nuw float, ptr %0, i64 %13, !dbg !87
  %16 = load float, ptr %15, align 4, !dbg !87, !tbaa !88
  %17 = fadd float %14, %16, !dbg !89
    #dbg_value(float %17, !74, !DIExpression(), !77)
  %18 = add nuw nsw i64 %13, 1, !dbg !90
    #dbg_value(i64 %18, !75, !DIExpression(), !78)
  %19 = icmp eq i64 %18, %5, !dbg !82
  br i1 %19, label %6, label %12, !dbg !91, !llvm.loop !92
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local i32 @classify(i32 noundef %0) local_unnamed_addr #2 !dbg !94 {
    #dbg_value(i32 %0, !96, !DIExpression(), !97)
  switch i32 %0, label %6 [
    i32 0, label %2
    i32 1, label %4
    i32 2, label %4
    i32 10, label %11
  ], !dbg !98

2:                                                ; preds = %1
  %3 = tail call i32 @scale(i32 noundef 0), !dbg !99
  br label %11, !dbg !101

4:                                                ; preds = %1, %1
  %5 = add nsw i32 %0, 1, !dbg !102
  br label %11, !dbg !103

6:                                                ; preds = %1
  %7 = tail call i32 @scale(i32 noundef %0), !dbg !104
  %8 = add nsw i32 %0, 1, !dbg !105
  %9 = tail call i32 @scale(i32 noundef %8), !dbg !106
  %10 = add nsw i32 %9, %7, !dbg !107
  br label %11, !dbg !108

11:                                               ; preds = %1, %6, %4, %2
  %12 = phi i32 [ %10, %6 ], [ %3, %2 ], [ %5, %4 ], [ -10, %1 ], !dbg !109
  ret i32 %12, !dbg !110
}

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!7, !8, !9, !10, !11, !12, !13}
!llvm.ident = !{!14}
!llvm.errno.tbaa = !{!15}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 22.1.8 (1~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !2, globals: !4, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "debug.c", directory: "/work/main/tests/data", checksumkind: CSK_MD5, checksum: "2171b213c8cd83aa2820abd8381d8fd9")
!2 = !{!3}
!3 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!4 = !{!5}
!5 = !DIGlobalVariableExpression(var: !6, expr: !DIExpression())
!6 = distinct !DIGlobalVariable(name: "counter", scope: !0, file: !1, line: 3, type: !3, isLocal: true, isDefinition: true)
!7 = !{i32 7, !"Dwarf Version", i32 5}
!8 = !{i32 2, !"Debug Info Version", i32 2}
!9 = !{i32 1, !"wchar_size", i32 4}
!10 = !{i32 8, !"PIC Level", i32 2}
!11 = !{i32 7, !"PIE Level", i32 2}
!12 = !{i32 7, !"uwtable", i32 2}
!13 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!14 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!15 = !{!16, !16, i64 0}
!16 = !{!"int", !17, i64 0}
!17 = !{!"omnipotent char", !18, i64 0}
!18 = !{!"Simple C/C++ TBAA"}
!19 = distinct !DISubprogram(name: "scale", scope: !1, file: !1, line: 5, type: !20, scopeLine: 5, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !22, keyInstructions: true)
!20 = !DISubroutineType(types: !21)
!21 = !{!3, !3}
!22 = !{!23}
!23 = !DILocalVariable(name: "a", arg: 1, scope: !19, file: !1, line: 5, type: !3)
!24 = !DILocation(line: 0, scope: !19)
!25 = !DILocation(line: 5, column: 55, scope: !19, atomGroup: 1, atomRank: 2)
!26 = !DILocation(line: 5, column: 46, scope: !19, atomGroup: 1, atomRank: 1)
!27 = distinct !DISubprogram(name: "sum_points", scope: !1, file: !1, line: 7, type: !28, scopeLine: 7, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !36, keyInstructions: true)
!28 = !DISubroutineType(types: !29)
!29 = !{!3, !30, !3}
!30 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !31, size: 64)
!31 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "point", file: !1, line: 2, size: 64, elements: !32)
!32 = !{!33, !34}
!33 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !31, file: !1, line: 2, baseType: !3, size: 32)
!34 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !31, file: !1, line: 2, baseType: !35, size: 32, offset: 32)
!35 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!36 = !{!37, !38, !39, !40}
!37 = !DILocalVariable(name: "p", arg: 1, scope: !27, file: !1, line: 7, type: !30)
!38 = !DILocalVariable(name: "n", arg: 2, scope: !27, file: !1, line: 7, type: !3)
!39 = !DILocalVariable(name: "total", scope: !27, file: !1, line: 8, type: !3)
!40 = !DILocalVariable(name: "i", scope: !41, file: !1, line: 9, type: !3)
!41 = distinct !DILexicalBlock(scope: !27, file: !1, line: 9, column: 3)
!42 = !DILocation(line: 0, scope: !27)
!43 = !DILocation(line: 0, scope: !41)
!44 = !DILocation(line: 9, column: 21, scope: !45, atomGroup: 11, atomRank: 1)
!45 = distinct !DILexicalBlock(scope: !41, file: !1, line: 9, column: 3)
!46 = !DILocation(line: 9, column: 3, scope: !41, atomGroup: 12, atomRank: 1)
!47 = !DILocation(line: 9, column: 21, scope: !45, atomGroup: 3, atomRank: 1)
!48 = !DILocation(line: 9, column: 3, scope: !41)
!49 = !DILocation(line: 12, column: 3, scope: !27, atomGroup: 10, atomRank: 1)
!50 = !DILocation(line: 10, column: 14, scope: !45)
!51 = !DILocation(line: 10, column: 19, scope: !45)
!52 = !{!53, !16, i64 0}
!53 = !{!"point", !16, i64 0, !54, i64 4}
!54 = !{!"float", !17, i64 0}
!55 = !DILocation(line: 10, column: 33, scope: !45)
!56 = !{!53, !54, i64 4}
!57 = !DILocation(line: 10, column: 23, scope: !45)
!58 = !DILocation(line: 10, column: 21, scope: !45)
!59 = !DILocation(line: 10, column: 11, scope: !45, atomGroup: 5, atomRank: 2)
!60 = !DILocation(line: 9, column: 27, scope: !45, atomGroup: 6, atomRank: 2)
!61 = !DILocation(line: 9, column: 3, scope: !41, atomGroup: 4, atomRank: 1)
!62 = distinct !{!62, !48, !63, !64, !65}
!63 = !DILocation(line: 10, column: 33, scope: !41)
!64 = !{!"llvm.loop.mustprogress"}
!65 = !{!"llvm.loop.unroll.disable"}
!66 = distinct !DISubprogram(name: "average", scope: !1, file: !1, line: 15, type: !67, scopeLine: 15, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !71, keyInstructions: true)
!67 = !DISubroutineType(types: !68)
!68 = !{!35, !69, !3}
!69 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !70, size: 64)
!70 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !35)
!71 = !{!72, !73, !74, !75}
!72 = !DILocalVariable(name: "v", arg: 1, scope: !66, file: !1, line: 15, type: !69)
!73 = !DILocalVariable(name: "n", arg: 2, scope: !66, file: !1, line: 15, type: !3)
!74 = !DILocalVariable(name: "s", scope: !66, file: !1, line: 16, type: !35)
!75 = !DILocalVariable(name: "i", scope: !76, file: !1, line: 17, type: !3)
!76 = distinct !DILexicalBlock(scope: !80, file: !1, line: 17, column: 3)
!77 = !DILocation(line: 0, scope: !66)
!78 = !DILocation(line: 0, scope: !76)
!79 = !DILocation(line: 17, column: 21, scope: !80, atomGroup: 13, atomRank: 1)
!80 = distinct !DILexicalBlock(scope: !76, file: !1, line: 17, column: 3)
!81 = !DILocation(line: 17, column: 3, scope: !76, atomGroup: 14, atomRank: 1)
!82 = !DILocation(line: 17, column: 21, scope: !80, atomGroup: 3, atomRank: 1)
!83 = !DILocation(line: 17, column: 3, scope: !76)
!84 = !DILocation(line: 19, column: 10, scope: !66, atomGroup: 9, atomRank: 2)
!85 = !DILocation(line: 19, column: 10, scope: !66, atomGroup: 9, atomRank: 1)
!86 = !DILocation(line: 19, column: 3, scope: !66, atomGroup: 10, atomRank: 1)
!87 = !DILocation(line: 18, column: 10, scope: !80)
!88 = !{!54, !54, i64 0}
!89 = !DILocation(line: 18, column: 7, scope: !80, atomGroup: 5, atomRank: 2)
!90 = !DILocation(line: 17, column: 27, scope: !80, atomGroup: 6, atomRank: 2)
!91 = !DILocation(line: 17, column: 3, scope: !76, atomGroup: 4, atomRank: 1)
!92 = distinct !{!92, !83, !93, !64, !65}
!93 = !DILocation(line: 18, column: 13, scope: !76)
!94 = distinct !DISubprogram(name: "classify", scope: !1, file: !1, line: 22, type: !20, scopeLine: 22, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !95, keyInstructions: true)
!95 = !{!96}
!96 = !DILocalVariable(name: "c", arg: 1, scope: !94, file: !1, line: 22, type: !3)
!97 = !DILocation(line: 0, scope: !94)
!98 = !DILocation(line: 23, column: 3, scope: !94, atomGroup: 1, atomRank: 1)
!99 = !DILocation(line: 24, column: 18, scope: !100, atomGroup: 2, atomRank: 2)
!100 = distinct !DILexicalBlock(scope: !94, file: !1, line: 23, column: 14)
!101 = !DILocation(line: 24, column: 11, scope: !100, atomGroup: 2, atomRank: 1)
!102 = !DILocation(line: 25, column: 28, scope: !100, atomGroup: 3, atomRank: 2)
!103 = !DILocation(line: 25, column: 19, scope: !100, atomGroup: 3, atomRank: 1)
!104 = !DILocation(line: 27, column: 19, scope: !100)
!105 = !DILocation(line: 27, column: 38, scope: !100)
!106 = !DILocation(line: 27, column: 30, scope: !100)
!107 = !DILocation(line: 27, column: 28, scope: !100, atomGroup: 5, atomRank: 2)
!108 = !DILocation(line: 27, column: 12, scope: !100, atomGroup: 5, atomRank: 1)
!109 = !DILocation(line: 0, scope: !100)
!110 = !DILocation(line: 29, column: 1, scope: !94, atomGroup: 6, atomRank: 1)
