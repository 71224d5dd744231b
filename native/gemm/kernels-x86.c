/*
 * x86-64 micro-kernels: AVX-512 (MR 12 × NR 32, and 8 × 16 for products at most 16 columns wide)
 * and AVX2 + FMA (MR 6 × NR 16). Each function carries its instruction set as a target attribute,
 * so the file builds with the compiler's default flags and nothing here runs unless sgemm.c's
 * run-time check found the CPU (and the OS) supports it.
 *
 * All keep the C tile in registers for the whole k loop: AVX-512 holds 12 × 2 accumulators of 16
 * floats (24 of its 32 zmm registers), AVX2 6 × 2 of 8 (12 of its 16 ymm registers). Each step
 * loads one row of the B panel as vectors and broadcasts the A panel's MR values, MR × (NR / W)
 * fused multiply-adds for (NR / W) + MR loads. Each is written once with A's strides as
 * parameters: the packed panel's case (1, MR) is a constant-folded copy, and narrow products
 * (sgemm.c's TL_IN_PLACE_A_MAX_N) read an unpacked A in place through the same code.
 */
#include "sgemm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "vector-kernels.h"

/* Where the peak loops leave their sums, so the compiler cannot drop the work. */
volatile float tl_fma_sink;

#define TL_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma")))
#define TL_AVX2 __attribute__((target("avx2,fma")))
#define TL_AVX2_ONLY __attribute__((target("avx2")))

/*
 * A full panel of an untransposed A, transposed in registers: four rows by eight steps at a
 * time (unpack, shuffle), each step's four values stored together; rows past a multiple of four
 * and the last steps one by one. AVX2 only, so both x86 kernels use it; a scalar loop of the
 * same packing was 4% of a PPO update.
 */
TL_AVX2_ONLY static void pack_a_rows_avx2(const float *src, int64_t lda, int64_t kc, int mr,
                                          float *dst) {
  const int groups = mr / 4;
  int64_t p = 0;
  for (; p + 8 <= kc; p += 8) {
    for (int q = 0; q < groups; q++) {
      const float *row = src + (int64_t)(4 * q) * lda + p;
      const __m256 a = _mm256_loadu_ps(row), b = _mm256_loadu_ps(row + lda);
      const __m256 c = _mm256_loadu_ps(row + 2 * lda), d = _mm256_loadu_ps(row + 3 * lda);
      const __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
      const __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
      const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      float *out = dst + p * mr + 4 * q;
      _mm_storeu_ps(out, _mm256_castps256_ps128(u0));
      _mm_storeu_ps(out + mr, _mm256_castps256_ps128(u1));
      _mm_storeu_ps(out + 2 * mr, _mm256_castps256_ps128(u2));
      _mm_storeu_ps(out + 3 * mr, _mm256_castps256_ps128(u3));
      _mm_storeu_ps(out + 4 * mr, _mm256_extractf128_ps(u0, 1));
      _mm_storeu_ps(out + 5 * mr, _mm256_extractf128_ps(u1, 1));
      _mm_storeu_ps(out + 6 * mr, _mm256_extractf128_ps(u2, 1));
      _mm_storeu_ps(out + 7 * mr, _mm256_extractf128_ps(u3, 1));
    }
    for (int r = 4 * groups; r < mr; r++)
      for (int64_t s = p; s < p + 8; s++) dst[s * mr + r] = src[r * lda + s];
  }
  for (; p < kc; p++)
    for (int r = 0; r < mr; r++) dst[p * mr + r] = src[r * lda + p];
}

/* ---------------------------------------------------------------- AVX-512: 12 × 32 */

enum { AVX512_MR = 12, AVX512_NR = 32 };

TL_AVX512 static inline void micro_avx512_strided(int64_t k, const float *a, int64_t a_row_step,
                                                 int64_t a_col_step, const float *b,
                                                 int64_t b_step, float *c, int64_t ldc,
                                                 int accumulate) {
  __m512 c0[AVX512_MR], c1[AVX512_MR];
  /* C's tile is read and written once, at the end: fetching it now hides a miss per row then. */
#pragma GCC unroll 12
  for (int r = 0; r < AVX512_MR; r++) {
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + r * ldc + 16), _MM_HINT_T0);
  }
