/*
 * tradelab's native GEMM addon: the N-API face of sgemm.c (tradelab's own kernels) and blas.c (a
 * system BLAS opened at run time). Products run directly on the tfjs wasm backend's heap (a
 * Float32Array over the WebAssembly memory), so a matrix product costs no copy in or out. Offsets
 * and strides are in float32 elements from the start of that array; the JavaScript side
 * (src/compute/native-matmul.ts) reads them from the backend's tensor table. Every operand's range
 * is checked against the heap's length before a kernel touches it, so a wrong offset is a
 * RangeError, never a write outside the wasm memory.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "sgemm.h"
#include "training-kernels.h"
#include "attention.h"
#include "layer-norm.h"
#include "token-kernels.h"

#define CHECK(call)                                                                               \
  do {                                                                                            \
    if ((call) != napi_ok) {                                                                      \
      napi_throw_error(env, "TRADELAB_NATIVE_GEMM", "N-API call failed: " #call);               \
      return NULL;                                                                                \
    }                                                                                             \
  } while (0)

/* Which implementation products run on: one of our kernels, or the opened BLAS. */
static const tl_kernel *active_kernel = NULL; /* NULL with use_blas */
static int use_blas = 0;
static int threads = 1;

/* A product on whichever implementation products run on now (gemm() below uses the same). */
static void run_product(const tl_gemm *g) {
  const tl_blas *blas = use_blas ? tl_blas_current() : NULL;
  if (blas != NULL)
    tl_blas_gemm(blas, g);
  else
    tl_sgemm(active_kernel, threads, g);
}

/* A row of ones, grown as needed: the left operand of a column sum. */
static const float *ones(int64_t count) {
  static float *values = NULL;
  static int64_t capacity = 0;
  if (capacity < count) {
    float *grown = (float *)realloc(values, (size_t)count * sizeof(float));
    if (grown == NULL) return NULL;
    values = grown;
    for (int64_t i = capacity; i < count; i++) values[i] = 1.0f;
    capacity = count;
  }
  return values;
}

static napi_value throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, "TRADELAB_NATIVE_GEMM", message);
  return NULL;
}

static napi_value make_string(napi_env env, const char *s) {
  napi_value result;
  if (s == NULL) {
    if (napi_get_undefined(env, &result) != napi_ok) return NULL;
  } else if (napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &result) != napi_ok) {
    return NULL;
  }
  return result;
}

/*
 * Whether `batch` blocks of `size` elements, `stride` apart from `offset`, lie inside an array of
 * `length` elements. Operands are at most 2^31 − 1 (checked first) and strides are compared
 * before multiplying, so nothing here overflows int64.
 */
static int fits(int64_t offset, int64_t batch, int64_t stride, int64_t size, int64_t length) {
  if (offset < 0 || offset > length) return 0;
  if (batch <= 0 || size == 0) return 1;
  const int64_t room = length - offset;
  if (size > room) return 0;
  if (batch == 1 || stride == 0) return 1;
  return batch - 1 <= (room - size) / stride;
}

/* Elements a rows × cols matrix spans with leading dimension ld (0 when empty). */
static int64_t span(int64_t rows, int64_t cols, int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
}

enum {
  P_BATCH, P_TRANS_A, P_TRANS_B, P_M, P_N, P_K,
  P_A_OFFSET, P_A_STRIDE, P_LDA, P_B_OFFSET, P_B_STRIDE, P_LDB,
  P_C_OFFSET, P_C_STRIDE, P_LDC, P_BIAS_OFFSET, P_BIAS_SIZE, P_ACTIVATION, P_ACCUMULATE,
  P_COUNT, /* the parameters every call gives; the epilogues' may be absent (−1, −1, 0, −1) */
  P_BITS_IN_OFFSET = P_COUNT, P_BITS_OUT_OFFSET, P_BITS_LD, P_COLUMN_SUMS_OFFSET,
  P_COUNT_ALL
};

static int column_sums(int64_t rows, int64_t cols, const float *x, int64_t ldx, float *out);

/*
 * gemm(heap: Float32Array, params: Float64Array) — params, in this order (PARAMS in
 * native-gemm.ts): batch, transA, transB, m, n, k, aOffset, aStride, lda, bOffset, bStride, ldb,
 * cOffset, cStride, ldc, biasOffset, biasSize, activation, accumulate[, bitsInOffset,
 * bitsOutOffset, bitsLd, columnSumsOffset].
 *
 * For p in [0, batch): C_p = act(accumulate·C_p + op(A_p)·op(B_p) + bias), row-major. A_p is
 * stored m × k (k × m when transA) at aOffset + p·aStride with leading dimension lda (0: its
 * width), likewise B_p (k × n, or n × k when transB) and C_p (m × n; cStride 0: m·ldc). A stride of
 * 0 broadcasts one matrix over the batch. biasOffset −1: no bias; biasSize 1 (a scalar) or n.
 * activation: 0 linear, 1 relu, 2 relu6. The epilogues (tl_gemm's; batch 1 only): bitsInOffset
 * and bitsOutOffset, where ReLU bits lie on the heap (in 4-byte units; −1: none), bitsLd their
 * 16-bit words per row (0: ceil(n / 16)); columnSumsOffset, n floats for C's column sums (−1:
 * none). The parameters travel in one typed array because reading twenty JavaScript numbers one
 * by one costs more than a small product.
 */
