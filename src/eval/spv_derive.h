/*
 * spv_derive.h - SPV accumulators and the table derived from them. Pure
 * functions over arrays: no MPI, no files, no global state.
 *
 * OBSERVATIONS. For a move played while the bag is not empty, from the
 * mover's point of view:
 *   residual = (final spread - spread before the move) - (score + leave)
 * in millipoints (worker/residuals.h computes it). Each fresh tile of the
 * move adds that residual once to its cell (o, sq, b): o = the openness
 * bucket of the board before the move, sq = the canonical square, b = the
 * tile bucket (spv.h).
 *
 * ACCUMULATORS. Four int64 words per cell, in one flat array
 *   data[((o * S + sq) * B + b) * 4 + k],  k = 0 count, 1 sum of residuals,
 *   2 sum of (r*r >> 32), 3 sum of (r*r & 0xffffffff)
 * with |r| clamped to SPV_RESIDUAL_MAX. The square is kept as two words so
 * that each word is an exact integer sum (no carry between them), which any
 * reducer can add element-wise (MPI_SUM) in any order: the total square sum
 * is word2 * 2^32 + word3, exact. So the derived table does not depend on
 * the number of ranks.
 *
 * DERIVATION (spv_derive), for S squares and B buckets, pooling the openness
 * strata (o) for the table itself:
 *   n, mean, var   per cell (points; var = E[r^2] - E[r]^2, population)
 *   base_mean[b]   = sum_sq sum_r / sum_sq n   (the count-weighted mean over
 *                    squares: the average tile of bucket b is worth 0)
 *   base_var[b]    = sum_sq n*var / sum_sq n
 *   mean'  = (mean - base_mean[b]) * n / (n + prior_mean)
 *   var'   = (var - base_var[b])   * n / (n + prior_var) / (2 * sd[b]),
 *            sd[b] = sqrt(base_var[b]) (0 if base_var[b] == 0): the excess
 *            variance expressed in points, as the first-order change of the
 *            standard deviation (sqrt(v + d) - sqrt(v) ~ d / (2 sqrt(v))), so
 *            that mean + w*var adds points to points
 *   cells with n = 0 get 0 in both tables.
 * OPENNESS MULTIPLIERS. Within stratum o, each tile observation is modelled
 * as r ~ base_o[b] + m_o * mean'(sq, b); least squares gives
 *   m_o = sum n_o * (mean_o - base_o[b]) * mean' / sum n_o * mean'^2
 * over the cells (mean_o, n_o: the stratum's cell means and counts,
 * base_o[b] its count-weighted baseline), clamped to [0, SPV_MULT_MAX];
 * 1 if the denominator is 0.
 * Arithmetic is double in one fixed order; results are rounded to float once,
 * so the same sums give the same bytes.
 */
#ifndef ROOKERY_SPV_DERIVE_H
#define ROOKERY_SPV_DERIVE_H

#include "eval/spv.h"

#define SPV_ACCUM_WORDS 4
#define SPV_RESIDUAL_MAX INT64_C(2000000000) /* millipoints */
#define SPV_MULT_MAX 4.0

typedef struct SpvAccum {
    uint32_t num_openness, num_squares, num_buckets; /* num_openness >= 1 */
    size_t n;      /* int64 words: num_openness*num_squares*num_buckets*SPV_ACCUM_WORDS */
    int64_t *data;
    bool owned;    /* data was allocated by spv_accum_init */
} SpvAccum;

/* Words needed for the given dimensions. */
size_t spv_accum_words(uint32_t num_openness, uint32_t num_squares, uint32_t num_buckets);
/* Zeroed accumulators. storage: NULL to allocate, or caller-owned memory of
 * spv_accum_words() int64 words (so a reducer can keep several accumulators
 * in one buffer and sum it with one call); it is zeroed. */
int spv_accum_init(SpvAccum *a, uint32_t num_openness, uint32_t num_squares, uint32_t num_buckets,
                   int64_t *storage, RkError *err);
void spv_accum_free(SpvAccum *a);
void spv_accum_clear(SpvAccum *a);
/* Adds one tile observation (indices unchecked, residual clamped). */
static inline void spv_accum_add(SpvAccum *a, int o, int sq, int b, int64_t residual_mp) {
    if (residual_mp > SPV_RESIDUAL_MAX) residual_mp = SPV_RESIDUAL_MAX;
    if (residual_mp < -SPV_RESIDUAL_MAX) residual_mp = -SPV_RESIDUAL_MAX;
    uint64_t sq2 = (uint64_t)(residual_mp * residual_mp);
    int64_t *w = a->data + (((size_t)o * a->num_squares + (size_t)sq) * a->num_buckets + (size_t)b) * SPV_ACCUM_WORDS;
    w[0] += 1;
    w[1] += residual_mp;
    w[2] += (int64_t)(sq2 >> 32);
    w[3] += (int64_t)(sq2 & 0xffffffffu);
}

typedef struct SpvDeriveOptions {
    double prior_mean; /* shrinkage prior for the mean table, observations (>= 0) */
    double prior_var;  /* for the variance table */
} SpvDeriveOptions;

typedef struct SpvDeriveInfo {
    uint64_t observations;    /* tile observations */
    uint32_t cells_observed;  /* (sq, b) cells with n > 0 */
    double base_mean[SPV_MAX_BUCKETS], base_sd[SPV_MAX_BUCKETS]; /* points */
    double mean_abs;          /* count-weighted mean |mean'|, points */
} SpvDeriveInfo;

/* Derives out from a (see above). out must have a->num_squares squares,
 * a->num_buckets buckets, a variance table, and num_openness equal to
 * a->num_openness (or 0 when a->num_openness is 1: no multipliers). info may
 * be NULL. Fails only on mismatched dimensions. */
int spv_derive(const SpvAccum *a, const SpvDeriveOptions *opt, Spv *out, SpvDeriveInfo *info, RkError *err);

#endif
