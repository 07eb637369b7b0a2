#include "residuals.h"

#include <string.h>

#include "eval/spv.h"

void residuals_begin(GameResiduals *r, ResidualTarget target, int num_openness, int num_phases, int num_buckets) {
    r->target = target;
    r->pending = -1;
    r->num_openness = num_openness;
    r->num_phases = num_phases > 0 ? num_phases : 1;
    r->num_buckets = num_buckets;
    r->n = 0;
}

const char *residual_target_name(ResidualTarget t) { return t == RESIDUAL_EXPOSURE ? "exposure" : "final"; }

int residual_target_parse(const char *s) {
    if (strcmp(s, "final") == 0) return RESIDUAL_FINAL;
    if (strcmp(s, "exposure") == 0) return RESIDUAL_EXPOSURE;
    return -1;
}

void residuals_record(GameResiduals *r, const Game *g, const Move *m, int32_t leave_mp, int32_t adjust_mp) {
    int me = g->on_turn;
    if (r->pending >= 0 && r->moves[r->pending].mover != me) {
        r->moves[r->pending].reply = m->score;
        r->pending = -1;
    }
    if (m->kind != MOVE_PLACE || g->bag.count == 0 || r->n >= RESIDUAL_MAX_MOVES) return;
    r->pending = r->n;
    ResidualMove *rm = &r->moves[r->n++];
    rm->reply = 0;
    rm->mover = (int8_t)me;
    rm->openness = (uint8_t)spv_openness_bucket_n(r->num_openness, &g->board);
    rm->phase = (uint8_t)spv_phase_bucket(g->bag.count, r->num_phases);
    rm->spread_before = g->scores[me] - g->scores[1 - me];
    rm->predicted = 1000 * m->score + leave_mp;
    rm->adjust = adjust_mp;
    int n = 0;
    for (int i = 0; i < m->len && n < RK_RACK_SIZE; i++) {
        uint8_t t = m->tiles[i];
        if (t == MOVE_PLAYED_THROUGH) continue;
        int row, col;
        rm->square[n] = (uint16_t)spv_move_square(m, i, g->board.dim, &row, &col);
        rm->bucket[n] = (uint8_t)spv_tile_bucket(r->num_buckets, g->ld, t);
        n++;
    }
    rm->ntiles = (uint8_t)n;
}

static void add_square(int64_t *hi, int64_t *lo, int64_t x) {
    uint64_t sq = (uint64_t)(x * x);
    *hi += (int64_t)(sq >> 32);
    *lo += (int64_t)(sq & 0xffffffffu);
}

int64_t residuals_value(const GameResiduals *r, int k, const Game *final) {
    const ResidualMove *rm = &r->moves[k];
    int me = rm->mover;
    int64_t final_spread = final->scores[me] - final->scores[1 - me];
    int64_t res = r->target == RESIDUAL_EXPOSURE ? -1000 * (int64_t)rm->reply
                                                 : 1000 * (final_spread - rm->spread_before) - rm->predicted;
    if (res > SPV_RESIDUAL_MAX) res = SPV_RESIDUAL_MAX;
    if (res < -SPV_RESIDUAL_MAX) res = -SPV_RESIDUAL_MAX;
    return res;
}

void residuals_finish(const GameResiduals *r, const Game *final, SpvAccum *acc, ResidualStats *st) {
    for (int k = 0; k < r->n; k++) {
        const ResidualMove *rm = &r->moves[k];
        int64_t res = residuals_value(r, k, final);
        if (acc != NULL) {
            int o = rm->openness < acc->num_openness ? rm->openness : (int)acc->num_openness - 1;
            int p = rm->phase < acc->num_phases ? rm->phase : (int)acc->num_phases - 1;
            for (int i = 0; i < rm->ntiles; i++) spv_accum_add(acc, o, p, rm->square[i], rm->bucket[i], res);
        }
        if (st != NULL) {
            int64_t adj = res - rm->adjust;
            st->moves++;
            st->sum += res;
            add_square(&st->sq_hi, &st->sq_lo, res);
            st->sum_adj += adj;
            add_square(&st->sq_adj_hi, &st->sq_adj_lo, adj);
        }
    }
}

void residual_stats_pack(const ResidualStats *s, int64_t out[RESIDUAL_STATS_FIELDS]) {
    int64_t v[RESIDUAL_STATS_FIELDS] = {s->moves, s->sum, s->sq_hi, s->sq_lo, s->sum_adj, s->sq_adj_hi, s->sq_adj_lo};
    memcpy(out, v, sizeof v);
}

void residual_stats_unpack(const int64_t in[RESIDUAL_STATS_FIELDS], ResidualStats *s) {
    *s = (ResidualStats){in[0], in[1], in[2], in[3], in[4], in[5], in[6]};
}

double residual_stats_variance(const ResidualStats *s, bool adjusted) {
    if (s->moves <= 0) return 0.0;
    double n = (double)s->moves;
    double sum = (double)(adjusted ? s->sum_adj : s->sum);
    long double sq = (long double)(adjusted ? s->sq_adj_hi : s->sq_hi) * 4294967296.0L +
                     (long double)(adjusted ? s->sq_adj_lo : s->sq_lo);
    double mean = sum / n / 1000.0;
    double var = (double)(sq / (long double)n) / 1.0e6 - mean * mean;
    return var > 0 ? var : 0.0;
}
