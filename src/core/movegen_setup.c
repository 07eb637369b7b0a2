/*
 * movegen_setup.c - the per-call state a generation starts from (mg_init,
 * movegen_internal.h): the value of every kept sub-rack (an odometer over the
 * rack's letters, the leave table or callback asked once each), the rack's
 * largest positional value per square, its tiles' face values for the shadow
 * bounds, and the empty board's opening penalties.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "movegen_internal.h"

/* ---------------------------------------------------------------- leaves */

static void setup_leaves(Gen *g, const MoveGenRequest *req) {
    const Rack *rack = req->rack;
    const LetterDist *ld = g->ld;
    int letters[RK_MAX_LETTERS], nl = 0, n = 1;
    for (int ml = 0; ml < ld->size; ml++) {
        g->stride[ml] = 0;
        if (rack->count[ml] == 0) continue;
        letters[nl++] = ml;
        g->stride[ml] = n;
        n *= rack->count[ml] + 1;
    }
    if (n > MAX_SUBRACKS) abort(); /* a rack holds at most RK_RACK_SIZE tiles */
    g->n_subracks = n;
    for (int s = 0; s <= RK_RACK_SIZE; s++) g->best_leave_of_size[s] = INT32_MIN;
    bool table = req->leave_table != NULL && req->leave_value != NULL;
    if (table) req->leave_table(req->leave_ctx, rack, g->leave_val);
    /* the kept sub-racks in index order: an odometer over the letters'
     * kept counts (the first letter turns fastest), no division */
    Rack kept;
    rack_clear(&kept);
    int face = 0;
    for (int idx = 0; idx < n; idx++) {
        if (idx > 0) {
            for (int i = 0; i < nl; i++) {
                int ml = letters[i];
                if (kept.count[ml] < rack->count[ml]) {
                    kept.count[ml]++;
                    kept.total++;
                    face += ld->score[ml];
                    break;
                }
                kept.total -= kept.count[ml];
                face -= kept.count[ml] * ld->score[ml];
                kept.count[ml] = 0;
            }
        }
        int32_t v = 0;
        if (table) v = g->leave_val[idx];
        else if (kept.total > 0 && req->leave_value != NULL) v = req->leave_value(req->leave_ctx, &kept);
        g->leave_val[idx] = v;
        g->kept_face[idx] = (int16_t)face;
        g->kept_size[idx] = (int8_t)kept.total;
        if (kept.total <= RK_RACK_SIZE && v > g->best_leave_of_size[kept.total])
            g->best_leave_of_size[kept.total] = v;
    }
    g->leave_idx = n - 1; /* everything kept */
}

/* ---------------------------------------------------------------- positional */

static void setup_positional(Gen *g, const PositionalValues *pv) {
    int nb = pv->buckets, squares = g->dim * g->dim;
    g->pv = pv->v;
    g->pv_buckets = nb;
    bool used[POS_MAX_BUCKETS] = {false};
    for (int ml = 0; ml < g->ld->size; ml++) {
        int v = ml == 0 ? 0 : g->ld->score[ml];
        g->bucket_of[ml] = (int8_t)(v < nb - 1 ? v : nb - 1);
        if (g->rack[ml] > 0) used[g->bucket_of[ml]] = true;
    }
    /* the rack's buckets, then per square the largest of their values */
    int ub[POS_MAX_BUCKETS], nu = 0;
    for (int b = 0; b < nb; b++)
        if (used[b]) ub[nu++] = b;
    if (nu == 0) {
        memset(g->pv_max, 0, (size_t)squares * sizeof g->pv_max[0]);
        return;
    }
    const int32_t *row = pv->v;
    for (int sq = 0; sq < squares; sq++, row += nb) {
        int32_t best = row[ub[0]];
        for (int j = 1; j < nu; j++) best = row[ub[j]] > best ? row[ub[j]] : best;
        g->pv_max[sq] = best;
    }
}

/* ---------------------------------------------------------------- setup */

void mg_init(Gen *g, const MoveGenRequest *req, GenMode mode, MoveList *out) {
    memset(g, 0, sizeof *g);
    g->b = req->board;
    g->k = req->board->kwg;
    g->nodes = g->k->nodes;
    g->ld = req->board->ld;
    g->mode = mode;
    g->dim = req->board->dim;
    g->out = out;
    for (int ml = 0; ml < g->ld->size; ml++) {
        g->rack[ml] = req->rack->count[ml];
        if (ml > 0 && g->rack[ml] > 0) g->rack_mask |= (uint64_t)1 << ml;
    }
    g->rack_total = g->full_rack_total = req->rack->total;
    g->bag_count = req->bag_count;
    g->opp_rack_score = req->opp_rack_score;
    g->empty_board = board_is_empty(req->board);
    setup_leaves(g, req);
    if (req->positional != NULL && req->bag_count > 0) setup_positional(g, req->positional);
    int nv = 0;
    for (int ml = 0; ml < g->ld->size; ml++) {
        for (int c = 0; c < g->rack[ml] && nv < RK_RACK_SIZE; c++) g->tile_vals[nv++] = g->ld->score[ml];
        if (ml > 0 && g->rack[ml] > 0) g->rack_letters |= (uint64_t)1 << ml;
    }
    if (g->rack[0] > 0) g->rack_letters = g->b->all_letters;
    for (int i = 1; i < nv; i++) /* insertion sort, descending */
        for (int j = i; j > 0 && g->tile_vals[j] > g->tile_vals[j - 1]; j--) {
            int t = g->tile_vals[j];
            g->tile_vals[j] = g->tile_vals[j - 1];
            g->tile_vals[j - 1] = t;
        }
    if (g->empty_board)
        for (int c = 0; c < g->dim; c++) g->opening_penalty[c] = mg_opening_penalty(g->b->layout, c);
}
