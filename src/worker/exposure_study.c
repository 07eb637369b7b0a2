/*
 * exposure_study.c - least squares of the opponent's next score on the
 * exposure features (see exposure_study.h).
 */
#include "exposure_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z (EXPOSURE_FEATURES + 1) /* intercept + features */

typedef struct Collect {
    bool pending;              /* the last move is waiting for its reply */
    double z[Z];
    /* training: normal equations; testing: squared errors */
    bool testing;
    double a[Z][Z], b[Z];
    const double *beta;        /* testing: intercept + coefficients */
    double mean;
    double se_mean, se_fit;
    uint64_t n;
    double feat[EXPOSURE_FEATURES];
} Collect;

static void add(Collect *c, double y) {
    if (c->testing) {
        double pred = 0;
        for (int i = 0; i < Z; i++) pred += c->beta[i] * c->z[i];
        c->se_mean += (y - c->mean) * (y - c->mean);
        c->se_fit += (y - pred) * (y - pred);
    } else {
        for (int i = 0; i < Z; i++) {
            for (int j = 0; j < Z; j++) c->a[i][j] += c->z[i] * c->z[j];
            c->b[i] += c->z[i] * y;
        }
        for (int i = 0; i < EXPOSURE_FEATURES; i++) c->feat[i] += c->z[i + 1];
    }
    c->n++;
}

static void observe(const Game *g, const Move *m, void *vctx) {
    Collect *c = vctx;
    if (c->pending) add(c, -(double)m->score); /* the reply to the pending move */
    c->pending = false;
    if (m->kind != MOVE_PLACE || g->bag.count == 0) return;
    c->z[0] = 1.0;
    exposure_features(&g->board, m, c->z + 1);
    c->pending = true;
}

static void play(const SelfplayConfig *cfg, uint64_t games, Collect *c, Game *g) {
    for (uint64_t i = 0; i < games; i++) {
        c->pending = false;
        selfplay_game(cfg, i, g, NULL, observe, c);
    }
}

/* Solves a x = b (Z x Z, symmetric positive semi-definite) with a small
 * ridge; returns -1 if it is singular. */
static int solve(double a[Z][Z], double b[Z], double x[Z]) {
    double m[Z][Z + 1];
    double tr = 0;
    for (int i = 0; i < Z; i++) tr += a[i][i];
    for (int i = 0; i < Z; i++) {
        for (int j = 0; j < Z; j++) m[i][j] = a[i][j] + (i == j ? 1e-9 * tr + 1e-12 : 0.0);
        m[i][Z] = b[i];
    }
    for (int col = 0; col < Z; col++) {
        int piv = col;
        for (int r = col + 1; r < Z; r++)
            if (fabs(m[r][col]) > fabs(m[piv][col])) piv = r;
        if (fabs(m[piv][col]) < 1e-300) return -1;
        for (int j = 0; j <= Z; j++) {
            double t = m[col][j];
            m[col][j] = m[piv][j];
            m[piv][j] = t;
        }
        for (int r = 0; r < Z; r++) {
            if (r == col) continue;
            double f = m[r][col] / m[col][col];
            for (int j = col; j <= Z; j++) m[r][j] -= f * m[col][j];
        }
    }
    for (int i = 0; i < Z; i++) x[i] = m[i][Z] / m[i][i];
    return 0;
}

int exposure_study_run(const SelfplayConfig *cfg, uint64_t train_games, uint64_t test_games, ExposureStudy *st,
                       RkError *err) {
    memset(st, 0, sizeof *st);
    Game *g = malloc(sizeof *g);
    Collect *c = calloc(1, sizeof *c);
    if (!g || !c) {
        free(g), free(c);
        return rk_error(err, "out of memory");
    }
    play(cfg, train_games, c, g);
    st->train_moves = c->n;
    double beta[Z];
    int rc = 0;
    if (c->n < 2 * Z || solve(c->a, c->b, beta) != 0) {
        rc = rk_error(err, "exposure study: %llu moves are too few to fit %d coefficients",
                      (unsigned long long)c->n, Z);
    } else {
        st->intercept = beta[0];
        for (int i = 0; i < EXPOSURE_FEATURES; i++) {
            st->fit.beta[i] = beta[i + 1];
            st->feature_mean[i] = c->feat[i] / (double)c->n;
        }
        Collect *t = calloc(1, sizeof *t);
        if (!t) {
            rc = rk_error(err, "out of memory");
        } else {
            t->testing = true;
            t->beta = beta;
            t->mean = c->b[0] / (double)c->n; /* the training mean of y */
            SelfplayConfig held = *cfg;
            held.generation = (UINT64_C(1) << 40) + cfg->generation;
            play(&held, test_games, t, g);
            st->test_moves = t->n;
            st->test_var_mean = t->n ? t->se_mean / (double)t->n : 0;
            st->test_var_fit = t->n ? t->se_fit / (double)t->n : 0;
            free(t);
        }
    }
    free(c);
    free(g);
    return rc;
}
