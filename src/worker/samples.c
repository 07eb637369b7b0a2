/*
 * samples.c - training samples from self-play (see samples.h).
 */
#include "samples.h"

#include <math.h>
#include <string.h>

#include "search/mcgs.h"
#include "eval/klv.h"

void samples_init(SampleRecorder *r, ShardSet *out, double temperature, int top, LeaveValueFn leave_value,
                  const void *leave_ctx) {
    memset(r, 0, sizeof *r);
    r->out = out;
    r->temperature = temperature;
    r->top = top < 1 ? 1 : top;
    r->leave_value = leave_value;
    r->leave_ctx = leave_ctx;
    movelist_init(&r->scratch);
}

void samples_free(SampleRecorder *r) { movelist_free(&r->scratch); }

/* The moves in a softmax target: at most 64 (a target's room). */
static int target_top(const SampleRecorder *r) { return r->top < 64 ? r->top : 64; }

MoveList *samples_shared_top(SampleRecorder *r, int *k) {
    if (!(r->temperature > 0.0)) return NULL;
    r->shared = true;
    *k = target_top(r);
    return &r->scratch;
}

void samples_begin_game(SampleRecorder *r, uint64_t game, uint32_t generation) {
    r->first = r->out->n;
    r->game = game;
    r->generation = generation;
    r->leave_known[0] = r->leave_known[1] = false;
    rack_clear(&r->leave[0]);
    rack_clear(&r->leave[1]);
}

/* The sample of position g before move m, with its policy target (none:
 * the played move, unless no_policy) and the search's estimate of the final
 * spread (NaN: none). */
static void record(SampleRecorder *r, const Game *g, const Move *m, const PackedMove *moves, const float *probs,
                   uint32_t count, float search_spread, bool no_policy) {
    int me = g->on_turn;
    const float one = 1.0f;
    ShardSample s;
    memset(&s, 0, sizeof s);
    position_from_game(&s.pos, g);
    s.game = r->game;
    s.generation = r->generation;
    s.turn = (uint32_t)g->turn;
    s.search_spread = search_spread;
    s.opp_leave_known = r->leave_known[1 - me];
    s.opp_leave = r->leave[1 - me];
    packed_from_move(&s.played, m, &g->board);
    if (no_policy) {
        count = 0;
    } else if (count == 0) { /* the played move */
        moves = &s.played;
        probs = &one;
        count = 1;
    }
    shardset_add(r->out, &s, moves, probs, count);

    Rack kept;
    move_kept_tiles(&g->racks[me], m, &kept);
    r->leave[me] = kept;
    r->leave_known[me] = true;
}

void samples_record(SampleRecorder *r, const Game *g, const Move *m) {
    PackedMove moves[64];
    float probs[64];
    uint32_t count = 0;
    int top = target_top(r);
    if (r->temperature > 0.0) {
        /* the self-play's list of this position, or our own */
        size_t n = r->scratch.count;
        if (!r->shared || n == 0) {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, r->leave_value, r->leave_ctx);
            n = movegen_top(&req, top, move_compare_equity, &r->scratch);
        }
        if (n > (size_t)top) n = (size_t)top;
        double best = r->scratch.moves[0].equity / 1000.0, z = 0.0, w[64];
        for (size_t i = 0; i < n; i++) {
            w[i] = exp((r->scratch.moves[i].equity / 1000.0 - best) / r->temperature);
            z += w[i];
        }
        for (size_t i = 0; i < n; i++) {
            packed_from_move(&moves[count], &r->scratch.moves[i], &g->board);
            probs[count++] = (float)(w[i] / z);
        }
        if (r->shared) movelist_clear(&r->scratch); /* used once: never another position's */
    }
    record(r, g, m, moves, probs, count, NAN, false);
}

/* A root's candidates all fit a sample's target (no renormalising needed). */
_Static_assert(MCGS_MAX_CANDIDATES <= 64, "a search's candidates must fit a P target of 64 moves");

void samples_record_policy(SampleRecorder *r, const Game *g, const Move *m, const PackedMove *moves,
                           const float *probs, int count, double search_spread) {
    PackedMove keep[64];
    float kept[64];
    uint32_t n = 0;
    for (int i = 0; i < count && n < 64; i++) {
        if (!(probs[i] > 0.0f)) continue;
        keep[n] = moves[i];
        kept[n++] = probs[i];
    }
    float estimate = (float)search_spread; /* NaN, or what a shard may hold (else none) */
    record(r, g, m, keep, kept, n, shard_spread_estimate_ok(estimate) ? estimate : NAN, false);
}

void samples_record_no_policy(SampleRecorder *r, const Game *g, const Move *m) {
    record(r, g, m, NULL, NULL, 0, NAN, true);
}

void samples_finish_game(SampleRecorder *r, const Game *final) {
    for (size_t i = r->first; i < r->out->n; i++) {
        ShardSample *s = &r->out->s[i];
        int me = (int)(s->turn % 2u); /* player 0 moves on even turns */
        int spread = final->scores[me] - final->scores[1 - me];
        s->final_spread = spread;
        s->result = (int8_t)(spread > 0 ? 1 : spread < 0 ? -1 : 0);
    }
}
