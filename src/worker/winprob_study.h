/*
 * winprob_study.h - fitting the win model (eval/winprob.h) on static
 * self-play, and measuring it on held-out games.
 *
 * Every decision of the training games gives, from the view of the player
 * on turn, t (tiles not on the board: bag plus both racks), the lead L and
 * the final lead F. L is the lead a rollout's horizon gives the model
 * (search/sim.h): the spread plus the last leave each side kept with tiles
 * in the bag, valued by the games' leaves (none without them). mean(t) is the least-squares line of D = F - L on t;
 * var(t) the least-squares line of (D - mean(t))^2 on t. On held-out games
 * (seeded apart from the training games) the Brier score of P(win) against
 * the result (1 win, 1/2 draw, 0 loss) is compared with that of the sign of
 * the lead (1, 1/2 or 0): does the model know more than who is ahead?
 */
#ifndef ROOKERY_WINPROB_STUDY_H
#define ROOKERY_WINPROB_STUDY_H
#include "eval/winprob.h"
#include "selfplay.h"

#define WINPROB_STUDY_BUCKETS 15 /* t in 1-7, 8-14, ..., 99-105 (the last also holds more) */

typedef struct WinprobBucket {
    uint64_t n;        /* training decisions with t in the bucket */
    double mean, sd;   /* of D over them, points */
} WinprobBucket;

typedef struct WinprobStudy {
    WinModel fit;
    uint64_t train_positions, test_positions;
    double test_brier;       /* the fitted model's */
    double test_brier_sign;  /* the sign of the lead's */
    WinprobBucket bucket[WINPROB_STUDY_BUCKETS];
} WinprobStudy;

/* The bucket of t (t >= 1). */
static inline int winprob_study_bucket(int t) {
    int b = (t - 1) / 7;
    return b < 0 ? 0 : b >= WINPROB_STUDY_BUCKETS ? WINPROB_STUDY_BUCKETS - 1 : b;
}

/* Fits on games 0..train_games-1 of play (generation play->generation) and
 * tests on test_games games seeded from generation 2^40 + that. */
int winprob_study_run(const SelfplayConfig *play, uint64_t train_games, uint64_t test_games, WinprobStudy *st,
                      RkError *err);

#endif
