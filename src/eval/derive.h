/*
 * derive.h - rack-equity accumulators and the leave values derived from
 * them. Pure functions over arrays: no MPI, no files, no global state.
 *
 * ACCUMULATORS. For every full rack R (numbered by racktable.h) self-play
 * records each best move found with R: count[R] += 1 and
 * sum_mp[R] += the move's equity in millipoints (int64 both; a struct of two
 * arrays so that reducers can add them element-wise). The mean equity of R
 * in points is mean(R) = sum_mp[R] / count[R] / 1000. A rack with
 * count[R] == 0 is UNOBSERVED.
 *
 * LEAVE VALUES. For a leave L (1..rack_size-1 tiles) and a bag B (a multiset
 * of tiles that holds the leave and the tiles it is completed from: the
 * full distribution for static leaves, every tile not on the board for
 * dynamic ones), with R ranging over the OBSERVED full racks R >= L:
 *
 *   W(R, L, B) = prod_ml C(B[ml] - L[ml], R[ml] - L[ml])
 *                (the ways to draw R - L from B - L)
 *   value(L, B) = sum_R W * mean(R) / sum_R W  -  baseline(B)
 *   baseline(B) = sum_R W(R, {}, B) * mean(R) / sum_R W(R, {}, B)
 *                 over all OBSERVED full racks (W(R, {}, B) = prod C(B, R))
 *
 * This is DLV(L, B - L) of ../shared/formats.md; with B = the full
 * distribution it is the static KLV.
 *
 * Unobserved racks are left out of both the numerator and the denominator
 * (of the leave sums and of the baseline), so they do not pull anything
 * towards 0: the remaining weights are renormalized. A leave none of whose
 * observed supersets has a positive weight (no observed superset rack, or a
 * leave that B cannot hold or complete) gets the value 0 (with shrinkage:
 * its prior, below), as does every leave when no observed rack can be
 * drawn from B.
 *
 * SHRINKAGE (DeriveOptions.shrink = k > 0; k = 0 is the formula above,
 * bit for bit). With few observations most long leaves rest on one or two
 * racks, and the formula returns their noise. With S0 = sum_R W,
 * S1 = sum_R W * mean(R) and S2 = sum_R W^2 / count(R) over the same racks,
 *
 *   n_eff(L) = S0^2 / S2   (the effective sample size of the weighted mean
 *                           of per-rack means, each of variance s^2/count)
 *   raw(L)   = S1 / S0 - baseline(B)            (undefined if S0 == 0)
 *   prior(L) = the mean of v(L') over the DISTINCT leaves L' = L minus one
 *              tile (one per distinct letter of L); 0 for 1-tile leaves
 *              (the empty leave's value)
 *   v(L)     = (n_eff * raw + k * prior) / (n_eff + k),  or prior if S0 == 0
 *
 * so a leave seen as often as k counts half its own mean and half its
 * sub-leaves'; a leave with no observed superset (or one that B cannot
 * hold) gets its prior. Racks without counts (derive_leaves_from_means with
 * counts NULL) count as one observation each.
 *
 * Arithmetic: weights and sums are doubles (the English weights are integers
 * below 2^53, exact), accumulated in one fixed order (racks by index, each
 * rack's sub-leaves in a fixed order; shrinkage in leave order, sub-leaves
 * by letter), so the same inputs give the same output bytes. The result is
 * rounded to float once.
 */
#ifndef ROOKERY_DERIVE_H
#define ROOKERY_DERIVE_H

#include "core/kwg.h"
#include "eval/racktable.h"

/* ---- accumulators ---- */

typedef struct RackAccum {
    uint64_t n; /* racks (RackTable.num_racks) */
    int64_t *count; /* observations per rack */
    int64_t *sum_mp; /* sum of best-move equity per rack, millipoints */
    bool borrowed; /* the arrays live in caller memory (rack_accum_init_in) */
} RackAccum;

/* Zeroed arrays for n racks. */
int rack_accum_init(RackAccum *a, uint64_t n, RkError *err);
/* Zeroed accumulators in caller memory of 2*n int64 words (count, then
 * sum_mp), so that a reducer can sum them together with other accumulators
 * in one call; rack_accum_free then leaves the memory alone. */
void rack_accum_init_in(RackAccum *a, uint64_t n, int64_t *storage);
void rack_accum_free(RackAccum *a);
/* Records one best move of equity equity_mp (millipoints) for rack idx
 * (idx < a->n, unchecked). */
/* Atomic (relaxed) adds: the self-play threads of a rank (run.threads) share
 * one set of accumulators, and integer sums come out the same in any order. */
