/*
 * heldout.h - how good a network is on held-out samples, against simple
 * baselines (docs/results.md reports these):
 *   P: top-1 agreement of the most probable legal move with the move played
 *      (the static player's choice in static self-play), on the samples
 *      that have a P target (not a fast search's decisions); and its
 *      cross-entropy with the P target (the search's visit distribution).
 *      Given the leaves the games were played with, the same two numbers for
 *      static equity (its best move; softmax(equity / T) over the legal
 *      moves, T = NN_EVAL_STATIC_T points, the search's prior_temperature)
 *      and the top-1 and cross-entropy of P x softmax(equity / T)
 *      renormalised over the search's candidates (the NN_EVAL_CANDIDATES
 *      moves of highest equity and the target's: the search's prior=equity
 *      with a net and candidates_by=equity, as the loop plays): does P rank
 *      the moves better than static equity, and does it add to it? (The
 *      last is measured against static equity's cross-entropy over the same
 *      candidates, the prior of the search without a net.)
 *   V: Brier score of the win probability (target 1 win, 1/2 draw, 0 loss)
 *      and RMS error of the expected final spread, against a baseline that
 *      knows only the current spread and the number of unseen tiles (the
 *      mean outcome of training samples in the same (spread, unseen) bin);
 *   H: negative log-likelihood per tile of the opponent's true leave,
 *      against drawing it uniformly from the unseen tiles.
 */
#ifndef ROOKERY_NN_HELDOUT_H
#define ROOKERY_NN_HELDOUT_H
#include "forward.h"
#include "shard.h"

#define NN_EVAL_STATIC_T 10.0
#define NN_EVAL_CANDIDATES 8  /* the candidates of the 2-core runs of docs/results.md (jobs/mcgs.ini has 16) */

typedef struct NnEvalReport {
    uint64_t positions, leaves, leave_tiles;
    uint64_t p_positions;    /* of positions, those with a P target (p_top1's) */
    double p_top1;
    double p_ce;             /* nats, P against the P target */
    int has_static;          /* the static figures below were measured (leaves given) */
    double static_top1, static_ce, p_static_ce;
    double static_cand_ce;   /* softmax(equity / T) over the search's candidates alone: the prior of
                              * the search without a net, what P x static has to beat */
    double p_static_top1;    /* the top-1 of P x softmax(equity / T) over the search's candidates */
    double v_brier, v_brier_base;
    double spread_rmse, spread_rmse_base;
    double h_nll, h_nll_uniform;   /* per tile, nats */
    double h_nll_tilt;             /* per tile, nats: the tilted uniform draw (nn/leave_tilt.h) fitted
                                    * on up to NN_EVAL_TILT_SAMPLES training samples: H's 27-number
                                    * baseline */
    /* Standard errors, by a bootstrap over the test samples' games (NN_EVAL_BOOTSTRAP
     * resamples of the games with replacement, a fixed seed): the positions of one game are
     * not independent, so the games are the unit. The *_diff_se are those of the differences
     * to the baseline (Brier - base, RMSE - base, H - uniform): what says whether the net beats
     * it. 0 with fewer than 2 games. */
    uint64_t games;                /* distinct games among the test samples */
    double p_top1_se, p_ce_se;
    double v_brier_se, v_brier_diff_se;
    double spread_rmse_se, spread_rmse_diff_se;
    double h_nll_se, h_nll_diff_se;
    double h_nll_tilt_diff_se;     /* of H - the tilted draw */
} NnEvalReport;

#define NN_EVAL_BOOTSTRAP 400
#define NN_EVAL_TILT_SAMPLES 20000
#define NN_EVAL_TILT_ITERATIONS 30

/* The baseline's table is built from train[tidx[0..tn)]; the test samples
 * are test[eidx[0..en)]. leave_value/leave_ctx: the leaves the games were
 * played with, for the static baselines of P (leave_value NULL: none). */
int nn_evaluate(const NnModel *m, const NnFeatureContext *fc, const ShardSet *train, const size_t *tidx, size_t tn,
                const ShardSet *test, const size_t *eidx, size_t en, LeaveValueFn leave_value,
                const void *leave_ctx, NnEvalReport *rep, RkError *err);

/* log P(leave) when drawing leave->total tiles uniformly without
 * replacement from the pool (as a multiset). */
double nn_uniform_leave_logprob(const Rack *pool, const Rack *leave, int letters);

#endif
