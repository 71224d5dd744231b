/*
 * The attention kernels for heads of 8 columns (the FT-Transformer's default: d 32, 4 heads), in
 * GCC/clang vector types of ATT_W floats, included by attention.c once per instruction set with
 * ATT_FN(name), ATT_ATTRS and ATT_W (16 for AVX-512, 8 for AVX2, 4 for the baseline). The head's
 * 8 columns are a compile-time constant, so every per-column accumulator is a register.
 *
 * The generic loops (attention-body.h) put keys in vector lanes, so each query row ends in
 * horizontal reductions (its max, its sum, its output row) and keeps its accumulators in memory.
 * Here the forward pass puts W queries in the lanes instead: the scores of a key for W queries
 * are one vector, the softmax's max and sum run down the keys element-wise, and o accumulates as
 * 8 vectors (one per column), with no horizontal step at all. The backward pass puts W keys in
 * the lanes, so dK and dV accumulate as 8 vectors each across every query; only dQ, a sum over
 * keys, is a product the other way round (each query's dS row times the tile's key rows).
 */

typedef float ATT_FN(vf) __attribute__((vector_size(ATT_W * 4), aligned(4)));
typedef int32_t ATT_FN(vi) __attribute__((vector_size(ATT_W * 4), aligned(4)));
typedef float ATT_FN(v8) __attribute__((vector_size(32), aligned(4)));

/* mask ? a : b, lane by lane (mask lanes all ones or zero). */
#define ATT_SELECT(mask, a, b)                                                               \
  ((ATT_FN(vf))(((ATT_FN(vi))(a) & (mask)) | ((ATT_FN(vi))(b) & ~(mask))))

/* tl_att_exp (attention.c) on a vector: e^x for x ≤ 0, 0 below −87. */
ATT_ATTRS TL_ATT_INLINE ATT_FN(vf) ATT_FN(exp)(ATT_FN(vf) x) {
  const ATT_FN(vi) below = x < -87.0f;
  const ATT_FN(vf) low = ATT_SELECT(below, (ATT_FN(vf)){} - 87.0f, x);
  const ATT_FN(vf) clamped = ATT_SELECT(low > 0.0f, (ATT_FN(vf)){}, low);
  const ATT_FN(vf) shifted = clamped * 1.44269504088896341f + 12582912.0f;
  const ATT_FN(vf) n = shifted - 12582912.0f;
  const ATT_FN(vi) exponent = ((ATT_FN(vi))shifted - 0x4B400000 + 127) << 23;
  ATT_FN(vf) r = clamped - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  ATT_FN(vf) poly = r * 1.9875691500e-4f + 1.3981999507e-3f;
  poly = poly * r + 8.3334519073e-3f;
  poly = poly * r + 4.1665795894e-2f;
  poly = poly * r + 1.6666665459e-1f;
  poly = poly * r + 5.0000001201e-1f;
  poly = poly * r * r + r + 1.0f;
  return (ATT_FN(vf))((ATT_FN(vi))(poly * (ATT_FN(vf))exponent) & ~below);
}