static napi_value gemm(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 2) return throw_range(env, "gemm expects (heap, params)");
  napi_typedarray_type type;
  size_t length, count;
  void *data, *param_data;
  CHECK(napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL));
  if (type != napi_float32_array) return throw_range(env, "gemm: heap must be a Float32Array");
  CHECK(napi_get_typedarray_info(env, argv[1], &type, &count, &param_data, NULL, NULL));
  if (type != napi_float64_array || count < P_COUNT)
    return throw_range(env, "gemm: params must be a Float64Array of 19 values");
  const double *raw = (const double *)param_data;
  int64_t v[P_COUNT_ALL];
  v[P_BITS_IN_OFFSET] = v[P_BITS_OUT_OFFSET] = v[P_COLUMN_SUMS_OFFSET] = -1;
  v[P_BITS_LD] = 0;
  const int given = count < P_COUNT_ALL ? (int)count : P_COUNT_ALL;
  for (int i = 0; i < given; i++) {
    if (!(raw[i] >= -1.0 && raw[i] <= (double)INT32_MAX) || raw[i] != (double)(int64_t)raw[i])
      return throw_range(env, "gemm: every parameter must be an integer in [-1, 2^31)");
    v[i] = (int64_t)raw[i];
  }
  float *heap = (float *)data;
  const int64_t batch = v[P_BATCH], m = v[P_M], n = v[P_N], k = v[P_K];
  const int trans_a = v[P_TRANS_A] != 0, trans_b = v[P_TRANS_B] != 0;
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return throw_range(env, "gemm: batch, m, n and k must be non-negative");
  if (v[P_A_STRIDE] < 0 || v[P_B_STRIDE] < 0 || v[P_C_STRIDE] < 0 || v[P_LDA] < 0 ||
      v[P_LDB] < 0 || v[P_LDC] < 0)
    return throw_range(env, "gemm: strides and leading dimensions must be non-negative");
  if (v[P_ACTIVATION] < TL_LINEAR || v[P_ACTIVATION] > TL_RELU6)
    return throw_range(env, "gemm: activation must be 0 (linear), 1 (relu) or 2 (relu6)");
  const int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  const int64_t lda = v[P_LDA] == 0 ? (a_cols > 0 ? a_cols : 1) : v[P_LDA];
  const int64_t ldb = v[P_LDB] == 0 ? (b_cols > 0 ? b_cols : 1) : v[P_LDB];
  const int64_t ldc = v[P_LDC] == 0 ? (n > 0 ? n : 1) : v[P_LDC];
  if (lda < a_cols || ldb < b_cols || ldc < n)
    return throw_range(env, "gemm: a leading dimension is smaller than its matrix's width");
  const int64_t c_size = span(m, n, ldc);
  const int64_t c_stride = v[P_C_STRIDE] == 0 ? m * ldc : v[P_C_STRIDE];
  const int64_t len = (int64_t)length;
  if (!fits(v[P_A_OFFSET], batch, v[P_A_STRIDE], span(a_rows, a_cols, lda), len) ||
      !fits(v[P_B_OFFSET], batch, v[P_B_STRIDE], span(b_rows, b_cols, ldb), len) ||
      !fits(v[P_C_OFFSET], batch, c_stride, c_size, len))
    return throw_range(env, "gemm: an operand lies outside the heap");
  const int64_t bias_off = v[P_BIAS_OFFSET], bias_size = v[P_BIAS_SIZE];
  if (bias_off >= 0 && ((bias_size != 1 && bias_size != n) || !fits(bias_off, 1, 0, bias_size, len)))
    return throw_range(env, "gemm: bias must be 1 or n values inside the heap");
  if (batch > 1 && c_stride < c_size)
    return throw_range(env, "gemm: the outputs of a batch overlap (cStride < the span of C)");
  const int64_t bits_in = v[P_BITS_IN_OFFSET], bits_out = v[P_BITS_OUT_OFFSET];
  const int64_t sums_off = v[P_COLUMN_SUMS_OFFSET];
  const int64_t bits_ld = v[P_BITS_LD] == 0 ? (n + 15) / 16 : v[P_BITS_LD];
  if ((bits_in >= 0 || bits_out >= 0 || sums_off >= 0) && batch > 1)
    return throw_range(env, "gemm: ReLU bits and column sums take a batch of 1");
  if (bits_ld < (n + 15) / 16)
    return throw_range(env, "gemm: bitsLd is smaller than n / 16 words");
  const int64_t bits_floats = (m * bits_ld + 1) / 2; /* 16-bit words, in 4-byte units */
  if ((bits_in >= 0 && !fits(bits_in, 1, 0, bits_floats, len)) ||
      (bits_out >= 0 && !fits(bits_out, 1, 0, bits_floats, len)) ||
      (sums_off >= 0 && !fits(sums_off, 1, 0, n, len)))
    return throw_range(env, "gemm: ReLU bits or column sums lie outside the heap");

  for (int64_t p = 0; p < batch; p++) {
    tl_gemm g = {
        .trans_a = trans_a,
        .trans_b = trans_b,
        .m = m,
        .n = n,
        .k = k,
        .a = heap + v[P_A_OFFSET] + p * v[P_A_STRIDE],
        .lda = lda,
        .b = heap + v[P_B_OFFSET] + p * v[P_B_STRIDE],
        .ldb = ldb,
        .c = heap + v[P_C_OFFSET] + p * c_stride,
        .ldc = ldc,
        .accumulate = v[P_ACCUMULATE] != 0,
        .bias = bias_off >= 0 ? heap + bias_off : NULL,
        .bias_size = bias_size,
        .activation = (int)v[P_ACTIVATION],
        .bits_in = bits_in >= 0 ? (const uint16_t *)(heap + bits_in) : NULL,
        .bits_out = bits_out >= 0 ? (uint16_t *)(heap + bits_out) : NULL,
        .bits_ld = bits_ld,
        .bits_col0 = 0,
        .column_sums = sums_off >= 0 ? heap + sums_off : NULL,
    };
    /*
     * A BLAS sums columns with its own sgemv, which the Sum kernel's ones · C runs on it too: the
     * same call here, after the product, keeps those bits (the epilogue sums rows in order).
     */
    if (use_blas && g.column_sums != NULL) {
      float *sums = g.column_sums;
      g.column_sums = NULL;
      run_product(&g);
      if (!column_sums(m, n, g.c, ldc, sums)) return throw_range(env, "gemm: out of memory");
    } else {
      run_product(&g);
    }
  }
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The fused training kernels (training-kernels.h), on the same heap                           */

