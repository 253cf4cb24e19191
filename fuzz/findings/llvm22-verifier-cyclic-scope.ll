; Two lexical blocks that are each other's scope. LLVM 22's verifier follows the chain up to
; the subprogram (DILocalScope::getSubprogram) without a bound and loops for ever: opt-22
; hangs on this module. Reduced from an input of fuzz_ir (docs/robustness.md).
define void @f() !dbg !4 {
  ret void, !dbg !8
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "a.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, spFlags: DISPFlagDefinition, unit: !0)
!5 = !DISubroutineType(types: !{null})
!6 = distinct !DILexicalBlock(scope: !7, file: !1, line: 2)
!7 = distinct !DILexicalBlock(scope: !6, file: !1, line: 3)
!8 = !DILocation(line: 2, scope: !6)
