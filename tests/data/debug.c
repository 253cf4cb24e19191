/* Source of debug.ll and probes.ll (clang-22 -O1 -g; probes.ll adds -fpseudo-probe-for-profiling). */
struct point { int x; float y; };
static int counter;

__attribute__((noinline)) int scale(int a) { return a * 3; }

int sum_points(struct point *p, int n) {
  int total = 0;
  for (int i = 0; i < n; i++)
    total += p[i].x * (int)p[i].y;
  counter = total;
  return total;
}

float average(const float *v, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += v[i];
  return n ? s / n : 0.0f;
}

int classify(int c) {
  switch (c) {
  case 0: return scale(c);
  case 1: case 2: return c + 1;
  case 10: return -c;
  default: return scale(c) + scale(c + 1);
  }
}
