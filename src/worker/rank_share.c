#include "rank_share.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/klv.h"
#include "search/policy_target.h"

typedef struct Observe {
    GenerationWorker *w;
    uint64_t game; /* the game's index */
    uint32_t turn; /* turns observed so far */
    int failed;
    RkError *err;
} Observe;

/* The equity of rack's best move on position g (rack NULL: the mover's)
 * under play's leaves: what the accumulators record for a rack. */
static int32_t best_static_equity(const SelfplayConfig *play, const Game *g, const Rack *rack) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    if (rack != NULL) req.rack = rack;
    klv_request_leaves(&req, play->leave_value, play->leave_ctx);
    Move best;
    movegen_best(&req, &best, NULL);
    return best.equity;
}

/* Stream tag of the sampled racks: their draws never share a stream with a
 * game's own (which is seeded from (seed, generation, game)). */
#define SAMPLED_RACKS_STREAM UINT64_C(0x5a3ce1d2b4f60789)

/* Values o->w->sampled_racks racks drawn from the whole distribution on
 * position g (rank_share.h, SAMPLED RACKS). */
static void value_sampled_racks(Observe *o, const Game *g) {
    GenerationWorker *w = o->w;
    const LetterDist *ld = g->ld;
    uint8_t tiles[RK_MAX_LETTERS * 256];
    int n = 0;
    for (int ml = 0; ml < ld->size; ml++)
        for (int c = 0; c < ld->count[ml] && n < (int)sizeof tiles; c++) tiles[n++] = (uint8_t)ml;
    if (n < RK_RACK_SIZE) return;
    Rng rng;
    rng_seed_stream(&rng, w->play->seed ^ SAMPLED_RACKS_STREAM, w->play->generation,
                    (o->game << 12) | (o->turn & 0xfffu));
    for (int k = 0; k < w->sampled_racks; k++) {
        Rack rack;
        memset(&rack, 0, sizeof rack);
        for (int i = 0; i < RK_RACK_SIZE; i++) { /* a partial Fisher-Yates shuffle */
            int j = i + (int)rng_below(&rng, (uint64_t)(n - i));
            uint8_t t = tiles[j];
            tiles[j] = tiles[i];
            tiles[i] = t;
            rack_add(&rack, t);
        }
        int64_t idx = racktable_index(w->racks, &rack);
        if (idx < 0) continue; /* not a full rack of the table (cannot happen for its distribution) */
        rack_accum_add(w->acc, (uint64_t)idx, best_static_equity(w->play, g, &rack));
        w->totals.sampled_observations++;
    }
}

/* The value of the tiles m keeps, with the game's leave callback. */
static int32_t kept_value(const SelfplayConfig *play, const Game *g, const Move *m) {
    return move_leave_value(play->leave_value, play->leave_ctx, &g->racks[g->on_turn], m);
}

static void observe_turn(const Game *g, const Move *m, void *vctx) {
    Observe *o = vctx;
    if (o->w->samples != NULL) {
        const Player *p = o->w->play->player;
        PackedMove moves[MCGS_MAX_CANDIDATES];
        float probs[MCGS_MAX_CANDIDATES];
        int count;
        double spread;
        /* a search's own targets for the move just chosen, else the static player's */
        int target = p != NULL ? player_last_target(p, moves, probs, MCGS_MAX_CANDIDATES, &count, &spread) : -1;
        if (target > 0)
            samples_record_policy(o->w->samples, g, m, moves, probs, count, spread);
        else if (target == 0) /* a fast search (playout cap randomization): V and H targets only */
            samples_record_no_policy(o->w->samples, g, m);
        else
            samples_record(o->w->samples, g, m);
    }
    if (o->w->spv_acc != NULL)
        residuals_record(o->w->res, g, m, g->bag.count > 0 && m->kind == MOVE_PLACE ? kept_value(o->w->play, g, m) : 0,
                         0);
    o->turn++;
    if (g->bag.count < RK_RACK_SIZE || o->failed) return;
    if (o->w->sampled_racks > 0) value_sampled_racks(o, g);
    const Rack *rack = &g->racks[g->on_turn];
    int64_t idx = racktable_index(o->w->racks, rack);
    if (idx < 0) {
        char buf[32];
        rack_to_string(rack, g->ld, buf, sizeof buf);
        rk_error(o->err, "rack %s is not in the rack table", buf);
        o->failed = 1;
        return;
    }
    /* E(R) is the best static equity of R under the leaves in force,
     * whoever plays (a sim player's move need not be the static best) */
    int32_t equity = o->w->play->player != NULL ? best_static_equity(o->w->play, g, NULL) : m->equity;
    rack_accum_add(o->w->acc, (uint64_t)idx, equity);
    o->w->totals.observations++;
    o->w->totals.equity_sum += equity;
}

