/* rack_inference.c - the opponent's kept tiles from their last move (see rack_inference.h). */
#include "rack_inference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "eval/klv.h"

void infer_config_defaults(InferConfig *c) {
    memset(c, 0, sizeof *c);
    c->model = INFER_WINDOW;
    c->tau = 5.0;
    c->top_k = 8;
    c->max_enumerate = 20000;
    c->samples = 2000;
    c->seed = 1;
}

void infer_decision_config(InferConfig *c, double tau, uint64_t seed, LeaveValueFn leave_value,
                           const void *leave_ctx) {
    infer_config_defaults(c);
    c->tau = tau;
    c->max_enumerate = 2000;
    c->samples = 500;
    c->seed = seed;
    c->leave_value = leave_value;
    c->leave_ctx = leave_ctx;
}

void infer_result_init(InferResult *r) { memset(r, 0, sizeof *r); }

void infer_result_free(InferResult *r) {
    free(r->leaves);
    memset(r, 0, sizeof *r);
}

/* What one inference works with. */
typedef struct Infer {
    const InferConfig *cfg;
    const Move *m;
    bool unknown_tiles;
    Game *probe;     /* `before` with the candidate rack on turn */
    bool prior_only; /* weigh by the prior alone (the model explains no rack) */
    Rack taken;      /* T: the tiles the move takes from the rack */
    Rack pool;       /* U - T */
    int k;           /* leave size */
    MoveList list;   /* scratch of the softmax */
    InferResult *out;
} Infer;

static int add_leave(InferResult *r, const Rack *leave, const Rack *thrown, double w) {
    if (r->count == r->cap) {
        int cap = r->cap > 0 ? r->cap * 2 : 256;
        InferLeave *l = realloc(r->leaves, (size_t)cap * sizeof *l);
        if (l == NULL) return -1;
        r->leaves = l;
        r->cap = cap;
    }
    r->leaves[r->count++] = (InferLeave){.leave = *leave, .thrown = *thrown, .prob = w};
    return 0;
}

/* The best leave value of keeping `keep` tiles of rack (an exchange of the
 * others), over every sub-multiset of that size; the kept tiles into *kept
 * if not NULL. */
static int32_t best_exchange(const Infer *in, const Rack *rack, int keep, Rack *kept) {
    int32_t best = INT32_MIN;
    Rack sub;
    rack_clear(&sub);
    int ml_of[RK_RACK_SIZE], n = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int c = 0; c < rack->count[ml]; c++) ml_of[n++] = ml;
    /* subsets of positions, kept only in the canonical form (equal tiles taken left first) */
    for (int mask = 0; mask < (1 << n); mask++) {
        if (__builtin_popcount((unsigned)mask) != keep) continue;
        bool canon = true;
        for (int i = 1; i < n && canon; i++)
            if (ml_of[i] == ml_of[i - 1] && (mask >> i & 1) && !(mask >> (i - 1) & 1)) canon = false;
        if (!canon) continue;
        rack_clear(&sub);
        for (int i = 0; i < n; i++)
            if (mask >> i & 1) rack_add(&sub, (uint8_t)ml_of[i]);
        int32_t v = in->cfg->leave_value != NULL ? in->cfg->leave_value(in->cfg->leave_ctx, &sub) : 0;
        if (v > best) {
            best = v;
            if (kept != NULL) *kept = sub;
        }
    }
    return best;
}

/* P(m | rack on turn in the probe) under the model. */
static double likelihood(Infer *in) {
    const InferConfig *cfg = in->cfg;
    if (in->m->kind == MOVE_PASS || in->prior_only) return 1.0;
    MoveGenRequest req;
    movegen_request_for_game(&req, in->probe);
    klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
    const Rack *rack = &in->probe->racks[in->probe->on_turn];
    int32_t eq_m = in->m->kind == MOVE_EXCHANGE && in->unknown_tiles
                       ? (req.exchanges_allowed ? best_exchange(in, rack, rack->total - in->m->ntiles, NULL) : INT32_MIN)
                       : movegen_move_equity(&req, in->m);
    if (eq_m == INT32_MIN) return 0.0;
    if (cfg->model == INFER_WINDOW) { /* in the window unless some move beats eq(m) + tau */
        double floor_eq = floor((double)eq_m + cfg->tau * 1000.0);
        return floor_eq >= INT32_MAX || !movegen_beats(&req, (int32_t)floor_eq) ? 1.0 : 0.0;
    }
    if (cfg->model == INFER_TOPK) {
        movegen_top(&req, cfg->top_k, move_compare_equity, &in->list);
        return in->list.count > 0 && eq_m >= in->list.moves[in->list.count - 1].equity ? 1.0 : 0.0;
    }
    movegen_all(&req, &in->list);
    double top = -INFINITY, sum = 0.0;
    for (size_t i = 0; i < in->list.count; i++)
        if (in->list.moves[i].kind != MOVE_PASS && in->list.moves[i].equity > top) top = in->list.moves[i].equity;
    for (size_t i = 0; i < in->list.count; i++)
        if (in->list.moves[i].kind != MOVE_PASS) sum += exp((in->list.moves[i].equity - top) / (1000.0 * cfg->tau));
    return sum > 0.0 ? exp((eq_m - top) / (1000.0 * cfg->tau)) / sum : 0.0;
}

