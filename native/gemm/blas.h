/*
 * A system BLAS (OpenBLAS on Linux, Accelerate on macOS), opened at run time with dlopen rather
 * than linked: the addon builds and loads on a machine without one, and uses one only when asked
 * to (tradelab chooses it when it was measured faster than its own kernels; see native-gemm.ts).
 */
#ifndef TRADELAB_BLAS_H
#define TRADELAB_BLAS_H

#include "sgemm.h"

typedef struct tl_blas {
  const char *vendor; /* "OpenBLAS", "Accelerate" or "BLAS" */
  char path[512];     /* the library file that was opened */
  void (*sgemm)(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
  void (*sgemv)(int order, int trans, int m, int n, float alpha, const float *a, int lda,
                const float *x, int incx, float beta, float *y, int incy);
  /* OpenBLAS's extensions; NULL when the library lacks them. */
  void (*set_num_threads)(int n);
  int (*get_num_threads)(void);
  char *(*get_corename)(void);
  char *(*get_config)(void);
} tl_blas;

/*
 * Opens the first of `count` library paths that has cblas_sgemm and cblas_sgemv. Returns the
 * library (kept open for the life of the process) or NULL, with the reason in `error`.
 */
const tl_blas *tl_blas_open(const char *const *paths, int count, char *error, size_t error_size);

/* The library opened by tl_blas_open, or NULL. */
const tl_blas *tl_blas_current(void);

/* The product on the BLAS: its sgemm (sgemv for a vector operand), then bias and activation. */
void tl_blas_gemm(const tl_blas *blas, const tl_gemm *g);

#endif