#pragma GCC unroll 12
  for (int r = 0; r < AVX512_MR; r++) c0[r] = c1[r] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; p++) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int r = 0; r < AVX512_MR; r++) {
      const __m512 ar = _mm512_set1_ps(a[r * a_row_step]);
      c0[r] = _mm512_fmadd_ps(ar, b0, c0[r]);
      c1[r] = _mm512_fmadd_ps(ar, b1, c1[r]);
    }
    a += a_col_step;
    b += b_step;
  }
#pragma GCC unroll 12
  for (int r = 0; r < AVX512_MR; r++) {
    float *row = c + r * ldc;
    if (accumulate) {
      c0[r] = _mm512_add_ps(c0[r], _mm512_loadu_ps(row));
      c1[r] = _mm512_add_ps(c1[r], _mm512_loadu_ps(row + 16));
    }
    _mm512_storeu_ps(row, c0[r]);
    _mm512_storeu_ps(row + 16, c1[r]);
  }
}

/* The packed panel's case (a_row_step 1, a_col_step MR). */
TL_AVX512 static void micro_avx512(int64_t k, const float *a, const float *b, int64_t b_step,
                                   float *c, int64_t ldc, int accumulate) {
  micro_avx512_strided(k, a, 1, AVX512_MR, b, b_step, c, ldc, accumulate);
}

/*
 * AVX-512 narrow: 8 × 16, for products at most 16 columns wide (a 10-action head), reading A in
 * place. One vector per row, 8 accumulators: each step one B load and 8 broadcasts for 8 fused
 * multiply-adds. Measured on a 2048×10×512 head: 8 rows 66 GFLOP/s, 6 rows 64, 12 rows 62,
 * 24 rows 45 (24 row streams of an in-place A are more than the prefetchers follow).
 */
enum { AVX512_NARROW_MR = 8, AVX512_NARROW_NR = 16 };

TL_AVX512 static inline void micro_avx512_narrow_strided(int64_t k, const float *a,
                                                        int64_t a_row_step, int64_t a_col_step,
                                                        const float *b, int64_t b_step, float *c,
                                                        int64_t ldc, int accumulate) {
  __m512 acc[AVX512_NARROW_MR];
#pragma GCC unroll 8
  for (int r = 0; r < AVX512_NARROW_MR; r++) {
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
    acc[r] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k; p++) {
    const __m512 b0 = _mm512_loadu_ps(b);
#pragma GCC unroll 8
    for (int r = 0; r < AVX512_NARROW_MR; r++)
      acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r * a_row_step]), b0, acc[r]);
    a += a_col_step;
    b += b_step;
  }
#pragma GCC unroll 8
  for (int r = 0; r < AVX512_NARROW_MR; r++) {
    float *row = c + r * ldc;
    if (accumulate) acc[r] = _mm512_add_ps(acc[r], _mm512_loadu_ps(row));
    _mm512_storeu_ps(row, acc[r]);
  }
}

/* The packed panel's case (a_row_step 1, a_col_step MR). */
TL_AVX512 static void micro_avx512_narrow(int64_t k, const float *a, const float *b,
                                          int64_t b_step, float *c, int64_t ldc, int accumulate) {
  micro_avx512_narrow_strided(k, a, 1, AVX512_NARROW_MR, b, b_step, c, ldc, accumulate);
}

TL_DEFINE_VECTOR_KERNELS(avx512, TL_AVX512)

/* Sixteen independent chains: more than FMA latency × issue width, so none waits on another. */
TL_AVX512 static int64_t fma_peak_avx512(int64_t iterations) {
  __m512 acc[16];
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
#pragma GCC unroll 16
  for (int r = 0; r < 16; r++) acc[r] = _mm512_set1_ps((float)r);
  for (int64_t i = 0; i < iterations; i++) {
#pragma GCC unroll 16
    for (int r = 0; r < 16; r++) acc[r] = _mm512_fmadd_ps(acc[r], x, y);
  }
  __m512 sum = acc[0];
  for (int r = 1; r < 16; r++) sum = _mm512_add_ps(sum, acc[r]);
  tl_fma_sink = _mm512_reduce_add_ps(sum);
  return iterations * 16 * 16 * 2;
}

/*
 * The ReLU-bit epilogues (sgemm.h) on 16-column groups, where a tile starts on a word (bit0 a
 * multiple of 16, as every full-width tile does): AVX-512 compares 16 values into one mask
 * register, which is the word. A ragged last group loads only its columns: the word's other bits
 * are columns past the matrix's edge. Elsewhere, the portable loops.
 */
