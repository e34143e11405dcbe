#include "vault_imaging.h"

/* The sums are added in the order written, one rounding at a time, as Swift does: no
 * fused multiply-adds, so the C and the Swift loops of AreaResampler agree bit for bit. */
#pragma STDC FP_CONTRACT OFF

/* Rounds and clamps like Swift's UInt8(max(0, min(255, v + 0.5))), without the checks
 * Swift's conversion makes of every value (NaN, range): this runs for every sample of
 * every thumbnail. */
static inline uint8_t vault_byte(float value) {
  value += 0.5f;
  if (!(value > 0.0f)) return 0;
  if (value > 255.0f) return 255;
  return (uint8_t)value;
}

void vault_average_columns(const float *sums, const int64_t *starts, const float *weights, int taps,
                           int width, uint8_t *output) {
  for (int x = 0; x < width; x++) {
    const float *s = sums + starts[x] * 3;
    const float *w = weights + (size_t)x * (size_t)taps;
    float r = w[0] * s[0], g = w[0] * s[1], b = w[0] * s[2];
    for (int tap = 1; tap < taps; tap++) {
      r += w[tap] * s[tap * 3];
      g += w[tap] * s[tap * 3 + 1];
      b += w[tap] * s[tap * 3 + 2];
    }
    output[x * 3] = vault_byte(r);
    output[x * 3 + 1] = vault_byte(g);
    output[x * 3 + 2] = vault_byte(b);
  }
}
