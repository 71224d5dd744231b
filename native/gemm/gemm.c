/*
 * tradelab's native GEMM: cblas_sgemm (OpenBLAS on Linux, Accelerate on macOS) run directly on
 * the tfjs wasm backend's heap (a Float32Array over the WebAssembly memory), so a matrix product
 * costs no copy in or out. Offsets and strides are in float32 elements from the start of that
 * array; the JavaScript side (src/compute/native-matmul.ts) reads them from the backend's tensor
 * table. Every range is checked against the heap's length before BLAS touches it, so a wrong
 * offset is a RangeError, never a write outside the wasm memory.
 */
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * The CBLAS prototype is declared here rather than included: Debian puts cblas.h under
 * per-variant directories (openblas-pthread/, openblas-openmp/), macOS under Accelerate, and the
 * ABI (LP64, int-sized enums with the standard values) is the same everywhere.
 */
enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
extern void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                        const float *a, int lda, const float *b, int ldb, float beta, float *c,
                        int ldc);
extern void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda,
                        const float *x, int incx, float beta, float *y, int incy);

#ifdef __APPLE__
static const char *const kVendor = "Accelerate";
#define HAVE_OPENBLAS_EXTENSIONS 0
#else
static const char *const kVendor = "OpenBLAS";
#define HAVE_OPENBLAS_EXTENSIONS 1
/* Weak, so a build against another CBLAS still links; NULL when the library lacks them. */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int openblas_get_num_threads(void) __attribute__((weak));
extern char *openblas_get_corename(void) __attribute__((weak));
extern char *openblas_get_config(void) __attribute__((weak));
#endif

enum { kLinear = 0, kRelu = 1, kRelu6 = 2 };

#define CHECK(call)                                                                               \
  do {                                                                                            \
    if ((call) != napi_ok) {                                                                      \
      napi_throw_error(env, "TRADELAB_NATIVE_GEMM", "N-API call failed: " #call);               \
      return NULL;                                                                                \
    }                                                                                             \
  } while (0)

static napi_value throw_range(napi_env env, const char *message) {
  napi_throw_range_error(env, "TRADELAB_NATIVE_GEMM", message);
  return NULL;
}

/*
 * Whether `batch` blocks of `size` elements, `stride` apart from `offset`, lie inside an array of
 * `length` elements. Every operand is at most 2^31 − 1 (checked first) or, for strides and
 * offsets, compared before multiplying, so nothing here overflows int64.
 */
static int fits(int64_t offset, int64_t batch, int64_t stride, int64_t size, int64_t length) {
  if (offset < 0 || offset > length || batch <= 0 || size == 0) return offset >= 0 && offset <= length;
  const int64_t room = length - offset;
  if (size > room) return 0;
  if (batch == 1 || stride == 0) return 1;
  return batch - 1 <= (room - size) / stride;
}

/*
 * gemm(heap, batch, transA, transB, m, n, k, aOffset, aStride, bOffset, bStride, cOffset,
 *      biasOffset, biasSize, activation)
 *
 * For p in [0, batch): C_p = act(op(A_p) · op(B_p) + bias), row-major, C_p being m×n at
 * cOffset + p·m·n; A_p is stored m×k (k×m when transA) at aOffset + p·aStride, B_p k×n (n×k
 * when transB) at bOffset + p·bStride. A stride of 0 broadcasts one matrix over the batch.
 * biasOffset −1 means no bias; biasSize is 1 (a scalar) or n (one value per column).
 * activation: 0 linear, 1 relu, 2 relu6.
 */
static napi_value gemm(napi_env env, napi_callback_info info) {
  size_t argc = 15;
  napi_value argv[15];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 15) return throw_range(env, "gemm expects 15 arguments");

  napi_typedarray_type type;
  size_t length;
  void *data;
  CHECK(napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL));
  if (type != napi_float32_array) return throw_range(env, "gemm: heap must be a Float32Array");
  float *heap = (float *)data;

  int64_t v[14];
  for (int i = 0; i < 14; i++) {
    napi_valuetype vt;
    CHECK(napi_typeof(env, argv[i + 1], &vt));
    if (vt == napi_boolean) {
      bool flag;
      CHECK(napi_get_value_bool(env, argv[i + 1], &flag));
      v[i] = flag ? 1 : 0;
    } else {
      CHECK(napi_get_value_int64(env, argv[i + 1], &v[i]));
    }
  }
  const int64_t batch = v[0], trans_a = v[1], trans_b = v[2], m = v[3], n = v[4], k = v[5];
  const int64_t a_off = v[6], a_stride = v[7], b_off = v[8], b_stride = v[9], c_off = v[10];
  const int64_t bias_off = v[11], bias_size = v[12], activation = v[13];

  if (batch < 0 || m < 0 || n < 0 || k < 0 || batch > INT32_MAX || m > INT32_MAX ||
      n > INT32_MAX || k > INT32_MAX)
    return throw_range(env, "gemm: batch, m, n and k must be non-negative 32-bit integers");
  if (a_stride < 0 || b_stride < 0)
    return throw_range(env, "gemm: strides must be non-negative");
  if (activation < kLinear || activation > kRelu6)
    return throw_range(env, "gemm: activation must be 0 (linear), 1 (relu) or 2 (relu6)");
  const int64_t len = (int64_t)length;
  if (!fits(a_off, batch, a_stride, m * k, len) || !fits(b_off, batch, b_stride, k * n, len) ||
      !fits(c_off, batch, m * n, m * n, len))
    return throw_range(env, "gemm: an operand lies outside the heap");
  if (bias_off >= 0 && ((bias_size != 1 && bias_size != n) || !fits(bias_off, 1, 0, bias_size, len)))
    return throw_range(env, "gemm: bias must be 1 or n values inside the heap");

  const int lda = (int)(trans_a ? (m > 0 ? m : 1) : (k > 0 ? k : 1));
  const int ldb = (int)(trans_b ? (k > 0 ? k : 1) : (n > 0 ? n : 1));
  const int ldc = (int)(n > 0 ? n : 1);
  for (int64_t p = 0; p < batch; p++) {
    float *c = heap + c_off + p * m * n;
    /* The bias is written into C first and kept with beta = 1: one pass over C instead of two. */
    float beta = 0.0f;
    if (bias_off >= 0) {
      const float *bias = heap + bias_off;
      for (int64_t i = 0; i < m; i++) {
        float *row = c + i * n;
        if (bias_size == 1)
          for (int64_t j = 0; j < n; j++) row[j] = bias[0];
        else
          memcpy(row, bias, (size_t)n * sizeof(float));
      }
      beta = 1.0f;
    } else if (k == 0) {
      memset(c, 0, (size_t)(m * n) * sizeof(float));
    }
    const float *a = heap + a_off + p * a_stride;
    const float *b = heap + b_off + p * b_stride;
    /*
     * A row or a column vector times a matrix is a GEMV: OpenBLAS's sgemm runs it at a fraction of
     * memory speed (a bias gradient, ones · X, took 3.5 ms for 4096×512 instead of ~1 ms). A
     * 1×k or k×1 operand is contiguous whichever way it is stored, so its increment is 1.
     */
    if (m == 1 && n > 0 && k > 0)
      cblas_sgemv(kRowMajor, trans_b ? kNoTrans : kTrans, trans_b ? (int)n : (int)k,
                  trans_b ? (int)k : (int)n, 1.0f, b, ldb, a, 1, beta, c, 1);
    else if (n == 1 && m > 0 && k > 0)
      cblas_sgemv(kRowMajor, trans_a ? kTrans : kNoTrans, trans_a ? (int)k : (int)m,
                  trans_a ? (int)m : (int)k, 1.0f, a, lda, b, 1, beta, c, 1);
    else if (m > 0 && n > 0 && k > 0)
      cblas_sgemm(kRowMajor, trans_a ? kTrans : kNoTrans, trans_b ? kTrans : kNoTrans, (int)m,
                  (int)n, (int)k, 1.0f, a, lda, b, ldb, beta, c, ldc);
    if (activation == kRelu) {
      for (int64_t i = 0; i < m * n; i++) c[i] = c[i] > 0.0f ? c[i] : 0.0f;
    } else if (activation == kRelu6) {
      for (int64_t i = 0; i < m * n; i++) c[i] = c[i] > 0.0f ? (c[i] < 6.0f ? c[i] : 6.0f) : 0.0f;
    }
  }
  return NULL;
}

