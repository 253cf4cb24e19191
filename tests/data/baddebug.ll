; Valid IR whose debug info is invalid (a DILocation scope that is not a local scope):
; LLVM drops the debug info on load and warns.
define i32 @f(i32 %a) !dbg !4 {
  %b = add i32 %a, 1, !dbg !7
  ret i32 %b, !dbg !8
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "x.c", directory: "/")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, unit: !0, spFlags: DISPFlagDefinition)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!7 = !DILocation(line: 2, scope: !1)
!8 = !DILocation(line: 3, scope: !4)
