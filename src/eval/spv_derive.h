/*
 * spv_derive.h - SPV accumulators and the table derived from them. Pure
 * functions over arrays: no MPI, no files, no global state.
 *
 * OBSERVATIONS. For a move played while the bag is not empty, from the
 * mover's point of view:
 *   residual = (final spread - spread before the move) - (score + leave)
 * in millipoints (worker/residuals.h computes it). Each fresh tile of the
 * move adds that residual once to its cell (o, p, sq, b): o = the openness
 * bucket of the board before the move, p = the game-phase bucket (tiles in
 * the bag before the move, spv_phase_bucket), sq = the canonical square,
 * b = the tile bucket (spv.h). A stratum is one (o, p).
 *
 * ACCUMULATORS. Four int64 words per cell, in one flat array
 *   data[((((o * P + p) * S + sq) * B + b) * 4 + k],  k = 0 count, 1 sum of
 *   residuals, 2 sum of (r*r >> 32), 3 sum of (r*r & 0xffffffff)
 * with |r| clamped to SPV_RESIDUAL_MAX. The square is kept as two words so
 * that each word is an exact integer sum (no carry between them), which any
 * reducer can add element-wise (MPI_SUM) in any order: the total square sum
 * is word2 * 2^32 + word3, exact. So the derived table does not depend on
 * the number of ranks.
 *
 * WHY STRATA. The residual runs to the end of the game, so its mean and
 * above all its spread depend on when a tile is played (a tile on the
 * centre row is usually an opening tile, with the whole game still to come)
 * more than on where. Measured in docs/spv.md: the per-cell variance
 * without strata is mostly "time left in the game". So every residual is
 * compared with the average tile of its own stratum and bucket, and only
 * the square-specific excess is kept.
 *
 * DERIVATION (spv_derive), for S squares and B buckets. For stratum t and
 * bucket b, over all squares:
 *   base_t[b] = sum_sq s1_t / sum_sq n_t            (mean residual, points)
 *   m2_t[b]   = sum_sq M2_t / sum_sq n_t            (mean squared deviation)
 *   where M2_t(sq, b) = sum of (r - base_t[b])^2 = q - 2 base s1 + n base^2
 * Per cell (sq, b), pooling the strata (n = sum_t n_t):
 *   dev(sq, b) = sum_t (s1_t - n_t base_t[b]) / n     (excess mean)
 *   ex(sq, b)  = sum_t (M2_t - n_t m2_t[b]) / n       (excess squared deviation)
 *   mean' = dev * n / (n + k_mean[b])
 *   var'  = ex * n / (n + k_var[b]) / (2 * sd[b]),
 *           sd[b] = sqrt(sum_t sum_sq M2_t / sum_t sum_sq n_t) (0 if 0): the
 *           excess expressed in points, as the first-order change of the
 *           standard deviation (sqrt(v + d) - sqrt(v) ~ d / (2 sqrt(v))), so
 *           that mean + w*var adds points to points
 *   cells with n = 0 get 0 in both tables.
 * With one stratum this is the plain design: mean' is the cell's mean minus
 * the count-weighted mean over squares.
 * PRIORS. k_mean and k_var are the configured priors, or, for SPV_PRIOR_AUTO,
 * empirical Bayes per bucket: with C observed cells, s2 = sd[b]^2 the noise
 * of one observation and N = sum n,
 *   tau2 = (sum_cells n * dev^2 - (C - 1) * s2) / N   (spread of true cell means)
 *   k_mean = s2 / tau2                                 (SPV_PRIOR_MAX if tau2 <= 0)
 * and the same for the variance with ex in place of dev and the noise of a
 * squared deviation taken as 2 * s2^2 (normal residuals). So a table that is
 * mostly noise is shrunk to (nearly) zero, and one with signal keeps it:
 * n / (n + k) is then the posterior-mean factor.
 * OPENNESS MULTIPLIERS. Within openness bucket o (pooling its phases), each
 * tile observation's centred residual r - base_t[b] is modelled as
 * m_o * mean_rest(sq, b), where mean_rest is mean' computed from the other
 * openness buckets only (leave one out: fitting against a table that
 * contains the same noise would give m = 1/shrinkage, undoing it):
 *   m_o = sum_{sq,b} D_o(sq, b) * mean_rest / sum_{sq,b} n_o(sq, b) * mean_rest^2,
 *   D_o = sum_{t in o} (s1_t - n_t base_t[b]) / 1000   (points)
 *   mean_rest = (dev * n - D_o) / (n - n_o) * (n - n_o) / (n - n_o + k_mean[b])
 * clamped to [0, SPV_MULT_MAX]; 1 if the denominator is 0 (e.g. a single
 * openness bucket).
 * Arithmetic is double in one fixed order from exact integer sums; results
 * are rounded to float once, so the same sums give the same bytes.
 */
