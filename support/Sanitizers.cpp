// Built only with -DWB_SANITIZE=ON: the sanitizers' defaults for every program of the project,
// so that tests, fuzzers and users get the same behaviour without environment variables.
// The runtimes look these functions up by name; the link keeps them (CMakeLists.txt).

extern "C" {

// Stop at the first report: a test that carries on after memory corruption proves nothing.
const char *__asan_default_options() {
  return "abort_on_error=0:halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:"
         "check_initialization_order=1:strict_string_checks=1";
}

const char *__ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

// Leaks of the uninstrumented libraries we link (allocations made once per process and kept
// until exit by design) are theirs; ours are reported.
const char *__lsan_default_suppressions() {
  // Not Open MPI's: its leaks have no frames to name (the MPI ranks run without LeakSanitizer,
  // docs/robustness.md), and a process that does not join a job leaks nothing in it.
  return "leak:libhdf5\nleak:libLLVM\nleak:libarmadillo\nleak:libpython\n";
}
}
