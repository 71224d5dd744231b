/*
 * The GEMM driver (see sgemm.h): cache blocking, packing, edge tiles, the fused bias and
 * activation, vector shortcuts, and the split over threads. The micro-kernels live in kernels-*.c.
 *
 * Why not a naive triple loop or a row-times-matrix loop: both stream op(B) from memory once per
 * row of C, at a few GFLOP/s; a packed micro-kernel reuses each loaded value MR or NR times from
 * registers and keeps the operands in the cache level sized for them, which is what lets one core
 * approach its FMA peak.
 */
#include "sgemm.h"

#include <stdlib.h>
#include <string.h>

#include "thread-pool.h"

#if defined(__x86_64__) || defined(__i386__)
#define TL_X86 1
#endif

/* ------------------------------------------------------------------------------------------ */
/* Kernel choice                                                                               */

int tl_kernels_supported(const tl_kernel **out, int max) {
  int count = 0;
#if defined(TL_X86) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  /* __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0). */
  if (count < max && tl_kernel_avx512() != NULL && __builtin_cpu_supports("avx512f"))
    out[count++] = tl_kernel_avx512();
  if (count < max && tl_kernel_avx2() != NULL && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma"))
    out[count++] = tl_kernel_avx2();
#endif
  if (count < max && tl_kernel_neon() != NULL) out[count++] = tl_kernel_neon();
  if (count < max) out[count++] = tl_kernel_generic();
  return count;
}

const tl_kernel *tl_kernel_best(void) {
  static const tl_kernel *best = NULL;
  if (best == NULL) {
    const tl_kernel *list[4];
    tl_kernels_supported(list, 4);
    best = list[0];
  }
  return best;
}

const tl_kernel *tl_kernel_named(const char *name) {
  const tl_kernel *list[4];
  const int count = tl_kernels_supported(list, 4);
  for (int i = 0; i < count; i++)
    if (strcmp(list[i]->name, name) == 0) return list[i];
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Packing buffers: one pair per thread, kept between calls                                    */

/*
 * Fresh memory is expensive here (a page fault per 4 KiB on first touch), so each thread keeps
 * its packing buffers and only grows them. They are released when the thread ends.
 */
typedef struct {
  float *data;
  size_t capacity; /* floats */
} tl_buffer;

static _Thread_local tl_buffer a_buffer, b_buffer;

static float *buffer_reserve(tl_buffer *buffer, size_t floats) {
  if (buffer->capacity < floats) {
    free(buffer->data);
    /* 64-byte aligned (a cache line, a zmm register); size rounded up as aligned_alloc needs. */
    const size_t bytes = (floats * sizeof(float) + 63) & ~(size_t)63;
    buffer->data = (float *)aligned_alloc(64, bytes);
    buffer->capacity = buffer->data == NULL ? 0 : floats;
  }
  return buffer->data;
}

/* ------------------------------------------------------------------------------------------ */
/* Packing                                                                                     */

/*
 * A full panel of an untransposed A (MR rows of m × k): the MR row streams read in step, each
 * step's MR values written together, so that the writes are one sequential stream. With MR a
 * constant the compiler unrolls the rows; this was 9% of a 2048×512×512 product written row by
 * row at stride MR, 3% now.
 */
static inline void pack_a_rows_fixed(const float *src, int64_t lda, int64_t kc, int mr,
                                     float *dst) {
  for (int64_t p = 0; p < kc; p++)
    for (int r = 0; r < mr; r++) dst[p * mr + r] = src[r * lda + p];
}

static void pack_a_rows(const float *src, int64_t lda, int64_t kc, int mr, float *dst) {
  switch (mr) {
    case 6: pack_a_rows_fixed(src, lda, kc, 6, dst); break;
    case 8: pack_a_rows_fixed(src, lda, kc, 8, dst); break;
    case 12: pack_a_rows_fixed(src, lda, kc, 12, dst); break;
    default: pack_a_rows_fixed(src, lda, kc, mr, dst);
  }
}

/*
 * Copies one panel step (MR or NR floats): with the width a constant the compiler emits a few
 * vector moves, where a memcpy call of 48 bytes cost more than the copy (3.5% of a PPO update).
 */
static inline void copy_step(float *dst, const float *src, int width) {
  switch (width) {
    case 6: memcpy(dst, src, 6 * sizeof(float)); break;
    case 8: memcpy(dst, src, 8 * sizeof(float)); break;
    case 12: memcpy(dst, src, 12 * sizeof(float)); break;
    case 16: memcpy(dst, src, 16 * sizeof(float)); break;
    case 32: memcpy(dst, src, 32 * sizeof(float)); break;
    default: memcpy(dst, src, (size_t)width * sizeof(float));
  }
}

/*
 * Rows of `steps` × `width` values (row p at src + p·ld) into ceil(width / w) panels of `steps`
 * rows of w values, the last panel padded with zeros: a transposed A (w = MR) and an untransposed
 * B (w = NR), whose panel values are contiguous in memory. Read row by row, so that memory is one
 * sequential stream (the hardware prefetcher's best case; activations are MiBs), each row's
 * w-wide pieces written to their panels. Panel by panel, the reads jumped a row at every step: 7%
 * of a PPO update for its weight gradients' activations, 24% of an 81×512×2048 weight gradient
 * for its B (11× packing's share in OpenBLAS).
 */
static void pack_row_pieces(const float *src, int64_t ld, int64_t steps, int64_t width, int w,
                            float *dst) {
  const int64_t full = width / w, edge = width % w, panel = (int64_t)w * steps;
  for (int64_t p = 0; p < steps; p++) {
    const float *row = src + p * ld;
    float *out = dst + p * w;
    for (int64_t q = 0; q < full; q++) copy_step(out + q * panel, row + q * w, w);
    if (edge != 0) {
      float *last = out + full * panel;
      int64_t j = 0;
      for (; j < edge; j++) last[j] = row[full * w + j];
      for (; j < w; j++) last[j] = 0.0f;
    }
  }
}

/*
 * op(A)[i0 .. i0+mc, p0 .. p0+kc] into ceil(mc / MR) panels, each kc steps of MR values (rows
 * past the edge are zeros, so the micro-kernel never branches on them).
 */
static void pack_a(const tl_kernel *kernel, const tl_gemm *g, int64_t i0, int64_t p0, int64_t mc,
                   int64_t kc, int mr, float *dst) {
  if (g->trans_a) { /* A stored k × m: each step's MR values are contiguous */
    pack_row_pieces(g->a + p0 * g->lda + i0, g->lda, kc, mc, mr, dst);
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += mr) {
    const int64_t rows = mc - ir < mr ? mc - ir : mr;
    if (rows == mr) {
      const float *src = g->a + (i0 + ir) * g->lda + p0;
      if (kernel->pack_a_rows != NULL)
        kernel->pack_a_rows(src, g->lda, kc, mr, dst);
      else
        pack_a_rows(src, g->lda, kc, mr, dst);
    } else {
      /* A stored m × k, the ragged last panel: read each row once, write it at stride MR. */
      for (int64_t r = 0; r < rows; r++) {
        const float *src = g->a + (i0 + ir + r) * g->lda + p0;
        for (int64_t p = 0; p < kc; p++) dst[p * mr + r] = src[p];
      }
      for (int64_t r = rows; r < mr; r++)
        for (int64_t p = 0; p < kc; p++) dst[p * mr + r] = 0.0f;
    }
    dst += (int64_t)mr * kc;
  }
}

/* op(B)[p0 .. p0+kc, j0 .. j0+nc] into ceil(nc / NR) panels, each kc steps of NR values. */
static void pack_b(const tl_gemm *g, int64_t p0, int64_t j0, int64_t kc, int64_t nc, int nr,
                   float *dst) {
  if (!g->trans_b) {
    pack_row_pieces(g->b + p0 * g->ldb + j0, g->ldb, kc, nc, nr, dst);
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += nr) {
    const int64_t cols = nc - jr < nr ? nc - jr : nr;
    /* B stored n × k: read each column of op(B) (a row of B) once, write it at stride NR. */
    for (int64_t j = 0; j < cols; j++) {
      const float *src = g->b + (j0 + jr + j) * g->ldb + p0;
      for (int64_t p = 0; p < kc; p++) dst[p * nr + j] = src[p];
    }
    for (int64_t j = cols; j < nr; j++)
      for (int64_t p = 0; p < kc; p++) dst[p * nr + j] = 0.0f;
    dst += (int64_t)nr * kc;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Epilogues: bias, activation, ReLU bits, column sums, on a tile while it is in the L1    */

static void apply_bias_activation(const tl_kernel *kernel, const tl_gemm *g, float *c,
                                  int64_t rows, int64_t cols, int64_t j0) {
  const float *bias = g->bias;
  const int act = g->activation;
  if (bias == NULL && act == TL_LINEAR) return;
  /*
   * A dense ReLU layer's epilogue, the common case, in one pass at the kernel's vector width: add,
   * then clamp, as below (2% of a PPO update in SSE2 and two passes).
   */
  if (bias != NULL && g->bias_size != 1 && act == TL_RELU && kernel->bias_relu != NULL) {
    kernel->bias_relu(rows, cols, c, g->ldc, bias + j0);
    return;
  }
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * g->ldc;
    if (bias != NULL) {
      if (g->bias_size == 1)
        for (int64_t j = 0; j < cols; j++) row[j] += bias[0];
      else
        for (int64_t j = 0; j < cols; j++) row[j] += bias[j0 + j];
    }
    if (act == TL_RELU)
      for (int64_t j = 0; j < cols; j++) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
    else if (act == TL_RELU6)
      for (int64_t j = 0; j < cols; j++)
        row[j] = row[j] > 0.0f ? (row[j] < 6.0f ? row[j] : 6.0f) : 0.0f;
  }
}

/* Bit b of a row's words; a whole aligned word at a time where it can (branch-free). */
void tl_bits_store_any(const float *c, int64_t ldc, int64_t rows, int64_t cols, uint16_t *bits,
                       int64_t ld, int64_t bit0) {
  for (int64_t i = 0; i < rows; i++) {
    const float *row = c + i * ldc;
    uint16_t *words = bits + i * ld;
    int64_t j = 0;
    while (j < cols) {
      const int64_t b = bit0 + j;
      if (b % 16 == 0 && cols - j >= 16) {
        unsigned word = 0;
        for (int t = 0; t < 16; t++) word |= (unsigned)(row[j + t] > 0.0f) << t;
        words[b / 16] = (uint16_t)word;
        j += 16;
        continue;
      }
      const uint16_t bit = (uint16_t)(1u << (b % 16));
      const uint16_t word = words[b / 16];
      words[b / 16] = row[j] > 0.0f ? (uint16_t)(word | bit) : (uint16_t)(word & ~bit);
      j++;
    }
  }
}

/*
 * Multiplying by the bit, not selecting, keeps tfjs's bits: a negative value masked out is −0, as
 * dy · step(y) gives there.
 */
void tl_bits_apply_any(float *c, int64_t ldc, int64_t rows, int64_t cols, const uint16_t *bits,
                       int64_t ld, int64_t bit0) {
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * ldc;
    const uint16_t *words = bits + i * ld;
    for (int64_t j = 0; j < cols; j++) {
      const int64_t b = bit0 + j;
      const float keep = (float)((words[b / 16] >> (b % 16)) & 1u);
      row[j] = row[j] * keep;
    }
  }
}

void tl_add_column_sums(const float *c, int64_t ldc, int64_t rows, int64_t cols, float *sums) {
  for (int64_t i = 0; i < rows; i++) {
    const float *restrict row = c + i * ldc;
    float *restrict out = sums;
    for (int64_t j = 0; j < cols; j++) out[j] = out[j] + row[j];
  }
}

/* Bias and activation, then the optional epilogues (see tl_gemm), on a tile at column j0. */
static void finish_tile(const tl_kernel *kernel, const tl_gemm *g, float *c, int64_t rows,
                        int64_t cols, int64_t j0) {
  apply_bias_activation(kernel, g, c, rows, cols, j0);
  if (g->bits_in == NULL && g->bits_out == NULL && g->column_sums == NULL) return;
  const int64_t i0 = (c - g->c - j0) / g->ldc;
  if (g->bits_in != NULL) {
    const uint16_t *bits = g->bits_in + i0 * g->bits_ld;
    if (kernel->bits_apply != NULL)
      kernel->bits_apply(c, g->ldc, rows, cols, bits, g->bits_ld, g->bits_col0 + j0);
    else
      tl_bits_apply_any(c, g->ldc, rows, cols, bits, g->bits_ld, g->bits_col0 + j0);
  }
  if (g->bits_out != NULL) {
    uint16_t *bits = g->bits_out + i0 * g->bits_ld;
    if (kernel->bits_store != NULL)
      kernel->bits_store(c, g->ldc, rows, cols, bits, g->bits_ld, g->bits_col0 + j0);
    else
      tl_bits_store_any(c, g->ldc, rows, cols, bits, g->bits_ld, g->bits_col0 + j0);
  }
  if (g->column_sums != NULL) tl_add_column_sums(c, g->ldc, rows, cols, g->column_sums + j0);
}

/* C = act(beta·C + bias) when k is 0: there is no product to add. */
static void empty_product(const tl_kernel *kernel, const tl_gemm *g) {
  for (int64_t i = 0; i < g->m; i++) {
    float *row = g->c + i * g->ldc;
    if (!g->accumulate) memset(row, 0, (size_t)g->n * sizeof(float));
  }
  finish_tile(kernel, g, g->c, g->m, g->n, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector shortcuts                                                                            */

/*
 * A row vector times a matrix (m = 1) or a matrix times a column vector (n = 1): packing would
 * cost as much as the product, which is one pass over the matrix. Taken only when the vector
 * operand is contiguous (a 1 × k or k × 1 operand is, unless a leading dimension pads it).
 */
static int vector_product(const tl_kernel *kernel, const tl_gemm *g) {
  /*
   * A few rows times an untransposed B (a rollout of a few envs, an evaluation): streaming B row
   * by row beats packing it, which costs as much as the product, and beats reading it in place
   * down its columns, a new page per row (netDim 2048, 2 rows: 3.1 ms a forward pass before).
   */
  if (g->m > 1 && g->m <= TL_ROWS_MAX && !g->trans_b) {
    kernel->rows_mat(g->m, g->k, g->n, g->a, g->trans_a ? 1 : g->lda, g->trans_a ? g->lda : 1,
                     g->b, g->ldb, g->c, g->ldc, g->accumulate);
    finish_tile(kernel, g, g->c, g->m, g->n, 0);
    return 1;
  }
  if (g->m == 1 && (!g->trans_a || g->lda == 1)) {
    if (g->trans_b) /* y[j] = Σ_p x[p] B[j, p]: B (n × k) times x */
      kernel->mat_vec(g->n, g->k, g->b, g->ldb, g->a, g->c, g->accumulate);
    else
      kernel->vec_mat(g->k, g->n, g->a, g->b, g->ldb, g->c, g->accumulate);
    finish_tile(kernel, g, g->c, 1, g->n, 0);
    return 1;
  }
  if (g->n == 1 && g->ldc == 1 && (g->trans_b || g->ldb == 1)) {
    if (g->trans_a) /* y[i] = Σ_p A[p, i] x[p]: x times A (k × m) */
      kernel->vec_mat(g->k, g->m, g->b, g->a, g->lda, g->c, g->accumulate);
    else
      kernel->mat_vec(g->m, g->k, g->a, g->lda, g->b, g->c, g->accumulate);
    finish_tile(kernel, g, g->c, g->m, 1, 0);
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The blocked product                                                                         */

/* C's rows × cols corner (+)= an edge tile computed NR wide. */
static void add_tile(const tl_gemm *g, float *c, const float *tile, int64_t rows, int64_t cols,
                     int nr, int accumulate) {
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * g->ldc;
    const float *t = tile + i * nr;
    if (accumulate)
      for (int64_t j = 0; j < cols; j++) row[j] += t[j];
    else
      for (int64_t j = 0; j < cols; j++) row[j] = t[j];
  }
}

/*
 * The next A block's cache lines, fetched into the L2 a few at a time while the micro-kernels
 * work on this block: packing A otherwise waits on memory (a PPO update's activations are MiBs),
 * in a pass where no arithmetic runs beside it.
 */
typedef struct {
  const char *base;   /* the block's first row */
  int64_t stride;     /* bytes from row to row */
  int64_t rows, row_lines;
  int64_t row, line;  /* the next line to fetch */
  int64_t per_call;   /* lines fetched before each micro-kernel call */
} tl_prefetch;

static void prefetch_block(tl_prefetch *pf, const tl_gemm *g, int64_t ic, int64_t mc, int64_t pc,
                           int64_t kc, int64_t calls) {
  const int64_t floats = g->trans_a ? mc : kc;
  pf->base = (const char *)(g->trans_a ? g->a + pc * g->lda + ic : g->a + ic * g->lda + pc);
  pf->stride = g->lda * (int64_t)sizeof(float);
  pf->rows = g->trans_a ? kc : mc;
  pf->row_lines = (floats * (int64_t)sizeof(float) + 63) / 64;
  pf->row = pf->line = 0;
  pf->per_call = (pf->rows * pf->row_lines + calls - 1) / (calls > 0 ? calls : 1);
}

static inline void prefetch_step(tl_prefetch *pf) {
  for (int64_t n = 0; n < pf->per_call && pf->row < pf->rows; n++) {
    __builtin_prefetch(pf->base + pf->row * pf->stride + pf->line * 64, 0, 2);
    if (++pf->line == pf->row_lines) {
      pf->line = 0;
      pf->row++;
    }
  }
}

/* Columns of C up to which A is read in place by kernels that can (micro_strided). */
#define TL_IN_PLACE_A_MAX_N 64

/*
 * Rows of C up to which B is read in place rather than packed (when it is not transposed), and the
 * most values of B for which it is: in place, B is read once per MR rows, down its rows at their
 * stride, which pays while B stays in the L2 (a rollout's 512×512 layer: 98 GFLOP/s in place,
 * 91 packed) and not once it streams from memory (64 rows × 2048 × 2048: 46 in place, 76 packed;
 * 8 rows: 10 and 35; a 64-input layer's weight gradient over 4096 samples, 64×512×4096: 50 and
 * 76).
 */
#define TL_SMALL_M 64
#define TL_IN_PLACE_B_MAX_VALUES (512 * 1024)

/* The packed product (k > 0, no vector shortcut). */
static void blocked_product(const tl_kernel *kernel, const tl_gemm *g) {
  const int64_t m = g->m, n = g->n, k = g->k;
  if (m <= 0 || n <= 0) return;

  const int mr = kernel->mr, nr = kernel->nr;
  const int64_t mc_max = kernel->mc, kc_max = kernel->kc, nc_max = kernel->nc;
  /*
   * With few rows and a B that fits the L2, packing B would cost as much as the product: an
   * untransposed B's full-width panels are read in place (b_step = ldb) and only its ragged edge
   * is packed.
   */
  const int in_place_b = !g->trans_b && m <= TL_SMALL_M && k * n <= TL_IN_PLACE_B_MAX_VALUES;
  /*
   * A narrow product reads A in place: each of A's values meets only n columns, so packing A
   * costs a good share of the product (a 2048×10×512 head ran at half OpenBLAS's rate packed; a
   * TCN's 64-channel convolutions spent 13% of a step packing).
   */
  const int strided_a = kernel->micro_strided != NULL && n <= TL_IN_PLACE_A_MAX_N;
  const int64_t a_row_step = g->trans_a ? 1 : g->lda, a_col_step = g->trans_a ? g->lda : 1;
  float *a_pack = buffer_reserve(&a_buffer, (size_t)(mc_max + mr) * (size_t)kc_max);
  float *b_pack = buffer_reserve(&b_buffer, (size_t)(nc_max + nr) * (size_t)kc_max);
  if (a_pack == NULL || b_pack == NULL) abort(); /* out of memory for a few MiB: nothing sane left */
  float tile[16 * 64] __attribute__((aligned(64))); /* an edge tile: MR ≤ 16, NR ≤ 64 */

  for (int64_t jc = 0; jc < n; jc += nc_max) {
    const int64_t nc = n - jc < nc_max ? n - jc : nc_max;
    for (int64_t pc = 0; pc < k; pc += kc_max) {
      const int64_t kc = k - pc < kc_max ? k - pc : kc_max;
      const int first = pc == 0, last = pc + kc == k;
      const int accumulate = first ? g->accumulate : 1;
      if (in_place_b) {
        const int64_t edge = nc % nr;
        if (edge != 0) pack_b(g, pc, jc + nc - edge, kc, edge, nr, b_pack);
      } else {
        pack_b(g, pc, jc, kc, nc, nr, b_pack);
      }
      for (int64_t ic = 0; ic < m; ic += mc_max) {
        const int64_t mc = m - ic < mc_max ? m - ic : mc_max;
        if (!strided_a) pack_a(kernel, g, ic, pc, mc, kc, mr, a_pack);
        tl_prefetch next = {.rows = 0};
        if (!strided_a && ic + mc_max < m) {
          const int64_t next_mc = m - ic - mc_max < mc_max ? m - ic - mc_max : mc_max;
          const int64_t calls = ((nc + nr - 1) / nr) * ((mc + mr - 1) / mr);
          prefetch_block(&next, g, ic + mc_max, next_mc, pc, kc, calls);
        }
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int64_t cols = nc - jr < nr ? nc - jr : nr;
          const float *b_panel;
          int64_t b_step;
          if (in_place_b && cols == nr) {
            b_panel = g->b + pc * g->ldb + jc + jr;
            b_step = g->ldb;
          } else {
            b_panel = b_pack + (in_place_b ? 0 : (jr / nr) * nr * kc);
            b_step = nr;
          }
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int64_t rows = mc - ir < mr ? mc - ir : mr;
            const float *a_panel = a_pack + (ir / mr) * mr * kc;
            float *c = g->c + (ic + ir) * g->ldc + jc + jr;
            prefetch_step(&next);
            if (strided_a && rows == mr) {
              const float *a_in_place = g->trans_a ? g->a + pc * g->lda + ic + ir
                                                   : g->a + (ic + ir) * g->lda + pc;
              float *out = cols == nr ? c : tile;
              kernel->micro_strided(kc, a_in_place, a_row_step, a_col_step, b_panel, b_step, out,
                                    cols == nr ? g->ldc : nr, cols == nr ? accumulate : 0);
              if (cols != nr) add_tile(g, c, tile, rows, cols, nr, accumulate);
            } else if (rows == mr && cols == nr) {
              kernel->micro(kc, a_panel, b_panel, b_step, c, g->ldc, accumulate);
            } else {
              /* In place, A's ragged last panel is packed here, once per column panel. */
              if (strided_a) pack_a(kernel, g, ic + ir, pc, rows, kc, mr, a_pack);
              kernel->micro(kc, strided_a ? a_pack : a_panel, b_panel, b_step, tile, nr, 0);
              add_tile(g, c, tile, rows, cols, nr, accumulate);
            }
            if (last) finish_tile(kernel, g, c, rows, cols, jc + jr);
          }
        }
      }
    }
  }
}

/*
 * The cases the packed product does not take: nothing to compute, nothing to multiply (k = 0),
 * or a vector operand. Decided on the whole product, before any split over threads, so that every
 * element of C is computed the same way whatever the thread count.
 */
static int trivial_product(const tl_kernel *kernel, const tl_gemm *g) {
  if (g->m <= 0 || g->n <= 0) return 1;
  if (g->k <= 0) {
    empty_product(kernel, g);
    return 1;
  }
  return vector_product(kernel, g);
}

/* The kernel for the whole product's shape: the narrow variant when op(B) fits its width. */
static const tl_kernel *kernel_for(const tl_kernel *kernel, const tl_gemm *g) {
  return kernel->narrow != NULL && g->n <= kernel->narrow->nr ? kernel->narrow : kernel;
}

/* Column sums start at zero: the tiles add to them. */
static void start_column_sums(const tl_gemm *g) {
  if (g->column_sums != NULL && g->n > 0)
    memset(g->column_sums, 0, (size_t)g->n * sizeof(float));
}

void tl_sgemm_serial(const tl_kernel *kernel, const tl_gemm *g) {
  start_column_sums(g);
  if (!trivial_product(kernel, g)) blocked_product(kernel_for(kernel, g), g);
}

/* ------------------------------------------------------------------------------------------ */
/* Threads                                                                                     */

/* Products below this many multiply-adds run on one thread: waking another costs more. */
#define TL_PARALLEL_MIN_MADDS (1 << 20)

typedef struct {
  const tl_kernel *kernel;
  tl_gemm part[TL_POOL_MAX_THREADS];
} tl_split;

static void run_part(void *context, int index) {
  const tl_split *split = (const tl_split *)context;
  blocked_product(split->kernel, &split->part[index]);
}

/*
 * Splits C into `threads` bands of whole micro-tiles, by rows when m has more MR-tiles than n has
 * NR-tiles, else by columns (unless an epilogue needs one of them); each band is an independent
 * product with its own packing, so the threads share nothing but the read-only inputs. Every
 * element is summed in the same order as on one thread (the same kc blocks, in order), so the
 * result does not depend on the thread count.
 */
void tl_sgemm(const tl_kernel *kernel, int threads, const tl_gemm *g) {
  start_column_sums(g);
  if (trivial_product(kernel, g)) return;
  kernel = kernel_for(kernel, g); /* before the split, which narrows the parts */
  const double madds = (double)g->m * (double)g->n * (double)g->k;
  if (threads > TL_POOL_MAX_THREADS) threads = TL_POOL_MAX_THREADS;
  const int64_t row_tiles = (g->m + kernel->mr - 1) / kernel->mr;
  const int64_t col_tiles = (g->n + kernel->nr - 1) / kernel->nr;
  /*
   * Stored bits split by rows (two threads' columns could share a word); column sums by columns
   * (each sums all rows of its columns in order, as one thread would); both, one thread.
   */
  int by_rows = row_tiles >= col_tiles;
  if (g->bits_out != NULL) by_rows = 1;
  if (g->column_sums != NULL) by_rows = 0;
  if (g->bits_out != NULL && g->column_sums != NULL) threads = 1;
  const int64_t tiles = by_rows ? row_tiles : col_tiles;
  if (threads > tiles) threads = (int)tiles;
  if (threads <= 1 || madds < TL_PARALLEL_MIN_MADDS) {
    blocked_product(kernel, g);
    return;
  }
  tl_split split;
  split.kernel = kernel;
  const int step = by_rows ? kernel->mr : kernel->nr;
  int64_t start = 0;
  for (int t = 0; t < threads; t++) {
    const int64_t count = tiles / threads + (t < tiles % threads ? 1 : 0);
    int64_t end = start + count * step;
    const int64_t limit = by_rows ? g->m : g->n;
    if (end > limit) end = limit;
    tl_gemm *part = &split.part[t];
    *part = *g;
    if (by_rows) {
      part->m = end - start;
      part->a = g->trans_a ? g->a + start : g->a + start * g->lda;
      part->c = g->c + start * g->ldc;
      if (g->bits_in != NULL) part->bits_in = g->bits_in + start * g->bits_ld;
      if (g->bits_out != NULL) part->bits_out = g->bits_out + start * g->bits_ld;
    } else {
      part->n = end - start;
      part->b = g->trans_b ? g->b + start * g->ldb : g->b + start;
      part->c = g->c + start;
      part->bits_col0 = g->bits_col0 + start;
      if (g->column_sums != NULL) part->column_sums = g->column_sums + start;
      if (g->bias != NULL && g->bias_size != 1) part->bias = g->bias + start;
    }
    start = end;
  }
  tl_pool_run(threads, run_part, &split);
}