#ifndef ROOKERY_SPV_DERIVE_H
#define ROOKERY_SPV_DERIVE_H

#include "eval/spv.h"

#define SPV_ACCUM_WORDS 4
/* Accumulator squares: one per board square. */
#define SPV_ACCUM_MAX_SQUARES RK_MAX_SQUARES
#define SPV_RESIDUAL_MAX INT64_C(2000000000) /* millipoints */
#define SPV_MULT_MAX 4.0

/* Phase bucket of a position with bag_count tiles in the bag (>= 1):
 * SPV_PHASE_TILES bag tiles a bucket, the fullest bags in the last one. */
#define SPV_PHASE_TILES 22
#define SPV_DEFAULT_PHASES 4
#define SPV_MAX_PHASES 16
static inline int spv_phase_bucket(int bag_count, int num_phases) {
    int p = bag_count > 0 ? (bag_count - 1) / SPV_PHASE_TILES : 0;
    return p < num_phases - 1 ? p : num_phases - 1;
}

typedef struct SpvAccum {
    uint32_t num_openness, num_phases, num_squares, num_buckets; /* num_openness, num_phases >= 1 */
    size_t n;      /* int64 words: O*P*S*B*SPV_ACCUM_WORDS */
    int64_t *data;
    bool owned;    /* data was allocated by spv_accum_init */
} SpvAccum;

/* Words needed for the given dimensions. */
size_t spv_accum_words(uint32_t num_openness, uint32_t num_phases, uint32_t num_squares, uint32_t num_buckets);
/* Zeroed accumulators. storage: NULL to allocate, or caller-owned memory of
 * spv_accum_words() int64 words (so a reducer can keep several accumulators
 * in one buffer and sum it with one call); it is zeroed. */
int spv_accum_init(SpvAccum *a, uint32_t num_openness, uint32_t num_phases, uint32_t num_squares,
                   uint32_t num_buckets, int64_t *storage, RkError *err);
void spv_accum_free(SpvAccum *a);
void spv_accum_clear(SpvAccum *a);
/* Adds one tile observation (indices unchecked, residual clamped). */
static inline void spv_accum_add(SpvAccum *a, int o, int p, int sq, int b, int64_t residual_mp) {
    if (residual_mp > SPV_RESIDUAL_MAX) residual_mp = SPV_RESIDUAL_MAX;
    if (residual_mp < -SPV_RESIDUAL_MAX) residual_mp = -SPV_RESIDUAL_MAX;
    uint64_t sq2 = (uint64_t)(residual_mp * residual_mp);
    size_t t = (size_t)o * a->num_phases + (size_t)p;
    int64_t *w = a->data + ((t * a->num_squares + (size_t)sq) * a->num_buckets + (size_t)b) * SPV_ACCUM_WORDS;
    /* atomic, as rack_accum_add: threads share the cells */
    __atomic_fetch_add(&w[0], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&w[1], residual_mp, __ATOMIC_RELAXED);
    __atomic_fetch_add(&w[2], (int64_t)(sq2 >> 32), __ATOMIC_RELAXED);
    __atomic_fetch_add(&w[3], (int64_t)(sq2 & 0xffffffffu), __ATOMIC_RELAXED);
}

/* A prior of SPV_PRIOR_AUTO is estimated from the data (see above). */
#define SPV_PRIOR_AUTO (-1.0)
#define SPV_PRIOR_MAX 1.0e15

typedef struct SpvDeriveOptions {
    double prior_mean; /* shrinkage prior for the mean table, observations (>= 0), or SPV_PRIOR_AUTO */
    double prior_var;  /* for the variance table */
} SpvDeriveOptions;

typedef struct SpvDeriveInfo {
    uint64_t observations;    /* tile observations */
    uint32_t cells_observed;  /* (sq, b) cells with n > 0 */
    double base_mean[SPV_MAX_BUCKETS], base_sd[SPV_MAX_BUCKETS]; /* points: pooled over strata, mean
                                                                   residual and sd[b] above */
    double mean_abs;          /* count-weighted mean |mean'|, points */
    double prior_mean[SPV_MAX_BUCKETS], prior_var[SPV_MAX_BUCKETS]; /* the priors used, observations */
} SpvDeriveInfo;

/* Derives out from a (see above). out must have a->num_squares squares,
 * a->num_buckets buckets, a variance table, and num_openness equal to
 * a->num_openness (or 0 when a->num_openness is 1: no multipliers). info may
 * be NULL. Fails only on mismatched dimensions. */
int spv_derive(const SpvAccum *a, const SpvDeriveOptions *opt, Spv *out, SpvDeriveInfo *info, RkError *err);

#endif