static napi_value string_or_undefined(napi_env env, const char *s) {
  napi_value result;
  if (s == NULL) {
    CHECK(napi_get_undefined(env, &result));
  } else {
    CHECK(napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &result));
  }
  return result;
}

/* setNumThreads(n): false when the library has no thread control (Accelerate, other CBLAS). */
static napi_value set_num_threads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t threads = 0;
  if (argc != 1 || napi_get_value_int32(env, argv[0], &threads) != napi_ok || threads < 1)
    return throw_range(env, "setNumThreads expects a positive integer");
  bool done = false;
#if HAVE_OPENBLAS_EXTENSIONS
  if (openblas_set_num_threads != NULL) {
    openblas_set_num_threads(threads);
    done = true;
  }
#endif
  napi_value result;
  CHECK(napi_get_boolean(env, done, &result));
  return result;
}

/* getNumThreads(): the library's thread count, or undefined when it cannot say. */
static napi_value get_num_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#if HAVE_OPENBLAS_EXTENSIONS
  if (openblas_get_num_threads != NULL) {
    CHECK(napi_create_int32(env, openblas_get_num_threads(), &result));
    return result;
  }
#endif
  CHECK(napi_get_undefined(env, &result));
  return result;
}

/* corename(): OpenBLAS's kernel family (e.g. "SkylakeX"), or undefined. */
static napi_value corename(napi_env env, napi_callback_info info) {
  (void)info;
#if HAVE_OPENBLAS_EXTENSIONS
  if (openblas_get_corename != NULL) return string_or_undefined(env, openblas_get_corename());
#endif
  return string_or_undefined(env, NULL);
}

/* config(): OpenBLAS's build configuration string, or undefined. */
static napi_value config(napi_env env, napi_callback_info info) {
  (void)info;
#if HAVE_OPENBLAS_EXTENSIONS
  if (openblas_get_config != NULL) return string_or_undefined(env, openblas_get_config());
#endif
  return string_or_undefined(env, NULL);
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"gemm", NULL, gemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setNumThreads", NULL, set_num_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"getNumThreads", NULL, get_num_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"corename", NULL, corename, NULL, NULL, NULL, napi_enumerable, NULL},
      {"config", NULL, config, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]),
                               properties));
  napi_value vendor;
  CHECK(napi_create_string_utf8(env, kVendor, NAPI_AUTO_LENGTH, &vendor));
  CHECK(napi_set_named_property(env, exports, "vendor", vendor));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
