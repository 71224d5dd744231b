/*
 * The attention kernels (see attention.h): the loops in attention-body.h (any head width) and
 * attention-fast.h (heads of 8 columns; GCC and clang) compiled for AVX-512, AVX2 and the
 * baseline, chosen at run time by what the CPU supports, and split over samples on the GEMM's
 * thread pool.
 */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "thread-pool.h"

/*
 * a·b + c as one fused multiply-add where the CPU has one: -std=c11 turns GCC's contraction off
 * for the whole addon (training-kernels.c relies on that for tfjs's bits), but these results need
 * only match to rounding, and separate multiplies and adds would halve the products' speed.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT ON
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TL_ATT_INLINE static inline __attribute__((always_inline))
#else
#define TL_ATT_INLINE static inline
#endif

/* Keys per block of the vectorized loops: two AVX-512 or four AVX2 registers. */
#define TL_ATT_LANES 32

/* The key count rounded up to whole blocks. */
static int64_t tl_att_padded(int64_t tokens) {
  return (tokens + TL_ATT_LANES - 1) / TL_ATT_LANES * TL_ATT_LANES;
}

/*
 * e^x for x ≤ 0 (a score minus its row's maximum or log-sum-exp), as plain arithmetic the
 * compiler vectorizes (libm's expf is a call per value): x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r
 * by Cephes' degree-6 polynomial (relative error ~1e-7), 2^n put straight into the exponent
 * bits. Below −87 (e^x under float32's smallest normal) it returns 0, so a −∞ score weighs 0.
 */
TL_ATT_INLINE float tl_att_exp(float x) {
  const float clamped = x < -87.0f ? -87.0f : (x > 0.0f ? 0.0f : x);
  /* Adding 1.5·2²³ rounds to an integer in the low mantissa bits. */
  const float shifted = clamped * 1.44269504088896341f + 12582912.0f;
  const float n = shifted - 12582912.0f;
  int32_t bits;
  memcpy(&bits, &shifted, sizeof bits);
  const int32_t exponent = (bits - 0x4B400000 + 127) << 23;
  float r = clamped - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float poly = 1.9875691500e-4f;
  poly = poly * r + 1.3981999507e-3f;
  poly = poly * r + 8.3334519073e-3f;
  poly = poly * r + 4.1665795894e-2f;
  poly = poly * r + 1.6666665459e-1f;
  poly = poly * r + 5.0000001201e-1f;
  poly = poly * r * r + r + 1.0f;
  float power;
  memcpy(&power, &exponent, sizeof power);
  return x < -87.0f ? 0.0f : poly * power;
}

#if defined(__GNUC__) || defined(__clang__)
#define TL_ATT_FAST 1
#else
#define TL_ATT_FAST 0
#endif

#if defined(__x86_64__) && TL_ATT_FAST
#define ATT_FN(name) att_##name##_avx512
#define ATT_ATTRS __attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma")))
#define ATT_W 16
#include "attention-body.h"
#include "attention-fast.h"
#undef ATT_FN
#undef ATT_ATTRS
#undef ATT_W
#define ATT_FN(name) att_##name##_avx2
#define ATT_ATTRS __attribute__((target("avx2,fma")))
#define ATT_W 8
#include "attention-body.h"
#include "attention-fast.h"
#undef ATT_FN
#undef ATT_ATTRS
#undef ATT_W
#endif
#define ATT_FN(name) att_##name##_generic
#define ATT_ATTRS
#define ATT_W 4
#include "attention-body.h"
#if TL_ATT_FAST
#include "attention-fast.h"
#endif
#undef ATT_FN
#undef ATT_ATTRS
#undef ATT_W

typedef void (*forward_fn)(const tl_attention_shape *, const tl_attention_io *, float *, float *,
                           int64_t, int64_t, float *);
typedef void (*backward_fn)(const tl_attention_shape *, const tl_attention_io *, const float *,
                            const float *, const float *, const tl_attention_grads *, int64_t,
                            int64_t, float *);

/* One instruction set's kernels: any head width, and heads of 8 (NULL: not compiled). */
typedef struct instance {
  forward_fn forward, fast_forward;
  backward_fn backward, fast_backward, fast_backward_one;
  int64_t lanes; /* the fast kernels' vector width */
} instance;

/*
 * The instance named `isa` when this build has it and the CPU runs it (sgemm.c's checks: the
 * CPU and the OS's saved registers), else the best one that does.
 */
