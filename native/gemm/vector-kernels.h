/*
 * The vector products (sgemm.h's tl_rows_mat, tl_vec_mat and tl_mat_vec) as plain loops, written
 * so that the compiler vectorizes them for whichever instruction set the including file targets:
 * TL_DEFINE_VECTOR_KERNELS(suffix, attributes) defines rows_mat_<suffix>, vec_mat_<suffix>,
 * mat_vec_<suffix> and bias_relu_<suffix> (the GEMM's epilogue for a dense ReLU layer).
 *
 * rows_mat (a few rows times a matrix; vec_mat is its one-row case) streams the matrix row by row,
 * each element read once from memory in order, and accumulates the rows of Y in a block of
 * columns that fits the L1. Walking the matrix a block of columns at a time instead, down all its
 * rows, touches a new page per row: at 2048 × 2048 that ran 3-4× slower, on page walks. Each
 * element of Y is summed over p in order from 0, so vec_mat gives the bits it always gave.
 * mat_vec computes its dot products with sixteen partial sums each, so the loop is not one long
 * chain of dependent additions.
 */
#ifndef TRADELAB_VECTOR_KERNELS_H
#define TRADELAB_VECTOR_KERNELS_H

#include <stdint.h>

/* Floats of Y a rows_mat call accumulates at once: 32 KiB, to stay in the L1. */
#define TL_ROWS_SCRATCH 8192

#define TL_DEFINE_VECTOR_KERNELS(suffix, attributes)                                          \
  /* A dense ReLU layer's epilogue on a tile: C = max(C + bias, 0), add then clamp. */         \
  attributes static void bias_relu_##suffix(int64_t rows, int64_t cols, float *c, int64_t ldc, \
                                            const float *restrict bias) {                     \
    for (int64_t i = 0; i < rows; i++) {                                                      \
      float *restrict row = c + i * ldc;                                                      \
      for (int64_t j = 0; j < cols; j++) {                                                    \
        const float v = row[j] + bias[j];                                                     \
        row[j] = v > 0.0f ? v : 0.0f;                                                         \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
                                                                                              \
  attributes static void axpy_##suffix(int64_t n, float x, const float *restrict row,          \
                                       float *restrict acc) {                                 \
    for (int64_t j = 0; j < n; j++) acc[j] += x * row[j];                                     \
  }                                                                                           \
                                                                                              \
  /* Four rows' axpys in one pass over acc, each added in turn as four calls would: same bits. */ \
  attributes static void axpy4_##suffix(int64_t n, const float *x, const float *restrict r0,   \
                                        const float *restrict r1, const float *restrict r2,    \
                                        const float *restrict r3, float *restrict acc) {       \
    for (int64_t j = 0; j < n; j++) {                                                         \
      float v = acc[j] + x[0] * r0[j];                                                        \
      v += x[1] * r1[j];                                                                      \
      v += x[2] * r2[j];                                                                      \
      acc[j] = v + x[3] * r3[j];                                                              \
    }                                                                                         \
  }                                                                                           \
                                                                                              \
  attributes static void rows_mat_##suffix(int64_t m, int64_t k, int64_t n, const float *a,   \
                                           int64_t a_row_step, int64_t a_col_step,           \
                                           const float *mat, int64_t ldm, float *y,           \
                                           int64_t ldy, int accumulate) {                     \
    float scratch[TL_ROWS_SCRATCH];                                                           \
    const int64_t chunk = (TL_ROWS_SCRATCH / m) & ~(int64_t)15;                               \
    for (int64_t j0 = 0; j0 < n; j0 += chunk) {                                               \
      const int64_t width = n - j0 < chunk ? n - j0 : chunk;                                  \
      for (int64_t i = 0; i < m * chunk; i++) scratch[i] = 0.0f;                              \
      int64_t p = 0;                                                                          \
      /* Four rows of the matrix per pass: acc is loaded and stored once for four. */         \
      for (; p + 4 <= k; p += 4) {                                                            \
        const float *row = mat + p * ldm + j0;                                                \
        for (int64_t i = 0; i < m; i++) {                                                     \
          const float *ai = a + i * a_row_step + p * a_col_step;                              \
          const float x[4] = {ai[0], ai[a_col_step], ai[2 * a_col_step], ai[3 * a_col_step]}; \
          axpy4_##suffix(width, x, row, row + ldm, row + 2 * ldm, row + 3 * ldm,              \
                         scratch + i * chunk);                                                \
        }                                                                                     \
      }                                                                                       \
      for (; p < k; p++) {                                                                    \
        const float *row = mat + p * ldm + j0;                                                \
        for (int64_t i = 0; i < m; i++)                                                       \
          axpy_##suffix(width, a[i * a_row_step + p * a_col_step], row, scratch + i * chunk); \
      }                                                                                       \
      for (int64_t i = 0; i < m; i++) {                                                       \
        float *out = y + i * ldy + j0;                                                        \
        const float *acc = scratch + i * chunk;                                               \
        if (accumulate)                                                                       \
          for (int64_t j = 0; j < width; j++) out[j] += acc[j];                               \
        else                                                                                  \
          for (int64_t j = 0; j < width; j++) out[j] = acc[j];                                \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
                                                                                              \
  attributes static void vec_mat_##suffix(int64_t k, int64_t n, const float *x,              \
                                          const float *mat, int64_t ldm, float *y,            \
                                          int accumulate) {                                   \
    rows_mat_##suffix(1, k, n, x, 0, 1, mat, ldm, y, 0, accumulate);                          \
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