/*
 * The heap and a Float64Array of at least `min_count` parameters, each an integer unless it is
 * one of the `real_from` last ones (Adam's constants). Throws (returns 0) when either is wrong.
 */
static int heap_and_params(napi_env env, napi_callback_info info, const char *name,
                           size_t min_count, size_t real_from, float **heap, int64_t *length,
                           double **params, size_t *count) {
  size_t argc = 2;
  napi_value argv[2];
  char message[160];
  napi_typedarray_type type;
  size_t size;
  void *data;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
    snprintf(message, sizeof message, "%s expects (heap, params)", name);
    throw_range(env, message);
    return 0;
  }
  if (napi_get_typedarray_info(env, argv[0], &type, &size, &data, NULL, NULL) != napi_ok ||
      type != napi_float32_array) {
    snprintf(message, sizeof message, "%s: heap must be a Float32Array", name);
    throw_range(env, message);
    return 0;
  }
  *heap = (float *)data;
  *length = (int64_t)size;
  if (napi_get_typedarray_info(env, argv[1], &type, count, &data, NULL, NULL) != napi_ok ||
      type != napi_float64_array || *count < min_count) {
    snprintf(message, sizeof message, "%s: params must be a Float64Array of at least %zu values",
             name, min_count);
    throw_range(env, message);
    return 0;
  }
  *params = (double *)data;
  for (size_t i = 0; i < *count && i < real_from; i++) {
    const double value = (*params)[i];
    if (!(value >= -1.0 && value <= (double)INT32_MAX) || value != (double)(int64_t)value) {
      snprintf(message, sizeof message, "%s: parameter %zu must be an integer in [-1, 2^31)", name,
               i);
      throw_range(env, message);
      return 0;
    }
  }
  return 1;
}

/* Whether `size` values at `offset` lie inside the heap (offset −1 never does). */
static int inside(int64_t offset, int64_t size, int64_t length) {
  return offset >= 0 && size >= 0 && offset <= length && size <= length - offset;
}

/* out[j] = Σ_i x[i·ldx + j] as the product ones[1 × rows] · x; 0 when out of memory. */
static int column_sums(int64_t rows, int64_t cols, const float *x, int64_t ldx, float *out) {
  const float *left = ones(rows);
  if (left == NULL) return 0;
  const tl_gemm sum = {
      .trans_a = 0,
      .trans_b = 0,
      .m = 1,
      .n = cols,
      .k = rows,
      .a = left,
      .lda = rows > 0 ? rows : 1,
      .b = x,
      .ldb = ldx,
      .c = out,
      .ldc = cols > 0 ? cols : 1,
      .accumulate = 0,
      .bias = NULL,
      .bias_size = 0,
      .activation = TL_LINEAR,
  };
  run_product(&sum);
  return 1;
}

/*
 * reluBackward(heap, [rows, cols, dyOffset, yOffset, gOffset, dbOffset]): g = dy · step(y), then
 * db = ones · g, the product tradelab's Sum kernel (wasm-training-kernels.ts) runs for a bias
 * gradient, so db has its bits. Two passes: accumulating db in the first pass ran 4× slower when
 * the tensors' offsets made stores to db alias the loads (as they do on the wasm heap).
 */