/* The forward pass of samples [b0, b1) (see tl_attention_forward), W queries at a time. */
ATT_ATTRS static void ATT_FN(fast_forward_part)(const tl_attention_shape *g,
                                                const tl_attention_io *io, float *o,
                                                float *stats, int64_t b0, int64_t b1,
                                                float *scratch) {
  typedef ATT_FN(vf) vf;
  typedef ATT_FN(vi) vi;
  const int64_t t = g->tokens, d = g->heads * 8, nq = g->queries;
  const int64_t ldq = io->q_row, ld = io->kv_row;
  vf *s = (vf *)scratch; /* [t]: a key's scores for the tile's queries, then their weights */
  for (int64_t b = b0; b < b1; b++) {
    for (int64_t h = 0; h < g->heads; h++) {
      const float *q = io->q + b * nq * ldq + h * 8;
      const float *k = io->k + b * t * ld + h * 8, *v = io->v + b * t * ld + h * 8;
      for (int64_t i0 = 0; i0 < nq; i0 += ATT_W) {
        const int64_t n = nq - i0 < ATT_W ? nq - i0 : ATT_W;
        vf qt[8]; /* column c of the tile's queries, scaled; 0 past the last query */
        for (int c = 0; c < 8; c++)
          for (int l = 0; l < ATT_W; l++)
            qt[c][l] = l < n ? q[(i0 + l) * ldq + c] * g->scale : 0.0f;
        vf high = (vf){} - INFINITY;
        for (int64_t j = 0; j < t; j++) {
          const float *kj = k + j * ld;
          vf acc = qt[0] * kj[0];
#pragma GCC unroll 8
          for (int c = 1; c < 8; c++) acc += qt[c] * kj[c];
          s[j] = acc;
          const vi above = acc > high;
          high = ATT_SELECT(above, acc, high);
        }
        vf total = {};
        for (int64_t j = 0; j < t; j++) {
          const vf p = ATT_FN(exp)(s[j] - high);
          s[j] = p;
          total += p;
        }
        vf acc[8] = {};
        for (int64_t j = 0; j < t; j++) {
          const float *vj = v + j * ld;
          const vf p = s[j];
#pragma GCC unroll 8
          for (int c = 0; c < 8; c++) acc[c] += p * vj[c];
        }
        const vf inverse = 1.0f / total;
        for (int64_t l = 0; l < n; l++) {
          float *out = o + (b * nq + i0 + l) * d + h * 8;
          for (int c = 0; c < 8; c++) out[c] = acc[c][l] * inverse[l];
          float *row_stats = stats + 2 * ((b * g->heads + h) * nq + i0 + l);
          row_stats[0] = high[l];
          row_stats[1] = inverse[l];
        }
      }
    }
  }
}

