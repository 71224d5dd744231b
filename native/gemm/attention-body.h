/*
 * The attention kernels' loops (see attention.h), included by attention.c once per instruction
 * set with ATT_FN(name) naming this instance's functions and ATT_ATTRS its target attributes, so
 * the compiler vectorizes the same plain loops for AVX-512, AVX2 and the baseline.
 *
 * Every loop over keys runs over blocks of TL_ATT_LANES keys (the key count padded up to tp, the
 * padding's scores −∞ and so its weights 0) with the block's sums in a local array the compiler
 * keeps in vector registers; loops that sum over keys for each of a head's columns keep four
 * partial sums of eight columns each, so no sum waits on the one before it.
 */

/* s[j] = Σ_c qs[c] · kt[c·tp + j] for j < tp: one query row's scores, the keys in lanes. */
ATT_ATTRS static void ATT_FN(scores)(int64_t tp, int64_t dh, const float *qs, const float *kt,
                                     float *s) {
  for (int64_t j0 = 0; j0 < tp; j0 += TL_ATT_LANES) {
    float acc[TL_ATT_LANES] = {0};
    for (int64_t c = 0; c < dh; c++) {
      const float qc = qs[c];
      const float *kc = kt + c * tp + j0;
      for (int l = 0; l < TL_ATT_LANES; l++) acc[l] += qc * kc[l];
    }
    for (int l = 0; l < TL_ATT_LANES; l++) s[j0 + l] = acc[l];
  }
}

/*
 * out[c] = scale · Σ_{j < t} w[j] · m[j·ld + c] for c < dh: a row of weights times t rows of a
 * head's columns (P·V for o, dS·K for dq), eight columns at a time.
 */
ATT_ATTRS static void ATT_FN(weighted_rows)(int64_t t, int64_t dh, const float *w,
                                            const float *m, int64_t ld, float scale,
                                            float *out) {
  for (int64_t c0 = 0; c0 < dh; c0 += 8) {
    const int64_t width = dh - c0 < 8 ? dh - c0 : 8;
    const float *cols = m + c0;
    float acc[4][8] = {{0}};
    int64_t j = 0;
    if (width == 8) {
      for (; j + 4 <= t; j += 4)
        for (int u = 0; u < 4; u++) {
          const float wj = w[j + u];
          const float *row = cols + (j + u) * ld;
          for (int c = 0; c < 8; c++) acc[u][c] += wj * row[c];
        }
      for (; j < t; j++) {
        const float wj = w[j];
        const float *row = cols + j * ld;
        for (int c = 0; c < 8; c++) acc[0][c] += wj * row[c];
      }
    } else {
      for (; j < t; j++) {
        const float wj = w[j];
        const float *row = cols + j * ld;
        for (int64_t c = 0; c < width; c++) acc[0][c] += wj * row[c];
      }
    }
    for (int64_t c = 0; c < width; c++)
      out[c0 + c] = ((acc[0][c] + acc[1][c]) + (acc[2][c] + acc[3][c])) * scale;
  }
}

/*
 * One query row's softmax in place over s[0, tp), the padding already −∞: returns the row's max
 * and leaves Σ exp(s − max) in *total.
 */
ATT_ATTRS static float ATT_FN(softmax_row)(int64_t tp, float *s, float *total) {
  float high[TL_ATT_LANES];
  for (int l = 0; l < TL_ATT_LANES; l++) high[l] = s[l];
  for (int64_t j0 = TL_ATT_LANES; j0 < tp; j0 += TL_ATT_LANES)
    for (int l = 0; l < TL_ATT_LANES; l++) high[l] = s[j0 + l] > high[l] ? s[j0 + l] : high[l];
  /* Halving, so the lanes reduce in log2(lanes) vector steps rather than a chain of scalars. */
  for (int w = TL_ATT_LANES / 2; w > 0; w /= 2)
    for (int l = 0; l < w; l++) high[l] = high[l + w] > high[l] ? high[l + w] : high[l];
  const float max = high[0];
  float sums[TL_ATT_LANES] = {0};
  for (int64_t j0 = 0; j0 < tp; j0 += TL_ATT_LANES)
    for (int l = 0; l < TL_ATT_LANES; l++) {
      const float p = tl_att_exp(s[j0 + l] - max);
      s[j0 + l] = p;
      sums[l] += p;
    }
  for (int w = TL_ATT_LANES / 2; w > 0; w /= 2)
    for (int l = 0; l < w; l++) sums[l] += sums[l + w];
  *total = sums[0];
  return max;
}