static napi_value relu_backward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "reluBackward", 6, 6, &heap, &length, &p, &count)) return NULL;
  const int64_t rows = (int64_t)p[0], cols = (int64_t)p[1];
  if (rows < 0 || cols < 0) return throw_range(env, "reluBackward: rows and cols must be ≥ 0");
  const int64_t size = rows * cols;
  if (!inside((int64_t)p[2], size, length) || !inside((int64_t)p[3], size, length) ||
      !inside((int64_t)p[4], size, length) || !inside((int64_t)p[5], cols, length))
    return throw_range(env, "reluBackward: an operand lies outside the heap");
  float *g = heap + (int64_t)p[4];
  tl_relu_mask(size, heap + (int64_t)p[2], heap + (int64_t)p[3], g);
  if (!column_sums(rows, cols, g, cols > 0 ? cols : 1, heap + (int64_t)p[5]))
    return throw_range(env, "reluBackward: out of memory");
  return NULL;
}

/*
 * columnSums(heap, [rows, cols, xOffset, outOffset]): out[j] = Σ_i x[i, j], as ones · x, the
 * product tradelab's Sum kernel runs for a bias gradient (see reluBackward), so it has its bits.
 */
static napi_value column_sums_call(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "columnSums", 4, 4, &heap, &length, &p, &count)) return NULL;
  const int64_t rows = (int64_t)p[0], cols = (int64_t)p[1];
  if (rows < 0 || cols < 0) return throw_range(env, "columnSums: rows and cols must be ≥ 0");
  if (!inside((int64_t)p[2], rows * cols, length) || !inside((int64_t)p[3], cols, length))
    return throw_range(env, "columnSums: an operand lies outside the heap");
  if (!column_sums(rows, cols, heap + (int64_t)p[2], cols > 0 ? cols : 1, heap + (int64_t)p[3]))
    return throw_range(env, "columnSums: out of memory");
  return NULL;
}

/*
 * dropout(heap, [offset, count, threshold, scale, state0]): tl_dropout on count values at offset;
 * the last three are JavaScript numbers (threshold up to 2³², state0 a uint32).
 */
static napi_value dropout(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "dropout", 5, 2, &heap, &length, &p, &count)) return NULL;
  const int64_t n = (int64_t)p[1];
  if (!inside((int64_t)p[0], n, length))
    return throw_range(env, "dropout: the values lie outside the heap");
  if (!(p[2] >= 0.0 && p[2] <= 4294967296.0) || !(p[4] >= 0.0 && p[4] <= 4294967295.0))
    return throw_range(env, "dropout: threshold must be in [0, 2^32] and state0 a uint32");
  tl_dropout(n, heap + (int64_t)p[0], (uint64_t)p[2], (float)p[3], (uint32_t)p[4]);
  return NULL;
}

/* sumOfSquares(heap, [outOffset, offset0, size0, offset1, size1, …]): one float32 at outOffset. */
static napi_value sum_of_squares(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "sumOfSquares", 1, (size_t)-1, &heap, &length, &p, &count))
    return NULL;
  if (count % 2 != 1 || (count - 1) / 2 > 4096)
    return throw_range(env, "sumOfSquares: params must be an output offset and (offset, size) pairs");
  const int tensors = (int)((count - 1) / 2);
  const float *pointers[4096];
  int64_t sizes[4096];
  for (int t = 0; t < tensors; t++) {
    const int64_t offset = (int64_t)p[1 + 2 * t], size = (int64_t)p[2 + 2 * t];
    if (!inside(offset, size, length))
      return throw_range(env, "sumOfSquares: a tensor lies outside the heap");
    pointers[t] = heap + offset;
    sizes[t] = size;
  }
  if (!inside((int64_t)p[0], 1, length))
    return throw_range(env, "sumOfSquares: the output lies outside the heap");
  heap[(int64_t)p[0]] = tl_sum_of_squares(tensors, pointers, sizes);
  return NULL;
}

/*
 * adam(heap, [n, w, g, m, v, wOut, mOut, vOut, accBeta1, accBeta2, scale, beta1, beta2,
 * 1 − beta1, 1 − beta2, −learningRate, epsilon]): offsets first (scale −1: no scaling), then
 * Adam's constants as JavaScript numbers, rounded to float32 here as tfjs rounds them.
 */
