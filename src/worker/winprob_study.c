/*
 * winprob_study.c - least-squares fit of the win model's mean and variance
 * lines (see winprob_study.h).
 */
#include "winprob_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Decision {
    int player, tiles_left;
    double lead; /* from player's view, with the leaves (as a rollout's horizon) */
} Decision;

typedef struct Sample {
    int tiles_left;
    double lead, final_lead;
} Sample;

/* The decisions of the game being played, then the samples of every game. */
typedef struct Collect {
    Decision *game;
    size_t game_n, game_cap;
    Sample *all;
    size_t n, cap;
    bool failed; /* out of memory */
    LeaveValueFn leave_value;
    const void *leave_ctx;
    int32_t last_leave[2]; /* millipoints: each side's last kept leave (moves made with tiles in the bag) */
} Collect;

static void observe(const Game *g, const Move *m, void *vctx) {
    Collect *c = vctx;
    if (c->failed || rk_grow((void **)&c->game, &c->game_cap, c->game_n + 1, sizeof *c->game) != 0) {
        c->failed = true;
        return;
    }
    int me = g->on_turn;
    double lead = g->scores[me] - g->scores[1 - me] + (c->last_leave[me] - c->last_leave[1 - me]) / 1000.0;
    c->game[c->game_n++] = (Decision){me, g->bag.count + g->racks[0].total + g->racks[1].total, lead};
    c->last_leave[me] = g->bag.count > 0 ? move_leave_value(c->leave_value, c->leave_ctx, &g->racks[me], m) : 0;
}

/* Plays the games and turns every decision into a sample. */
static int play(const SelfplayConfig *cfg, uint64_t games, Collect *c, Game *g, RkError *err) {
    for (uint64_t i = 0; i < games; i++) {
        c->game_n = 0;
        c->last_leave[0] = c->last_leave[1] = 0;
        c->leave_value = cfg->leave_value;
        c->leave_ctx = cfg->leave_ctx;
        selfplay_game(cfg, i, g, NULL, observe, c);
        if (c->failed || rk_grow((void **)&c->all, &c->cap, c->n + c->game_n, sizeof *c->all) != 0)
            return rk_error(err, "win model study: out of memory");
        for (size_t k = 0; k < c->game_n; k++) {
            const Decision *d = &c->game[k];
            int final_lead = g->scores[d->player] - g->scores[1 - d->player];
            c->all[c->n++] = (Sample){d->tiles_left, d->lead, final_lead};
        }
    }
    return 0;
}

/* Least-squares line y = a + b x over the samples' (t, y(t)): y = D for
 * the mean, y = (D - mean(t))^2 for the variance (mean given). A variance
 * line must stay positive down to t = 1: if its intercept comes out
 * negative (the noise of the last tiles is smaller than the line says),
 * it is refitted through the origin, var(t) = b t. */
static void fit_line(const Sample *s, size_t n, const WinModel *mean, double *a, double *b) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double x = s[i].tiles_left, d = s[i].final_lead - s[i].lead;
        double y = mean == NULL ? d : pow(d - winprob_mean(mean, s[i].tiles_left), 2);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    double det = (double)n * sxx - sx * sx;
    *b = det > 0 ? ((double)n * sxy - sx * sy) / det : 0.0;
    *a = (sy - *b * sx) / (double)n;
    if (mean != NULL && *a < 0.0) {
        *a = 0.0;
        *b = sxx > 0 ? sxy / sxx : 0.0;
    }
}

static double result(double final_lead) { return final_lead > 0 ? 1.0 : final_lead < 0 ? 0.0 : 0.5; }

int winprob_study_run(const SelfplayConfig *cfg, uint64_t train_games, uint64_t test_games, WinprobStudy *st,
                      RkError *err) {
    memset(st, 0, sizeof *st);
    Game *g = malloc(sizeof *g);
    Collect c = {0};
    int rc = g == NULL ? rk_error(err, "win model study: out of memory") : play(cfg, train_games, &c, g, err);
    if (rc == 0 && c.n < 100)
        rc = rk_error(err, "win model study: %zu decisions are too few to fit the model", c.n);
    if (rc == 0) {
        st->train_positions = c.n;
        WinModel *f = &st->fit;
        fit_line(c.all, c.n, NULL, &f->mean0, &f->mean_per_tile);
        fit_line(c.all, c.n, f, &f->var0, &f->var_per_tile);
        double sum[WINPROB_STUDY_BUCKETS] = {0}, sq[WINPROB_STUDY_BUCKETS] = {0};
        for (size_t i = 0; i < c.n; i++) {
            int b = winprob_study_bucket(c.all[i].tiles_left);
            double d = c.all[i].final_lead - c.all[i].lead;
            st->bucket[b].n++, sum[b] += d, sq[b] += d * d;
        }
        for (int b = 0; b < WINPROB_STUDY_BUCKETS; b++) {
            WinprobBucket *k = &st->bucket[b];
            if (k->n == 0) continue;
            k->mean = sum[b] / (double)k->n;
            k->sd = sqrt(fmax(0.0, sq[b] / (double)k->n - k->mean * k->mean));
        }
        rc = winprob_check(f, err);
    }
    if (rc == 0) {
        SelfplayConfig held = *cfg;
        held.generation = (UINT64_C(1) << 40) + cfg->generation;
        c.n = 0;
        rc = play(&held, test_games, &c, g, err);
        double brier = 0, brier_sign = 0;
        for (size_t i = 0; rc == 0 && i < c.n; i++) {
            double y = result(c.all[i].final_lead);
            double p = winprob(&st->fit, c.all[i].lead, c.all[i].tiles_left);
            double q = result(c.all[i].lead);
            brier += (p - y) * (p - y), brier_sign += (q - y) * (q - y);
        }
        st->test_positions = c.n;
        st->test_brier = c.n ? brier / (double)c.n : 0;
        st->test_brier_sign = c.n ? brier_sign / (double)c.n : 0;
    }
    free(c.game);
    free(c.all);
    free(g);
    return rc;
}