/* The backward pass of samples [b0, b1) (see tl_attention_backward), W keys at a time. */
ATT_ATTRS static void ATT_FN(fast_backward_part)(const tl_attention_shape *g,
                                                 const tl_attention_io *io, const float *o,
                                                 const float *stats, const float *d_o,
                                                 const tl_attention_grads *grads, int64_t b0,
                                                 int64_t b1, float *scratch) {
  typedef ATT_FN(vf) vf;
  typedef ATT_FN(v8) v8;
  const int64_t t = g->tokens, d = g->heads * 8, nq = g->queries;
  const int64_t ldq = io->q_row, ld = io->kv_row;
  const float scale = g->scale;
  float *qs = scratch;         /* [nq][8]: query rows, scaled */
  float *dos = qs + 8 * nq;    /* [nq][8]: do rows */
  float *dq = dos + 8 * nq;    /* [nq][8]: Σ over keys of dS · k */
  float *dots = dq + 8 * nq;   /* [nq]: Σ_c do·o, the softmax gradient's row term */
  vf *ds = (vf *)(dots + nq);  /* [nq]: the tile's dS, a vector of W keys per query (then, below
                                  16 registers, [nq] more for its P) */
  for (int64_t b = b0; b < b1; b++) {
    for (int64_t h = 0; h < g->heads; h++) {
      const float *q = io->q + b * nq * ldq + h * 8;
      const float *k = io->k + b * t * ld + h * 8, *v = io->v + b * t * ld + h * 8;
      float *dk = grads->dk + b * t * ld + h * 8, *dv = grads->dv + b * t * ld + h * 8;
      const float *head_stats = stats + 2 * (b * g->heads + h) * nq;
      for (int64_t i = 0; i < nq; i++) {
        const float *doi = d_o + (b * nq + i) * d + h * 8;
        const float *oi = o + (b * nq + i) * d + h * 8;
        float dot = 0.0f;
        for (int c = 0; c < 8; c++) {
          qs[i * 8 + c] = q[i * ldq + c] * scale;
          dos[i * 8 + c] = doi[c];
          dq[i * 8 + c] = 0.0f;
          dot += doi[c] * oi[c];
        }
        dots[i] = dot;
      }
      for (int64_t j0 = 0; j0 < t; j0 += ATT_W) {
        const int64_t n = t - j0 < ATT_W ? t - j0 : ATT_W;
        /* The tile's keys and values transposed (a column per vector), through memory: one
         * store per value rather than a lane insert. */
        float columns[2][8][ATT_W], mask[ATT_W];
        for (int64_t l = 0; l < ATT_W; l++) {
          const float *kl = k + (j0 + l) * ld, *vl = v + (j0 + l) * ld;
          for (int c = 0; c < 8; c++) {
            columns[0][c][l] = l < n ? kl[c] : 0.0f;
            columns[1][c][l] = l < n ? vl[c] : 0.0f;
          }
          mask[l] = l < n ? 1.0f : 0.0f;
        }
        vf kt[8], vt[8];
        for (int c = 0; c < 8; c++) {
          memcpy(&kt[c], columns[0][c], sizeof kt[c]);
          memcpy(&vt[c], columns[1][c], sizeof vt[c]);
        }
        vf valid;
        memcpy(&valid, mask, sizeof valid);
        vf dk_acc[8] = {}, dv_acc[8] = {};
#if ATT_W >= 16
        /* 32 vector registers: the 16 accumulators stay in registers through one pass. */
        for (int64_t i = 0; i < nq; i++) {
          const float *qi = qs + i * 8, *doi = dos + i * 8;
          vf score = kt[0] * qi[0], dp = vt[0] * doi[0];
#pragma GCC unroll 8
          for (int c = 1; c < 8; c++) {
            score += kt[c] * qi[c];
            dp += vt[c] * doi[c];
          }
          const vf p = ATT_FN(exp)(score - head_stats[2 * i]) * head_stats[2 * i + 1] * valid;
          const vf dsi = p * (dp - dots[i]);
#pragma GCC unroll 8
          for (int c = 0; c < 8; c++) {
            dv_acc[c] += p * doi[c];
            dk_acc[c] += dsi * qi[c];
          }
          ds[i] = dsi;
        }
#else
        /* 16 registers or fewer: P and dS first, then dV and dK each in a pass of their own,
         * so no accumulator is spilled and reloaded on every query. */
        vf *ps = ds + nq; /* [nq]: the tile's P */
        for (int64_t i = 0; i < nq; i++) {
          const float *qi = qs + i * 8, *doi = dos + i * 8;
          vf score = kt[0] * qi[0], dp = vt[0] * doi[0];
#pragma GCC unroll 8
          for (int c = 1; c < 8; c++) {
            score += kt[c] * qi[c];
            dp += vt[c] * doi[c];
          }
          const vf p = ATT_FN(exp)(score - head_stats[2 * i]) * head_stats[2 * i + 1] * valid;
          ps[i] = p;
          ds[i] = p * (dp - dots[i]);
        }
        for (int64_t i = 0; i < nq; i++) {
          const float *doi = dos + i * 8;
          const vf p = ps[i];
#pragma GCC unroll 8
          for (int c = 0; c < 8; c++) dv_acc[c] += p * doi[c];
        }
        for (int64_t i = 0; i < nq; i++) {
          const float *qi = qs + i * 8;
          const vf dsi = ds[i];
#pragma GCC unroll 8
          for (int c = 0; c < 8; c++) dk_acc[c] += dsi * qi[c];
        }
#endif
        for (int64_t l = 0; l < n; l++) {
          float *dkl = dk + (j0 + l) * ld, *dvl = dv + (j0 + l) * ld;
          for (int c = 0; c < 8; c++) {
            dkl[c] = dk_acc[c][l];
            dvl[c] = dv_acc[c][l];
          }
        }
        v8 krows[ATT_W];
        for (int64_t l = 0; l < ATT_W; l++) krows[l] = l < n ? *(const v8 *)(k + (j0 + l) * ld) : (v8){};
        for (int64_t i = 0; i < nq; i++) {
          v8 even = {}, odd = {};
#pragma GCC unroll 16
          for (int l = 0; l < ATT_W; l += 2) {
            even += krows[l] * ds[i][l];
            odd += krows[l + 1] * ds[i][l + 1];
          }
          v8 *dqi = (v8 *)(dq + i * 8);
          *dqi += even + odd;
        }
      }
      float *dqh = grads->dq + b * nq * ldq + h * 8;
      for (int64_t i = 0; i < nq; i++)
        for (int c = 0; c < 8; c++) dqh[i * ldq + c] = dq[i * 8 + c] * scale;
    }
  }
}

