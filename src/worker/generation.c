#include "generation.h"

typedef struct Observe {
    GenerationWorker *w;
    int failed;
    RkError *err;
} Observe;

static void observe_turn(const Game *g, const Move *m, void *vctx) {
    Observe *o = vctx;
    if (g->bag.count < RK_RACK_SIZE || o->failed) return;
    const Rack *rack = &g->racks[g->on_turn];
    int64_t idx = racktable_index(o->w->racks, rack);
    if (idx < 0) {
        char buf[32];
        rack_to_string(rack, g->ld, buf, sizeof buf);
        rk_error(o->err, "rack %s is not in the rack table", buf);
        o->failed = 1;
        return;
    }
    rack_accum_add(o->w->acc, (uint64_t)idx, m->equity);
    o->w->totals.observations++;
    o->w->totals.equity_sum += m->equity;
}

int generation_play_round(GenerationWorker *w, uint64_t round, RkError *err) {
    uint64_t index = round * (uint64_t)w->nranks + (uint64_t)w->rank;
    if (index >= w->games) return 0;
    Observe o = {.w = w, .failed = 0, .err = err};
    SelfplayStats st = {0};
    selfplay_game(w->play, index, w->game, &st, observe_turn, &o);
    if (o.failed) return -1;
    w->totals.games += (int64_t)st.games;
    w->totals.turns += (int64_t)st.turns;
    w->totals.bingos += (int64_t)st.bingos;
    w->totals.score_sum += st.score_sum[0] + st.score_sum[1];
    return 0;
}