static const instance *choose(const char *isa) {
#if TL_ATT_FAST
  static const instance generic = {att_forward_part_generic, att_fast_forward_part_generic,
                                   att_backward_part_generic, att_fast_backward_part_generic,
                                   att_fast_backward_one_part_generic, 4};
#else
  static const instance generic = {att_forward_part_generic, NULL, att_backward_part_generic,
                                   NULL, NULL, 4};
#endif
  const int named = isa != NULL;
#if defined(__x86_64__) && TL_ATT_FAST
  static const instance avx512 = {att_forward_part_avx512, att_fast_forward_part_avx512,
                                  att_backward_part_avx512, att_fast_backward_part_avx512,
                                  att_fast_backward_one_part_avx512, 16};
  static const instance avx2 = {att_forward_part_avx2, att_fast_forward_part_avx2,
                                att_backward_part_avx2, att_fast_backward_part_avx2,
                                att_fast_backward_one_part_avx2, 8};
  __builtin_cpu_init();
  const int has_avx512 = __builtin_cpu_supports("avx512f");
  const int has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (named && strcmp(isa, "generic") == 0) return &generic;
  if (named && strcmp(isa, "avx2") == 0 && has_avx2) return &avx2;
  if (has_avx512) return &avx512;
  if (has_avx2) return &avx2;
#else
  (void)named;
#endif
  return &generic;
}

int tl_attention_shape_valid(const tl_attention_shape *g) {
  return g->batch > 0 && g->tokens > 0 && g->heads > 0 && g->head_dim > 0 && g->queries > 0;
}

/* One thread's share of a call: its samples and its own scratch. */
typedef struct job {
  const tl_attention_shape *shape;
  int parts;
  forward_fn forward;
  backward_fn backward;
  const tl_attention_io *io;
  const tl_attention_grads *grads;
  const float *o, *stats, *d_o;
  float *o_out, *stats_out;
  int64_t scratch_floats;
  int failed; /* set by a part that could not allocate its scratch */
} job;

static void run_part(void *context, int index) {
  job *j = (job *)context;
  const int64_t batch = j->shape->batch;
  const int64_t b0 = batch * index / j->parts, b1 = batch * (index + 1) / j->parts;
  if (b0 == b1) return;
  float *scratch = (float *)malloc((size_t)j->scratch_floats * sizeof(float));
  if (scratch == NULL) {
    j->failed = 1; /* a plain store: any part failing is all the caller needs to know */
    return;
  }
  if (j->forward != NULL)
    j->forward(j->shape, j->io, j->o_out, j->stats_out, b0, b1, scratch);
  else
    j->backward(j->shape, j->io, j->o, j->stats, j->d_o, j->grads, b0, b1, scratch);
  free(scratch);
}

static int run(job *j, int threads) {
  const int64_t batch = j->shape->batch;
  j->parts = threads < 1 ? 1 : (batch < threads ? (int)batch : threads);
  j->failed = 0;
  tl_pool_run(j->parts, run_part, j);
  return j->failed ? -1 : 0;
}

int tl_attention_forward(const tl_attention_shape *shape, int threads, const tl_attention_io *io,
                         float *o, float *stats) {
  const instance *kernels = choose(shape->isa);
  const int64_t tp = tl_att_padded(shape->tokens), dh = shape->head_dim;
  /* One query row per head fills one lane of the fast kernel's W: the generic one is faster. */
  const int fast = dh == 8 && shape->queries > 1 && kernels->fast_forward != NULL;
  job j = {.shape = shape,
           .forward = fast ? kernels->fast_forward : kernels->forward,
           .io = io,
           .o_out = o,
           .stats_out = stats,
           .scratch_floats = fast ? shape->tokens * kernels->lanes : dh * tp + tp + dh};
  return run(&j, threads);
}

int tl_attention_backward(const tl_attention_shape *shape, int threads, const tl_attention_io *io,
                          const float *o, const float *stats, const float *d_o,
                          const tl_attention_grads *grads) {
  const instance *kernels = choose(shape->isa);
  const int64_t tp = tl_att_padded(shape->tokens), dh = shape->head_dim, nq = shape->queries;
  const int fast = dh == 8 && kernels->fast_backward != NULL;
  const int first = fast && nq == 1;
  job j = {.shape = shape,
           .backward = first  ? kernels->fast_backward_one
                       : fast ? kernels->fast_backward
                              : kernels->backward,
           .io = io,
           .grads = grads,
           .o = o,
           .stats = stats,
           .d_o = d_o,
           .scratch_floats = first  ? 2 * shape->tokens
                             : fast ? nq * (25 + 2 * kernels->lanes)
                                    : 4 * dh * tp + 2 * tp + dh};
  return run(&j, threads);
}
