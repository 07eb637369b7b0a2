/*
 * dynleaves.c - bag-aware leave values (see dynleaves.h).
 *
 * dynleaves_recompute is derive.h's derivation with another pool. The exact
 * values for a few leaves enumerate the draws D from the unseen tiles letter
 * by letter (each letter 0..min(U[ml], remaining) copies, the weight the
 * product of C(U[ml], copies)), look the full rack L + D up in the rack
 * table, and add W * E and W over the observed racks, in one fixed order.
 */
#include "dynleaves.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dynleaves_pool(const LetterDist *ld, const Rack *unseen, const Rack *rack, Rack *pool, RkError *err) {
    rack_clear(pool);
    for (int ml = 0; ml < ld->size; ml++) {
        int n = unseen->count[ml] + (rack != NULL ? rack->count[ml] : 0);
        if (n > ld->count[ml]) {
            char label[16] = "";
            ld_tile_label(ld, (uint8_t)ml, label, sizeof label);
            return rk_error(err, "the unseen tiles%s hold %d %s, the distribution only %d",
                            rack != NULL ? " and the rack" : "", n, label, ld->count[ml]);
        }
        pool->count[ml] = (uint8_t)n;
        pool->total += n;
    }
    return 0;
}

int dynleaves_recompute(const LeaveDeriver *d, const Req *req, const Rack *pool, const DeriveOptions *opt,
                        Klv *out, DeriveInfo *info, RkError *err) {
    if (out == NULL || out->count != d->num_leaves)
        return rk_error(err, "dynamic leaves: the output holds %u leaves, the deriver %llu",
                        out != NULL ? out->count : 0u, (unsigned long long)d->num_leaves);
    float *v = malloc((size_t)out->count * sizeof *v);
    if (v == NULL) return rk_error(err, "dynamic leaves: out of memory");
    int rc = derive_leaves_from_means_opt(d, req->mean, req->counts, req->num_racks, pool, opt, v, out->count,
                                          info, err);
    if (rc == 0) klv_set_values(out, v);
    free(v);
    return rc;
}

/* ------------------------------------------------------------ exact values */

typedef struct Enum {
    const RackTable *rt;
    const Req *req;
    const Rack *unseen;
    Rack rack;       /* the leave plus the draw so far */
    double sum, wsum;
} Enum;

static bool observed(const Req *req, int64_t idx) { return req->counts == NULL || req->counts[idx] > 0; }

/* Draws `rem` more tiles from letters ml.. of the unseen tiles, weight w so far. */
static void draw(Enum *e, int ml, int rem, double w) {
    if (rem == 0) {
        int64_t idx = racktable_index(e->rt, &e->rack);
        if (idx >= 0 && observed(e->req, idx)) {
            e->sum += w * (double)e->req->mean[idx];
            e->wsum += w;
        }
        return;
    }
    int nl = e->rt->num_letters;
    if (ml >= nl) return;
    int hi = e->unseen->count[ml] < rem ? e->unseen->count[ml] : rem;
    for (int c = 0; c <= hi; c++) {
        if (e->rack.count[ml] + c > e->rt->limit[ml]) break;
        e->rack.count[ml] = (uint8_t)(e->rack.count[ml] + c);
        e->rack.total += c;
        draw(e, ml + 1, rem - c, w * derive_binom(e->unseen->count[ml], c));
        e->rack.count[ml] = (uint8_t)(e->rack.count[ml] - c);
        e->rack.total -= c;
    }
}

/* Weighted mean of E over the completions of leave by draws from unseen;
 * false if none is observed. */
static bool completion_mean(const RackTable *rt, const Req *req, const Rack *unseen, const Rack *leave, double *m) {
    Enum e = {.rt = rt, .req = req, .unseen = unseen, .rack = *leave, .sum = 0.0, .wsum = 0.0};
    draw(&e, 0, rt->rack_size - leave->total, 1.0);
    if (!(e.wsum > 0.0)) return false;
    *m = e.sum / e.wsum;
    return true;
}