static napi_value adam(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "adam", 17, 11, &heap, &length, &p, &count)) return NULL;
  const int64_t n = (int64_t)p[0];
  for (int i = 1; i <= 7; i++)
    if (!inside((int64_t)p[i], n, length))
      return throw_range(env, "adam: an operand lies outside the heap");
  if (!inside((int64_t)p[8], 1, length) || !inside((int64_t)p[9], 1, length) ||
      (p[10] != -1.0 && !inside((int64_t)p[10], 1, length)))
    return throw_range(env, "adam: a scalar lies outside the heap");
  for (int out = 5; out <= 7; out++)
    for (int in = 1; in <= 4; in++) {
      const int64_t a = (int64_t)p[out], b = (int64_t)p[in];
      if (n > 0 && a < b + n && b < a + n)
        return throw_range(env, "adam: an output overlaps an input");
    }
  const tl_adam_config config = {
      .beta1 = (float)p[11],
      .beta2 = (float)p[12],
      .one_minus_beta1 = (float)p[13],
      .one_minus_beta2 = (float)p[14],
      .learning_rate_negated = (float)p[15],
      .epsilon = (float)p[16],
  };
  const float scale = p[10] == -1.0 ? 1.0f : heap[(int64_t)p[10]];
  tl_adam(n, &config, heap[(int64_t)p[8]], heap[(int64_t)p[9]], scale, heap + (int64_t)p[1],
          heap + (int64_t)p[2], heap + (int64_t)p[3], heap + (int64_t)p[4], heap + (int64_t)p[5],
          heap + (int64_t)p[6], heap + (int64_t)p[7]);
  return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The FT-Transformer's kernels (attention.h, layer-norm.h, token-kernels.h), on the same heap  */

/* a·b·c, or −1 when it would overflow int64 (each factor is already below 2^31). */
static int64_t elements3(int64_t a, int64_t b, int64_t c) {
  if (a < 0 || b < 0 || c < 0) return -1;
  const int64_t ab = a * b;
  if (c > 0 && ab > INT64_MAX / c) return -1;
  return ab * c;
}

/* Whether `size` values at each of `count` offsets lie inside the heap. */
static int all_inside(const double *p, const int *which, int count, int64_t size,
                      int64_t length) {
  for (int i = 0; i < count; i++)
    if (!inside((int64_t)p[which[i]], size, length)) return 0;
  return size >= 0;
}

/* Whether `rows` rows of d values, `row` apart from `offset`, lie inside the heap. */
static int rows_inside(double offset, int64_t rows, int64_t row, int64_t d, int64_t length) {
  const int64_t span = elements3(rows - 1, row, 1);
  return span >= 0 && inside((int64_t)offset, span + d, length);
}

/*
 * The shape and operands of params [batch, tokens, heads, headDim, queries, q, k, v, qRow,
 * kvRow, …], checked: every size positive, rows at least d wide, every row inside the heap.
 * Returns 0 (after throwing) when any is wrong.
 */
static int attention_operands(napi_env env, const char *name, const double *p, double scale,
                              int64_t length, float *heap, tl_attention_shape *shape,
                              tl_attention_io *io) {
  char message[160];
  *shape = (tl_attention_shape){
      .batch = (int64_t)p[0],
      .tokens = (int64_t)p[1],
      .heads = (int64_t)p[2],
      .head_dim = (int64_t)p[3],
      .queries = (int64_t)p[4],
      .scale = (float)scale,
      .isa = use_blas ? NULL : active_kernel->name,
  };
  const int64_t q_row = (int64_t)p[8], kv_row = (int64_t)p[9];
  const int64_t d = elements3(shape->heads, shape->head_dim, 1);
  const int64_t q_rows = elements3(shape->batch, shape->queries, 1);
  const int64_t kv_rows = elements3(shape->batch, shape->tokens, 1);
  if (!tl_attention_shape_valid(shape) || d < 0 || q_rows < 0 || kv_rows < 0 || q_row < d ||
      kv_row < d) {
    snprintf(message, sizeof message, "%s: sizes must be ≥ 1 and rows at least heads·headDim wide",
             name);
    throw_range(env, message);
    return 0;
  }
  if (!rows_inside(p[5], q_rows, q_row, d, length) ||
      !rows_inside(p[6], kv_rows, kv_row, d, length) ||
      !rows_inside(p[7], kv_rows, kv_row, d, length)) {
    snprintf(message, sizeof message, "%s: q, k or v lies outside the heap", name);
    throw_range(env, message);
    return 0;
  }
  *io = (tl_attention_io){.q = heap + (int64_t)p[5],
                          .k = heap + (int64_t)p[6],
                          .v = heap + (int64_t)p[7],
                          .q_row = q_row,
                          .kv_row = kv_row};
  return 1;
}

/*
 * attentionForward(heap, [batch, tokens, heads, headDim, queries, q, k, v, qRow, kvRow, o,
 * stats, scale]): o [batch·queries, d] and stats [batch, heads, queries, 2] (each query row's
 * max score and 1/Σ exp) from q, k and v as tl_attention_io places them.
 */
static napi_value attention_forward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "attentionForward", 13, 12, &heap, &length, &p, &count))
    return NULL;
  tl_attention_shape shape;
  tl_attention_io io;
  if (!attention_operands(env, "attentionForward", p, p[12], length, heap, &shape, &io))
    return NULL;
  const int64_t o = elements3(shape.batch, shape.queries, shape.heads * shape.head_dim);
  const int64_t stats = elements3(shape.batch, shape.heads, 2 * shape.queries);
  if (o < 0 || stats < 0 || !inside((int64_t)p[10], o, length) ||
      !inside((int64_t)p[11], stats, length))
    return throw_range(env, "attentionForward: o or stats lies outside the heap");
  if (tl_attention_forward(&shape, threads, &io, heap + (int64_t)p[10], heap + (int64_t)p[11]) !=
      0)
    return throw_range(env, "attentionForward: out of memory");
  return NULL;
}

