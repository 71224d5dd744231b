/* The token kernels (see token-kernels.h): copies and one multiply-add per value. */
#include "token-kernels.h"

#include <string.h>

void tl_tokenize(int64_t batch, int64_t inputs, int64_t d, const float *x, const float *w,
                 const float *bias, const float *cls, float *tokens) {
  for (int64_t b = 0; b < batch; b++) {
    float *out = tokens + b * (inputs + 1) * d;
    memcpy(out, cls, (size_t)d * sizeof(float));
    for (int64_t t = 0; t < inputs; t++) {
      const float xt = x[b * inputs + t];
      const float *wt = w + t * d, *bt = bias + t * d;
      float *row = out + (t + 1) * d;
      for (int64_t c = 0; c < d; c++) row[c] = xt * wt[c] + bt[c];
    }
  }
}

void tl_tokenize_backward(int64_t batch, int64_t inputs, int64_t d, const float *x,
                          const float *dtokens, float *dw, float *dbias, float *dcls) {
  memset(dw, 0, (size_t)(inputs * d) * sizeof(float));
  memset(dbias, 0, (size_t)(inputs * d) * sizeof(float));
  memset(dcls, 0, (size_t)d * sizeof(float));
  for (int64_t b = 0; b < batch; b++) {
    const float *dy = dtokens + b * (inputs + 1) * d;
    for (int64_t c = 0; c < d; c++) dcls[c] += dy[c];
    for (int64_t t = 0; t < inputs; t++) {
      const float xt = x[b * inputs + t];
      const float *row = dy + (t + 1) * d;
      float *dwt = dw + t * d, *dbt = dbias + t * d;
      for (int64_t c = 0; c < d; c++) {
        dwt[c] += xt * row[c];
        dbt[c] += row[c];
      }
    }
  }
}

void tl_first_rows(int64_t batch, int64_t tokens, int64_t d, const float *x, float *out) {
  for (int64_t b = 0; b < batch; b++)
    memcpy(out + b * d, x + b * tokens * d, (size_t)d * sizeof(float));
}

void tl_first_rows_backward(int64_t batch, int64_t tokens, int64_t d, const float *dy,
                            float *dx) {
  memset(dx, 0, (size_t)(batch * tokens * d) * sizeof(float));
  for (int64_t b = 0; b < batch; b++)
    memcpy(dx + b * tokens * d, dy + b * d, (size_t)d * sizeof(float));
}
