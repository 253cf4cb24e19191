static int sq(int x) { return x * x; }
static int add3(int a, int b, int c) { return a + b + c; }
int loop(int n) { int s = 0; for (int i = 0; i < n; ++i) s += add3(sq(i), i, 1); return s; }
static int rec(int n) { return n <= 1 ? 1 : n * rec(n - 1); }
int big(int n) { int s = 0; for (int i = 0; i < n; ++i) { if (i & 1) s += loop(i); else s -= loop(i + 1); } return s + sq(n) + rec(n); }
int main(int argc, char **argv) { return big(argc); }
