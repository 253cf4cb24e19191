; ModuleID = debug.c (clang-22 -O1 -g)
source_filename = "debug.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.point = type { i32, float }

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local i32 @scale(i32 noundef %0) local_unnamed_addr #0 !dbg !23 {
    #dbg_value(i32 %0, !27, !DIExpression(), !28)
  call void @llvm.pseudoprobe(i64 2563497542905672716, i64 1, i32 0, i64 -1), !dbg !29
  %2 = mul nsw i32 %0, 3, !dbg !30
  ret i32 %2, !dbg !31
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local i32 @sum_points(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #1 !dbg !32 {
    #dbg_value(ptr %0, !42, !DIExpression(), !47)
    #dbg_value(i32 %1, !43, !DIExpression(), !47)
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 1, i32 0, i64 -1), !dbg !48
    #dbg_value(i32 0, !44, !DIExpression(), !47)
    #dbg_value(i32 0, !45, !DIExpression(), !49)
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 2, i32 0, i64 -1), !dbg !50
  %3 = icmp sgt i32 %1, 0, !dbg !52
  br i1 %3, label %4, label %6, !dbg !53

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !54
  br label %8, !dbg !55

6:                                                ; preds = %8, %2
  %7 = phi i32 [ 0, %2 ], [ %17, %8 ], !dbg !47
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 3, i32 0, i64 -1), !dbg !47
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 6, i32 0, i64 -1), !dbg !56
  ret i32 %7, !dbg !57

8:                                                ; preds = %4, %8
  %9 = phi i64 [ 0, %4 ], [ %18, %8 ]
  %10 = phi i32 [ 0, %4 ], [ %17, %8 ]
    #dbg_value(i64 %9, !45, !DIExpression(), !49)
    #dbg_value(i32 %10, !44, !DIExpression(), !47)
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 4, i32 0, i64 -1), !dbg !58
  %11 = getelementptr inbounds nuw %struct.point, ptr %0, i64 %9, !dbg !58
  %12 = load i32, ptr %11, align 4, !dbg !59, !tbaa !60
  %13 = getelementptr inbounds nuw i8, ptr %11, i64 4, !dbg !63
  %14 = load float, ptr %13, align 4, !dbg !63, !tbaa !64
  %15 = fptosi float %14 to i32, !dbg !65
  %16 = mul nsw i32 %12, %15, !dbg !66
  %17 = add nsw i32 %16, %10, !dbg !67
    #dbg_value(i32 %17, !44, !DIExpression(), !47)
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 5, i32 0, i64 -1), !dbg !68
  %18 = add nuw nsw i64 %9, 1, !dbg !69
    #dbg_value(i64 %18, !45, !DIExpression(), !49)
  call void @llvm.pseudoprobe(i64 7088958260269714143, i64 2, i32 0, i64 -1), !dbg !50
  %19 = icmp eq i64 %18, %5, !dbg !54
  br i1 %19, label %6, label %8, !dbg !70, !llvm.loop !71
}

; Function Attrs: nofree norecurse nosync nounwind memory(argmem: read) uwtable
define dso_local float @average(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr #1 !dbg !75 {
    #dbg_value(ptr %0, !81, !DIExpression(), !86)
    #dbg_value(i32 %1, !82, !DIExpression(), !86)
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 1, i32 0, i64 -1), !dbg !87
    #dbg_value(float 0.000000e+00, !83, !DIExpression(), !86)
    #dbg_value(i32 0, !84, !DIExpression(), !88)
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 2, i32 0, i64 -1), !dbg !89
  %3 = icmp sgt i32 %1, 0, !dbg !91
  br i1 %3, label %4, label %6, !dbg !92

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64, !dbg !93
  br label %12, !dbg !94

6:                                                ; preds = %12, %2
  %7 = phi float [ 0.000000e+00, %2 ], [ %17, %12 ], !dbg !86
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 3, i32 0, i64 -1), !dbg !86
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 6, i32 0, i64 -1), !dbg !95
  %8 = icmp eq i32 %1, 0, !dbg !96
  %9 = sitofp i32 %1 to float, !dbg !97
  %10 = fdiv float %7, %9, !dbg !97
  %11 = select i1 %8, float 0.000000e+00, float %10, !dbg !97
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 9, i32 0, i64 -1), !dbg !98
  ret float %11, !dbg !98

