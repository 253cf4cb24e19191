/* Input of the flow-aware-rd permutation tests (ReachingFlowTest.cpp): recursion, mutual
 * recursion, loops through memory, calls that write memory, a global. rd_mix_O0.ll and
 * rd_mix_O2.ll are `clang-22 -O0|-O2 -S -emit-llvm rd_mix.c`. */
int counter;
static void bump(int *p) { *p += 1; counter++; }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int is_odd(int n);
int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }
int sum(const int *a, int n) {
  int s = 0, k = 0;
  for (int i = 0; i < n; i++) {
    s += a[i];
    if (a[i] > 3)
      bump(&k);
  }
  return s + k;
}
void sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int key = a[i], j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
}
int run(int *a, int n) {
  sort(a, n);
  return sum(a, n) + fib(n) + is_even(n) + counter;
}
