/*
 * The portable micro-kernel (MR 2 × NR 16), for CPUs without a kernel of their own. Plain C with
 * the tile in a local array: compilers vectorize the inner loop for the baseline instruction set
 * (SSE2 on x86-64). The tile is small so that it stays in registers (2 × 16 floats: 8 of SSE's 16
 * registers); a 4 × 16 tile spills and ran 3× slower. Slower than the tuned kernels, several
 * times faster than an unblocked loop.
 */
#include "sgemm.h"
#include "vector-kernels.h"

enum { GENERIC_MR = 2, GENERIC_NR = 16 };

static void micro_generic(int64_t k, const float *a, const float *b, int64_t b_step, float *c,
                          int64_t ldc, int accumulate) {
  float acc[GENERIC_MR][GENERIC_NR] = {{0}};
  for (int64_t p = 0; p < k; p++) {
    for (int r = 0; r < GENERIC_MR; r++) {
      const float ar = a[r];
      for (int j = 0; j < GENERIC_NR; j++) acc[r][j] += ar * b[j];
    }
    a += GENERIC_MR;
    b += b_step;
  }
  for (int r = 0; r < GENERIC_MR; r++) {
    float *row = c + r * ldc;
    if (accumulate)
      for (int j = 0; j < GENERIC_NR; j++) row[j] += acc[r][j];
    else
      for (int j = 0; j < GENERIC_NR; j++) row[j] = acc[r][j];
  }
}

TL_DEFINE_VECTOR_KERNELS(generic, )

static volatile float generic_sink;

/* 64 independent chains of multiply-add, which the compiler vectorizes for the baseline. */
static int64_t fma_peak_generic(int64_t iterations) {
  float acc[64];
  for (int r = 0; r < 64; r++) acc[r] = (float)r;
  for (int64_t i = 0; i < iterations; i++)
    for (int r = 0; r < 64; r++) acc[r] = acc[r] * 0.999999f + 1e-7f;
  float sum = 0.0f;
  for (int r = 0; r < 64; r++) sum += acc[r];
  generic_sink = sum;
  return iterations * 64 * 2;
}

static const tl_kernel generic_kernel = {
    .name = "generic",
    .mr = GENERIC_MR,
    .nr = GENERIC_NR,
    .mc = 120,
    .kc = 256,
    .nc = 4096,
    .micro = micro_generic,
    .rows_mat = rows_mat_generic,
    .vec_mat = vec_mat_generic,
    .bias_relu = bias_relu_generic,
    .mat_vec = mat_vec_generic,
    .fma_peak = fma_peak_generic,
};

const tl_kernel *tl_kernel_generic(void) { return &generic_kernel; }
