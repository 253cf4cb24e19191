// A small, fast, portable random generator for training: xoshiro256** (Blackman and Vigna),
// seeded through SplitMix64. Cheap to seed (one generator per minibatch costs nothing, unlike
// mt19937's 312-word state) and the same on every platform, which the standard library's
// distributions are not, so seeded runs are reproducible everywhere.
#pragma once

#include <cmath>
#include <cstdint>

namespace wb::learn {

class Rng {
public:
  explicit Rng(uint64_t Seed) {
    for (uint64_t &W : S) {
      Seed += 0x9E3779B97F4A7C15ull;
      uint64_t Z = Seed;
      Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
      Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
      W = Z ^ (Z >> 31);
    }
  }
  uint64_t operator()() {
    const uint64_t R = rotl(S[1] * 5, 7) * 9, T = S[1] << 17;
    S[2] ^= S[0], S[3] ^= S[1], S[1] ^= S[2], S[0] ^= S[3], S[2] ^= T, S[3] = rotl(S[3], 45);
    return R;
  }

private:
  static uint64_t rotl(uint64_t X, int K) { return (X << K) | (X >> (64 - K)); }
  uint64_t S[4];
};

/// Uniform integer in [0, N) (Lemire's multiply-shift; bias below 2^-32 for N <= 2^32).
inline uint32_t below(Rng &G, uint32_t N) { return uint32_t(((G() >> 32) * N) >> 32); }
/// Uniform double in [0, 1) with 53 random bits.
inline double unit(Rng &G) { return double(G() >> 11) * 0x1.0p-53; }
/// Standard normal (Box-Muller on two uniforms; one value per call, the same everywhere).
inline double normal(Rng &G) {
  const double U = 1 - unit(G); // (0, 1]: the logarithm stays finite
  return std::sqrt(-2 * std::log(U)) * std::cos(2 * 3.14159265358979323846 * unit(G));
}

} // namespace wb::learn
