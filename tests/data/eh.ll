; Exception handling: invoke/landingpad/resume, funclet EH (catchswitch, catchpad, catchret,
; cleanuppad, cleanupret), callbr and indirectbr with blockaddress.
declare i32 @__gxx_personality_v0(...)
declare i32 @__CxxFrameHandler3(...)
declare void @may_throw(i32)
declare ptr @__cxa_begin_catch(ptr)
declare void @__cxa_end_catch()

define i32 @itanium(i32 %a) personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw(i32 %a)
          to label %cont unwind label %lpad
cont:
  %r = invoke i32 @itanium(i32 1)
          to label %done unwind label %lpad2
done:
  ret i32 %r
lpad:
  %lp = landingpad { ptr, i32 }
          catch ptr null
  %exn = extractvalue { ptr, i32 } %lp, 0
  %obj = call ptr @__cxa_begin_catch(ptr %exn)
  call void @__cxa_end_catch()
  ret i32 0
lpad2:
  %lp2 = landingpad { ptr, i32 }
          cleanup
  resume { ptr, i32 } %lp2
}

define void @funclets() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw(i32 1)
          to label %exit unwind label %dispatch
dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup
handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %exit
cleanup:
  %cl = cleanuppad within none []
  call void @may_throw(i32 2) [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller
exit:
  ret void
}

define i32 @asmgoto(i32 %x) {
entry:
  callbr void asm "", "r,!i"(i32 %x) to label %fall [label %indirect]
fall:
  ret i32 0
indirect:
  ret i32 1
}

define i32 @ibr(i1 %c) {
entry:
  %t = select i1 %c, ptr blockaddress(@ibr, %one), ptr blockaddress(@ibr, %two)
  indirectbr ptr %t, [label %one, label %two]
one:
  ret i32 1
two:
  ret i32 2
}
