; Every canonical type as a result type and most opcodes: vectors (fixed and scalable),
; structs, arrays, all floating-point kinds, tokens, target extension types, x86_amx,
; aggregates, casts (including LLVM 22's ptrtoaddr), atomics, fences, freeze, select.
%pair = type { i32, float }

declare token @llvm.call.preallocated.setup(i32)
declare target("spirv.Event") @make_event()
declare x86_amx @llvm.x86.tileloadd64.internal(i16, i16, ptr, i64)

define void @vectors(<4 x i32> %a, <4 x i32> %b, <vscale x 2 x i64> %s, <4 x float> %f) {
  %add = add <4 x i32> %a, %b
  %e = extractelement <4 x i32> %add, i32 2
  %i = insertelement <4 x i32> %add, i32 %e, i64 0
  %sh = shufflevector <4 x i32> %i, <4 x i32> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %ss = add <vscale x 2 x i64> %s, %s
  %fn = fneg <4 x float> %f
  %fr = frem <4 x float> %fn, <float 1.0, float 2.0, float 3.0, float 4.0>
  %z = add <4 x i32> %sh, zeroinitializer
  %u = add <4 x i32> %z, undef
  ret void
}

define %pair @aggregates(%pair %p, [3 x double] %arr) {
  %x = extractvalue %pair %p, 0
  %y = extractvalue [3 x double] %arr, 1
  %yf = fptrunc double %y to float
  %q = insertvalue %pair %p, float %yf, 1
  %w = insertvalue [3 x double] %arr, double 1.5, 2
  %q2 = insertvalue %pair %q, i32 %x, 0
  ret %pair %q2
}

define void @floats(half %h, bfloat %bf, float %f, double %d, x86_fp80 %x, fp128 %q, ppc_fp128 %p) {
  %h2 = fadd half %h, %h
  %bf2 = fmul bfloat %bf, %bf
  %f2 = fdiv float %f, 3.0
  %d2 = fsub double %d, 1.0
  %x2 = fadd x86_fp80 %x, %x
  %q2 = fmul fp128 %q, %q
  %p2 = fadd ppc_fp128 %p, %p
  %e = fpext float %f2 to double
  %i = fptosi double %e to i32
  %u = fptoui double %d2 to i64
  %s = sitofp i32 %i to float
  %v = uitofp i64 %u to double
  ret void
}

define i64 @memory_and_casts(ptr %p, ptr addrspace(1) %gp, i64 %n) {
entry:
  %slot = alloca i64, align 8
  %arr = alloca [8 x i8], i64 %n
  store i64 %n, ptr %slot
  %v = load i64, ptr %slot
  %t = trunc i64 %v to i32
  %z = zext i32 %t to i64
  %sx = sext i32 %t to i64
  %pi = ptrtoint ptr %p to i64
  %pa = ptrtoaddr ptr %p to i64
  %ip = inttoptr i64 %pi to ptr
  %bc = bitcast <2 x i32> <i32 1, i32 2> to i64
  %asc = addrspacecast ptr addrspace(1) %gp to ptr
  %gep = getelementptr inbounds i8, ptr %arr, i64 %z
  %cx = cmpxchg ptr %slot, i64 %v, i64 %sx seq_cst seq_cst
  %old = atomicrmw add ptr %slot, i64 1 monotonic
  fence acquire
  %fz = freeze i64 %old
  %c = icmp eq ptr %ip, %asc
  %sel = select i1 %c, i64 %fz, i64 %pa
  %shl = shl i64 %sel, 2
  %lshr = lshr i64 %shl, 1
  %ashr = ashr i64 %lshr, 1
  %and = and i64 %ashr, %bc
  %or = or i64 %and, %pi
  %xor = xor i64 %or, -1
  %ud = udiv i64 %xor, 3
  %sd = sdiv i64 %ud, 3
  %ur = urem i64 %sd, 7
  %sr = srem i64 %ur, 7
  %ce = add i64 %sr, ptrtoint (ptr getelementptr (i8, ptr null, i64 4) to i64)
  ret i64 %ce
}

define void @special_types(ptr %p) {
  %tok = call token @llvm.call.preallocated.setup(i32 0)
  %ev = call target("spirv.Event") @make_event()
  %amx = call x86_amx @llvm.x86.tileloadd64.internal(i16 8, i16 8, ptr %p, i64 64)
  ret void
}
