/*
 * The vector products (sgemm.h's tl_vec_mat and tl_mat_vec) as plain loops, written so that the
 * compiler vectorizes them for whichever instruction set the including file targets:
 * TL_DEFINE_VECTOR_KERNELS(suffix, attributes) defines vec_mat_<suffix> and mat_vec_<suffix>.
 *
 * vec_mat keeps a block of y in registers across all of x (y[j..j+TL_VM_BLOCK] += x[p]·M[p, j..]),
 * so y is written once rather than once per row of M; mat_vec computes four dot products at once
 * with several partial sums each, so the loop is not one long chain of dependent additions.
 */
#ifndef TRADELAB_VECTOR_KERNELS_H
#define TRADELAB_VECTOR_KERNELS_H

#include <stdint.h>

#define TL_VM_BLOCK 64

#define TL_DEFINE_VECTOR_KERNELS(suffix, attributes)                                          \
  attributes static void vec_mat_##suffix(int64_t k, int64_t n, const float *x,              \
                                          const float *mat, int64_t ldm, float *y,            \
                                          int accumulate) {                                   \
    for (int64_t j0 = 0; j0 < n; j0 += TL_VM_BLOCK) {                                         \
      const int64_t width = n - j0 < TL_VM_BLOCK ? n - j0 : TL_VM_BLOCK;                      \
      float acc[TL_VM_BLOCK];                                                                 \
      for (int64_t j = 0; j < TL_VM_BLOCK; j++) acc[j] = 0.0f;                                \
      if (width == TL_VM_BLOCK) {                                                             \
        for (int64_t p = 0; p < k; p++) {                                                     \
          const float xp = x[p];                                                              \
          const float *row = mat + p * ldm + j0;                                              \
          for (int64_t j = 0; j < TL_VM_BLOCK; j++) acc[j] += xp * row[j];                    \
        }                                                                                     \
      } else {                                                                                \
        for (int64_t p = 0; p < k; p++) {                                                     \
          const float xp = x[p];                                                              \
          const float *row = mat + p * ldm + j0;                                              \
          for (int64_t j = 0; j < width; j++) acc[j] += xp * row[j];                          \
        }                                                                                     \
      }                                                                                       \
      float *out = y + j0;                                                                    \
      if (accumulate)                                                                         \
        for (int64_t j = 0; j < width; j++) out[j] += acc[j];                                 \
      else                                                                                    \
        for (int64_t j = 0; j < width; j++) out[j] = acc[j];                                  \
    }                                                                                         \
  }                                                                                           \
                                                                                              \
  attributes static float dot_##suffix(int64_t k, const float *a, const float *b) {          \
    float s[16] = {0};                                                                        \
    int64_t p = 0;                                                                            \
    for (; p + 16 <= k; p += 16)                                                              \
      for (int i = 0; i < 16; i++) s[i] += a[p + i] * b[p + i];                               \
    float total = 0.0f;                                                                       \
    for (int i = 0; i < 16; i++) total += s[i];                                               \
    for (; p < k; p++) total += a[p] * b[p];                                                  \
    return total;                                                                             \
  }                                                                                           \
                                                                                              \
  attributes static void mat_vec_##suffix(int64_t m, int64_t k, const float *mat, int64_t ldm, \
                                          const float *x, float *y, int accumulate) {         \
    for (int64_t i = 0; i < m; i++) {                                                         \
      const float v = dot_##suffix(k, mat + i * ldm, x);                                      \
      y[i] = accumulate ? y[i] + v : v;                                                       \
    }                                                                                         \
  }

#endif