/*
 * attentionBackward(heap, [batch, tokens, heads, headDim, queries, q, k, v, qRow, kvRow, o,
 * stats, dO, dq, dk, dv, scale]): dq, dk and dv (strided as q, k and v) from the forward's
 * operands and outputs and dO, o's gradient.
 */
static napi_value attention_backward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "attentionBackward", 17, 16, &heap, &length, &p, &count))
    return NULL;
  tl_attention_shape shape;
  tl_attention_io io;
  if (!attention_operands(env, "attentionBackward", p, p[16], length, heap, &shape, &io))
    return NULL;
  const int64_t d = shape.heads * shape.head_dim;
  const int64_t o = elements3(shape.batch, shape.queries, d);
  const int64_t stats = elements3(shape.batch, shape.heads, 2 * shape.queries);
  if (o < 0 || stats < 0 || !inside((int64_t)p[10], o, length) ||
      !inside((int64_t)p[11], stats, length) || !inside((int64_t)p[12], o, length))
    return throw_range(env, "attentionBackward: o, stats or dO lies outside the heap");
  /* dq, dk and dv lie where q, k and v do: the same rows and strides. */
  const int64_t q_rows = shape.batch * shape.queries, kv_rows = shape.batch * shape.tokens;
  if (!rows_inside(p[13], q_rows, io.q_row, d, length) ||
      !rows_inside(p[14], kv_rows, io.kv_row, d, length) ||
      !rows_inside(p[15], kv_rows, io.kv_row, d, length))
    return throw_range(env, "attentionBackward: dq, dk or dv lies outside the heap");
  const tl_attention_grads grads = {.dq = heap + (int64_t)p[13],
                                    .dk = heap + (int64_t)p[14],
                                    .dv = heap + (int64_t)p[15]};
  if (tl_attention_backward(&shape, threads, &io, heap + (int64_t)p[10], heap + (int64_t)p[11],
                            heap + (int64_t)p[12], &grads) != 0)
    return throw_range(env, "attentionBackward: out of memory");
  return NULL;
}

/* layerNormForward(heap, [rows, cols, x, gain, bias, y, stats, epsilon]). */
static napi_value layer_norm_forward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "layerNormForward", 8, 7, &heap, &length, &p, &count))
    return NULL;
  const int64_t rows = (int64_t)p[0], cols = (int64_t)p[1];
  const int64_t size = elements3(rows, cols, 1), stats = elements3(rows, 2, 1);
  static const int full[] = {2, 5}, row[] = {3, 4};
  if (cols < 1 || size < 0 || !all_inside(p, full, 2, size, length) ||
      !all_inside(p, row, 2, cols, length) || !inside((int64_t)p[6], stats, length))
    return throw_range(env, "layerNormForward: an operand lies outside the heap");
  tl_layer_norm_forward(rows, cols, (float)p[7], threads, heap + (int64_t)p[2],
                        heap + (int64_t)p[3], heap + (int64_t)p[4], heap + (int64_t)p[5],
                        heap + (int64_t)p[6]);
  return NULL;
}

/* layerNormBackward(heap, [rows, cols, dy, x, gain, stats, dx, dGain, dBias]). */
static napi_value layer_norm_backward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "layerNormBackward", 9, 9, &heap, &length, &p, &count))
    return NULL;
  const int64_t rows = (int64_t)p[0], cols = (int64_t)p[1];
  const int64_t size = elements3(rows, cols, 1), stats = elements3(rows, 2, 1);
  static const int full[] = {2, 3, 6}, row[] = {4, 7, 8};
  if (cols < 1 || size < 0 || !all_inside(p, full, 3, size, length) ||
      !all_inside(p, row, 3, cols, length) || !inside((int64_t)p[5], stats, length))
    return throw_range(env, "layerNormBackward: an operand lies outside the heap");
  float *partials =
      (float *)malloc((size_t)(2 * cols * tl_layer_norm_chunks(rows)) * sizeof(float));
  if (partials == NULL) return throw_range(env, "layerNormBackward: out of memory");
  tl_layer_norm_backward(rows, cols, threads, heap + (int64_t)p[2], heap + (int64_t)p[3],
                         heap + (int64_t)p[4], heap + (int64_t)p[5], heap + (int64_t)p[6],
                         heap + (int64_t)p[7], heap + (int64_t)p[8], partials);
  free(partials);
  return NULL;
}