/*
 * The backward pass with one query row per sample (the [CLS] token's; see
 * tl_attention_backward): one query row per head, so keys in lanes would spend more on transposing the tile than on the
 * arithmetic. Each key's score and dP are 8-term dot products; exp and dS run as one vectorized
 * loop over the keys; dK and dV rows are the query row and do scaled, stored in place.
 */
ATT_ATTRS static void ATT_FN(fast_backward_one_part)(const tl_attention_shape *g,
                                                     const tl_attention_io *io, const float *o,
                                                     const float *stats, const float *d_o,
                                                     const tl_attention_grads *grads,
                                                     int64_t b0, int64_t b1, float *scratch) {
  typedef ATT_FN(v8) v8;
  const int64_t t = g->tokens, d = g->heads * 8, ldq = io->q_row, ld = io->kv_row;
  float *p = scratch; /* [t]: scores, then weights */
  float *ds = p + t;  /* [t]: dP, then dS */
  for (int64_t b = b0; b < b1; b++) {
    for (int64_t h = 0; h < g->heads; h++) {
      const float *q = io->q + b * ldq + h * 8;
      const float *k = io->k + b * t * ld + h * 8, *v = io->v + b * t * ld + h * 8;
      float *dk = grads->dk + b * t * ld + h * 8, *dv = grads->dv + b * t * ld + h * 8;
      const float *doh = d_o + b * d + h * 8, *oh = o + b * d + h * 8;
      const float *row_stats = stats + 2 * (b * g->heads + h);
      v8 qs, dov;
      float dot = 0.0f;
      for (int c = 0; c < 8; c++) {
        qs[c] = q[c] * g->scale;
        dov[c] = doh[c];
        dot += doh[c] * oh[c];
      }
      for (int64_t j = 0; j < t; j++) {
        const v8 kq = *(const v8 *)(k + j * ld) * qs, vd = *(const v8 *)(v + j * ld) * dov;
        p[j] = ((kq[0] + kq[1]) + (kq[2] + kq[3])) + ((kq[4] + kq[5]) + (kq[6] + kq[7]));
        ds[j] = ((vd[0] + vd[1]) + (vd[2] + vd[3])) + ((vd[4] + vd[5]) + (vd[6] + vd[7]));
      }
      const float high = row_stats[0], inverse = row_stats[1];
      for (int64_t j = 0; j < t; j++) {
        const float weight = tl_att_exp(p[j] - high) * inverse;
        p[j] = weight;
        ds[j] = weight * (ds[j] - dot);
      }
      v8 dq = {};
      for (int64_t j = 0; j < t; j++) {
        const v8 kj = *(const v8 *)(k + j * ld);
        dq += kj * ds[j];
        *(v8 *)(dk + j * ld) = qs * ds[j];
        *(v8 *)(dv + j * ld) = dov * p[j];
      }
      *(v8 *)(grads->dq + b * ldq + h * 8) = dq * g->scale;
    }
  }
}

#undef ATT_SELECT
