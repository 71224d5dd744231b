/*
 * The AArch64 micro-kernel (NEON, MR 8 × NR 12): 24 accumulators of 4 floats in 24 of the 32
 * vector registers; each step loads the A panel's 8 values as two vectors and the B panel's 12 as
 * three, and multiplies them by lane (vfmaq_laneq_f32), 24 fused multiply-adds for 5 loads.
 * NEON is part of every AArch64 CPU, so there is no run-time check.
 */
#include "sgemm.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#include "vector-kernels.h"

enum { NEON_MR = 8, NEON_NR = 12 };

static void micro_neon(int64_t k, const float *a, const float *b, int64_t b_step, float *c,
                       int64_t ldc, int accumulate) {
  float32x4_t acc[NEON_MR][3];
  for (int r = 0; r < NEON_MR; r++) acc[r][0] = acc[r][1] = acc[r][2] = vdupq_n_f32(0.0f);
  for (int64_t p = 0; p < k; p++) {
    const float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
#define TL_NEON_ROW(r, av, lane)                              \
  acc[r][0] = vfmaq_laneq_f32(acc[r][0], b0, av, lane);       \
  acc[r][1] = vfmaq_laneq_f32(acc[r][1], b1, av, lane);       \
  acc[r][2] = vfmaq_laneq_f32(acc[r][2], b2, av, lane);
    TL_NEON_ROW(0, a0, 0)
    TL_NEON_ROW(1, a0, 1)
    TL_NEON_ROW(2, a0, 2)
    TL_NEON_ROW(3, a0, 3)
    TL_NEON_ROW(4, a1, 0)
    TL_NEON_ROW(5, a1, 1)
    TL_NEON_ROW(6, a1, 2)
    TL_NEON_ROW(7, a1, 3)
#undef TL_NEON_ROW
    a += NEON_MR;
    b += b_step;
  }
  for (int r = 0; r < NEON_MR; r++) {
    float *row = c + r * ldc;
    for (int v = 0; v < 3; v++) {
      float32x4_t value = acc[r][v];
      if (accumulate) value = vaddq_f32(value, vld1q_f32(row + 4 * v));
      vst1q_f32(row + 4 * v, value);
    }
  }
}

TL_DEFINE_VECTOR_KERNELS(neon, )

static volatile float neon_sink;

static int64_t fma_peak_neon(int64_t iterations) {
  float32x4_t acc[16];
  const float32x4_t x = vdupq_n_f32(0.999999f), y = vdupq_n_f32(1e-7f);
  for (int r = 0; r < 16; r++) acc[r] = vdupq_n_f32((float)r);
  for (int64_t i = 0; i < iterations; i++)
    for (int r = 0; r < 16; r++) acc[r] = vfmaq_f32(y, acc[r], x);
  float32x4_t sum = acc[0];
  for (int r = 1; r < 16; r++) sum = vaddq_f32(sum, acc[r]);
  neon_sink = vaddvq_f32(sum);
  return iterations * 16 * 4 * 2;
}

static const tl_kernel neon_kernel = {
    .name = "neon",
    .mr = NEON_MR,
    .nr = NEON_NR,
    .mc = 128,
    .kc = 256,
    .nc = 4092,
    .micro = micro_neon,
    .rows_mat = rows_mat_neon,
    .vec_mat = vec_mat_neon,
    .bias_relu = bias_relu_neon,
    .mat_vec = mat_vec_neon,
    .fma_peak = fma_peak_neon,
};

const tl_kernel *tl_kernel_neon(void) { return &neon_kernel; }

#else
const tl_kernel *tl_kernel_neon(void) { return NULL; }
#endif
