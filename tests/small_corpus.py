"""A small MLGO corpus of three packages for the tests (mlgo_policy, mpi): six C files, each
compiled as MLGO corpora are (-Oz -Xclang -disable-llvm-passes: IR before any pass)."""
import os

import harness

SOURCES = {
    "alpha/a.c": """
static int sq(int x) { return x * x; }
static int cube(int x) { return sq(x) * x; }
static int poly(int x) { return cube(x) + 3 * sq(x) + x + 1; }
int api_a(int x, int y) { return poly(x) - poly(y) + cube(x + y); }
int api_b(int *v, int n) { int s = 0; for (int i = 0; i < n; ++i) s += poly(v[i]) ^ sq(i); return s; }
""",
    "alpha/b.c": """
struct P { int x, y; };
static int dot(struct P a, struct P b) { return a.x * b.x + a.y * b.y; }
static struct P add(struct P a, struct P b) { struct P r = {a.x + b.x, a.y + b.y}; return r; }
static int norm1(struct P a) { return (a.x < 0 ? -a.x : a.x) + (a.y < 0 ? -a.y : a.y); }
int walk(struct P *ps, int n) {
  struct P acc = {0, 0}; int d = 0;
  for (int i = 0; i < n; ++i) { acc = add(acc, ps[i]); d += dot(acc, ps[i]) + norm1(ps[i]); }
  return d + norm1(acc);
}
int pair(struct P a, struct P b) { return dot(a, b) * norm1(add(a, b)); }
""",
    "beta/c.c": """
static unsigned mix(unsigned h, unsigned v) { h ^= v; h *= 16777619u; return h; }
static unsigned hstr(const char *s) { unsigned h = 2166136261u; while (*s) h = mix(h, (unsigned char)*s++); return h; }
static int eq(const char *a, const char *b) { while (*a && *a == *b) ++a, ++b; return *a == *b; }
int lookup(const char **keys, int n, const char *k) {
  unsigned h = hstr(k);
  for (int i = 0; i < n; ++i) if ((hstr(keys[i]) & 15) == (h & 15) && eq(keys[i], k)) return i;
  return -1;
}
unsigned digest(const char **keys, int n) { unsigned h = 0; for (int i = 0; i < n; ++i) h = mix(h, hstr(keys[i])); return h; }
""",
    "beta/d.c": """
static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static int lerp(int a, int b, int t) { return a + (b - a) * t / 256; }
static int blend(int a, int b, int t) { return clamp(lerp(a, b, clamp(t, 0, 256)), 0, 255); }
void image(unsigned char *dst, const unsigned char *x, const unsigned char *y, int n, int t) {
  for (int i = 0; i < n; ++i) dst[i] = (unsigned char)blend(x[i], y[i], t + i);
}
int level(int v) { return clamp(v, 0, 255) + blend(v, 255 - v, v); }
""",
    "gamma/e.c": """
static long fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }
static long choose(int n, int k) { return fact(n) / (fact(k) * fact(n - k)); }
static long sum_row(int n) { long s = 0; for (int k = 0; k <= n; ++k) s += choose(n, k); return s; }
long triangle(int rows) { long s = 0; for (int r = 0; r < rows; ++r) s += sum_row(r); return s; }
long pick(int n) { return choose(n, n / 2) + fact(n % 10); }
""",
    "gamma/f.c": """
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_space(int c) { return c == ' ' || c == '\\t' || c == '\\n'; }
static int to_int(const char **s) { int v = 0; while (is_digit(**s)) v = v * 10 + (*(*s)++ - '0'); return v; }
int sum_numbers(const char *s) {
  int t = 0;
  while (*s) { while (is_space(*s)) ++s; if (is_digit(*s)) t += to_int(&s); else if (*s) ++s; }
  return t;
}
int count_digits(const char *s) { int n = 0; for (; *s; ++s) n += is_digit(*s); return n; }
""",
}


def build(corpus):
    """Writes the sources under corpus/ and compiles each to .bc beside it; the modules, in
    package order."""
    modules = []
    for rel, src in SOURCES.items():
        c = os.path.join(corpus, rel)
        os.makedirs(os.path.dirname(c), exist_ok=True)
        open(c, "w").write(src)
        bc = c[:-2] + ".bc"
        harness.run(["clang-22", "-Oz", "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", c,
                     "-o", bc], check=True)
        modules.append(bc)
    return modules
