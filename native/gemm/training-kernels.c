/*
 * The fused training kernels (see training-kernels.h). Every expression is evaluated in float32,
 * one rounding per operation in the order TensorFlow.js's kernels apply them; the pragma keeps
 * clang from contracting a·b + c into one fused multiply-add (GCC does not in ISO C mode).
 */
#include "training-kernels.h"

#include <math.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/*
 * restrict (the arrays do not overlap) and the mask in a variable of its own: written as
 * dy · (y > 0 ? 1 : 0) in one expression, GCC turns it into a branch per element (dy when y > 0,
 * else dy · 0), which a random mask mispredicts half the time (8× slower); this form vectorizes to
 * compare, and, multiply.
 */
void tl_relu_mask(int64_t n, const float *restrict dy, const float *restrict y,
                  float *restrict g) {
  for (int64_t i = 0; i < n; i++) {
    const float mask = y[i] > 0.0f ? 1.0f : 0.0f;
    g[i] = dy[i] * mask;
  }
}

/*
 * One mulberry32 draw per value, from its index alone, compared in 32 bits and applied as a bit
 * mask (a 64-bit compare or a select kept GCC from vectorizing): the loop vectorizes.
 */
#define TL_DROPOUT_LOOP                                                  \
  for (int64_t i = 0; i < n; i++) {                                      \
    const uint32_t state = state0 + (uint32_t)(i + 1) * 0x6d2b79f5u;     \
    uint32_t z = (state ^ (state >> 15)) * (1u | state);                 \
    z = (z + (z ^ (z >> 7)) * (61u | z)) ^ z;                            \
    const uint32_t r = z ^ (z >> 14);                                    \
    const float kept = x[i] * scale;                                     \
    uint32_t bits;                                                       \
    memcpy(&bits, &kept, sizeof bits);                                   \
    bits &= (uint32_t)0 - (uint32_t)(r >= limit); /* +0.0f when dropped */ \
    memcpy(&x[i], &bits, sizeof bits);                                   \
  }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* SSE2 has no 32-bit multiply of vectors; AVX2 does (8 draws at once, 11% of a TCN step before). */
__attribute__((target("avx2"))) static void dropout_avx2(int64_t n, float *restrict x,
                                                          uint32_t limit, float scale,
                                                          uint32_t state0) {
  TL_DROPOUT_LOOP
}
#endif

void tl_dropout(int64_t n, float *restrict x, uint64_t threshold, float scale, uint32_t state0) {
  if (threshold > UINT32_MAX) { /* rate 1: every draw is below it */
    for (int64_t i = 0; i < n; i++) x[i] = 0.0f;
    return;
  }
  const uint32_t limit = (uint32_t)threshold;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    dropout_avx2(n, x, limit, scale, state0);
    return;
  }
#endif
  TL_DROPOUT_LOOP
}

float tl_sum_of_squares(int count, const float *const *tensors, const int64_t *sizes) {
  float total = 0.0f;
  for (int t = 0; t < count; t++) {
    float sum = 0.0f;
    const float *x = tensors[t];
    for (int64_t i = 0; i < sizes[t]; i++) {
      const float square = x[i] * x[i];
      sum = sum + square;
    }
    total = total + sum;
  }
  return total;
}

void tl_adam(int64_t n, const tl_adam_config *config, float acc_beta1, float acc_beta2,
             float scale, const float *restrict w, const float *restrict g,
             const float *restrict m, const float *restrict v, float *restrict w_out,
             float *restrict m_out, float *restrict v_out) {
  const float one_minus_acc_beta1 = 1.0f - acc_beta1;
  const float one_minus_acc_beta2 = 1.0f - acc_beta2;
  for (int64_t i = 0; i < n; i++) {
    const float gradient = g[i] * scale;
    const float first = m[i] * config->beta1 + gradient * config->one_minus_beta1;
    const float squared = gradient * gradient;
    const float second = v[i] * config->beta2 + squared * config->one_minus_beta2;
    const float corrected_first = first / one_minus_acc_beta1;
    const float corrected_second = second / one_minus_acc_beta2;
    const float denominator = sqrtf(corrected_second) + config->epsilon;
    const float step = corrected_first / denominator * config->learning_rate_negated;
    m_out[i] = first;
    v_out[i] = second;
    w_out[i] = step + w[i];
  }
}
