/*
 * Element-wise training kernels that fuse what TensorFlow.js runs as several kernels, each written
 * to give the same float32 bits as the kernels it replaces (same operations, same order, no
 * contraction into fused multiply-adds), so a training run is the same whichever path it took:
 *
 * - tl_relu_mask: a dense ReLU layer's backward pass up to the products, g = dy · step(y) (tfjs:
 *   Step, then Multiply), in one pass; addon.c then sums g's columns for the bias gradient through
 *   the same product (ones · g) that tradelab's Sum kernel uses, so the bits match it too.
 * - tl_dropout: the TCN's inverted dropout (causal-conv.ts), the same mask as its JavaScript loop.
 * - tl_sum_of_squares: Σ over tensors of Σ x² (tfjs: Square and Sum per tensor, then AddN).
 * - tl_adam: one Adam step of one variable with the gradient scaled first (tfjs: Mul, then about a
 *   dozen element-wise kernels inside AdamOptimizer.applyGradients).
 */
#ifndef TRADELAB_TRAINING_KERNELS_H
#define TRADELAB_TRAINING_KERNELS_H

#include <stdint.h>

/* g[i] = dy[i] · (y[i] > 0 ? 1 : 0) for i < n. */
void tl_relu_mask(int64_t n, const float *dy, const float *y, float *g);

/*
 * Inverted dropout in place, the mask of causal-conv.ts's JavaScript loop bit for bit: value i is
 * zeroed when mulberry32's output for state0 + (i + 1)·0x6d2b79f5 is below `threshold` (rate·2³²),
 * else multiplied by `scale` (1/(1 − rate) as float32). Each value's draw depends only on its
 * index, so the loop vectorizes.
 */
void tl_dropout(int64_t n, float *x, uint64_t threshold, float scale, uint32_t state0);

/* Σ_t Σ_i x_t[i]², each tensor summed in order from 0 in float32, the sums added in order. */
float tl_sum_of_squares(int count, const float *const *tensors, const int64_t *sizes);

/* Adam's constants, as float32 (tfjs turns each JavaScript number into a float32 scalar). */
typedef struct tl_adam_config {
  float beta1, beta2;
  float one_minus_beta1, one_minus_beta2; /* 1 − β computed in double, then rounded, as tfjs */
  float learning_rate_negated;
  float epsilon;
} tl_adam_config;

/*
 * One Adam step of n values: g' = g · scale; m' = m·β₁ + g'·(1−β₁); v' = v·β₂ + g'²·(1−β₂);
 * w' = (m' / (1 − β₁ᵗ)) / (√(v' / (1 − β₂ᵗ)) + ε) · (−lr) + w, with acc_beta1/2 = β₁ᵗ, β₂ᵗ.
 * Outputs may not alias inputs.
 */
void tl_adam(int64_t n, const tl_adam_config *config, float acc_beta1, float acc_beta2,
             float scale, const float *w, const float *g, const float *m, const float *v,
             float *w_out, float *m_out, float *v_out);

#endif
