/*
 * exposure_study.h - fitting the cross-word exposure coefficients
 * (eval/exposure.h) from self-play, and measuring them on held-out games.
 *
 * For every placement played while the bag is not empty and answered by the
 * opponent, y = -(the opponent's next score) is regressed on the move's
 * exposure features (with an intercept), by least squares over the training
 * games. On held-out games (seeded apart from them) the variance of y
 * around the training mean and around the fit are compared: the fraction
 * explained out of sample says whether the features know something.
 */
#ifndef ROOKERY_EXPOSURE_STUDY_H
#define ROOKERY_EXPOSURE_STUDY_H
#include "eval/exposure.h"
#include "selfplay.h"

typedef struct ExposureStudy {
    Exposure fit;
    double intercept;          /* points */
    uint64_t train_moves, test_moves;
    double test_var_mean;      /* held-out variance of y around the training mean */
    double test_var_fit;       /* ... around the fit */
    double feature_mean[EXPOSURE_FEATURES]; /* per move, training games */
} ExposureStudy;

/* Fits on games 0..train_games-1 of play (generation play->generation) and
 * tests on test_games games seeded from generation 2^40 + that. */
int exposure_study_run(const SelfplayConfig *play, uint64_t train_games, uint64_t test_games, ExposureStudy *st,
                       RkError *err);

#endif