/* The forward pass of samples [b0, b1) (see tl_attention_forward). */
ATT_ATTRS static void ATT_FN(forward_part)(const tl_attention_shape *g,
                                           const tl_attention_io *io, float *o, float *stats,
                                           int64_t b0, int64_t b1, float *scratch) {
  const int64_t t = g->tokens, dh = g->head_dim, d = g->heads * dh;
  const int64_t tp = tl_att_padded(t), nq = g->queries, ldq = io->q_row, ld = io->kv_row;
  float *kt = scratch;          /* [dh][tp]: this head's keys, transposed */
  float *s = kt + dh * tp;      /* [tp]: one row's scores, then weights */
  float *qs = s + tp;           /* [dh]: one query row, scaled */
  for (int64_t b = b0; b < b1; b++) {
    for (int64_t h = 0; h < g->heads; h++) {
      const float *q = io->q + b * nq * ldq + h * dh;
      const float *k = io->k + b * t * ld + h * dh, *v = io->v + b * t * ld + h * dh;
      for (int64_t c = 0; c < dh; c++) {
        float *kc = kt + c * tp;
        for (int64_t j = 0; j < t; j++) kc[j] = k[j * ld + c];
        for (int64_t j = t; j < tp; j++) kc[j] = 0.0f;
      }
      for (int64_t i = 0; i < nq; i++) {
        for (int64_t c = 0; c < dh; c++) qs[c] = q[i * ldq + c] * g->scale;
        ATT_FN(scores)(tp, dh, qs, kt, s);
        for (int64_t j = t; j < tp; j++) s[j] = -INFINITY;
        float total;
        const float max = ATT_FN(softmax_row)(tp, s, &total);
        const float inverse = 1.0f / total;
        ATT_FN(weighted_rows)(t, dh, s, v, ld, inverse, o + (b * nq + i) * d + h * dh);
        float *row_stats = stats + 2 * ((b * g->heads + h) * nq + i);
        row_stats[0] = max;
        row_stats[1] = inverse;
      }
    }
  }
}

/* The backward pass of samples [b0, b1) (see tl_attention_backward). */
ATT_ATTRS static void ATT_FN(backward_part)(const tl_attention_shape *g,
                                            const tl_attention_io *io, const float *o,
                                            const float *stats, const float *d_o,
                                            const tl_attention_grads *grads, int64_t b0,
                                            int64_t b1, float *scratch) {
  const int64_t t = g->tokens, dh = g->head_dim, d = g->heads * dh;
  const int64_t tp = tl_att_padded(t), nq = g->queries, ldq = io->q_row, ld = io->kv_row;
  const float scale = g->scale;
  float *kt = scratch;      /* [dh][tp]: keys, transposed */
  float *vt = kt + dh * tp; /* [dh][tp]: values, transposed */
  float *dkt = vt + dh * tp; /* [dh][tp]: Σ over queries of dS · q·scale */
  float *dvt = dkt + dh * tp; /* [dh][tp]: Σ over queries of P · do */
  float *p = dvt + dh * tp; /* [tp] */
  float *ds = p + tp;       /* [tp] */
  float *qs = ds + tp;      /* [dh] */
  for (int64_t b = b0; b < b1; b++) {
    for (int64_t h = 0; h < g->heads; h++) {
      const float *q = io->q + b * nq * ldq + h * dh;
      const float *k = io->k + b * t * ld + h * dh, *v = io->v + b * t * ld + h * dh;
      float *dq = grads->dq + b * nq * ldq + h * dh;
      float *dk = grads->dk + b * t * ld + h * dh, *dv = grads->dv + b * t * ld + h * dh;
      for (int64_t c = 0; c < dh; c++) {
        float *kc = kt + c * tp, *vc = vt + c * tp;
        for (int64_t j = 0; j < t; j++) {
          kc[j] = k[j * ld + c];
          vc[j] = v[j * ld + c];
        }
        for (int64_t j = t; j < tp; j++) kc[j] = vc[j] = 0.0f;
      }
      for (int64_t x = 0; x < 2 * dh * tp; x++) dkt[x] = 0.0f;
      for (int64_t i = 0; i < nq; i++) {
        const float *doi = d_o + (b * nq + i) * d + h * dh;
        const float *oi = o + (b * nq + i) * d + h * dh;
        for (int64_t c = 0; c < dh; c++) qs[c] = q[i * ldq + c] * scale;
        ATT_FN(scores)(tp, dh, qs, kt, p);
        for (int64_t j = t; j < tp; j++) p[j] = -INFINITY;
        const float *row_stats = stats + 2 * ((b * g->heads + h) * nq + i);
        float dot = 0.0f; /* Σ_c do·o = Σ_j P·dP: the softmax gradient's row term */
        for (int64_t c = 0; c < dh; c++) dot += doi[c] * oi[c];
        for (int64_t j0 = 0; j0 < tp; j0 += TL_ATT_LANES) {
          float pl[TL_ATT_LANES], dp[TL_ATT_LANES] = {0};
          for (int l = 0; l < TL_ATT_LANES; l++)
            pl[l] = tl_att_exp(p[j0 + l] - row_stats[0]) * row_stats[1];
          for (int64_t c = 0; c < dh; c++) {
            const float dc = doi[c];
            const float *vc = vt + c * tp + j0;
            float *dvc = dvt + c * tp + j0;
            for (int l = 0; l < TL_ATT_LANES; l++) {
              dp[l] += dc * vc[l];
              dvc[l] += dc * pl[l];
            }
          }
          float dsl[TL_ATT_LANES];
          for (int l = 0; l < TL_ATT_LANES; l++) dsl[l] = pl[l] * (dp[l] - dot);
          for (int64_t c = 0; c < dh; c++) {
            const float qc = qs[c];
            float *dkc = dkt + c * tp + j0;
            for (int l = 0; l < TL_ATT_LANES; l++) dkc[l] += qc * dsl[l];
          }
          for (int l = 0; l < TL_ATT_LANES; l++) ds[j0 + l] = dsl[l];
        }
        ATT_FN(weighted_rows)(t, dh, ds, k, ld, scale, dq + i * ldq);
      }
      for (int64_t j = 0; j < t; j++)
        for (int64_t c = 0; c < dh; c++) {
          dk[j * ld + c] = dkt[c * tp + j];
          dv[j * ld + c] = dvt[c * tp + j];
        }
    }
  }
}
