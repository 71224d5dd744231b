/* The system BLAS, opened at run time (see blas.h). */
#include "blas.h"

#include <stdio.h>
#include <string.h>

#ifdef _WIN32
const tl_blas *tl_blas_open(const char *const *paths, int count, char *error, size_t error_size) {
  (void)paths;
  (void)count;
  snprintf(error, error_size, "loading a system BLAS is not supported on Windows");
  return NULL;
}
const tl_blas *tl_blas_current(void) { return NULL; }
void tl_blas_gemm(const tl_blas *blas, const tl_gemm *g) {
  (void)blas;
  (void)g;
}
#else
#include <dlfcn.h>

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };

static tl_blas opened;
static int is_open = 0;

const tl_blas *tl_blas_current(void) { return is_open ? &opened : NULL; }

const tl_blas *tl_blas_open(const char *const *paths, int count, char *error, size_t error_size) {
  if (is_open) return &opened;
  error[0] = '\0';
  for (int i = 0; i < count; i++) {
    void *handle = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
      const char *why = dlerror();
      snprintf(error, error_size, "%s", why == NULL ? paths[i] : why);
      continue;
    }
    tl_blas blas;
    memset(&blas, 0, sizeof blas);
    /* dlsym returns void *; the casts go through a union-free memcpy-safe path POSIX allows. */
    *(void **)&blas.sgemm = dlsym(handle, "cblas_sgemm");
    *(void **)&blas.sgemv = dlsym(handle, "cblas_sgemv");
    if (blas.sgemm == NULL || blas.sgemv == NULL) {
      snprintf(error, error_size, "%s has no cblas_sgemm/cblas_sgemv", paths[i]);
      dlclose(handle);
      continue;
    }
    *(void **)&blas.set_num_threads = dlsym(handle, "openblas_set_num_threads");
    *(void **)&blas.get_num_threads = dlsym(handle, "openblas_get_num_threads");
    *(void **)&blas.get_corename = dlsym(handle, "openblas_get_corename");
    *(void **)&blas.get_config = dlsym(handle, "openblas_get_config");
    blas.vendor = blas.get_config != NULL          ? "OpenBLAS"
                  : strstr(paths[i], "Accelerate") ? "Accelerate"
                                                   : "BLAS";
    snprintf(blas.path, sizeof blas.path, "%s", paths[i]);
    opened = blas;
    is_open = 1;
    return &opened;
  }
  if (count == 0) snprintf(error, error_size, "no library to try");
  return NULL;
}

/* The bias rows written into C first, so that the BLAS adds the product to them (beta = 1). */
static void fill_bias(const tl_gemm *g) {
  for (int64_t i = 0; i < g->m; i++) {
    float *row = g->c + i * g->ldc;
    if (g->accumulate) {
      if (g->bias_size == 1)
        for (int64_t j = 0; j < g->n; j++) row[j] += g->bias[0];
      else
        for (int64_t j = 0; j < g->n; j++) row[j] += g->bias[j];
    } else if (g->bias_size == 1) {
      for (int64_t j = 0; j < g->n; j++) row[j] = g->bias[0];
    } else {
      memcpy(row, g->bias, (size_t)g->n * sizeof(float));
    }
  }
}

void tl_blas_gemm(const tl_blas *blas, const tl_gemm *g) {
  const int m = (int)g->m, n = (int)g->n, k = (int)g->k;
  if (m <= 0 || n <= 0) return;
  float beta = g->accumulate ? 1.0f : 0.0f;
  if (g->bias != NULL) {
    fill_bias(g);
    beta = 1.0f;
  }
  if (k <= 0) {
    if (beta == 0.0f)
      for (int i = 0; i < m; i++) memset(g->c + (int64_t)i * g->ldc, 0, (size_t)n * sizeof(float));
  } else if (m == 1 && (!g->trans_a || g->lda == 1)) {
    /* OpenBLAS's sgemm runs a vector product at a fraction of memory speed; its sgemv does not. */
    blas->sgemv(kRowMajor, g->trans_b ? kNoTrans : kTrans, g->trans_b ? n : k, g->trans_b ? k : n,
                1.0f, g->b, (int)g->ldb, g->a, 1, beta, g->c, 1);
  } else if (n == 1 && g->ldc == 1 && (g->trans_b || g->ldb == 1)) {
    blas->sgemv(kRowMajor, g->trans_a ? kTrans : kNoTrans, g->trans_a ? k : m, g->trans_a ? m : k,
                1.0f, g->a, (int)g->lda, g->b, 1, beta, g->c, 1);
  } else {
    blas->sgemm(kRowMajor, g->trans_a ? kTrans : kNoTrans, g->trans_b ? kTrans : kNoTrans, m, n, k,
                1.0f, g->a, (int)g->lda, g->b, (int)g->ldb, beta, g->c, (int)g->ldc);
  }
  if (g->activation == TL_RELU || g->activation == TL_RELU6) {
    const float top = g->activation == TL_RELU6 ? 6.0f : 3.4e38f;
    for (int64_t i = 0; i < g->m; i++) {
      float *row = g->c + i * g->ldc;
      for (int64_t j = 0; j < g->n; j++) row[j] = row[j] > 0.0f ? (row[j] < top ? row[j] : top) : 0.0f;
    }
  }
  /* The epilogues over the whole of C (the tiles are the BLAS's own). */
  if (g->bits_in != NULL)
    tl_bits_apply_any(g->c, g->ldc, g->m, g->n, g->bits_in, g->bits_ld, g->bits_col0);
  if (g->bits_out != NULL)
    tl_bits_store_any(g->c, g->ldc, g->m, g->n, g->bits_out, g->bits_ld, g->bits_col0);
  if (g->column_sums != NULL) {
    memset(g->column_sums, 0, (size_t)g->n * sizeof(float));
    tl_add_column_sums(g->c, g->ldc, g->m, g->n, g->column_sums);
  }
}
#endif