12:                                               ; preds = %4, %12
  %13 = phi i64 [ 0, %4 ], [ %18, %12 ]
  %14 = phi float [ 0.000000e+00, %4 ], [ %17, %12 ]
    #dbg_value(i64 %13, !84, !DIExpression(), !88)
    #dbg_value(float %14, !83, !DIExpression(), !86)
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 4, i32 0, i64 -1), !dbg !99
  %15 = getelementptr inbounds nuw float, ptr %0, i64 %13, !dbg !99
  %16 = load float, ptr %15, align 4, !dbg !99, !tbaa !100
  %17 = fadd float %14, %16, !dbg !101
    #dbg_value(float %17, !83, !DIExpression(), !86)
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 5, i32 0, i64 -1), !dbg !102
  %18 = add nuw nsw i64 %13, 1, !dbg !103
    #dbg_value(i64 %18, !84, !DIExpression(), !88)
  call void @llvm.pseudoprobe(i64 -7696218411048425623, i64 2, i32 0, i64 -1), !dbg !89
  %19 = icmp eq i64 %18, %5, !dbg !93
  br i1 %19, label %6, label %12, !dbg !104, !llvm.loop !105
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable
define dso_local i32 @classify(i32 noundef %0) local_unnamed_addr #2 !dbg !107 {
    #dbg_value(i32 %0, !109, !DIExpression(), !110)
  call void @llvm.pseudoprobe(i64 -6761552294068852299, i64 1, i32 0, i64 -1), !dbg !111
  switch i32 %0, label %6 [
    i32 0, label %2
    i32 1, label %4
    i32 2, label %4
    i32 10, label %11
  ], !dbg !112

2:                                                ; preds = %1
  call void @llvm.pseudoprobe(i64 -6761552294068852299, i64 2, i32 0, i64 -1), !dbg !113
  %3 = tail call i32 @scale(i32 noundef 0), !dbg !115
  br label %11, !dbg !117

4:                                                ; preds = %1, %1
  call void @llvm.pseudoprobe(i64 -6761552294068852299, i64 4, i32 0, i64 -1), !dbg !118
  %5 = add nsw i32 %0, 1, !dbg !119
  br label %11, !dbg !120

6:                                                ; preds = %1
  call void @llvm.pseudoprobe(i64 -6761552294068852299, i64 6, i32 0, i64 -1), !dbg !121
  %7 = tail call i32 @scale(i32 noundef %0), !dbg !122
  %8 = add nsw i32 %0, 1, !dbg !124
  %9 = tail call i32 @scale(i32 noundef %8), !dbg !125
  %10 = add nsw i32 %9, %7, !dbg !127
  br label %11, !dbg !128

