/*
 * neighbour_study.c - the neighbour-aware SPV table from self-play residuals
 * (see neighbour_study.h).
 */
#include "neighbour_study.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Record {
    const SelfplayConfig *play;
    GameResiduals *res;
} Record;

/* Every move goes to the game's residuals (a placement with the value of
 * what it keeps under the game's leaves; any move as a reply). */
static void observe(const Game *g, const Move *m, void *vctx) {
    Record *rec = vctx;
    int32_t leave = 0;
    if (g->bag.count > 0 && m->kind == MOVE_PLACE)
        leave = move_leave_value(rec->play->leave_value, rec->play->leave_ctx, &g->racks[g->on_turn], m);
    residuals_record(rec->res, g, m, leave, 0);
}

static void play_game(const SelfplayConfig *play, ResidualTarget target, uint64_t index, Game *g,
                      GameResiduals *res) {
    Record rec = {.play = play, .res = res};
    residuals_begin(res, target, SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, SPV_DEFAULT_BUCKETS);
    residuals_track_neighbours(res);
    selfplay_game(play, index, g, NULL, observe, &rec);
}

/* A table to derive into, of any number of "squares" (no file limits). */
static int alloc_derived(Spv *s, uint32_t squares, RkError *err) {
    memset(s, 0, sizeof *s);
    s->num_squares = squares;
    s->num_buckets = SPV_DEFAULT_BUCKETS;
    s->num_openness = SPV_DEFAULT_OPENNESS;
    s->mean = calloc((size_t)squares * SPV_DEFAULT_BUCKETS, sizeof *s->mean);
    s->var = calloc((size_t)squares * SPV_DEFAULT_BUCKETS, sizeof *s->var);
    if (s->mean == NULL || s->var == NULL) {
        spv_free(s);
        return rk_error(err, "neighbour study: out of memory");
    }
    return 0;
}

/* Per-state summary of the table over the training observations. */
static void summarise(const SpvAccum *acc, const NeighbourTable *t, NeighbourStudy *st) {
    double sum[NEIGHBOUR_STATES] = {0}, sum_high[NEIGHBOUR_STATES] = {0};
    uint64_t n_high[NEIGHBOUR_STATES] = {0};
    const uint32_t T = acc->num_openness * acc->num_phases, C = acc->num_squares, B = acc->num_buckets;
    for (uint32_t cell = 0; cell < C; cell++)
        for (uint32_t b = 0; b < B; b++) {
            uint64_t n = 0;
            for (uint32_t s = 0; s < T; s++)
                n += (uint64_t)acc->data[(((size_t)s * C + cell) * B + b) * SPV_ACCUM_WORDS];
            double v = t->value[(size_t)cell * B + b];
            if (fabs(v) > st->max_abs) st->max_abs = fabs(v);
            int state = (int)(cell % NEIGHBOUR_STATES);
            st->state_obs[state] += n;
            sum[state] += (double)n * v;
            if (b >= NEIGHBOUR_STUDY_HIGH) {
                n_high[state] += n;
                sum_high[state] += (double)n * v;
            }
        }
    for (int s = 0; s < NEIGHBOUR_STATES; s++) {
        st->state_mean[s] = st->state_obs[s] ? sum[s] / (double)st->state_obs[s] : 0.0;
        st->state_mean_high[s] = n_high[s] ? sum_high[s] / (double)n_high[s] : 0.0;
    }
}

/* Sums over held-out moves of r, a and their products (points). */
typedef struct Moments {
    double n, r, rr, a, aa, ra;
} Moments;

static void moments_add(Moments *m, double r, double a) {
    m->n += 1, m->r += r, m->rr += r * r, m->a += a, m->aa += a * a, m->ra += r * a;
}

static NeighbourHeldout moments_result(const Moments *m) {
    NeighbourHeldout h = {0, 0, 0, 0};
    if (m->n <= 0) return h;
    double mr = m->r / m->n, ma = m->a / m->n;
    double vr = m->rr / m->n - mr * mr, va = m->aa / m->n - ma * ma, cov = m->ra / m->n - mr * ma;
    h.var = vr;
    h.var_adj = vr - 2 * cov + va;
    h.scale = va > 0 ? cov / va : 0.0;
    h.explained_best = va > 0 && vr > 0 ? cov * cov / (vr * va) : 0.0;
    return h;
}

static double tile_mp(double v) { return (double)lround(1000.0 * v); }

