/*
 * A C-only check of the GEMM kernels against a double-precision reference, for kernels this
 * machine cannot run under Node: scripts/check-kernels-cross.sh builds it for AArch64 with a
 * cross-compiler and runs it under qemu-aarch64, which checks the NEON kernel. (Under Node the
 * kernels are tested by src/compute/native-kernels.test.ts.) Exits 1 on the first mismatch.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../sgemm.h"

static float next_value(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) / (double)(1 << 24)) * 2.0f - 1.0f;
}

/* One product with the given shape and options against the reference; 1 when it matches. */
static int check(const tl_kernel *kernel, int trans_a, int trans_b, int m, int n, int k, int pad,
                 int accumulate, int bias, int activation, int threads) {
  const int lda = (trans_a ? m : k) + pad, ldb = (trans_b ? k : n) + pad, ldc = n + pad;
  const int a_rows = trans_a ? k : m, b_rows = trans_b ? n : k;
  float *a = malloc(sizeof(float) * (size_t)(a_rows * lda + 1));
  float *b = malloc(sizeof(float) * (size_t)(b_rows * ldb + 1));
  float *c = malloc(sizeof(float) * (size_t)(m * ldc + 1));
  float *bias_values = malloc(sizeof(float) * (size_t)(n + 1));
  double *want = malloc(sizeof(double) * (size_t)(m * n + 1));
  unsigned state = (unsigned)(m * 7 + n * 13 + k);
  for (int i = 0; i < a_rows * lda; i++) a[i] = next_value(&state);
  for (int i = 0; i < b_rows * ldb; i++) b[i] = next_value(&state);
  for (int i = 0; i < m * ldc; i++) c[i] = next_value(&state);
  for (int i = 0; i < n; i++) bias_values[i] = next_value(&state);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double v = accumulate ? c[i * ldc + j] : 0.0;
      for (int p = 0; p < k; p++)
        v += (double)(trans_a ? a[p * lda + i] : a[i * lda + p]) *
             (double)(trans_b ? b[j * ldb + p] : b[p * ldb + j]);
      if (bias) v += bias_values[j];
      if (activation == TL_RELU && v < 0) v = 0;
      want[i * n + j] = v;
    }
  const tl_gemm g = {.trans_a = trans_a,
                     .trans_b = trans_b,
                     .m = m,
                     .n = n,
                     .k = k,
                     .a = a,
                     .lda = lda,
                     .b = b,
                     .ldb = ldb,
                     .c = c,
                     .ldc = ldc,
                     .accumulate = accumulate,
                     .bias = bias ? bias_values : NULL,
                     .bias_size = n,
                     .activation = activation};
  tl_sgemm(kernel, threads, &g);
  int ok = 1;
  for (int i = 0; i < m && ok; i++)
    for (int j = 0; j < n && ok; j++) {
      const double error = fabs(c[i * ldc + j] - want[i * n + j]) / (1e-3 + sqrt((double)k));
      if (!(error <= 1e-5)) {
        printf("FAIL %s trans %d%d m %d n %d k %d pad %d accumulate %d bias %d act %d threads %d: "
               "C[%d,%d] = %g, want %g\n",
               kernel->name, trans_a, trans_b, m, n, k, pad, accumulate, bias, activation, threads,
               i, j, c[i * ldc + j], want[i * n + j]);
        ok = 0;
      }
    }
  free(a);
  free(b);
  free(c);
  free(bias_values);
  free(want);
  return ok;
}

int main(void) {
  const tl_kernel *kernels[4];
  const int count = tl_kernels_supported(kernels, 4);
  const int sizes[] = {1, 2, 4, 7, 17, 63, 150, 513};
  int checks = 0, failures = 0;
  for (int ki = 0; ki < count; ki++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int mi = 0; mi < 8; mi++)
          for (int ni = 0; ni < 8; ni++)
            for (int kk = 0; kk < 8; kk += 3) {
              const int m = sizes[mi], n = sizes[ni], k = sizes[kk];
              if ((double)m * n * k > 2e7) continue;
              checks++;
              failures += !check(kernels[ki], ta, tb, m, n, k, (mi + ni) % 3 == 0 ? 3 : 0,
                                 (mi + kk) % 2, ni % 2, mi % 2, 1 + ni % 3);
            }
  printf("%d checks, %d failures; kernels:", checks, failures);
  for (int i = 0; i < count; i++) printf(" %s", kernels[i]->name);
  printf("\n");
  return failures == 0 ? 0 : 1;
}