static inline void rack_accum_add(RackAccum *a, uint64_t idx, int64_t equity_mp) {
    __atomic_fetch_add(&a->count[idx], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&a->sum_mp[idx], equity_mp, __ATOMIC_RELAXED);
}
/* dst += src element-wise; the sizes must match. */
int rack_accum_merge(RackAccum *dst, const RackAccum *src, RkError *err);
/* Mean equity of rack idx in points; 0 if unobserved. */
double rack_accum_mean(const RackAccum *a, uint64_t idx);

/* C(n, k) as a double (0 outside 0 <= k <= n), exact below 2^53: the
 * number of ways to draw k tiles from n. */
double derive_binom(int n, int k);

/* ---- leave derivation ---- */

/* What derivation needs besides the equities, built once per (rack table,
 * leave graph) and then read-only (shareable between threads). It borrows
 * rt, which must outlive it. */
typedef struct LeaveDeriver {
    const RackTable *rt;
    int max_leave; /* rack_size - 1 */
    uint64_t num_leaves; /* leaves of 1..max_leave tiles */
    /* Internal numbering of the leaves (0 = the empty leave): count vectors
     * in lexicographic order, so a leave's number is a sum of one term per
     * letter it holds, term[(ml * (max_leave+1) + s) * (max_leave+1) + c]
     * for c copies of ml after s tiles of earlier letters. */
    uint32_t *term;
    uint32_t *to_word; /* internal number 1..num_leaves -> word index */
} LeaveDeriver;

/* Checks that leave_kwg (a DAWG-only KWG, e.g. a Klv's kwg) holds exactly
 * the leaves of 1..rack_size-1 tiles of rt's distribution, and maps them.
 * Fails with a one-line message otherwise. */
int leave_deriver_init(LeaveDeriver *d, const RackTable *rt, const Kwg *leave_kwg, RkError *err);
void leave_deriver_free(LeaveDeriver *d);

typedef struct DeriveInfo {
    double baseline; /* points */
    uint64_t racks_used; /* observed racks drawable from the bag */
    uint64_t racks_observed; /* observed racks */
    uint64_t leaves_valued; /* leaves with a positive weight sum */
} DeriveInfo;

typedef struct DeriveOptions {
    /* k of SHRINKAGE above, in observations; finite, >= 0; 0 = the plain
     * formula. */
    double shrink;
    /* If not NULL: receives n_eff of every leave (0 where S0 == 0),
     * d->num_leaves doubles in the leave graph's word-index order. */
    double *n_eff;
    /* Only the leaves the bag can hold (L <= B letter by letter) are
     * derived; every other leave gets 0 (and n_eff 0). Their values are the
     * same as without the option (a holdable leave's sub-leaves are
     * holdable, so its shrinkage prior is too), and a rack drawn from B
     * never looks the others up; the work no longer grows with the whole
     * leave graph (bag-aware leaves for a late position, dynleaves.h). */
    bool holdable_only;
} DeriveOptions;

/* Leave values (points) from accumulators, for bag (NULL = the full
 * distribution). out has out_len == d->num_leaves floats, written in the
 * leave graph's word-index order (ready for klv_set_values). info may be
 * NULL. */
int derive_leaves(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag, float *out,
                  uint64_t out_len, DeriveInfo *info, RkError *err);
/* With options (opt NULL = all zero: the plain formula; derive_leaves is
 * derive_leaves_opt with opt NULL, and so for the other two). */
int derive_leaves_opt(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag,
                      const DeriveOptions *opt, float *out, uint64_t out_len, DeriveInfo *info,
                      RkError *err);
/* The same as doubles (not rounded to float). */
int derive_leaves_f64(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag, double *out,
                      uint64_t out_len, DeriveInfo *info, RkError *err);
int derive_leaves_f64_opt(const LeaveDeriver *d, const RackAccum *acc, const Rack *bag,
                          const DeriveOptions *opt, double *out, uint64_t out_len,
                          DeriveInfo *info, RkError *err);
/* The same from mean equities (points, e.g. a .req): mean[n] and counts[n]
 * (counts NULL = every rack counts as observed; else counts[i] == 0 marks
 * rack i unobserved). */
int derive_leaves_from_means(const LeaveDeriver *d, const float *mean, const uint64_t *counts,
                             uint64_t n, const Rack *bag, float *out, uint64_t out_len,
                             DeriveInfo *info, RkError *err);
int derive_leaves_from_means_opt(const LeaveDeriver *d, const float *mean, const uint64_t *counts,
                                 uint64_t n, const Rack *bag, const DeriveOptions *opt,
                                 float *out, uint64_t out_len, DeriveInfo *info, RkError *err);

#endif
