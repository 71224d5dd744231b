/*
 * The FT-Transformer's token kernels (src/models/ft-transformer.ts), each one pass where
 * TensorFlow.js ran a broadcast Multiply and Add, a Concat that prepends the [CLS] token (and a
 * SplitV of the whole activation tensor to undo it backward), and a Slice to read [CLS] back out
 * (a Pad of the whole tensor backward).
 */
#ifndef TRADELAB_TOKEN_KERNELS_H
#define TRADELAB_TOKEN_KERNELS_H

#include <stdint.h>

/*
 * tokens [batch·(inputs + 1), d]: row 0 of each sample is cls, row 1 + t is x[b, t]·w[t] + bias[t]
 * (x [batch, inputs], w and bias [inputs, d]).
 */
void tl_tokenize(int64_t batch, int64_t inputs, int64_t d, const float *x, const float *w,
                 const float *bias, const float *cls, float *tokens);

/* The gradients of tl_tokenize's w, bias and cls from dtokens (x needs none: it is data). */
void tl_tokenize_backward(int64_t batch, int64_t inputs, int64_t d, const float *x,
                          const float *dtokens, float *dw, float *dbias, float *dcls);

/* out [batch, d] = row 0 of each sample's `tokens` rows of x [batch·tokens, d]. */
void tl_first_rows(int64_t batch, int64_t tokens, int64_t d, const float *x, float *out);

/* dx [batch·tokens, d]: dy's rows at each sample's row 0, zero elsewhere (tl_first_rows' gradient). */
void tl_first_rows_backward(int64_t batch, int64_t tokens, int64_t d, const float *dy,
                            float *dx);

#endif