TL_AVX512 static void bits_store_avx512(const float *c, int64_t ldc, int64_t rows, int64_t cols,
                                        uint16_t *bits, int64_t ld, int64_t bit0) {
  if (bit0 % 16 != 0) {
    tl_bits_store_any(c, ldc, rows, cols, bits, ld, bit0);
    return;
  }
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t i = 0; i < rows; i++) {
    const float *row = c + i * ldc;
    uint16_t *words = bits + i * ld + bit0 / 16;
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 valid = cols - j >= 16 ? 0xFFFF : (__mmask16)((1u << (cols - j)) - 1u);
      const __m512 v = _mm512_maskz_loadu_ps(valid, row + j);
      words[j / 16] = (uint16_t)_mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ);
    }
  }
}

TL_AVX512 static void bits_apply_avx512(float *c, int64_t ldc, int64_t rows, int64_t cols,
                                        const uint16_t *bits, int64_t ld, int64_t bit0) {
  if (bit0 % 16 != 0) {
    tl_bits_apply_any(c, ldc, rows, cols, bits, ld, bit0);
    return;
  }
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * ldc;
    const uint16_t *words = bits + i * ld + bit0 / 16;
    for (int64_t j = 0; j < cols; j += 16) {
      const __mmask16 valid = cols - j >= 16 ? 0xFFFF : (__mmask16)((1u << (cols - j)) - 1u);
      const __m512 keep = _mm512_maskz_mov_ps((__mmask16)words[j / 16], one);
      const __m512 v = _mm512_maskz_loadu_ps(valid, row + j);
      _mm512_mask_storeu_ps(row + j, valid, _mm512_mul_ps(v, keep));
    }
  }
}

/* AVX2: eight columns per compare (movemask), two per word; ragged groups: the portable loop. */
TL_AVX2 static void bits_store_avx2(const float *c, int64_t ldc, int64_t rows, int64_t cols,
                                    uint16_t *bits, int64_t ld, int64_t bit0) {
  if (bit0 % 16 != 0 || cols % 16 != 0) {
    tl_bits_store_any(c, ldc, rows, cols, bits, ld, bit0);
    return;
  }
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t i = 0; i < rows; i++) {
    const float *row = c + i * ldc;
    uint16_t *words = bits + i * ld + bit0 / 16;
    for (int64_t j = 0; j < cols; j += 16) {
      const int lo = _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(row + j), zero, _CMP_GT_OQ));
      const int hi =
          _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(row + j + 8), zero, _CMP_GT_OQ));
      words[j / 16] = (uint16_t)(lo | (hi << 8));
    }
  }
}

TL_AVX2 static void bits_apply_avx2(float *c, int64_t ldc, int64_t rows, int64_t cols,
                                    const uint16_t *bits, int64_t ld, int64_t bit0) {
  if (bit0 % 16 != 0 || cols % 16 != 0) {
    tl_bits_apply_any(c, ldc, rows, cols, bits, ld, bit0);
    return;
  }
  const __m256i lanes = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256 one = _mm256_set1_ps(1.0f);
  for (int64_t i = 0; i < rows; i++) {
    float *row = c + i * ldc;
    const uint16_t *words = bits + i * ld + bit0 / 16;
    for (int64_t j = 0; j < cols; j += 8) {
      const int byte = (words[j / 16] >> (j % 16)) & 0xFF;
      const __m256i set = _mm256_and_si256(_mm256_set1_epi32(byte), lanes);
      const __m256 keep = _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(set, lanes)), one);
      _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), keep));
    }
  }
}

static const tl_kernel avx512_narrow_kernel = {
    .name = "avx512",
    .mr = AVX512_NARROW_MR,
    .nr = AVX512_NARROW_NR,
    .mc = 144,
    .kc = 256,
    .nc = 4096,
    .micro = micro_avx512_narrow,
    .micro_strided = micro_avx512_narrow_strided,
    .rows_mat = rows_mat_avx512,
    .vec_mat = vec_mat_avx512,
    .bias_relu = bias_relu_avx512,
    .bits_store = bits_store_avx512,
    .bits_apply = bits_apply_avx512,
    .mat_vec = mat_vec_avx512,
    .fma_peak = fma_peak_avx512,
};

