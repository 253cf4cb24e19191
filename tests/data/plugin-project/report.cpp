#include "shapes.h"

#include <cstdio>

static std::string pad(const std::string &S, int Width) {
  int N = clampTo<int>(Width - int(S.size()), 0, 80);
  return S + std::string(N, ' ');
}

static std::string number(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "%.3f", V);
  return Buf;
}

std::string report(const Registry &R, int Width) {
  std::string Out;
  for (const std::string &N : R.names())
    Out += pad(N, Width) + "|\n";
  Out += pad("shapes", Width) + number(double(R.size())) + "\n";
  Out += pad("total area", Width) + number(R.total()) + "\n";
  return Out;
}