/* Plays game `index` with w. */
static int play_game(GenerationWorker *w, uint64_t index, RkError *err) {
    Observe o = {.w = w, .game = index, .turn = 0, .failed = 0, .err = err};
    SelfplayStats st = {0};
    if (w->spv_acc != NULL)
        residuals_begin(w->res, w->spv_target, (int)w->spv_acc->num_openness, (int)w->spv_acc->num_phases,
                        (int)w->spv_acc->num_buckets);
    if (w->samples != NULL) samples_begin_game(w->samples, index, (uint32_t)w->play->generation);
    selfplay_game(w->play, index, w->game, &st, observe_turn, &o);
    if (o.failed) return -1;
    if (w->samples != NULL) samples_finish_game(w->samples, w->game);
    if (w->spv_acc != NULL) residuals_finish(w->res, w->game, w->spv_acc, NULL);
    w->totals.games += (int64_t)st.games;
    w->totals.turns += (int64_t)st.turns;
    w->totals.bingos += (int64_t)st.bingos;
    w->totals.score_sum += st.score_sum[0] + st.score_sum[1];
    return 0;
}

/* One thread's share of a round: the next game of the block until none is
 * left (or a game failed). */
typedef struct Job {
    GenerationWorker *w;
    uint64_t *next, end; /* shared counter; the block's end */
    int *failed;         /* shared */
    int status;
    RkError err;
} Job;

static void *run_job(void *arg) {
    Job *j = arg;
    for (;;) {
        if (__atomic_load_n(j->failed, __ATOMIC_RELAXED)) break;
        uint64_t index = __atomic_fetch_add(j->next, 1, __ATOMIC_RELAXED);
        if (index >= j->end) break;
        if ((j->status = play_game(j->w, index, &j->err)) != 0) {
            __atomic_store_n(j->failed, 1, __ATOMIC_RELAXED);
            break;
        }
    }
    return NULL;
}

int generation_play_round(GenerationWorker *ws, int threads, uint64_t round, RkError *err) {
    const GenerationWorker *w0 = &ws[0];
    uint64_t block = generation_block(threads);
    uint64_t first = (round * (uint64_t)w0->nranks + (uint64_t)w0->rank) * block;
    if (first >= w0->games) return 0;
    if (threads <= 1) return play_game(&ws[0], first, err);
    if (threads > GENERATION_MAX_THREADS) threads = GENERATION_MAX_THREADS;
    uint64_t next = first, end = first + block < w0->games ? first + block : w0->games;
    int failed = 0;
    Job jobs[GENERATION_MAX_THREADS];
    pthread_t tid[GENERATION_MAX_THREADS];
    bool started[GENERATION_MAX_THREADS] = {false};
    for (int j = 0; j < threads; j++)
        jobs[j] = (Job){.w = &ws[j], .next = &next, .end = end, .failed = &failed, .status = 0};
    /* job 0 runs here; a thread that cannot start leaves its share to the others */
    for (int j = 1; j < threads; j++) started[j] = pthread_create(&tid[j], NULL, run_job, &jobs[j]) == 0;
    run_job(&jobs[0]);
    for (int j = 1; j < threads; j++)
        if (started[j]) pthread_join(tid[j], NULL);
    for (int j = 0; j < threads; j++)
        if (jobs[j].status != 0) {
            *err = jobs[j].err;
            return -1;
        }
    return 0;
}

/* ---------------------------------------------------------------- forced racks */

