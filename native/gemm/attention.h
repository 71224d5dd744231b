/*
 * Multi-head self-attention in one kernel per direction, for the FT-Transformer
 * (src/models/ft-transformer.ts), FlashAttention's plan on a CPU: for each (sample, head) the
 * scores S = scale·Q·Kᵀ, their softmax P and the output O = P·V are computed one query row at a
 * time in buffers that stay in L1, so the [batch·heads, T, T] scores and weights TensorFlow.js
 * materializes (55 MB each at 512 samples of 82 tokens) never exist, and q, k and v are read in
 * place from the projection's [batch·T, 3·d] rows (head h: columns h·dh … of each third), so no
 * transposes split or merge the heads. The forward pass keeps each query row's max score and
 * 1/Σ exp; the backward pass recomputes P from them and produces dq, dk and dv in the same layout.
 *
 * Sums run in a different order from tfjs's kernels (and exp is a polynomial), so results match
 * them to float32 rounding (relative ~1e-6), not bit for bit. Heads of 8 columns (the default)
 * run attention-fast.h's loops, others attention-body.h's.
 */
#ifndef TRADELAB_ATTENTION_H
#define TRADELAB_ATTENTION_H

#include <stdint.h>

/*
 * The shape of one attention call: batch samples of `tokens` keys and values and `queries` query
 * rows each (tokens when every token attends; 1 when only the [CLS] token does, all a network
 * that reads only [CLS] needs from its last block), heads of head_dim columns, d = heads·head_dim.
 */
typedef struct tl_attention_shape {
  int64_t batch, tokens, heads, head_dim, queries;
  float scale; /* applied to the scores: 1/√head_dim */
  /*
   * The instruction set to run, as sgemm.h's kernel names ("avx512", "avx2", "generic"; the
   * GEMM's choice, so a test can pin both); NULL or one this build lacks: the best the CPU runs.
   */
  const char *isa;
} tl_attention_shape;

/*
 * Where q, k and v lie: row r of q at q + r·q_row (batch·queries rows), row r of k and v at
 * k + r·kv_row and v + r·kv_row (batch·tokens rows), each row's d values contiguous, head h at
 * columns h·head_dim …. A [batch·tokens, 3d] projection is q = qkv, k = qkv + d, v = qkv + 2d,
 * both strides 3d; a separate q [batch, d] and kv [batch·tokens, 2d] are q_row d and kv_row 2d.
 */
typedef struct tl_attention_io {
  const float *q, *k, *v;
  int64_t q_row, kv_row;
} tl_attention_io;

/* The gradients of q, k and v, in the same places as tl_attention_io's. */
typedef struct tl_attention_grads {
  float *dq, *dk, *dv;
} tl_attention_grads;

/* Whether the shape is one the kernels take (every size positive). */
int tl_attention_shape_valid(const tl_attention_shape *shape);

/*
 * Forward: o [batch·queries, d] = softmax(scale·q·kᵀ)·v per head, and stats [batch, heads,
 * queries, 2] each query row's max score and 1/Σ exp(score − max). Split over up to `threads`
 * threads by sample. Returns 0, or −1 when scratch memory could not be allocated.
 */
int tl_attention_forward(const tl_attention_shape *shape, int threads, const tl_attention_io *io,
                         float *o, float *stats);

/*
 * Backward: dq, dk and dv (every value of each written) from the forward's inputs and outputs
 * and do, the gradient of o. Returns 0, or −1 when scratch memory could not be allocated.
 */
int tl_attention_backward(const tl_attention_shape *shape, int threads, const tl_attention_io *io,
                          const float *o, const float *stats, const float *d_o,
                          const tl_attention_grads *grads);

#endif