/* Puts rack T + leave on turn in the probe and weighs it; what the player
 * kept into *kept (the leave, or for ex.N the rack's best kept tiles) and
 * what an exchange threw back into *thrown (the rack less *kept; else empty). */
static double weigh(Infer *in, const Rack *leave, Rack *kept, Rack *thrown) {
    Rack *rack = &in->probe->racks[in->probe->on_turn];
    *rack = in->taken;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int c = 0; c < leave->count[ml]; c++) rack_add(rack, (uint8_t)ml);
    in->out->racks++;
    double l = likelihood(in);
    if (l > 0.0) in->out->consistent++;
    *kept = *leave;
    rack_clear(thrown);
    if (in->m->kind == MOVE_EXCHANGE) {
        if (in->unknown_tiles) best_exchange(in, rack, rack->total - in->m->ntiles, kept);
        *thrown = *rack;
        rack_sub(thrown, kept);
    }
    return l;
}

static double choose(int n, int k) {
    double c = 1.0;
    for (int i = 0; i < k; i++) c = c * (n - i) / (i + 1);
    return c;
}

/* The number of distinct leaves of k tiles of the pool, from letter ml on
 * (capped at cap + 1). */
static uint64_t count_leaves(const Rack *pool, int ml, int k, uint64_t cap) {
    if (k == 0) return 1;
    if (ml >= RK_MAX_LETTERS) return 0;
    uint64_t n = 0;
    for (int c = 0; c <= pool->count[ml] && c <= k && n <= cap; c++) n += count_leaves(pool, ml + 1, k - c, cap);
    return n;
}

/* Every leave, weighed by prior x likelihood: the prior of leave L is the
 * number of ways the whole rack T + L is dealt from U, prod_x C(U[x], T[x] +
 * L[x]), which is prod_x C((U - T)[x], L[x]) / C(T[x] + L[x], T[x]) times a
 * constant (the uniform deal of L from U - T is not it: after an E is
 * played, a kept E is half as likely as that deal says). */
static int enumerate(Infer *in, int ml, int k, Rack *leave, double prior) {
    if (k == 0) {
        Rack kept, thrown;
        double w = prior * weigh(in, leave, &kept, &thrown);
        return w > 0.0 ? add_leave(in->out, &kept, &thrown, w) : 0;
    }
    if (ml >= RK_MAX_LETTERS) return 0;
    for (int c = 0; c <= in->pool.count[ml] && c <= k; c++) {
        leave->count[ml] = (uint8_t)c;
        leave->total += c;
        int t = in->taken.count[ml]; /* C(U, T + c) / C(U, T): 1 for c = 0, so letters not reached count alike */
        int rc = enumerate(in, ml + 1, k - c, leave, prior * choose(in->pool.count[ml], c) / choose(t + c, t));
        leave->total -= c;
        leave->count[ml] = 0;
        if (rc != 0) return rc;
    }
    return 0;
}

static int cmp_rack(const void *a, const void *b) {
    return memcmp(((const InferLeave *)a)->leave.count, ((const InferLeave *)b)->leave.count, RK_MAX_LETTERS);
}

/* By leave, then by thrown tiles: a total order on distinct racks weighed. */
static int cmp_rack_thrown(const void *a, const void *b) {
    int c = cmp_rack(a, b);
    return c != 0 ? c
                  : memcmp(((const InferLeave *)a)->thrown.count, ((const InferLeave *)b)->thrown.count, RK_MAX_LETTERS);
}

/* prod_x C(T[x] + L[x], T[x]): the prior over the proposal of sample(). */
static double repeat_factor(const Rack *taken, const Rack *leave) {
    double f = 1.0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        if (taken->count[ml] > 0 && leave->count[ml] > 0)
            f *= choose(taken->count[ml] + leave->count[ml], taken->count[ml]);
    return f;
}

/* cfg->samples leaves drawn uniformly from U - T (k tiles without
 * replacement: C((U - T)[x], L[x]) ways), each weighed by its likelihood
 * over repeat_factor (the prior's ratio to that proposal, up to a constant);
 * the same leave drawn more than once adds up. */
