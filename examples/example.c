/* The example shipped with the workbench; example.ll is `clang-22 -O1 -S -emit-llvm example.c`. */
#include <stddef.h>

struct item { const char *name; double price; int qty; };

unsigned hash(const char *s) {
  unsigned h = 5381;
  while (*s)
    h = h * 33u ^ (unsigned char)*s++;
  return h;
}

double total(const struct item *items, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].qty > 0)
      sum += items[i].price * items[i].qty;
  return sum;
}

void insertion_sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int key = a[i], j = i - 1;
    while (j >= 0 && a[j] > key) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = key;
  }
}

int classify(int c) {
  switch (c) {
  case ' ': case '\t': case '\n': return 0;
  case '0' ... '9': return 1;
  default: return c < 0 ? -1 : 2;
  }
}
