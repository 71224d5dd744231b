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
 * The shape of one attention call. The projection qkv is [batch·tokens, 3·heads·head_dim] row
 * major: columns [0, d) are q, [d, 2d) k, [2d, 3d) v, d = heads·head_dim. queries is tokens
 * (every token attends) or 1 (only each sample's first token, the [CLS] token, queries: what
 * the last block of a network that reads only [CLS] needs).
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

/* Whether the shape is one the kernels take (all positive, queries tokens or 1). */
int tl_attention_shape_valid(const tl_attention_shape *shape);

/*
 * Forward: o [batch·queries, d] = softmax(scale·q·kᵀ)·v per head, and stats [batch, heads,
 * queries, 2] each query row's max score and 1/Σ exp(score − max). Split over up to `threads`
 * threads by sample. Returns 0, or −1 when scratch memory could not be allocated.
 */
int tl_attention_forward(const tl_attention_shape *shape, int threads, const float *qkv,
                         float *o, float *stats);

/*
 * Backward: dqkv [batch·tokens, 3·d] from the forward's inputs and outputs and do, the gradient
 * of o. Where only the first token queries, the q columns of the other rows get 0. Returns 0,
 * or −1 when scratch memory could not be allocated.
 */
int tl_attention_backward(const tl_attention_shape *shape, int threads, const float *qkv,
                          const float *o, const float *stats, const float *d_o, float *dqkv);

#endif