static int sample(Infer *in) {
    uint8_t t[RK_MAX_BAG + RK_RACK_SIZE];
    int n = 0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        for (int c = 0; c < in->pool.count[ml]; c++) t[n++] = (uint8_t)ml;
    Rng r;
    rng_seed_stream(&r, in->cfg->seed, 0x696e666572 /* "infer" */, 0);
    for (uint64_t s = 0; s < in->cfg->samples; s++) {
        Rack leave;
        rack_clear(&leave);
        for (int i = 0; i < in->k; i++) { /* a partial Fisher-Yates: k tiles without replacement */
            int j = i + (int)rng_below(&r, (uint64_t)(n - i));
            uint8_t x = t[i];
            t[i] = t[j];
            t[j] = x;
            rack_add(&leave, t[i]);
        }
        Rack kept, thrown;
        double w = weigh(in, &leave, &kept, &thrown) / repeat_factor(&in->taken, &leave);
        if (w > 0.0 && add_leave(in->out, &kept, &thrown, w) != 0) return -1;
    }
    return 0;
}

/* Adds up the weights of equal leaves (a leave drawn twice, or racks that
 * keep the same tiles), keeping the thrown tiles of the heaviest of them
 * (ties: the first in cmp_rack_thrown order, so the result does not depend
 * on qsort). */
static void merge_repeats(InferResult *o) {
    qsort(o->leaves, (size_t)o->count, sizeof *o->leaves, cmp_rack_thrown);
    int w = 0;
    double heaviest = 0.0;
    for (int i = 0; i < o->count; i++) {
        if (w > 0 && cmp_rack(&o->leaves[w - 1], &o->leaves[i]) == 0) {
            if (o->leaves[i].prob > heaviest) {
                heaviest = o->leaves[i].prob;
                o->leaves[w - 1].thrown = o->leaves[i].thrown;
            }
            o->leaves[w - 1].prob += o->leaves[i].prob;
        } else {
            heaviest = o->leaves[i].prob;
            o->leaves[w++] = o->leaves[i];
        }
    }
    o->count = w;
}

static int by_prob(const void *a, const void *b) {
    const InferLeave *x = a, *y = b;
    if (x->prob != y->prob) return x->prob > y->prob ? -1 : 1;
    return cmp_rack(a, b);
}

/* T, checked against what the player could hold; 0 or -1 with err set. */
static int move_tiles(Infer *in, const Game *before, const Rack *unseen, RkError *err) {
    const Move *m = in->m;
    if (m->kind == MOVE_EXCHANGE && in->unknown_tiles)
        rack_clear(&in->taken); /* ex.N: which tiles is what is inferred */
    else
        move_rack_tiles(m, &in->taken);
    int held = unseen->total < RK_RACK_SIZE ? unseen->total : RK_RACK_SIZE;
    int used = m->kind == MOVE_EXCHANGE ? m->ntiles : in->taken.total;
    if (used > held) return rk_error(err, "infer: the move uses %d tiles, the player held %d", used, held);
    in->pool = *unseen;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) {
        if (in->taken.count[ml] > in->pool.count[ml]) {
            char t[8];
            ld_tile_label(before->ld, (uint8_t)ml, t, sizeof t);
            return rk_error(err, "infer: the move plays %d %s, only %d unseen", in->taken.count[ml], t,
                            in->pool.count[ml]);
        }
        in->pool.count[ml] -= in->taken.count[ml];
        in->pool.total -= in->taken.count[ml];
    }
    in->k = held - in->taken.total; /* ex.N: the whole rack is weighed, its best kept tiles recorded */
    /* before's bag holds the mover's rack too: the bag they saw is |U| - held */
    if (m->kind == MOVE_EXCHANGE && !exchange_allowed(unseen->total - held, before->racks[1 - before->on_turn].total))
        return rk_error(err, "infer: an exchange needs at least %d tiles in the bag, it held %d", RK_RACK_SIZE,
                        unseen->total - held);
    if (m->kind == MOVE_PLACE) {
        Move legal = *m;
        Game *probe = in->probe;
        probe->racks[probe->on_turn] = in->taken;
        if (!movegen_find(probe, &legal)) {
            char t[64];
            move_to_string(m, &before->board, before->ld, t, sizeof t);
            return rk_error(err, "infer: %s is not a legal play on this board", t);
        }
        probe->racks[probe->on_turn] = before->racks[before->on_turn];
    }
    return 0;
}

