/*
 * winprob.c - the normal model of the final lead (see winprob.h).
 */
#include "winprob.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double variance(const WinModel *m, int t) { return m->var0 + m->var_per_tile * t; }

int winprob_check(const WinModel *m, RkError *err) {
    if (!isfinite(m->mean0) || !isfinite(m->mean_per_tile) || !isfinite(m->var0) || !isfinite(m->var_per_tile))
        return rk_error(err, "win model: every number must be finite");
    /* var is linear in t: positive at both ends of 1..RK_MAX_BAG is positive between
     * (t <= 0 is a decided game, valued without it) */
    if (!(variance(m, 1) > 0.0) || !(variance(m, RK_MAX_BAG) > 0.0))
        return rk_error(err, "win model: variance %g + %g per tile is not positive for every tile count 1..%d",
                        m->var0, m->var_per_tile, RK_MAX_BAG);
    return 0;
}

double winprob_mean(const WinModel *m, int tiles_left) { return m->mean0 + m->mean_per_tile * tiles_left; }

double winprob_sd(const WinModel *m, int tiles_left) { return sqrt(variance(m, tiles_left)); }

double winprob(const WinModel *m, double lead, int tiles_left) {
    if (tiles_left <= 0) return lead > 0 ? 1.0 : lead < 0 ? 0.0 : 0.5;
    double z = (lead + winprob_mean(m, tiles_left)) / winprob_sd(m, tiles_left);
    return 0.5 * erfc(-z / sqrt(2.0));
}

void win_value_defaults(WinValue *w) { *w = (WinValue){.bonus = 0.0, .terminal_only = false, .model = WINPROB_DEFAULT}; }

double win_value_final(const WinValue *w, double spread) {
    return spread > 0 ? w->bonus : spread < 0 ? -w->bonus : 0.0;
}

double win_value_open(const WinValue *w, double lead, bool on_turn, int tiles_left) {
    if (w->bonus == 0.0 || w->terminal_only) return 0.0;
    double p = on_turn ? winprob(&w->model, lead, tiles_left) : 1.0 - winprob(&w->model, -lead, tiles_left);
    return w->bonus * (2.0 * p - 1.0);
}

int win_value_parse_model(WinValue *w, const char *text, RkError *err) {
    if (strcmp(text, "terminal") == 0) {
        w->terminal_only = true;
        return 0;
    }
    WinModel m = WINPROB_DEFAULT;
    if (strcmp(text, "default") != 0) {
        double x[4];
        const char *p = text;
        for (int i = 0; i < 4; i++) {
            char *end;
            x[i] = strtod(p, &end);
            if (end == p || *end != (i < 3 ? ':' : '\0'))
                return rk_error(err, "win model '%s': expected terminal, default or MEAN0:MEAN1:VAR0:VAR1", text);
            p = end + 1;
        }
        m = (WinModel){x[0], x[1], x[2], x[3]};
        if (winprob_check(&m, err) != 0) return -1;
    }
    w->terminal_only = false;
    w->model = m;
    return 0;
}
