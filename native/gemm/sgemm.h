/*
 * tradelab's own single-precision GEMM: C = act(beta·C + op(A)·op(B) + bias), row-major.
 *
 * The shape of it is BLIS's: op(B) is packed into panels NR columns wide and op(A) into panels MR
 * rows tall, in blocks sized for the caches (kc × nc of B for the L3, mc × kc of A for the L2, one
 * kc × NR micro-panel of B for the L1), and a register-tiled micro-kernel multiplies one MR-row
 * panel by one NR-column panel. Packing is where the four transpose cases differ; the
 * micro-kernels never see a stride they did not choose. One micro-kernel per instruction set
 * (AVX-512, AVX2+FMA, NEON, portable C) is compiled into the same addon with function-level target
 * attributes and chosen at run time by what the CPU reports, so one build runs on any machine of
 * its architecture.
 */
#ifndef TRADELAB_SGEMM_H
#define TRADELAB_SGEMM_H

#include <stddef.h>
#include <stdint.h>

/*
 * C[MR × NR] (+)= Σ_p a[p·MR + r] · b[p·b_step + j] over p < k: a is a packed A panel, b either
 * a packed B panel (b_step = NR) or NR contiguous columns of an untransposed B read in place
 * (b_step = ldb). accumulate 0 overwrites C, 1 adds to it.
 */
typedef void (*tl_micro_kernel)(int64_t k, const float *a, const float *b, int64_t b_step,
                                float *c, int64_t ldc, int accumulate);

/*
 * The micro-kernel's product with A read in place: A(r, p) = a[r·a_row_step + p·a_col_step]. For
 * narrow products, where packing A would cost as much as multiplying it (each of A's values meets
 * at most NR columns).
 */
typedef void (*tl_micro_kernel_strided)(int64_t k, const float *a, int64_t a_row_step,
                                        int64_t a_col_step, const float *b, int64_t b_step,
                                        float *c, int64_t ldc, int accumulate);

/*
 * Packs one full panel of an untransposed A: dst[p·mr + r] = src[r·lda + p] for r < mr, p < kc.
 * A transpose in registers where the instruction set has one; NULL: the portable loop.
 */
typedef void (*tl_pack_a_rows)(const float *src, int64_t lda, int64_t kc, int mr, float *dst);

/*
 * Y[i·ldy + j] (+)= Σ_p A(i, p) · M[p·ldm + j] over i < m, j < n, p < k, with A(i, p) =
 * a[i·a_row_step + p·a_col_step]: a few rows times a matrix (m ≤ TL_ROWS_MAX).
 */
typedef void (*tl_rows_mat)(int64_t m, int64_t k, int64_t n, const float *a, int64_t a_row_step,
                            int64_t a_col_step, const float *mat, int64_t ldm, float *y,
                            int64_t ldy, int accumulate);

/* Rows of C up to which rows_mat beats the packed product (measured: see sgemm.c). */
#define TL_ROWS_MAX 4

/* y[j] (+)= Σ_p x[p] · M[p·ldm + j] over j < n, p < k: a row vector times a matrix. */
typedef void (*tl_vec_mat)(int64_t k, int64_t n, const float *x, const float *mat, int64_t ldm,
                           float *y, int accumulate);

/* y[i] (+)= Σ_p M[i·ldm + p] · x[p] over i < m, p < k: a matrix times a column vector. */
typedef void (*tl_mat_vec)(int64_t m, int64_t k, const float *mat, int64_t ldm, const float *x,
                           float *y, int accumulate);

/*
 * Runs `iterations` rounds of independent fused multiply-adds on registers only (no memory) and
 * returns the floating-point operations done: the core's compute peak on this instruction set,
 * which `tradelab bench gemm` sets beside the GEMM's rate.
 */
typedef int64_t (*tl_fma_peak)(int64_t iterations);

/* C[i·ldc + j] = max(C[i·ldc + j] + bias[j], 0) over a rows × cols tile: a ReLU layer's epilogue. */
typedef void (*tl_bias_relu)(int64_t rows, int64_t cols, float *c, int64_t ldc, const float *bias);

/*
 * ReLU bits: one bit per element of a matrix, 1 where it is > 0, rows of `ld` 16-bit words, column
 * j of a tile at bit (bit0 + j) of its row (bit b of a row: word b / 16, bit b % 16). A ReLU
 * layer's forward pass stores them (8 KiB per 1,000 rows of 512 units, where its output is 2 MiB)
 * and its backward pass masks its gradient with them, both as epilogues of the products.
 */
typedef void (*tl_bits_store)(const float *c, int64_t ldc, int64_t rows, int64_t cols,
                              uint16_t *bits, int64_t ld, int64_t bit0);