int dynleaves_exact(const RackTable *rt, const Req *req, const Rack *unseen, const Rack *leaves, int n,
                    double *value, double *baseline, RkError *err) {
    for (int i = 0; i < n; i++)
        if (leaves[i].total >= rt->rack_size)
            return rk_error(err, "dynamic leaves: a leave of %d tiles (at most %d)", leaves[i].total,
                            rt->rack_size - 1);
    Rack empty;
    rack_clear(&empty);
    double base = 0.0;
    bool have_base = completion_mean(rt, req, unseen, &empty, &base);
    if (baseline != NULL) *baseline = have_base ? base : 0.0;
    for (int i = 0; i < n; i++) {
        double m;
        value[i] = leaves[i].total > 0 && have_base && completion_mean(rt, req, unseen, &leaves[i], &m) ? m - base
                                                                                                       : 0.0;
    }
    return 0;
}

static int by_equity(const void *a, const void *b) { return movegen_compare(a, b); }

int dynleaves_rerank(const RackTable *rt, const Req *req, LeaveValueFn static_leave, const void *static_ctx,
                     const Rack *rack, const Rack *unseen, MoveList *list, int n, double *baseline, RkError *err) {
    if (n < 0) n = 0;
    if ((size_t)n > list->count) n = (int)list->count;
    Rack *kept = calloc((size_t)(n > 0 ? n : 1), sizeof *kept);
    double *dlv = malloc((size_t)(n > 0 ? n : 1) * sizeof *dlv);
    if (kept == NULL || dlv == NULL) {
        free(kept);
        free(dlv);
        return rk_error(err, "dynamic leaves: out of memory");
    }
    for (int i = 0; i < n; i++) /* a pass is left alone: it values nothing */
        if (list->moves[i].kind != MOVE_PASS) move_kept_tiles(rack, &list->moves[i], &kept[i]);
    int rc = dynleaves_exact(rt, req, unseen, kept, n, dlv, baseline, err);
    if (rc == 0) {
        for (int i = 0; i < n; i++) {
            Move *m = &list->moves[i];
            if (m->kind == MOVE_PASS) continue;
            int32_t old = move_leave_value(static_leave, static_ctx, rack, m);
            m->equity = m->equity - old + (int32_t)lround(dlv[i] * 1000.0);
        }
        qsort(list->moves, (size_t)n, sizeof *list->moves, by_equity);
    }
    free(kept);
    free(dlv);
    return rc == 0 ? n : -1;
}

/* ---------------------------------------------------------------- tables */

int dynleaves_open(DynLeaves *t, const LetterDist *ld, const char *req_path, RkError *err) {
    memset(t, 0, sizeof *t);
    if (racktable_build(&t->rt, ld, RK_RACK_SIZE, err) != 0 || req_load(&t->req, req_path, &t->rt, err) != 0 ||
        klv_init_zero(&t->klv, ld, err) != 0 || leave_deriver_init(&t->deriver, &t->rt, &t->klv.kwg, err) != 0) {
        dynleaves_close(t);
        return -1;
    }
    return 0;
}

void dynleaves_close(DynLeaves *t) {
    if (t == NULL) return;
    leave_deriver_free(&t->deriver);
    klv_free(&t->klv);
    req_free(&t->req);
    racktable_free(&t->rt);
    memset(t, 0, sizeof *t);
}

int dynleaves_for_game(DynLeaves *t, const Game *g, double shrink, DeriveInfo *info, RkError *err) {
    Rack unseen, pool;
    game_unseen(g, &unseen);
    if (dynleaves_pool(g->ld, &unseen, &g->racks[g->on_turn], &pool, err) != 0) return -1;
    DeriveOptions opt = {.shrink = shrink, .holdable_only = true};
    return dynleaves_recompute(&t->deriver, &t->req, &pool, &opt, &t->klv, info, err);
}
