; Declarations, unnamed functions and blocks, quoted names with special characters.
declare void @only_declared(i32)
declare i32 @printf(ptr, ...)

define void @0(i32 %x) {
  %1 = add i32 %x, 1
  br label %2
2:
  call void @only_declared(i32 %1)
  ret void
}

define i32 @"name with spaces.and:punct"(i32 %x) {
"entry block":
  %"weird value" = mul i32 %x, %x
  br label %"next\01"
"next\01":
  ret i32 %"weird value"
}

define internal fastcc i8 @"\01mangled"() {
  ret i8 0
}