int forced_tasks_build(ForcedTasks *t, const RackAccum *global, uint32_t min_count, RkError *err) {
    memset(t, 0, sizeof *t);
    uint64_t n = 0;
    for (uint64_t i = 0; i < global->n; i++) n += global->count[i] < (int64_t)min_count;
    if (n == 0) return 0;
    t->rack = malloc(n * sizeof t->rack[0]);
    t->end = malloc(n * sizeof t->end[0]);
    if (t->rack == NULL || t->end == NULL) {
        forced_tasks_free(t);
        return rk_error(err, "out of memory for %llu forced racks", (unsigned long long)n);
    }
    uint64_t total = 0;
    for (uint64_t i = 0; i < global->n; i++) {
        if (global->count[i] >= (int64_t)min_count) continue;
        total += (uint64_t)((int64_t)min_count - global->count[i]);
        t->rack[t->n] = (uint32_t)i;
        t->end[t->n] = total;
        t->n++;
    }
    t->total = total;
    return 0;
}

void forced_tasks_free(ForcedTasks *t) {
    free(t->rack);
    free(t->end);
    memset(t, 0, sizeof *t);
}

/* The rack of task number k (binary search over the cumulative deficits). */
static uint32_t task_rack(const ForcedTasks *t, uint64_t k) {
    uint64_t lo = 0, hi = t->n - 1;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (t->end[mid] > k) hi = mid;
        else lo = mid + 1;
    }
    return t->rack[lo];
}

typedef struct Forced {
    GenerationWorker *w;
    const ForcedTasks *t;
    uint64_t next, stop;
    int failed;
    RkError *err;
} Forced;

/* Can rack r be made from the mover's rack and the bag? */
static bool drawable(const Game *g, const Rack *r) {
    Rack pool;
    bag_to_rack(&g->bag, &pool);
    const Rack *own = &g->racks[g->on_turn];
    for (int ml = 0; ml < g->ld->size; ml++)
        if (r->count[ml] > pool.count[ml] + own->count[ml]) return false;
    return true;
}

static void observe_forced(const Game *g, const Move *m, void *vctx) {
    (void)m;
    Forced *f = vctx;
    if (g->bag.count < RK_RACK_SIZE || f->failed) return;
    /* the next task this position can serve; tasks it cannot are passed over */
    for (int tries = 0; tries < 4 && f->next < f->stop; tries++) {
        Rack r;
        uint32_t idx = task_rack(f->t, f->next++);
        if (racktable_rack_at(f->w->racks, idx, &r) != 0) {
            rk_error(f->err, "forced rack %u is not in the rack table", idx);
            f->failed = 1;
            return;
        }
        if (!drawable(g, &r)) continue;
        rack_accum_add(f->w->acc, idx, best_static_equity(f->w->play, g, &r));
        f->w->totals.forced_observations++;
        return;
    }
}

int generation_play_forced(GenerationWorker *w, uint64_t game_index, const ForcedTasks *t, uint64_t first,
                           uint64_t count, RkError *err) {
    if (t->n == 0 || count == 0) return 0;
    Forced f = {.w = w, .t = t, .next = first, .stop = first + count, .failed = 0, .err = err};
    if (f.stop > t->total) f.stop = t->total;
    selfplay_game(w->play, game_index, w->game, NULL, observe_forced, &f);
    if (f.failed) return -1;
    w->totals.forced_games++;
    return 0;
}

/* ---------------------------------------------------------------- held-out games */

typedef struct Heldout {
    const SelfplayConfig *play;
    const Spv *eval;
    double k;
    GameResiduals *res;
    PositionalValues pv;
} Heldout;

static void observe_heldout(const Game *g, const Move *m, void *vctx) {
    Heldout *h = vctx;
    if (g->bag.count == 0 || m->kind != MOVE_PLACE) {
        residuals_record(h->res, g, m, 0, 0); /* only a reply */
        return;
    }
    int32_t adjust = 0;
    const PositionalValues *pv = spv_prepare_for_game(h->eval, h->k, g, &h->pv);
    if (pv != NULL) adjust = spv_move_adjust(pv, &g->board, m);
    residuals_record(h->res, g, m, kept_value(h->play, g, m), adjust);
}

void generation_play_heldout(const SelfplayConfig *play, const Spv *eval, double k, ResidualTarget target,
                             uint64_t index, Game *scratch, GameResiduals *res, ResidualStats *st) {
    Heldout h = {.play = play, .eval = eval, .k = k, .res = res};
    residuals_begin(res, target, eval ? (int)eval->num_openness : 0, 1,
                    eval ? (int)eval->num_buckets : SPV_DEFAULT_BUCKETS);
    selfplay_game(play, index, scratch, NULL, observe_heldout, &h);
    residuals_finish(res, scratch, NULL, st);
}
