// The vector printer must print exactly what printf("%.*f") prints (llvm-ir2vec uses
// llvm::format("%.2f"), i.e. snprintf), for every precision we offer.
#include "ir2vec/TextFormat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using wb::ir2vec::formatFixed;

static std::string viaPrintf(double X, unsigned P) {
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, "%.*f", static_cast<int>(P), X);
  return Buf;
}

static std::string viaUs(double X, unsigned P) {
  std::string S;
  formatFixed(S, X, P);
  return S;
}

TEST(TextFormat, HandPickedValuesIncludingTiesAndSignedZero) {
  // 0.125 and 0.375 are exact binary ties at two decimals: half-to-even gives 0.12 and 0.38.
  // 0.005 is slightly above its decimal in binary (0.005000000000000000104...): 0.01.
  // -0.001 and -0.0 print as "-0.00", as llvm-ir2vec shows.
  struct Case { double X; unsigned P; const char *Expected; };
  const Case Cases[] = {{0.125, 2, "0.12"},   {0.375, 2, "0.38"},   {0.005, 2, "0.01"},
                        {-0.001, 2, "-0.00"}, {-0.0, 2, "-0.00"},   {0.0, 0, "0"},
                        {2.5, 0, "2"},        {3.5, 0, "4"},        {1e22, 2, "10000000000000000000000.00"},
                        {0.1, 17, "0.10000000000000001"}};
  for (const Case &C : Cases) {
    EXPECT_EQ(viaUs(C.X, C.P), C.Expected) << C.X << " @" << C.P;
    EXPECT_EQ(viaPrintf(C.X, C.P), C.Expected) << C.X << " @" << C.P;
  }
}

TEST(TextFormat, MatchesPrintfOnRandomValuesAtEveryPrecision) {
  std::mt19937_64 Rng(42);
  std::uniform_real_distribution<double> Small(-3.0, 3.0);
  for (unsigned P = 0; P <= 20; ++P)
    for (int I = 0; I < 3000; ++I) {
      double X = Small(Rng);
      if (I % 3 == 1) { // arbitrary bit patterns: tiny, huge and subnormal values
        uint64_t Bits = Rng();
        std::memcpy(&X, &Bits, sizeof X);
        if (!std::isfinite(X))
          continue;
      } else if (I % 3 == 2) {
        X = std::round(X * 1000.0) / 1000.0 + 0.0005; // near decimal ties
      }
      ASSERT_EQ(viaUs(X, P), viaPrintf(X, P)) << "value " << X << " precision " << P;
    }
  for (double X : {std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min(),
                   -std::numeric_limits<double>::max()})
    EXPECT_EQ(viaUs(X, 100), viaPrintf(X, 100));
}