/* tokenize(heap, [batch, inputs, d, x, w, bias, cls, tokens]). */
static napi_value tokenize(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "tokenize", 8, 8, &heap, &length, &p, &count)) return NULL;
  const int64_t batch = (int64_t)p[0], inputs = (int64_t)p[1], d = (int64_t)p[2];
  const int64_t x = elements3(batch, inputs, 1), w = elements3(inputs, d, 1);
  const int64_t tokens = elements3(batch, inputs + 1, d);
  static const int params[] = {4, 5};
  if (x < 0 || w < 0 || tokens < 0 || !inside((int64_t)p[3], x, length) ||
      !all_inside(p, params, 2, w, length) || !inside((int64_t)p[6], d, length) ||
      !inside((int64_t)p[7], tokens, length))
    return throw_range(env, "tokenize: an operand lies outside the heap");
  tl_tokenize(batch, inputs, d, heap + (int64_t)p[3], heap + (int64_t)p[4],
              heap + (int64_t)p[5], heap + (int64_t)p[6], heap + (int64_t)p[7]);
  return NULL;
}

/* tokenizeBackward(heap, [batch, inputs, d, x, dTokens, dw, dBias, dCls]). */
static napi_value tokenize_backward(napi_env env, napi_callback_info info) {
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, "tokenizeBackward", 8, 8, &heap, &length, &p, &count))
    return NULL;
  const int64_t batch = (int64_t)p[0], inputs = (int64_t)p[1], d = (int64_t)p[2];
  const int64_t x = elements3(batch, inputs, 1), w = elements3(inputs, d, 1);
  const int64_t tokens = elements3(batch, inputs + 1, d);
  static const int params[] = {5, 6};
  if (x < 0 || w < 0 || tokens < 0 || !inside((int64_t)p[3], x, length) ||
      !inside((int64_t)p[4], tokens, length) || !all_inside(p, params, 2, w, length) ||
      !inside((int64_t)p[7], d, length))
    return throw_range(env, "tokenizeBackward: an operand lies outside the heap");
  tl_tokenize_backward(batch, inputs, d, heap + (int64_t)p[3], heap + (int64_t)p[4],
                       heap + (int64_t)p[5], heap + (int64_t)p[6], heap + (int64_t)p[7]);
  return NULL;
}

/* firstRows(heap, [batch, tokens, d, x, out]) and, backward, ([batch, tokens, d, dy, dx]). */
static napi_value first_rows_either(napi_env env, napi_callback_info info, int backward) {
  const char *name = backward ? "firstRowsBackward" : "firstRows";
  float *heap;
  int64_t length;
  double *p;
  size_t count;
  if (!heap_and_params(env, info, name, 5, 5, &heap, &length, &p, &count)) return NULL;
  const int64_t batch = (int64_t)p[0], tokens = (int64_t)p[1], d = (int64_t)p[2];
  const int64_t all = elements3(batch, tokens, d), first = elements3(batch, d, 1);
  const int64_t in = backward ? first : all, out = backward ? all : first;
  if (all < 0 || first < 0 || !inside((int64_t)p[3], in, length) ||
      !inside((int64_t)p[4], out, length))
    return throw_range(env, backward ? "firstRowsBackward: an operand lies outside the heap"
                                     : "firstRows: an operand lies outside the heap");
  if (backward)
    tl_first_rows_backward(batch, tokens, d, heap + (int64_t)p[3], heap + (int64_t)p[4]);
  else
    tl_first_rows(batch, tokens, d, heap + (int64_t)p[3], heap + (int64_t)p[4]);
  return NULL;
}

static napi_value first_rows(napi_env env, napi_callback_info info) {
  return first_rows_either(env, info, 0);
}

static napi_value first_rows_backward(napi_env env, napi_callback_info info) {
  return first_rows_either(env, info, 1);
}

/* kernels(): the names of tradelab's kernels this CPU runs, best first. */
static napi_value kernels(napi_env env, napi_callback_info info) {
  (void)info;
  const tl_kernel *list[4];
  const int count = tl_kernels_supported(list, 4);
  napi_value array;
  CHECK(napi_create_array_with_length(env, (size_t)count, &array));
  for (int i = 0; i < count; i++) {
    napi_value name = make_string(env, list[i]->name);
    if (name == NULL) return NULL;
    CHECK(napi_set_element(env, array, (uint32_t)i, name));
  }
  return array;
}

/* useKernel(name): run products on one of kernels(), or on 'blas' once loadBlas succeeded. */
static napi_value use_kernel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char name[32];
  size_t size;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 1 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &size) != napi_ok)
    return throw_range(env, "useKernel expects a kernel name");
  if (strcmp(name, "blas") == 0) {
    if (tl_blas_current() == NULL) return throw_range(env, "useKernel('blas'): no BLAS is loaded");
    use_blas = 1;
    return NULL;
  }
  const tl_kernel *kernel = tl_kernel_named(name);
  if (kernel == NULL) return throw_range(env, "useKernel: this CPU has no such kernel");
  active_kernel = kernel;
  use_blas = 0;
  return NULL;
}

/* kernel(): the name products run on now ('blas' for the system BLAS). */
static napi_value kernel(napi_env env, napi_callback_info info) {
  (void)info;
  return make_string(env, use_blas ? "blas" : active_kernel->name);
}

