/*
 * LayerNorm forward and backward (see layer-norm.h). Each row's sums keep eight partial sums, so
 * the compiler vectorizes them (it may not reorder a single float sum by itself); the column sums
 * of the backward pass (the gain's and bias's gradients) are per chunk of TL_LN_CHUNK_ROWS rows,
 * added in chunk order: the chunks, not the threads, fix the order, so the result is the same on
 * any thread count (a study's trials must not depend on how many workers ran beside them).
 */
#include "layer-norm.h"

#include <math.h>

#include "thread-pool.h"

#if defined(__clang__)
#pragma STDC FP_CONTRACT ON
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* Rows per thread below which another thread costs more than it saves. */
#define TL_LN_MIN_ROWS 512

/* Rows of one partial column sum in the backward pass (whatever the thread count). */
#define TL_LN_CHUNK_ROWS 512

int64_t tl_layer_norm_chunks(int64_t rows) {
  return rows <= TL_LN_CHUNK_ROWS ? 1 : (rows + TL_LN_CHUNK_ROWS - 1) / TL_LN_CHUNK_ROWS;
}

/* Σ a[c] over c < n, with eight partial sums. */
static float row_sum(int64_t n, const float *a) {
  float acc[8] = {0};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8)
    for (int l = 0; l < 8; l++) acc[l] += a[c + l];
  float total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; c < n; c++) total += a[c];
  return total;
}

/* Σ a[c]² over c < n, likewise. */
static float row_sum_of_squares(int64_t n, const float *a) {
  float acc[8] = {0};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8)
    for (int l = 0; l < 8; l++) acc[l] += a[c + l] * a[c + l];
  float total = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; c < n; c++) total += a[c] * a[c];
  return total;
}

typedef struct ln_job {
  int64_t rows, cols;
  int parts;
  float epsilon;
  const float *x, *gain, *bias, *dy, *stats_in;
  float *y, *stats, *dx, *partials;
} ln_job;

static int parts_for(int64_t rows, int threads) {
  const int64_t most = rows / TL_LN_MIN_ROWS;
  if (most < 2 || threads < 2) return 1;
  return most < threads ? (int)most : threads;
}

static void forward_part(void *context, int index) {
  const ln_job *j = (const ln_job *)context;
  const int64_t r0 = j->rows * index / j->parts, r1 = j->rows * (index + 1) / j->parts;
  const int64_t cols = j->cols;
  const float inv_cols = 1.0f / (float)cols;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = j->x + r * cols;
    float *y = j->y + r * cols;
    const float mean = row_sum(cols, x) * inv_cols;
    for (int64_t c = 0; c < cols; c++) y[c] = x[c] - mean;
    const float var = row_sum_of_squares(cols, y) * inv_cols;
    const float rstd = 1.0f / sqrtf(var + j->epsilon);
    for (int64_t c = 0; c < cols; c++) y[c] = y[c] * rstd * j->gain[c] + j->bias[c];
    j->stats[2 * r] = mean;
    j->stats[2 * r + 1] = rstd;
  }
}

void tl_layer_norm_forward(int64_t rows, int64_t cols, float epsilon, int threads,
                           const float *x, const float *gain, const float *bias, float *y,
                           float *stats) {
  ln_job j = {.rows = rows, .cols = cols, .epsilon = epsilon, .x = x, .gain = gain,
              .bias = bias, .y = y, .stats = stats};
  j.parts = parts_for(rows, threads);
  tl_pool_run(j.parts, forward_part, &j);
}

/* One chunk of rows: dx, and the chunk's column sums into its slot of `partials`. */
static void backward_chunk(const ln_job *j, int64_t chunk) {
  const int64_t r0 = chunk * TL_LN_CHUNK_ROWS;
  const int64_t r1 = r0 + TL_LN_CHUNK_ROWS < j->rows ? r0 + TL_LN_CHUNK_ROWS : j->rows;
  const int64_t cols = j->cols;
  const float inv_cols = 1.0f / (float)cols;
  float *d_gain = j->partials + 2 * cols * chunk, *d_bias = d_gain + cols;
  for (int64_t c = 0; c < cols; c++) d_gain[c] = d_bias[c] = 0.0f;
  for (int64_t r = r0; r < r1; r++) {
    const float *x = j->x + r * cols, *dy = j->dy + r * cols;
    float *dx = j->dx + r * cols; /* x̂ first, then the gradient */
    const float mean = j->stats_in[2 * r], rstd = j->stats_in[2 * r + 1];
    float sum_g = 0.0f, sum_gx = 0.0f;
    {
      float acc_g[8] = {0}, acc_gx[8] = {0};
      int64_t c = 0;
      for (; c + 8 <= cols; c += 8)
        for (int l = 0; l < 8; l++) {
          const float xhat = (x[c + l] - mean) * rstd;
          const float g = dy[c + l] * j->gain[c + l];
          dx[c + l] = xhat;
          acc_g[l] += g;
          acc_gx[l] += g * xhat;
          d_gain[c + l] += dy[c + l] * xhat;
          d_bias[c + l] += dy[c + l];
        }
      for (int l = 0; l < 8; l++) {
        sum_g += acc_g[l];
        sum_gx += acc_gx[l];
      }
      for (; c < cols; c++) {
        const float xhat = (x[c] - mean) * rstd;
        const float g = dy[c] * j->gain[c];
        dx[c] = xhat;
        sum_g += g;
        sum_gx += g * xhat;
        d_gain[c] += dy[c] * xhat;
        d_bias[c] += dy[c];
      }
    }
    const float mean_g = sum_g * inv_cols, mean_gx = sum_gx * inv_cols;
    for (int64_t c = 0; c < cols; c++)
      dx[c] = rstd * (dy[c] * j->gain[c] - mean_g - dx[c] * mean_gx);
  }
}

/* A thread's share: a contiguous run of chunks. */
static void backward_part(void *context, int index) {
  const ln_job *j = (const ln_job *)context;
  const int64_t chunks = tl_layer_norm_chunks(j->rows);
  const int64_t c0 = chunks * index / j->parts, c1 = chunks * (index + 1) / j->parts;
  for (int64_t chunk = c0; chunk < c1; chunk++) backward_chunk(j, chunk);
}

void tl_layer_norm_backward(int64_t rows, int64_t cols, int threads, const float *dy,
                            const float *x, const float *gain, const float *stats, float *dx,
                            float *d_gain, float *d_bias, float *partials) {
  ln_job j = {.rows = rows, .cols = cols, .x = x, .gain = gain, .dy = dy, .stats_in = stats,
              .dx = dx, .partials = partials};
  const int64_t chunks = tl_layer_norm_chunks(rows);
  j.parts = parts_for(rows, threads);
  if (j.parts > chunks) j.parts = (int)chunks;
  tl_pool_run(j.parts, backward_part, &j);
  for (int64_t c = 0; c < cols; c++) {
    float g = 0.0f, b = 0.0f;
    for (int64_t p = 0; p < chunks; p++) {
      g += partials[2 * cols * p + c];
      b += partials[2 * cols * p + cols + c];
    }
    d_gain[c] = g;
    d_bias[c] = b;
  }
}
