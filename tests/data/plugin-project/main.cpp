#include "shapes.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  Registry R;
  for (int I = 1; I < argc; ++I) {
    double V = std::atof(argv[I]);
    switch (I % 3) {
    case 0: R.add(makeCircle(V)); break;
    case 1: R.add(makeRect(V, V + 1)); break;
    default: R.add(makeSquare(V)); break;
    }
  }
  std::fputs(report(R, 12).c_str(), stdout);
  return R.size() ? 0 : 1;
}