/* The held-out games: residuals against both tables' adjustments. */
static void held_out(const SelfplayConfig *cfg, ResidualTarget target, uint64_t games, const Spv *plain,
                     NeighbourStudy *st, Game *g, GameResiduals *res) {
    SelfplayConfig held = *cfg;
    held.generation = (UINT64_C(1) << 40) + cfg->generation;
    Moments mn = {0}, mp = {0};
    const NeighbourTable *t = &st->table;
    const uint32_t B = t->num_buckets;
    for (uint64_t i = 0; i < games; i++) {
        play_game(&held, target, i, g, res);
        for (int k = 0; k < res->n; k++) {
            const ResidualMove *rm = &res->moves[k];
            double r = (double)residuals_value(res, k, g) / 1000.0, an = 0, ap = 0;
            for (int j = 0; j < rm->ntiles; j++) {
                an += tile_mp(t->value[neighbour_index(t, rm->square[j], rm->nstate[j], rm->bucket[j])]);
                ap += tile_mp(plain->mean[(size_t)rm->square[j] * B + rm->bucket[j]]);
            }
            moments_add(&mn, r, an / 1000.0);
            moments_add(&mp, r, ap / 1000.0);
        }
        st->test_moves += (uint64_t)res->n;
    }
    st->test = moments_result(&mn);
    st->test_plain = moments_result(&mp);
}

int neighbour_study_run(const SelfplayConfig *cfg, ResidualTarget target, uint64_t train_games,
                        uint64_t test_games, NeighbourStudy *st, RkError *err) {
    memset(st, 0, sizeof *st);
    st->target = target;
    const uint32_t dim = (uint32_t)cfg->layout->dim, S = dim * dim;
    SpvAccum acc_n, acc_p;
    memset(&acc_n, 0, sizeof acc_n);
    memset(&acc_p, 0, sizeof acc_p);
    Spv tn, tp;
    memset(&tn, 0, sizeof tn);
    memset(&tp, 0, sizeof tp);
    Game *g = malloc(sizeof *g);
    GameResiduals *res = malloc(sizeof *res);
    int rc = g && res ? 0 : rk_error(err, "out of memory");
    if (rc == 0)
        rc = spv_accum_init(&acc_n, SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, S * NEIGHBOUR_STATES,
                            SPV_DEFAULT_BUCKETS, NULL, err);
    if (rc == 0)
        rc = spv_accum_init(&acc_p, SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, S, SPV_DEFAULT_BUCKETS, NULL, err);
    if (rc == 0) rc = alloc_derived(&tn, S * NEIGHBOUR_STATES, err);
    if (rc == 0) rc = alloc_derived(&tp, S, err);
    if (rc == 0) rc = neighbour_init_zero(&st->table, dim, SPV_DEFAULT_BUCKETS, err);
    for (uint64_t i = 0; rc == 0 && i < train_games; i++) {
        play_game(cfg, target, i, g, res);
        residuals_finish_neighbour(res, g, &acc_n);
        residuals_finish(res, g, &acc_p, NULL);
        st->train_moves += (uint64_t)res->n;
    }
    if (rc == 0 && st->train_moves == 0)
        rc = rk_error(err, "neighbour study: %llu training games recorded no move to fit",
                      (unsigned long long)train_games);
    SpvDeriveOptions opt = {.prior_mean = SPV_PRIOR_AUTO, .prior_var = SPV_PRIOR_AUTO};
    if (rc == 0) rc = spv_derive(&acc_n, &opt, &tn, &st->info, err);
    if (rc == 0) rc = spv_derive(&acc_p, &opt, &tp, &st->plain_info, err);
    if (rc == 0) {
        memcpy(st->table.value, tn.mean, (size_t)tn.num_squares * tn.num_buckets * sizeof *tn.mean);
        st->num_openness = tn.num_openness;
        memcpy(st->openness, tn.openness, sizeof st->openness);
        summarise(&acc_n, &st->table, st);
        held_out(cfg, target, test_games, &tp, st, g, res);
    }
    spv_accum_free(&acc_n);
    spv_accum_free(&acc_p);
    spv_free(&tn);
    spv_free(&tp);
    free(g);
    free(res);
    if (rc != 0) neighbour_study_free(st);
    return rc;
}

void neighbour_study_free(NeighbourStudy *st) { neighbour_free(&st->table); }
