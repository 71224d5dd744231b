/*
 * LayerNorm over the last axis with a learned gain and bias, forward and backward each one pass
 * over the rows (TensorFlow.js runs it as a Mean, Sub, Square, Mean, Add, Sqrt, RealDiv, Mul and
 * Add forward, and about twice as many kernels backward, each a pass over the whole tensor). The
 * forward pass keeps each row's mean and 1/σ for the backward pass. Sums run in another order than
 * tfjs's kernels, so results match them to float32 rounding, not bit for bit.
 */
#ifndef TRADELAB_LAYER_NORM_H
#define TRADELAB_LAYER_NORM_H

#include <stdint.h>

/*
 * y = (x − mean)/√(var + epsilon)·gain + bias per row of x [rows, cols]; stats [rows, 2] gets each
 * row's mean and 1/√(var + epsilon). Split over up to `threads` threads by rows.
 */
void tl_layer_norm_forward(int64_t rows, int64_t cols, float epsilon, int threads,
                           const float *x, const float *gain, const float *bias, float *y,
                           float *stats);

/* Chunks of rows the backward pass sums the columns of separately (see layer-norm.c). */
int64_t tl_layer_norm_chunks(int64_t rows);

/*
 * dx [rows, cols], d_gain and d_bias [cols] from dy, the forward's x, gain and stats.
 * `partials` holds 2·cols floats per chunk (tl_layer_norm_chunks): each chunk's column sums,
 * added in chunk order, so the result does not depend on `threads`.
 */
void tl_layer_norm_backward(int64_t rows, int64_t cols, int threads, const float *dy,
                            const float *x, const float *gain, const float *stats, float *dx,
                            float *d_gain, float *d_bias, float *partials);

#endif