int infer_run(const Game *before, const Move *m, bool unknown_tiles, const InferConfig *cfg, InferResult *out,
              RkError *err) {
    double t0 = rk_seconds();
    infer_result_free(out);
    if (!(cfg->tau > 0.0) || cfg->samples < 1)
        return rk_error(err, "infer: tau %g and samples %llu: tau must be > 0 and samples >= 1", cfg->tau,
                        (unsigned long long)cfg->samples);
    if (cfg->model == INFER_TOPK && (cfg->top_k < 1 || cfg->top_k > MOVEGEN_TOP_MAX))
        return rk_error(err, "infer: top_k %d, expected 1..%d", cfg->top_k, MOVEGEN_TOP_MAX);
    if (game_over(before)) return rk_error(err, "infer: the game is over");
    Infer in = {.cfg = cfg, .m = m, .unknown_tiles = unknown_tiles, .out = out};
    in.probe = malloc(sizeof *in.probe);
    if (in.probe == NULL) return rk_error(err, "infer: out of memory");
    *in.probe = *before;
    Rack unseen; /* what the mover could hold: the bag and their rack */
    bag_plus_rack(&before->bag, &before->racks[before->on_turn], &unseen);
    int rc = move_tiles(&in, before, &unseen, err);
    if (rc == 0) { /* the bag as the probe needs it: its count (the tiles the player did not hold) */
        int held = unseen.total < RK_RACK_SIZE ? unseen.total : RK_RACK_SIZE;
        in.probe->bag.count = unseen.total - held;
        movelist_init(&in.list);
        out->leave_size = m->kind == MOVE_EXCHANGE && unknown_tiles ? held - m->ntiles : in.k;
        Rack leave;
        rack_clear(&leave);
        if (out->leave_size == 0) { /* nothing kept: nothing to infer (a known exchange threw its tiles) */
            out->exact = true;
            Rack thrown = in.taken;
            if (m->kind != MOVE_EXCHANGE) rack_clear(&thrown);
            rc = add_leave(out, &leave, &thrown, 1.0);
        } else {
            out->exact = count_leaves(&in.pool, 0, in.k, cfg->max_enumerate) <= cfg->max_enumerate;
            rc = out->exact ? enumerate(&in, 0, in.k, &leave, 1.0) : sample(&in);
            if (rc == 0 && out->count == 0) { /* a legal move the model explains for no rack: the prior */
                in.prior_only = out->prior_only = true;
                out->racks = out->consistent = 0; /* the counts of this second weighing, the one kept */
                rc = out->exact ? enumerate(&in, 0, in.k, &leave, 1.0) : sample(&in);
            }
        }
        if (rc == 0) merge_repeats(out);
        movelist_free(&in.list);
        if (rc != 0) rk_error(err, "infer: out of memory");
    }
    free(in.probe);
    if (rc != 0) {
        infer_result_free(out);
        return -1;
    }
    double total = 0.0;
    for (int i = 0; i < out->count; i++) total += out->leaves[i].prob;
    for (int i = 0; i < out->count; i++) out->leaves[i].prob /= total;
    qsort(out->leaves, (size_t)out->count, sizeof *out->leaves, by_prob);
    out->seconds = rk_seconds() - t0;
    return 0;
}

const InferLeave *infer_draw(const InferResult *r, Rng *rng) {
    double u = (double)(rng_next(rng) >> 11) * (1.0 / 9007199254740992.0), acc = 0.0;
    for (int i = 0; i < r->count; i++) {
        acc += r->leaves[i].prob;
        if (u < acc) return &r->leaves[i];
    }
    return &r->leaves[r->count - 1];
}

void infer_deal_world(const InferResult *r, Game *w, Rng *rng) {
    const InferLeave *l = infer_draw(r, rng);
    game_deal_hidden_out(w, &l->leave, &l->thrown, rng);
}

int infer_last_move(const Game *g, const InferConfig *cfg, InferResult *out) {
    /* a pass's posterior is the prior, which is the uniform deal: dealt afresh in every world */
    if (g->bag.count == 0 || !g->has_last || g->last.kind == MOVE_PASS) return 0;
    Game *before = malloc(sizeof *before);
    if (before == NULL) return 0;
    RkError err;
    int rc = game_before_last(g, before) &&
             infer_run(before, &g->last, g->last.kind == MOVE_EXCHANGE, cfg, out, &err) == 0;
    free(before);
    return rc;
}

int infer_check_fits(const Game *root, const InferResult *r, RkError *err) {
    if (r->count < 1) return rk_error(err, "the inference lists no leave");
    Rack unseen;
    game_unseen(root, &unseen);
    int hidden = root->racks[1 - root->on_turn].total;
    for (int i = 0; i < r->count; i++) {
        char t[32];
        rack_to_string(&r->leaves[i].leave, root->ld, t, sizeof t);
        if (r->leaves[i].leave.total > hidden)
            return rk_error(err, "the inferred leave %s holds more tiles than the opponent (%d)", t, hidden);
        for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
            if (r->leaves[i].leave.count[ml] + r->leaves[i].thrown.count[ml] > unseen.count[ml])
                return rk_error(err, "the inferred leave %s does not fit this position (its tiles are not unseen)", t);
    }
    return 0;
}
