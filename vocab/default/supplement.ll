; Training supplement for the default vocabulary: constructs that C code from the Debian
; corpus rarely or never produces (Windows-style EH funclets, callbr, atomics, va_arg,
; ptrtoaddr, address spaces, aggregates, tokens, metadata and target-extension operands,
; every fcmp predicate). It gives those entities real triplets to learn from; it is part of
; the training input listed in scripts/train-default-vocab.sh, nothing else.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%pair = type { i32, double }

declare i32 @__CxxFrameHandler3(...)
declare void @may_throw(i32)
declare void @use(i32)
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
declare void @llvm.experimental.noalias.scope.decl(metadata)
declare target("example.handle") @make_handle()
declare void @take_handle(target("example.handle"))

define void @funclets(i32 %x) personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 %x) to label %cont unwind label %dispatch
cont:
  invoke void @may_throw(i32 1) to label %done unwind label %cleanup
dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup
handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  call void @use(i32 %x) [ "funclet"(token %cp) ]
  catchret from %cp to label %done
cleanup:
  %cl = cleanuppad within none []
  call void @use(i32 0) [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller
done:
  ret void
}

define i32 @asm_goto(i32 %x) {
entry:
  callbr void asm sideeffect "test $0, $0; jne ${1:l}", "r,!i"(i32 %x) to label %fall [label %jumped]
fall:
  ret i32 0
jumped:
  ret i32 1
}

define i32 @atomics(ptr %p, i32 %v, i32 %old) {
  fence seq_cst
  %pair = cmpxchg ptr %p, i32 %old, i32 %v acq_rel monotonic
  %ok = extractvalue { i32, i1 } %pair, 0
  %prev = atomicrmw add ptr %p, i32 %v seq_cst
  %max = atomicrmw max ptr %p, i32 %ok acquire
  %s = add i32 %prev, %max
  fence release
  ret i32 %s
}

define double @floats(double %a, double %b, float %c) {
  %r = frem double %a, %b
  %f = fpext float %c to double
  %q = frem double %r, %f
  ret double %q
}

define i64 @addresses(ptr %p, ptr addrspace(1) %g) {
  %a = ptrtoaddr ptr %p to i64
  %flat = addrspacecast ptr addrspace(1) %g to ptr
  %b = ptrtoaddr ptr %flat to i64
  %s = add i64 %a, %b
  ret i64 %s
}

define i32 @varargs(i32 %n, ...) {
  %ap = alloca ptr
  call void @llvm.va_start.p0(ptr %ap)
  %x = va_arg ptr %ap, i32
  %y = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %s = add i32 %x, %y
  ret i32 %s
}

define %pair @aggregates(ptr %p, i32 %i, double %d) {
  %arr = load [4 x i32], ptr %p
  %e = extractvalue [4 x i32] %arr, 2
  %arr2 = insertvalue [4 x i32] %arr, i32 %i, 1
  store [4 x i32] %arr2, ptr %p
  %s0 = insertvalue %pair poison, i32 %e, 0
  %s1 = insertvalue %pair %s0, double %d, 1
  ret %pair %s1
}

define void @scoped(ptr %p) {
  call void @llvm.experimental.noalias.scope.decl(metadata !0)
  store i32 0, ptr %p, !alias.scope !0
  ret void
}

define void @handles() {
  %h = call target("example.handle") @make_handle()
  call void @take_handle(target("example.handle") %h)
  ret void
}

define i32 @fcmps(double %a, double %b) {
  %c0 = fcmp false double %a, %b
  %c1 = fcmp one double %a, %b
  %c2 = fcmp ord double %a, %b
  %c3 = fcmp ule double %a, %b
  %c4 = fcmp true double %a, %b
  %c5 = fcmp uno double %a, %b
  %c6 = fcmp ueq double %a, %b
  %c7 = fcmp ult double %a, %b
  %x0 = zext i1 %c0 to i32
  %x1 = zext i1 %c1 to i32
  %x2 = zext i1 %c2 to i32
  %x3 = zext i1 %c3 to i32
  %x4 = zext i1 %c4 to i32
  %x5 = zext i1 %c5 to i32
  %x6 = zext i1 %c6 to i32
  %x7 = zext i1 %c7 to i32
  %s0 = add i32 %x0, %x1
  %s1 = add i32 %s0, %x2
  %s2 = add i32 %s1, %x3
  %s3 = add i32 %s2, %x4
  %s4 = add i32 %s3, %x5
  %s5 = add i32 %s4, %x6
  %s6 = add i32 %s5, %x7
  ret i32 %s6
}

!0 = !{!1}
!1 = distinct !{!1, !2}
!2 = distinct !{!2}
