/*
 * neighbour_study.h - fitting the neighbour-aware SPV table
 * (eval/neighbour.h) from self-play, and measuring it on held-out games.
 *
 * Observations are those of the SPV generation (worker/residuals.h): every
 * fresh tile of every placement played while the bag is not empty adds the
 * move's residual (target "final": the spread to the end of the game minus
 * score + leave; "exposure": minus the opponent's next score) to its cell,
 * stratified by openness (5 buckets) and game phase (4 buckets). The table is
 * derived by spv_derive (eval/spv_derive.h) with empirical-Bayes priors, on
 * an accumulator whose "squares" are (canonical square, neighbour state):
 * each cell keeps the excess of its residuals over the average tile of its
 * bucket and stratum, shrunk by n / (n + k). As a control the plain table
 * (square, bucket) is derived from the same observations.
 *
 * Held-out games (seeded from generation 2^40 + the training generation)
 * give, over their recorded moves, the variance of the residual r and of
 * r - adjustment, the adjustment being the sum of the move's tiles' values
 * (rounded to millipoints a tile, as the player adds them): the fraction of
 * the variance each table explains out of sample. The least-squares
 * coefficient of r on the adjustment says whether the table is too large
 * (< 1), about right (1) or too small (> 1).
 */
#ifndef ROOKERY_NEIGHBOUR_STUDY_H
#define ROOKERY_NEIGHBOUR_STUDY_H

#include "eval/neighbour.h"
#include "eval/spv_derive.h"
#include "residuals.h"
#include "selfplay.h"

typedef struct NeighbourHeldout {
    double var;       /* variance of the residual, points^2 */
    double var_adj;   /* of residual - adjustment */
    double scale;     /* least-squares coefficient of the residual on the adjustment (0 if none) */
    double explained_best; /* the fraction of var explained at that scale: cov^2 / (var * var(adjustment)) */
} NeighbourHeldout;

typedef struct NeighbourStudy {
    ResidualTarget target;
    NeighbourTable table;         /* the fitted table (neighbour_study_free) */
    SpvDeriveInfo info, plain_info; /* the neighbour derivation and the plain control */
    uint32_t num_openness;
    float openness[SPV_MAX_OPENNESS]; /* the derivation's leave-one-out openness multipliers
                                       * (reported only: the table is used without them) */
    uint64_t train_moves, test_moves;
    uint64_t state_obs[NEIGHBOUR_STATES]; /* training tile observations per state */
    double state_mean[NEIGHBOUR_STATES];  /* their count-weighted mean value, points */
    double state_mean_high[NEIGHBOUR_STATES]; /* the same for tiles of face value >= NEIGHBOUR_STUDY_HIGH */
    double max_abs;                       /* largest |value|, points */
    NeighbourHeldout test, test_plain;    /* held-out: the neighbour table, the plain table */
} NeighbourStudy;

#define NEIGHBOUR_STUDY_HIGH 4

/* Fits on games 0..train_games-1 of play (generation play->generation) and
 * tests on test_games games. Fails if the training games record no move. */
int neighbour_study_run(const SelfplayConfig *play, ResidualTarget target, uint64_t train_games,
                        uint64_t test_games, NeighbourStudy *st, RkError *err);
void neighbour_study_free(NeighbourStudy *st);

#endif