static const tl_kernel avx512_kernel = {
    .name = "avx512",
    .mr = AVX512_MR,
    .nr = AVX512_NR,
    .mc = 144,
    .kc = 512,
    .nc = 4096,
    .micro = micro_avx512,
    .micro_strided = micro_avx512_strided,
    .pack_a_rows = pack_a_rows_avx2,
    .rows_mat = rows_mat_avx512,
    .vec_mat = vec_mat_avx512,
    .bias_relu = bias_relu_avx512,
    .bits_store = bits_store_avx512,
    .bits_apply = bits_apply_avx512,
    .mat_vec = mat_vec_avx512,
    .fma_peak = fma_peak_avx512,
    .narrow = &avx512_narrow_kernel,
};

const tl_kernel *tl_kernel_avx512(void) { return &avx512_kernel; }

/* ---------------------------------------------------------------- AVX2 + FMA: 6 × 16 */

enum { AVX2_MR = 6, AVX2_NR = 16 };

TL_AVX2 static inline void micro_avx2_strided(int64_t k, const float *a, int64_t a_row_step,
                                              int64_t a_col_step, const float *b, int64_t b_step,
                                              float *c, int64_t ldc, int accumulate) {
  __m256 c0[AVX2_MR], c1[AVX2_MR];
#pragma GCC unroll 6
  for (int r = 0; r < AVX2_MR; r++) {
    _mm_prefetch((const char *)(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch((const char *)(c + r * ldc + 8), _MM_HINT_T0);
  }
#pragma GCC unroll 6
  for (int r = 0; r < AVX2_MR; r++) c0[r] = c1[r] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; p++) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < AVX2_MR; r++) {
      const __m256 ar = _mm256_broadcast_ss(a + r * a_row_step);
      c0[r] = _mm256_fmadd_ps(ar, b0, c0[r]);
      c1[r] = _mm256_fmadd_ps(ar, b1, c1[r]);
    }
    a += a_col_step;
    b += b_step;
  }
#pragma GCC unroll 6
  for (int r = 0; r < AVX2_MR; r++) {
    float *row = c + r * ldc;
    if (accumulate) {
      c0[r] = _mm256_add_ps(c0[r], _mm256_loadu_ps(row));
      c1[r] = _mm256_add_ps(c1[r], _mm256_loadu_ps(row + 8));
    }
    _mm256_storeu_ps(row, c0[r]);
    _mm256_storeu_ps(row + 8, c1[r]);
  }
}

TL_AVX2 static void micro_avx2(int64_t k, const float *a, const float *b, int64_t b_step,
                               float *c, int64_t ldc, int accumulate) {
  micro_avx2_strided(k, a, 1, AVX2_MR, b, b_step, c, ldc, accumulate);
}

TL_DEFINE_VECTOR_KERNELS(avx2, TL_AVX2)

TL_AVX2 static int64_t fma_peak_avx2(int64_t iterations) {
  __m256 acc[12];
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
#pragma GCC unroll 12
  for (int r = 0; r < 12; r++) acc[r] = _mm256_set1_ps((float)r);
  for (int64_t i = 0; i < iterations; i++) {
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++) acc[r] = _mm256_fmadd_ps(acc[r], x, y);
  }
  __m256 sum = acc[0];
  for (int r = 1; r < 12; r++) sum = _mm256_add_ps(sum, acc[r]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  tl_fma_sink = lanes[0] + lanes[7];
  return iterations * 12 * 8 * 2;
}

static const tl_kernel avx2_kernel = {
    .name = "avx2",
    .mr = AVX2_MR,
    .nr = AVX2_NR,
    .mc = 120,
    .kc = 512,
    .nc = 4096,
    .micro = micro_avx2,
    .micro_strided = micro_avx2_strided,
    .pack_a_rows = pack_a_rows_avx2,
    .rows_mat = rows_mat_avx2,
    .vec_mat = vec_mat_avx2,
    .bias_relu = bias_relu_avx2,
    .bits_store = bits_store_avx2,
    .bits_apply = bits_apply_avx2,
    .mat_vec = mat_vec_avx2,
    .fma_peak = fma_peak_avx2,
};

const tl_kernel *tl_kernel_avx2(void) { return &avx2_kernel; }

#else
const tl_kernel *tl_kernel_avx512(void) { return NULL; }
const tl_kernel *tl_kernel_avx2(void) { return NULL; }
#endif
