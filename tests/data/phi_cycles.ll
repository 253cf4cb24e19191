; PHI cycles, forward references across blocks, self-referencing PHIs, switch, and
; unreachable blocks that reference each other. Flow-aware results depend on query order here.
define i32 @loops(i32 %n, i32 %m) {
entry:
  %init = add i32 %n, 1
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi i32 [ %init, %entry ], [ %acc.out, %outer.latch ]
  %self = phi i32 [ 0, %entry ], [ %self, %outer.latch ]
  br label %inner

inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %acc.in = phi i32 [ %acc, %outer ], [ %acc.next, %inner ]
  %t = mul i32 %i, %j
  %acc.next = add i32 %acc.in, %t
  %j.next = add i32 %j, 1
  %jc = icmp slt i32 %j.next, %m
  br i1 %jc, label %inner, label %outer.latch

outer.latch:
  %acc.out = phi i32 [ %acc.next, %inner ]
  %i.next = add i32 %i, %acc.out
  %ic = icmp ult i32 %i.next, %n
  br i1 %ic, label %outer, label %exit

exit:
  %r = add i32 %acc.out, %self
  ret i32 %r

dead1:                                   ; unreachable, references dead2 (forward) and live code
  %d1 = add i32 %d2, %init
  br label %dead2

dead2:
  %d2 = mul i32 %d1, 3
  br label %dead1

never:
  unreachable
}

; %late is defined in a block that DFS visits after its use.
define i32 @forward(i1 %c, i32 %x) {
entry:
  br i1 %c, label %use, label %def

use:
  %p = phi i32 [ %late, %def ], [ 7, %entry ]
  %u = add i32 %p, %x
  ret i32 %u

def:
  %late = mul i32 %x, %x
  br label %use
}

define i32 @sw(i32 %v, i32 %w) {
entry:
  switch i32 %v, label %dflt [
    i32 0, label %a
    i32 1, label %b
    i32 7, label %a
  ]
a:
  %x = add i32 %w, 1
  br label %join
b:
  %y = sub i32 %w, 1
  br label %join
dflt:
  br label %join
join:
  %z = phi i32 [ %x, %a ], [ %y, %b ], [ %w, %dflt ]
  ret i32 %z
}