/* setThreads(n): threads per product, for tradelab's kernels and the BLAS (when it can). */
static napi_value set_threads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t count = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 1 || napi_get_value_int32(env, argv[0], &count) != napi_ok || count < 1)
    return throw_range(env, "setThreads expects a positive integer");
  threads = count;
  const tl_blas *blas = tl_blas_current();
  if (blas != NULL && blas->set_num_threads != NULL) blas->set_num_threads(count);
  return NULL;
}

/* threads(): threads per product on the active implementation (undefined: the BLAS's own). */
static napi_value get_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  const tl_blas *blas = tl_blas_current();
  if (use_blas) {
    if (blas->get_num_threads == NULL) {
      CHECK(napi_get_undefined(env, &result));
      return result;
    }
    CHECK(napi_create_int32(env, blas->get_num_threads(), &result));
    return result;
  }
  CHECK(napi_create_int32(env, threads, &result));
  return result;
}

/*
 * fmaPeak(kernel, iterations): runs the kernel's register-only FMA loop and returns the
 * floating-point operations it did (the caller times it).
 */
static napi_value fma_peak(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char name[32];
  size_t size;
  int64_t iterations = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 2 || napi_get_value_string_utf8(env, argv[0], name, sizeof name, &size) != napi_ok ||
      napi_get_value_int64(env, argv[1], &iterations) != napi_ok || iterations < 0)
    return throw_range(env, "fmaPeak expects (kernel name, iterations ≥ 0)");
  const tl_kernel *kernel = tl_kernel_named(name);
  if (kernel == NULL) return throw_range(env, "fmaPeak: this CPU has no such kernel");
  napi_value result;
  CHECK(napi_create_double(env, (double)kernel->fma_peak(iterations), &result));
  return result;
}

static napi_status set_string(napi_env env, napi_value object, const char *key, const char *value) {
  napi_value s = make_string(env, value);
  if (s == NULL) return napi_generic_failure;
  return napi_set_named_property(env, object, key, s);
}

/*
 * loadBlas(paths: string[]): opens the first library of `paths` with cblas_sgemm (once per
 * process; later calls return the same). Returns { vendor, path, corename?, config? } or
 * { error }.
 */
static napi_value load_blas(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool is_array = false;
  if (argc != 1 || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array)
    return throw_range(env, "loadBlas expects an array of library paths");
  uint32_t count = 0;
  CHECK(napi_get_array_length(env, argv[0], &count));
  if (count > 16) count = 16;
  char storage[16][512];
  const char *paths[16];
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    size_t size;
    CHECK(napi_get_element(env, argv[0], i, &item));
    if (napi_get_value_string_utf8(env, item, storage[i], sizeof storage[i], &size) != napi_ok)
      return throw_range(env, "loadBlas: every path must be a string");
    paths[i] = storage[i];
  }
  char error[512];
  const tl_blas *blas = tl_blas_open(paths, (int)count, error, sizeof error);
  napi_value result;
  CHECK(napi_create_object(env, &result));
  if (blas == NULL) {
    CHECK(set_string(env, result, "error", error));
    return result;
  }
  CHECK(set_string(env, result, "vendor", blas->vendor));
  CHECK(set_string(env, result, "path", blas->path));
  if (blas->get_corename != NULL) CHECK(set_string(env, result, "corename", blas->get_corename()));
  if (blas->get_config != NULL) CHECK(set_string(env, result, "config", blas->get_config()));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  active_kernel = tl_kernel_best();
  napi_property_descriptor properties[] = {
      {"gemm", NULL, gemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernels", NULL, kernels, NULL, NULL, NULL, napi_enumerable, NULL},
      {"useKernel", NULL, use_kernel, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernel", NULL, kernel, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setThreads", NULL, set_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"threads", NULL, get_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"loadBlas", NULL, load_blas, NULL, NULL, NULL, napi_enumerable, NULL},
      {"fmaPeak", NULL, fma_peak, NULL, NULL, NULL, napi_enumerable, NULL},
      {"reluBackward", NULL, relu_backward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"columnSums", NULL, column_sums_call, NULL, NULL, NULL, napi_enumerable, NULL},
      {"dropout", NULL, dropout, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumOfSquares", NULL, sum_of_squares, NULL, NULL, NULL, napi_enumerable, NULL},
      {"adam", NULL, adam, NULL, NULL, NULL, napi_enumerable, NULL},
      {"attentionForward", NULL, attention_forward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"attentionBackward", NULL, attention_backward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormForward", NULL, layer_norm_forward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormBackward", NULL, layer_norm_backward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"tokenize", NULL, tokenize, NULL, NULL, NULL, napi_enumerable, NULL},
      {"tokenizeBackward", NULL, tokenize_backward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"firstRows", NULL, first_rows, NULL, NULL, NULL, napi_enumerable, NULL},
      {"firstRowsBackward", NULL, first_rows_backward, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]),
                               properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
