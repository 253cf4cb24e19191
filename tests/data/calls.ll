; Direct, indirect, intrinsic, inline-asm and varargs calls; operand bundles; functions and
; globals passed as arguments; metadata operands (MDNode and MDString); call attribute groups.
@g = global i32 0
@arr = global [4 x i32] zeroinitializer
@alias = alias i32, ptr @g

declare void @sink(ptr)
declare i32 @takes_fn(ptr, i32)
declare i32 @vf(i32, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare i64 @llvm.read_register.i64(metadata)
declare i1 @llvm.type.test(ptr, metadata)
declare void @llvm.experimental.noalias.scope.decl(metadata)
declare i32 @llvm.smax.i32(i32, i32)
declare void @llvm.assume(i1)

define i32 @callee(i32 %x) #0 {
  ret i32 %x
}

define i32 @caller(ptr %fp, ptr %dst, ptr %src, i32 %n) {
entry:
  %a = call i32 %fp(i32 %n)
  %b = call i32 @takes_fn(ptr @callee, i32 %a) #1
  %c = call i32 @callee(i32 5) #2
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
  %r = call i64 @llvm.read_register.i64(metadata !0)
  %tt = call i1 @llvm.type.test(ptr %fp, metadata !"typeid")
  call void @llvm.experimental.noalias.scope.decl(metadata !1)
  %m = call i32 @llvm.smax.i32(i32 %b, i32 %c)
  %asm = call i32 asm "mov $1, $0", "=r,r"(i32 %m)
  %v = call i32 (i32, ...) @vf(i32 1, i32 %asm, double 2.0, ptr @g)
  call void @sink(ptr @alias) [ "deopt"(i32 %v, ptr @arr) ]
  call void @llvm.assume(i1 true) [ "align"(ptr %dst, i64 8) ]
  %t = tail call i32 @callee(i32 %v)
  %gep = getelementptr [4 x i32], ptr @arr, i64 0, i64 2
  store i32 %t, ptr %gep, !tbaa !4
  %ld = load i32, ptr getelementptr inbounds ([4 x i32], ptr @arr, i64 0, i64 1), !tbaa !4
  ret i32 %ld
}

define i32 @musttail_caller(i32 %x) {
  %r = musttail call i32 @callee(i32 %x)
  ret i32 %r
}

define i32 @va_sum(i32 %n, ...) {
entry:
  %ap = alloca ptr
  call void @llvm.va_start.p0(ptr %ap)
  %x = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  ret i32 %x
}
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

attributes #0 = { noinline }
attributes #1 = { nounwind }
attributes #2 = { nounwind willreturn }

!0 = !{!"rsp"}
!1 = !{!2}
!2 = distinct !{!2, !3, !"scope"}
!3 = distinct !{!3, !"domain"}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C/C++ TBAA"}