/* c[i·ldc + j] ·= the bit (1 or 0) over a rows × cols tile. */
typedef void (*tl_bits_apply)(float *c, int64_t ldc, int64_t rows, int64_t cols,
                              const uint16_t *bits, int64_t ld, int64_t bit0);

/* One instruction set's kernels and the block sizes tuned for them. */
typedef struct tl_kernel {
  const char *name; /* "avx512", "avx2", "neon", "generic" */
  int mr, nr;       /* micro-tile */
  int mc, kc, nc;   /* cache blocks: mc a multiple of mr, nc of nr */
  tl_micro_kernel micro;
  tl_micro_kernel_strided micro_strided; /* NULL, or A read in place (the narrow kernels) */
  tl_pack_a_rows pack_a_rows;            /* NULL, or a faster packing of A's full panels */
  tl_rows_mat rows_mat;
  tl_vec_mat vec_mat;
  tl_mat_vec mat_vec;
  tl_fma_peak fma_peak;
  tl_bias_relu bias_relu;
  tl_bits_store bits_store; /* NULL: the portable loops (tl_bits_store_any) */
  tl_bits_apply bits_apply;
  /*
   * For products at most its nr columns wide (a policy head's 10 actions), a taller tile of the
   * same instruction set, or NULL: a 32-wide tile computes 22 wasted columns for 10 real ones.
   */
  const struct tl_kernel *narrow;
} tl_kernel;

enum { TL_LINEAR = 0, TL_RELU = 1, TL_RELU6 = 2 };

/*
 * One product. op(A) is m × k (A stored k × m when trans_a), op(B) k × n (n × k when trans_b).
 * C = act(beta·C + op(A)·op(B) + bias), then the optional epilogues in this order: masked by
 * bits_in, its ReLU bits stored to bits_out, its column sums to column_sums.
 */
typedef struct tl_gemm {
  int trans_a, trans_b;
  int64_t m, n, k;
  const float *a;
  int64_t lda;
  const float *b;
  int64_t ldb;
  float *c;
  int64_t ldc;
  int accumulate;      /* beta: 0 or 1 */
  const float *bias;   /* NULL, or bias_size values added to every row */
  int64_t bias_size;   /* 1 (a scalar) or n (one per column) */
  int activation;      /* TL_LINEAR, TL_RELU or TL_RELU6 */
  /*
   * A ReLU layer's backward pass, fused: C ·= step(its forward output), from the forward pass's
   * bits (NULL: none), and bits_out, the forward pass's (NULL: none); rows of bits_ld words, C's
   * column j at bit bits_col0 + j. A separate pass over the activations for the mask cost 2 ms per
   * 4096×512 layer; read in the epilogue, the bits are in the L2.
   */
  const uint16_t *bits_in;
  uint16_t *bits_out;
  int64_t bits_ld, bits_col0;
  /*
   * NULL, or set to Σ_i C[i, j] over C's rows in order from 0 (a bias gradient, with the bits of
   * ones · C, the product tradelab's Sum kernel runs for it), summed tile by tile in the L1.
   */
  float *column_sums;
} tl_gemm;

/* The portable ReLU-bit epilogues: any bit0, any columns. */
void tl_bits_store_any(const float *c, int64_t ldc, int64_t rows, int64_t cols, uint16_t *bits,
                       int64_t ld, int64_t bit0);
void tl_bits_apply_any(float *c, int64_t ldc, int64_t rows, int64_t cols, const uint16_t *bits,
                       int64_t ld, int64_t bit0);

/* sums[j] += c[i·ldc + j] over a rows × cols tile, row after row (part of a column sum). */
void tl_add_column_sums(const float *c, int64_t ldc, int64_t rows, int64_t cols, float *sums);

/* The kernels this CPU can run, best first; returns how many (at most max). */
int tl_kernels_supported(const tl_kernel **out, int max);

/* The best kernel this CPU can run (never NULL: the portable one runs everywhere). */
const tl_kernel *tl_kernel_best(void);

/* The named kernel when this CPU can run it, else NULL. */
const tl_kernel *tl_kernel_named(const char *name);

/* The product on the calling thread. */
void tl_sgemm_serial(const tl_kernel *kernel, const tl_gemm *g);

/* The product split over up to `threads` threads (the caller's and a pool's); see sgemm.c. */
void tl_sgemm(const tl_kernel *kernel, int threads, const tl_gemm *g);

/* Per-instruction-set kernel tables (kernels-*.c); NULL where not compiled for this target. */
const tl_kernel *tl_kernel_avx512(void);
const tl_kernel *tl_kernel_avx2(void);
const tl_kernel *tl_kernel_neon(void);
const tl_kernel *tl_kernel_generic(void);

#endif