11:                                               ; preds = %1, %6, %4, %2
  %12 = phi i32 [ %10, %6 ], [ %3, %2 ], [ %5, %4 ], [ -10, %1 ], !dbg !129
  call void @llvm.pseudoprobe(i64 -6761552294068852299, i64 9, i32 0, i64 -1), !dbg !130
  ret i32 %12, !dbg !131
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare void @llvm.pseudoprobe(i64, i64, i32, i64) #3

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!7, !8, !9, !10, !11, !12, !13}
!llvm.ident = !{!14}
!llvm.errno.tbaa = !{!15}
!llvm.pseudo_probe_desc = !{!19, !20, !21, !22}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "Debian clang version 22.1.8 (1~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !2, globals: !4, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "debug.c", directory: "/work/main/tests/data", checksumkind: CSK_MD5, checksum: "2171b213c8cd83aa2820abd8381d8fd9")
!2 = !{!3}
!3 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!4 = !{!5}
!5 = !DIGlobalVariableExpression(var: !6, expr: !DIExpression())
!6 = distinct !DIGlobalVariable(name: "counter", scope: !0, file: !1, line: 3, type: !3, isLocal: true, isDefinition: true)
!7 = !{i32 7, !"Dwarf Version", i32 5}
!8 = !{i32 2, !"Debug Info Version", i32 3}
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
!19 = !{i64 2563497542905672716, i64 4294967295, !"scale"}
!20 = !{i64 7088958260269714143, i64 107105011060, !"sum_points"}
!21 = !{i64 -7696218411048425623, i64 175494392121, !"average"}
!22 = !{i64 -6761552294068852299, i64 844579591056665, !"classify"}
!23 = distinct !DISubprogram(name: "scale", scope: !1, file: !1, line: 5, type: !24, scopeLine: 5, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !26, keyInstructions: true)
!24 = !DISubroutineType(types: !25)
!25 = !{!3, !3}
!26 = !{!27}
!27 = !DILocalVariable(name: "a", arg: 1, scope: !23, file: !1, line: 5, type: !3)
!28 = !DILocation(line: 0, scope: !23)
!29 = !DILocation(line: 5, column: 53, scope: !23)
!30 = !DILocation(line: 5, column: 55, scope: !23, atomGroup: 1, atomRank: 2)
!31 = !DILocation(line: 5, column: 46, scope: !23, atomGroup: 1, atomRank: 1)
!32 = distinct !DISubprogram(name: "sum_points", scope: !1, file: !1, line: 7, type: !33, scopeLine: 7, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !41, keyInstructions: true)
!33 = !DISubroutineType(types: !34)
!34 = !{!3, !35, !3}
!35 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !36, size: 64)
!36 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "point", file: !1, line: 2, size: 64, elements: !37)
!37 = !{!38, !39}
!38 = !DIDerivedType(tag: DW_TAG_member, name: "x", scope: !36, file: !1, line: 2, baseType: !3, size: 32)
!39 = !DIDerivedType(tag: DW_TAG_member, name: "y", scope: !36, file: !1, line: 2, baseType: !40, size: 32, offset: 32)
!40 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!41 = !{!42, !43, !44, !45}
!42 = !DILocalVariable(name: "p", arg: 1, scope: !32, file: !1, line: 7, type: !35)
!43 = !DILocalVariable(name: "n", arg: 2, scope: !32, file: !1, line: 7, type: !3)
!44 = !DILocalVariable(name: "total", scope: !32, file: !1, line: 8, type: !3)
!45 = !DILocalVariable(name: "i", scope: !46, file: !1, line: 9, type: !3)
!46 = distinct !DILexicalBlock(scope: !32, file: !1, line: 9, column: 3)
!47 = !DILocation(line: 0, scope: !32)
!48 = !DILocation(line: 8, column: 7, scope: !32, atomGroup: 1, atomRank: 1)
!49 = !DILocation(line: 0, scope: !46)
!50 = !DILocation(line: 9, column: 19, scope: !51)
!51 = distinct !DILexicalBlock(scope: !46, file: !1, line: 9, column: 3)
!52 = !DILocation(line: 9, column: 21, scope: !51, atomGroup: 11, atomRank: 1)
!53 = !DILocation(line: 9, column: 3, scope: !46, atomGroup: 12, atomRank: 1)
!54 = !DILocation(line: 9, column: 21, scope: !51, atomGroup: 3, atomRank: 1)
!55 = !DILocation(line: 9, column: 3, scope: !46)
!56 = !DILocation(line: 11, column: 13, scope: !32, atomGroup: 8, atomRank: 2)
!57 = !DILocation(line: 12, column: 3, scope: !32, atomGroup: 10, atomRank: 1)
!58 = !DILocation(line: 10, column: 14, scope: !51)
!59 = !DILocation(line: 10, column: 19, scope: !51)
!60 = !{!61, !16, i64 0}
!61 = !{!"point", !16, i64 0, !62, i64 4}
!62 = !{!"float", !17, i64 0}
!63 = !DILocation(line: 10, column: 33, scope: !51)
!64 = !{!61, !62, i64 4}
!65 = !DILocation(line: 10, column: 23, scope: !51)
!66 = !DILocation(line: 10, column: 21, scope: !51)
!67 = !DILocation(line: 10, column: 11, scope: !51, atomGroup: 5, atomRank: 2)
!68 = !DILocation(line: 9, column: 27, scope: !51)
!69 = !DILocation(line: 9, column: 27, scope: !51, atomGroup: 6, atomRank: 2)
!70 = !DILocation(line: 9, column: 3, scope: !46, atomGroup: 4, atomRank: 1)
!71 = distinct !{!71, !55, !72, !73, !74}
!72 = !DILocation(line: 10, column: 33, scope: !46)
!73 = !{!"llvm.loop.mustprogress"}
!74 = !{!"llvm.loop.unroll.disable"}
!75 = distinct !DISubprogram(name: "average", scope: !1, file: !1, line: 15, type: !76, scopeLine: 15, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !80, keyInstructions: true)
!76 = !DISubroutineType(types: !77)
!77 = !{!40, !78, !3}
!78 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !79, size: 64)
!79 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !40)
!80 = !{!81, !82, !83, !84}
!81 = !DILocalVariable(name: "v", arg: 1, scope: !75, file: !1, line: 15, type: !78)
!82 = !DILocalVariable(name: "n", arg: 2, scope: !75, file: !1, line: 15, type: !3)
!83 = !DILocalVariable(name: "s", scope: !75, file: !1, line: 16, type: !40)
!84 = !DILocalVariable(name: "i", scope: !85, file: !1, line: 17, type: !3)
!85 = distinct !DILexicalBlock(scope: !75, file: !1, line: 17, column: 3)
!86 = !DILocation(line: 0, scope: !75)
!87 = !DILocation(line: 16, column: 9, scope: !75, atomGroup: 1, atomRank: 1)
!88 = !DILocation(line: 0, scope: !85)
!89 = !DILocation(line: 17, column: 19, scope: !90)
!90 = distinct !DILexicalBlock(scope: !85, file: !1, line: 17, column: 3)
!91 = !DILocation(line: 17, column: 21, scope: !90, atomGroup: 13, atomRank: 1)
!92 = !DILocation(line: 17, column: 3, scope: !85, atomGroup: 14, atomRank: 1)
!93 = !DILocation(line: 17, column: 21, scope: !90, atomGroup: 3, atomRank: 1)
!94 = !DILocation(line: 17, column: 3, scope: !85)
!95 = !DILocation(line: 19, column: 10, scope: !75)
!96 = !DILocation(line: 19, column: 10, scope: !75, atomGroup: 9, atomRank: 2)
!97 = !DILocation(line: 19, column: 10, scope: !75, atomGroup: 9, atomRank: 1)
!98 = !DILocation(line: 19, column: 3, scope: !75, atomGroup: 10, atomRank: 1)
!99 = !DILocation(line: 18, column: 10, scope: !90)
!100 = !{!62, !62, i64 0}
!101 = !DILocation(line: 18, column: 7, scope: !90, atomGroup: 5, atomRank: 2)
!102 = !DILocation(line: 17, column: 27, scope: !90)
!103 = !DILocation(line: 17, column: 27, scope: !90, atomGroup: 6, atomRank: 2)
!104 = !DILocation(line: 17, column: 3, scope: !85, atomGroup: 4, atomRank: 1)
!105 = distinct !{!105, !94, !106, !73, !74}
!106 = !DILocation(line: 18, column: 13, scope: !85)
!107 = distinct !DISubprogram(name: "classify", scope: !1, file: !1, line: 22, type: !24, scopeLine: 22, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !108, keyInstructions: true)
!108 = !{!109}
!109 = !DILocalVariable(name: "c", arg: 1, scope: !107, file: !1, line: 22, type: !3)
!110 = !DILocation(line: 0, scope: !107)
!111 = !DILocation(line: 23, column: 11, scope: !107, atomGroup: 1, atomRank: 2)
!112 = !DILocation(line: 23, column: 3, scope: !107, atomGroup: 1, atomRank: 1)
!113 = !DILocation(line: 24, column: 24, scope: !114)
!114 = distinct !DILexicalBlock(scope: !107, file: !1, line: 23, column: 14)
!115 = !DILocation(line: 24, column: 18, scope: !116, atomGroup: 2, atomRank: 2)
!116 = !DILexicalBlockFile(scope: !114, file: !1, discriminator: 455082015)
!117 = !DILocation(line: 24, column: 11, scope: !114, atomGroup: 2, atomRank: 1)
!118 = !DILocation(line: 25, column: 26, scope: !114)
!119 = !DILocation(line: 25, column: 28, scope: !114, atomGroup: 3, atomRank: 2)
!120 = !DILocation(line: 25, column: 19, scope: !114, atomGroup: 3, atomRank: 1)
!121 = !DILocation(line: 27, column: 25, scope: !114)
!122 = !DILocation(line: 27, column: 19, scope: !123)
!123 = !DILexicalBlockFile(scope: !114, file: !1, discriminator: 455082047)
!124 = !DILocation(line: 27, column: 38, scope: !114)
!125 = !DILocation(line: 27, column: 30, scope: !126)
!126 = !DILexicalBlockFile(scope: !114, file: !1, discriminator: 455082055)
!127 = !DILocation(line: 27, column: 28, scope: !114, atomGroup: 5, atomRank: 2)
!128 = !DILocation(line: 27, column: 12, scope: !114, atomGroup: 5, atomRank: 1)
!129 = !DILocation(line: 0, scope: !114)
!130 = !DILocation(line: 29, column: 1, scope: !107, atomGroup: 6, atomRank: 2)
!131 = !DILocation(line: 29, column: 1, scope: !107, atomGroup: 6, atomRank: 1)
