/* mcgs.c - the graph search driver: worlds, descents, leaf evaluation in
 * batches, backups and the move chosen (see mcgs.h). */
#include "mcgs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/position.h"
#include "search/rack_inference.h"
#include "search/workpool.h"
#include "search/infoset.h"
#include "search/sim.h"
#include "eval/klv.h"

#define STREAM_WORLD 0
#define STREAM_DRAWS 1
#define STREAM_CHOOSE UINT64_C(0x63686f6f7365)
#define ROOT_WORLD UINT64_MAX

typedef struct McgsStep {
    uint32_t node, edge, outcome; /* outcome 0: the move ended the game */
} McgsStep;

/* A position's best moves by static equity, from the features' move
 * generation (with a net and candidates_by equity or mix). */
typedef struct StaticCandidates {
    int n;
    PackedMove move[MCGS_MAX_CANDIDATES];
    int32_t score[MCGS_MAX_CANDIDATES];
    double equity[MCGS_MAX_CANDIDATES]; /* points */
} StaticCandidates;

struct McgsPending {
    Game game;        /* the playout's world at the leaf */
    uint64_t world;   /* its number (deal_world) */
    uint32_t leaf;
    int len;
    double terminal;  /* with a final step of outcome 0 */
    McgsStep path[MCGS_MAX_DEPTH];
    StaticCandidates stat; /* with a net and candidates_by equity or mix */
};

void mcgs_config_defaults(McgsConfig *c) {
    memset(c, 0, sizeof *c);
    c->visits = 400;
    c->candidates = 16;
    c->cpuct = 40.0;
    c->fpu = 10.0;
    c->rollout = 2;
    win_value_defaults(&c->win);
    c->prior = MCGS_PRIOR_UNIFORM;
    c->prior_temperature = 10.0;
    c->crn = true;
    c->batch = 1;
    c->threads = 1;
    c->vloss = 20.0;
    c->seed = 1;
}

int mcgs_config_check(const McgsConfig *c, RkError *err) {
    if (c->visits < 1) return rk_error(err, "mcgs: visits must be at least 1 (a search budget of zero)");
    if (c->candidates < 1 || c->candidates > MCGS_MAX_CANDIDATES)
        return rk_error(err, "mcgs: candidates %d, expected 1..%d", c->candidates, MCGS_MAX_CANDIDATES);
    if (!(c->cpuct >= 0.0) || !isfinite(c->cpuct)) return rk_error(err, "mcgs: cpuct must be a number >= 0");
    if (!(c->puct_floor >= 0.0) || !(c->puct_floor <= 1.0))
        return rk_error(err, "mcgs: floor must be in [0, 1] (0 = the classic 1 + N)");
    if (!isfinite(c->fpu) || !isfinite(c->vloss) || !isfinite(c->win.bonus) || c->vloss < 0.0 || c->win.bonus < 0.0)
        return rk_error(err, "mcgs: fpu, vloss and win_bonus must be finite (vloss, win_bonus >= 0)");
    if (winprob_check(&c->win.model, err) != 0) return -1;
    if (c->rollout < 0 || c->rollout > 100) return rk_error(err, "mcgs: rollout %d, expected 0..100", c->rollout);
    if (!(c->value_mix >= 0.0) || !(c->value_mix <= 1.0))
        return rk_error(err, "mcgs: value_mix must be in [0, 1] (V's share of a leaf's value)");
    if (c->value_mix > 0.0 && (c->net == NULL || c->rollout == 0))
        return rk_error(err, "mcgs: value_mix mixes the net's V with rollouts: it needs a net and rollout >= 1");
    if (c->threads < 1 || c->threads > MCGS_MAX_THREADS)
        return rk_error(err, "mcgs: threads %d, expected 1..%d", c->threads, MCGS_MAX_THREADS);
    if (c->batch < 1 || c->batch > MCGS_MAX_BATCH)
        return rk_error(err, "mcgs: batch %d, expected 1..%d", c->batch, MCGS_MAX_BATCH);
    if (!(c->prior_temperature > 0.0) || !isfinite(c->prior_temperature))
        return rk_error(err, "mcgs: the prior temperature must be > 0");
    if (!(c->temperature >= 0.0) || !isfinite(c->temperature) || c->temperature_moves < 0)
        return rk_error(err, "mcgs: temperature must be >= 0 and temperature_moves >= 0");
    if (c->net == NULL) {
        if (c->rollout == 0) return rk_error(err, "mcgs: without a net, leaf nodes are valued by rollouts: rollout >= 1");
        if (c->hidden == MCGS_HIDDEN_NET) return rk_error(err, "mcgs: hidden=net (H sampling) needs a net");
        if (c->candidates_by == MCGS_CANDIDATES_PRIOR || c->candidates_by == MCGS_CANDIDATES_MIX)
            return rk_error(err, "mcgs: candidates_by=prior or mix needs a net (P ranks the moves)");
    } else if (c->prior == MCGS_PRIOR_EQUITY && c->candidates_by != MCGS_CANDIDATES_EQUITY) {
        return rk_error(err, "mcgs: prior=equity with a net needs candidates_by=equity (the prior needs every "
                             "candidate's static equity)");
    }
    if (c->crn && c->worlds > 0)
        return rk_error(err, "mcgs: crn and worlds are two ways of choosing a playout's world: give one");
    return 0;
}

int mcgs_search_init(McgsSearch *s, const McgsConfig *cfg, RkError *err) {
    memset(s, 0, sizeof *s);
    if (mcgs_config_check(cfg, err) != 0) return -1;
    s->cfg = *cfg;
    if (mcgs_graph_init(&s->graph, err) != 0) return -1;
    s->pending = malloc((size_t)cfg->batch * sizeof *s->pending);
    s->reply_world = malloc(sizeof *s->reply_world);
    if (s->pending == NULL || s->reply_world == NULL) {
        free(s->pending);
        free(s->reply_world);
        mcgs_graph_free(&s->graph);
        return rk_error(err, "mcgs: out of memory");
    }
    movelist_init(&s->scratch);
    if (cfg->threads > 1 && (s->pool = workpool_open(cfg->threads, err)) == NULL) {
        mcgs_search_free(s);
        return -1;
    }
    return 0;
}

void mcgs_search_free(McgsSearch *s) {
    if (s->nn_ready) {
        nn_batch_free(&s->leaf_batch);
        nn_batch_free(&s->root_batch);
        nn_batch_free(&s->side_batch);
        nn_batch_free(&s->after);
    }
    workpool_close(s->pool);
    mcgs_graph_free(&s->graph);
    movelist_free(&s->scratch);
    free(s->pending);
    free(s->reply_world);
    memset(s, 0, sizeof *s);
}

/* Network scratch, set up at the first search (the game gives the layout
 * and lexicon). */
static int nn_prepare(McgsSearch *s, const Game *g, RkError *err) {
    if (s->cfg.net == NULL) return 0;
    if (s->nn_ready) { /* this search's leaf nodes (a player's may change between decisions) */
        nn_feature_context_leaves(&s->fc, s->cfg.leave_value, s->cfg.leave_ctx);
        return 0;
    }
    nn_feature_context(&s->fc, g->ld, g->layout, g->kwg);
    nn_feature_context_leaves(&s->fc, s->cfg.leave_value, s->cfg.leave_ctx); /* for a net whose prior needs them */
    if (nn_batch_init(&s->leaf_batch, s->cfg.net, &s->fc, s->cfg.batch, err) != 0) return -1;
    if (nn_batch_init(&s->root_batch, s->cfg.net, &s->fc, 1, err) != 0) {
        nn_batch_free(&s->leaf_batch);
        return -1;
    }
    if (nn_batch_init(&s->side_batch, s->cfg.net, &s->fc, 1, err) != 0) {
        nn_batch_free(&s->leaf_batch);
        nn_batch_free(&s->root_batch);
        return -1;
    }
    if (nn_batch_init(&s->after, s->cfg.net, &s->fc, s->cfg.batch, err) != 0) {
        nn_batch_free(&s->leaf_batch);
        nn_batch_free(&s->root_batch);
        nn_batch_free(&s->side_batch);
        return -1;
    }
    s->nn_ready = true;
    return 0;
}

/* A node's key: its information set, and the opponent's last move when the
 * net reads it (feature version 3: its P and V differ with that move). */
static McgsKey node_key(const McgsSearch *s, const Game *g) {
    return s->cfg.net != NULL && s->cfg.net->fs.version >= 3 ? infoset_key_with_last(g) : infoset_key(g);
}

/* ------------------------------------------------------------------ worlds */

/* The leave H samples for the player not on turn in the position of slot 0
 * of batch b (after its trunk), or the empty leave if their leave size is
 * unknown or the sampling fails. */
static void hidden_leave(const McgsSearch *s, NnBatch *b, const Game *w, Rng *r, Rack *leave) {
    rack_clear(leave);
    int hidden = 1 - w->on_turn, size = w->kept[hidden];
    if (size <= 0 || size > w->racks[hidden].total) return;
    if (nn_hidden_sample(s->cfg.net, b, 0, size, r, leave) != 0) rack_clear(leave);
}

/* Playout i's world: the opponent's rack and the bag from the root
 * player's information, and the playout's own stream for the draws. */
static void deal_world(McgsSearch *s, const Game *root, uint64_t i, Game *w) {
    if (s->cfg.worlds > 0 && i != ROOT_WORLD) i %= s->cfg.worlds;
    Rng r;
    rng_seed_stream(&r, s->cfg.seed, i, STREAM_WORLD);
    *w = *root;
    Rack leave;
    rack_clear(&leave);
    if (s->cfg.infer != NULL && root->bag.count > 0) {
        infer_deal_world(s->cfg.infer, w, &r);
    } else {
        if (s->cfg.hidden == MCGS_HIDDEN_NET && root->bag.count > 0) hidden_leave(s, &s->root_batch, root, &r, &leave);
        game_deal_hidden(w, &leave, &r);
    }
    rng_seed_stream(&w->rng, s->cfg.seed, i, STREAM_DRAWS);
}

void mcgs_deal_world(McgsSearch *s, const Game *root, uint64_t i, Game *w) { deal_world(s, root, i, w); }

/* -------------------------------------------------------------- evaluation */

/* A static rollout from g (modified), valued for the player on turn
 * (sim_static_rollout): `rollout` moves, or to the end once the bag is
 * empty. `first` is the first move if known. */
static double rollout_value(const McgsSearch *s, Game *g, const Move *first) {
    const McgsConfig *c = &s->cfg;
    int moves = g->bag.count > 0 ? c->rollout : 4 * GAME_MAX_SCORELESS * RK_RACK_SIZE;
    return sim_static_rollout(g, moves, first, c->leave_value, c->leave_ctx, &c->win);
}

/* The k best moves of ml in movegen_compare order into best[0..k) (indices;
 * k <= MCGS_MAX_CANDIDATES): one pass with an insertion into a short sorted
 * list, instead of sorting the ~1,000 moves of a position. */
static int top_moves(const MoveList *ml, int k, int *best) {
    int n = 0;
    for (size_t i = 0; i < ml->count; i++) {
        const Move *m = &ml->moves[i];
        if (n == k && movegen_compare(m, &ml->moves[best[n - 1]]) >= 0) continue;
        int at = n < k ? n++ : n - 1;
        while (at > 0 && movegen_compare(m, &ml->moves[best[at - 1]]) < 0) {
            best[at] = best[at - 1];
            at--;
        }
        best[at] = (int)i;
    }
    return n;
}

/* Lazy expansion (mcgs.h): unless expand=first. */
static bool expand_lazily(const McgsConfig *c) { return c->expand != MCGS_EXPAND_FIRST; }

/* Gives node its K best static moves in world w (any world reaching it:
 * the moves depend only on the board and the mover's rack) and makes it
 * READY; *first is the best. Returns -1 when out of memory. */
static int expand_static(McgsSearch *s, uint32_t node, const Game *w, Move *first) {
    const McgsConfig *c = &s->cfg;
    MoveGenRequest req;
    movegen_request_for_game(&req, w);
    klv_request_leaves(&req, c->leave_value, c->leave_ctx);
    int k = (int)movegen_top(&req, c->candidates, movegen_compare, &s->scratch);
    if (mcgs_graph_add_edges(&s->graph, node, (uint32_t)k) == 0) return -1;
    McgsNode *nd = &s->graph.nodes[node];
    double top = s->scratch.moves[0].equity / 1000.0, sum = 0.0;
    for (int a = 0; a < k; a++) {
        const Move *m = &s->scratch.moves[a];
        McgsEdge *e = &s->graph.edges[nd->first_edge + a];
        packed_from_move(&e->move, m, &w->board);
        e->reward = m->score;
        double pr = c->prior == MCGS_PRIOR_EQUITY ? exp((m->equity / 1000.0 - top) / c->prior_temperature) : 1.0;
        e->prior = (float)pr;
        sum += pr;
    }
    for (int a = 0; a < k; a++) s->graph.edges[nd->first_edge + a].prior /= (float)sum;
    *first = s->scratch.moves[0];
    nd->state = MCGS_NODE_READY;
    return 0;
}


/* The rollouts of a round's leaf nodes, on the pool's threads: each reads only
 * its own pending world and writes only its own value. */
typedef struct LeafRollouts {
    const McgsSearch *s;
    McgsPending *pending;
    const Move *first; /* [n] the first moves, or NULL: movegen_best's */
    double *value;     /* [n] */
} LeafRollouts;

static void leaf_rollout(void *ctx, int thread, int j) {
    (void)thread;
    LeafRollouts *lr = ctx;
    lr->value[j] = rollout_value(lr->s, &lr->pending[j].game, lr->first != NULL ? &lr->first[j] : NULL);
}

static void rollouts(McgsSearch *s, McgsPending *pending, int n, const Move *first, double *value) {
    LeafRollouts lr = {.s = s, .pending = pending, .first = first, .value = value};
    if (s->pool == NULL || n == 1) {
        for (int j = 0; j < n; j++) leaf_rollout(&lr, 0, j);
        return;
    }
    workpool_run(s->pool, n, leaf_rollout, &lr);
}

/* Evaluates and expands the leaf nodes of pending[0..n) without a net: each
 * gets its K best static moves, and a rollout whose first move is the best
 * of them (the expansions one after another: they grow the graph). */
static int evaluate_static(McgsSearch *s, int n) {
    Move first[MCGS_MAX_BATCH];
    double value[MCGS_MAX_BATCH];
    memset(first, 0, (size_t)n * sizeof first[0]); /* (every one is set below; the compiler cannot tell) */
    for (int j = 0; j < n; j++)
        if (expand_static(s, s->pending[j].leaf, &s->pending[j].game, &first[j]) != 0) return -1;
    rollouts(s, s->pending, n, first, value); /* the leaf nodes' worlds are not needed after this */
    for (int j = 0; j < n; j++) {
        McgsNode *nd = &s->graph.nodes[s->pending[j].leaf];
        nd->u = nd->q = value[j];
    }
    return 0;
}

/* Slot j's candidates by static equity (kept by net_prepare from the
 * features' move generation): their moves, scores and log P (after
 * nn_forward_submoves), appended to the arrays from n. `idx` gets each one's
 * index in the legal list (-1 if P does not know it). Returns the new count. */
static int equity_candidates(const McgsSearch *s, NnBatch *b, int j, const StaticCandidates *sc, int n,
                             PackedMove *pm, int32_t *score, double *lp, int *idx) {
    const McgsConfig *c = &s->cfg;
    for (int a = 0; a < sc->n; a++, n++) {
        pm[n] = sc->move[a];
        score[n] = sc->score[a];
        idx[n] = nn_legal_find(&b->legal[j], &c->net->ps, &pm[n]);
        lp[n] = idx[n] >= 0 ? nn_policy_logprob(c->net, b, j, &pm[n]) : -INFINITY;
    }
    return n;
}

/* How many of a leaf's candidates come from static equity. */
static int static_share(const McgsConfig *c) {
    switch (c->candidates_by) {
    case MCGS_CANDIDATES_EQUITY:
        return c->candidates;
    case MCGS_CANDIDATES_MIX:
        return (c->candidates + 1) / 2;
    default:
        return 0;
    }
}

/* Slot j's K candidates (config candidates_by, mcgs.h): moves, scores and
 * log P, after nn_forward_submoves. Returns how many (0: no legal move). */
static int net_candidates(const McgsSearch *s, NnBatch *b, int j, const StaticCandidates *sc, PackedMove *pm,
                          int32_t *score, double *lp) {
    const McgsConfig *c = &s->cfg;
    const NnLegal *lg = &b->legal[j];
    int K = c->candidates, n = 0, idx[MCGS_MAX_CANDIDATES];
    if (static_share(c) > 0) n = equity_candidates(s, b, j, sc, 0, pm, score, lp, idx);
    if (c->candidates_by == MCGS_CANDIDATES_EQUITY) return n;
    int top[MCGS_MAX_CANDIDATES];
    double tlp[MCGS_MAX_CANDIDATES];
    int kp = nn_policy_top(c->net, b, j, K, top, tlp);
    for (int a = 0; a < kp && n < K; a++) {
        bool dup = false;
        for (int q = 0; q < n && !dup; q++) dup = idx[q] == top[a];
        if (dup) continue;
        pm[n] = lg->m[top[a]].pm;
        score[n] = lg->m[top[a]].score;
        lp[n] = tlp[a];
        idx[n++] = top[a];
    }
    return n;
}

/* Slot j of batch b gets position w (with the static ranking of its moves
 * into *sc when candidates_by takes some by equity: one move generation
 * gives the legal list and the ranking). */
static void net_prepare(McgsSearch *s, NnBatch *b, int j, const Game *w, StaticCandidates *sc) {
    const McgsConfig *c = &s->cfg;
    Position pos;
    position_from_game(&pos, w);
    int k_static = static_share(c);
    sc->n = 0;
    if (k_static == 0) {
        nn_batch_set(b, c->net, j, &pos);
        return;
    }
    NnMoveEquity eq = {c->leave_value, c->leave_ctx, rack_score(&w->racks[1 - w->on_turn], w->ld), 0};
    nn_batch_set_equity(b, c->net, j, &pos, &eq);
    int best[MCGS_MAX_CANDIDATES];
    sc->n = top_moves(&b->scratch, k_static, best);
    for (int a = 0; a < sc->n; a++) {
        const Move *mv = &b->scratch.moves[best[a]];
        packed_from_move(&sc->move[a], mv, &w->board);
        sc->score[a] = mv->score;
        sc->equity[a] = mv->equity / 1000.0;
    }
}

/* Node gets slot j's K candidates (after nn_forward_submoves) with their
 * priors: P renormalised over them, or with prior=equity (candidates by
 * equity) P x exp((equity - best) / prior_temperature). READY after. Returns -1 (no legal move, or out
 * of memory). */
static int net_expand(McgsSearch *s, NnBatch *b, int j, const StaticCandidates *sc, uint32_t node) {
    const McgsConfig *c = &s->cfg;
    PackedMove pm[MCGS_MAX_CANDIDATES];
    int32_t score[MCGS_MAX_CANDIDATES];
    double lp[MCGS_MAX_CANDIDATES], pr[MCGS_MAX_CANDIDATES];
    int k = net_candidates(s, b, j, sc, pm, score, lp);
    if (k <= 0 || mcgs_graph_add_edges(&s->graph, node, (uint32_t)k) == 0) return -1;
    double top = -INFINITY, low = INFINITY, sum = 0.0;
    for (int a = 0; a < k; a++) {
        top = lp[a] > top ? lp[a] : top;
        low = isfinite(lp[a]) && lp[a] < low ? lp[a] : low;
    }
    if (c->prior == MCGS_PRIOR_EQUITY) { /* candidates_by=equity: sc holds all k, best first */
        for (int a = 0; a < k; a++) {
            double logp = isfinite(lp[a]) ? lp[a] - top : isfinite(low) ? low - top : 0.0;
            double x = (sc->equity[a] - sc->equity[0]) / c->prior_temperature;
            pr[a] = exp(x + logp);
            sum += pr[a];
        }
    } else {
        for (int a = 0; a < k; a++) {
            pr[a] = isfinite(top) ? exp(lp[a] - top) : 1.0; /* P knows none: uniform */
            sum += pr[a];
        }
    }
    McgsNode *nd = &s->graph.nodes[node];
    for (int a = 0; a < k; a++) {
        McgsEdge *e = &s->graph.edges[nd->first_edge + a];
        e->move = pm[a];
        e->reward = score[a];
        e->prior = (float)pr[a] / (float)sum;
    }
    nd->state = MCGS_NODE_READY;
    return 0;
}

/* A node valued at its first visit, at its second: its candidates from one
 * network pass of its own (lazy expansion with a net; the position, hence
 * P, is the node's, whichever world reached it). */
static int expand_net_late(McgsSearch *s, uint32_t node, const Game *w, McgsResult *st) {
    StaticCandidates sc;
    net_prepare(s, &s->side_batch, 0, w, &sc);
    nn_forward_trunk(s->cfg.net, &s->side_batch, 1);
    nn_forward_submoves(s->cfg.net, &s->side_batch, 1);
    st->batches++;
    st->net_positions++;
    return net_expand(s, &s->side_batch, 0, &sc, node);
}

/* V's value of batch slot j (after nn_forward_value): the expected final
 * spread minus the current one (+ the win value), for the player on turn. */
static double net_value(const McgsConfig *c, const NnBatch *b, int j) {
    int spread = b->pos[j].score_self - b->pos[j].score_opp;
    return nn_value_spread(b, j) - spread + c->win.bonus * (2.0 * nn_value_win(b, j) - 1.0);
}

int mcgs_value_after_reply(const McgsConfig *c, const Game *w, Game *after, Move *reply, double *gain) {
    MoveGenRequest req;
    movegen_request_for_game(&req, w);
    klv_request_leaves(&req, c->leave_value, c->leave_ctx);
    movegen_best(&req, reply, NULL);
    *after = *w;
    int me = w->on_turn, before = w->scores[me] - w->scores[1 - me];
    game_play(after, reply);
    int spread = after->scores[me] - after->scores[1 - me];
    *gain = (double)(spread - before);
    if (!game_over(after)) return 1;
    *gain += win_value_final(&c->win, spread);
    return 0;
}

/* V's values of the leaf nodes of pending[0..n) below the root (VALUE AFTER THE
 * REPLY, mcgs.h), in one batch, into v[j]; reply[j] gets the leaf player's
 * reply (a rollout from the leaf can start with it). */
static void values_after_reply(McgsSearch *s, McgsPending *pending, int n, double *v, Move *reply, McgsResult *st) {
    const McgsConfig *c = &s->cfg;
    int slot[MCGS_MAX_BATCH], m = 0;
    Game *after = s->reply_world;
    for (int j = 0; j < n; j++) {
        slot[j] = -1;
        if (mcgs_value_after_reply(c, &pending[j].game, after, &reply[j], &v[j]) == 0) continue;
        Position pos;
        position_from_game(&pos, after);
        nn_batch_set(&s->after, c->net, m, &pos);
        slot[j] = m++;
    }
    if (m > 0) {
        nn_forward_trunk(c->net, &s->after, m);
        nn_forward_value(c->net, &s->after, m);
        st->batches++;
        st->net_positions += (uint64_t)m;
    }
    for (int j = 0; j < n; j++) /* the other player's expected gain from there is the leaf player's loss */
        if (slot[j] >= 0) v[j] -= net_value(c, &s->after, slot[j]);
}

/* Evaluates the leaf nodes of pending[0..n) with the net: with `expand`, their
 * K candidates (candidates_by) with P renormalised over them, from one
 * batch of their positions; their values: V (at the root, of the root's
 * position; below it, after the reply), a rollout, or (value_mix) both. */
static int evaluate_net(McgsSearch *s, McgsPending *pending, int n, bool expand, bool root, McgsResult *st) {
    const McgsConfig *c = &s->cfg;
    const NnModel *m = c->net;
    bool want_v = c->rollout == 0 || c->value_mix > 0.0;
    if (expand) {
        for (int j = 0; j < n; j++) net_prepare(s, &s->leaf_batch, j, &pending[j].game, &pending[j].stat);
        nn_forward_trunk(m, &s->leaf_batch, n);
        if (want_v && root) nn_forward_value(m, &s->leaf_batch, n);
        nn_forward_submoves(m, &s->leaf_batch, n);
        st->batches++;
        st->net_positions += (uint64_t)n;
        for (int j = 0; j < n; j++)
            if (net_expand(s, &s->leaf_batch, j, &pending[j].stat, pending[j].leaf) != 0) return -1;
    }
    double v[MCGS_MAX_BATCH];
    Move reply[MCGS_MAX_BATCH];
    bool after = want_v && !root; /* V after the reply (which a rollout then starts with) */
    if (after) {
        values_after_reply(s, pending, n, v, reply, st);
    } else if (want_v) {
        for (int j = 0; j < n; j++) v[j] = net_value(c, &s->leaf_batch, j);
    }
    /* the rollouts play on the leaf nodes' worlds, which are not needed after them. With an empty
     * bag a rollout goes to the end of the game: no mix */
    double roll[MCGS_MAX_BATCH];
    bool mix[MCGS_MAX_BATCH];
    if (c->rollout != 0) {
        for (int j = 0; j < n; j++) mix[j] = want_v && pending[j].game.bag.count > 0;
        rollouts(s, pending, n, after ? reply : NULL, roll);
    }
    for (int j = 0; j < n; j++) {
        McgsPending *p = &pending[j];
        McgsNode *nd = &s->graph.nodes[p->leaf];
        if (c->rollout == 0) nd->u = v[j];
        else nd->u = mix[j] ? (1.0 - c->value_mix) * roll[j] + c->value_mix * v[j] : roll[j];
        nd->q = nd->u;
        if (nd->state != MCGS_NODE_READY) nd->state = MCGS_NODE_VALUED;
    }
    return 0;
}

/* Evaluates the leaf nodes of pending[0..n): the root and, with expand=first,
 * every leaf gets its candidates at once; the others lazily (rollouts
 * without a net's V: no move generation, no network pass). */
static int evaluate_pending(McgsSearch *s, int n, bool root, McgsResult *st) {
    const McgsConfig *c = &s->cfg;
    st->evaluations += (uint64_t)n;
    bool expand = root || !expand_lazily(c);
    if (c->net != NULL && (expand || c->rollout == 0 || c->value_mix > 0.0))
        return evaluate_net(s, s->pending, n, expand, root, st);
    if (!expand) { /* the leaf nodes valued by their rollouts alone (their candidates come at a second visit) */
        double value[MCGS_MAX_BATCH];
        rollouts(s, s->pending, n, NULL, value);
        for (int j = 0; j < n; j++) {
            McgsNode *nd = &s->graph.nodes[s->pending[j].leaf];
            nd->u = nd->q = value[j];
            nd->state = MCGS_NODE_VALUED;
        }
        return 0;
    }
    return evaluate_static(s, n);
}

/* ------------------------------------------------------------ the search */

static uint32_t select_edge(const McgsSearch *s, uint32_t node) {
    const McgsConfig *c = &s->cfg;
    const McgsNode *nd = &s->graph.nodes[node];
    const McgsEdge *edges = &s->graph.edges[nd->first_edge];
    uint64_t total = nd->visits;
    for (uint32_t a = 0; a < nd->n_edges; a++) total += edges[a].inflight;
    double sq = sqrt(total > 0 ? (double)total : 1.0), fpu_q = nd->q - c->fpu, best_score = -INFINITY;
    uint32_t best = 0;
    for (uint32_t a = 0; a < nd->n_edges; a++) {
        const McgsEdge *e = &edges[a];
        double n = (double)e->visits + (double)e->inflight;
        double d = c->puct_floor > 0.0 ? fmax(c->puct_floor, n) : 1.0 + n;
        double score = mcgs_edge_select_q(e, fpu_q, c->vloss) + c->cpuct * e->prior * sq / d;
        if (score > best_score) {
            best_score = score;
            best = a;
        }
    }
    return nd->first_edge + best;
}

/* Undoes the in-flight marks of a dropped playout. */
static void drop_path(McgsSearch *s, const McgsPending *p) {
    for (int k = 0; k < p->len; k++) s->graph.edges[p->path[k].edge].inflight--;
}

static void backup(McgsSearch *s, const McgsPending *p) {
    McgsGraph *g = &s->graph;
    for (int k = p->len - 1; k >= 0; k--) {
        const McgsStep *st = &p->path[k];
        McgsEdge *e = &g->edges[st->edge];
        e->inflight--;
        e->visits++;
        if (st->outcome != 0) {
            g->outcomes[st->outcome].visits++;
        } else {
            e->terminal_visits++;
            e->terminal_sum += p->terminal;
        }
        mcgs_edge_recompute(g, st->edge);
        mcgs_node_recompute(g, st->node);
    }
}

typedef enum { DESCENT_QUEUED, DESCENT_DONE, DESCENT_COLLISION, DESCENT_NOMEM } Descent;

/* Playout `index`'s descent from the root node, in a world dealt into p->game once the root's move
 * is chosen: world `index`, or with crn the root move's visit number. */
static Descent descend(McgsSearch *s, const Game *root, uint32_t root_node, uint64_t index,
                       McgsPending *p, McgsResult *res) {
    McgsGraph *g = &s->graph;
    Game *w = &p->game;
    int root_player = root->on_turn;
    p->len = 0;
    p->leaf = 0;
    uint32_t node = root_node;
    for (;;) {
        McgsNode *nd = &g->nodes[node];
        if (nd->state == MCGS_NODE_VALUED) { /* its second visit: lazy expansion */
            Move unused;
            if (s->cfg.net != NULL ? expand_net_late(s, node, w, res) != 0 : expand_static(s, node, w, &unused) != 0) {
                drop_path(s, p);
                return DESCENT_NOMEM;
            }
            nd = &g->nodes[node];
        }
        if (nd->state == MCGS_NODE_NEW) {
            nd->state = MCGS_NODE_PENDING;
            p->leaf = node;
            return DESCENT_QUEUED;
        }
        if (nd->state == MCGS_NODE_PENDING) {
            drop_path(s, p);
            return DESCENT_COLLISION;
        }
        if (p->len == MCGS_MAX_DEPTH) { /* a path this long cannot happen in play; stop here */
            backup(s, p);
            return DESCENT_DONE;
        }
        if (p->len > 0 && w->on_turn != root_player) {
            res->opponent_choices++;
            if (nd->visits > 0) res->opponent_informed++;
        }
        uint32_t edge = select_edge(s, node);
        McgsEdge *e = &g->edges[edge];
        if (p->len == 0) {
            uint64_t world = s->cfg.crn ? (uint64_t)e->visits + e->inflight : index;
            deal_world(s, root, world, w);
            p->world = world;
        }
        e->inflight++;
        Move mv;
        if (packed_to_move(&e->move, &w->board, &mv) != 0) { /* cannot happen: the node's board is the world's */
            memset(&mv, 0, sizeof mv);
            mv.kind = MOVE_PASS;
        }
        int me = w->on_turn, before = w->scores[me] - w->scores[1 - me];
        game_play(w, &mv);
        McgsStep *st = &p->path[p->len++];
        st->node = node;
        st->edge = edge;
        st->outcome = 0;
        if (game_over(w)) {
            int after = w->scores[me] - w->scores[1 - me];
            p->terminal = (double)(after - before - e->reward) + win_value_final(&s->cfg.win, after);
            backup(s, p);
            return DESCENT_DONE;
        }
        bool created;
        uint32_t child = mcgs_graph_node(g, node_key(s, w), &created);
        if (child == 0) return DESCENT_NOMEM;
        uint32_t out = mcgs_graph_outcome(g, edge, child);
        if (out == 0) return DESCENT_NOMEM;
        st->outcome = out;
        node = child;
    }
}

/* The result; the move played is the most visited (ties: the higher value, then the
 * higher prior), unless the temperature draws it from the visits. */
static void fill_result(const McgsSearch *s, const Game *root, uint32_t root_node, McgsResult *out) {
    const McgsGraph *g = &s->graph;
    const McgsNode *nd = &g->nodes[root_node];
    out->count = (int)nd->n_edges;
    out->root_q = nd->q;
    for (int a = 0; a < out->count; a++) {
        const McgsEdge *e = &g->edges[nd->first_edge + (uint32_t)a];
        out->packed[a] = e->move;
        if (packed_to_move(&e->move, &root->board, &out->moves[a]) != 0) {
            memset(&out->moves[a], 0, sizeof out->moves[a]);
            out->moves[a].kind = MOVE_PASS;
        }
        out->moves[a].score = e->reward;
        out->visits[a] = e->visits;
        out->value[a] = e->visits > 0 ? (double)e->reward + e->c : 0.0;
        out->prior[a] = e->prior;
    }
    int best = 0;
    for (int a = 1; a < out->count; a++) {
        if (out->visits[a] != out->visits[best]) {
            if (out->visits[a] > out->visits[best]) best = a;
        } else if (out->value[a] != out->value[best]) {
            if (out->value[a] > out->value[best]) best = a;
        } else if (out->prior[a] > out->prior[best]) {
            best = a;
        }
    }
    const McgsConfig *c = &s->cfg;
    if (c->temperature > 0.0 && root->turn < c->temperature_moves && out->playouts > 0) {
        Rng r;
        rng_seed_stream(&r, c->seed, STREAM_CHOOSE, (uint64_t)root->turn);
        double w[MCGS_MAX_CANDIDATES], sum = 0.0;
        for (int a = 0; a < out->count; a++) {
            w[a] = out->visits[a] > 0 ? pow((double)out->visits[a] / out->visits[best], 1.0 / c->temperature) : 0.0;
            sum += w[a];
        }
        double x = (double)(rng_next(&r) >> 11) * 0x1.0p-53 * sum;
        for (int a = 0; a < out->count; a++) {
            if (w[a] <= 0.0) continue;
            best = a;
            if ((x -= w[a]) < 0.0) break;
        }
    }
    out->best = best;
    out->nodes = g->n_nodes - 1;
    out->edges = g->n_edges - 1;
    out->outcomes = g->n_outcomes - 1;
    out->bytes = mcgs_graph_bytes(g);
}

/* One round of up to `batch` playouts (at most `want`): their leaf nodes are
 * evaluated in one pass and backed up. A collision ends the round early:
 * drop_path restores the graph exactly, so the next descent would repeat it
 * (the same world with crn or an empty bag, the same edges); its playout is
 * the next round's first. A round's first descent cannot collide (no leaf
 * waits between rounds), so every round completes at least one playout.
 * Returns the playouts completed, or -1 when out of memory. */
static long play_round(McgsSearch *s, const Game *root, uint32_t root_node, uint32_t want,
                       uint64_t *index, McgsResult *out) {
    int queued = 0;
    long done = 0;
    for (uint32_t tries = 0; tries < want && queued < s->cfg.batch; tries++) {
        Descent d = descend(s, root, root_node, *index, &s->pending[queued], out);
        ++*index;
        if (d == DESCENT_QUEUED) {
            queued++;
        } else if (d == DESCENT_COLLISION) {
            out->collisions++;
            break;
        } else if (d == DESCENT_NOMEM) {
            return -1;
        } else {
            done++;
        }
    }
    if (queued > 0 && evaluate_pending(s, queued, false, out) != 0) return -1;
    for (int j = 0; j < queued; j++) backup(s, &s->pending[j]);
    return done + queued;
}

static int run_puct(McgsSearch *s, const Game *root, uint32_t root_node, McgsResult *out) {
    uint64_t index = 0;
    while (s->graph.nodes[root_node].visits < s->cfg.visits) {
        long n = play_round(s, root, root_node, s->cfg.visits - s->graph.nodes[root_node].visits, &index, out);
        if (n < 0) return -1;
        out->playouts += (uint64_t)n;
    }
    return 0;
}

int mcgs_search_run(McgsSearch *s, const Game *root, McgsResult *out, RkError *err) {
    memset(out, 0, sizeof *out);
    if (game_over(root)) return rk_error(err, "mcgs: the game is over");
    RkError inner;
    /* the inference is set per decision, after mcgs_config_check */
    if (s->cfg.infer != NULL && s->cfg.hidden == MCGS_HIDDEN_NET)
        return rk_error(err, "mcgs: the opponent's rack comes from H (hidden=net) or from the inference, not both");
    if (s->cfg.infer != NULL && infer_check_fits(root, s->cfg.infer, &inner) != 0)
        return rk_error(err, "mcgs: %s", inner.msg);
    if (nn_prepare(s, root, err) != 0) return -1;
    double t0 = rk_seconds();
    McgsGraph *g = &s->graph;
    mcgs_graph_clear(g);
    bool created;
    uint32_t root_node = mcgs_graph_node(g, node_key(s, root), &created);
    if (root_node == 0) return rk_error(err, "mcgs: out of memory");
    if (s->cfg.net != NULL) {
        Position pos;
        position_from_game(&pos, root);
        nn_batch_set(&s->root_batch, s->cfg.net, 0, &pos);
        nn_forward_trunk(s->cfg.net, &s->root_batch, 1);
    }
    /* the root, valued in a world of its own */
    McgsPending *p = &s->pending[0];
    deal_world(s, root, ROOT_WORLD, &p->game);
    p->world = ROOT_WORLD;
    p->leaf = root_node;
    p->len = 0;
    g->nodes[root_node].state = MCGS_NODE_PENDING;
    if (evaluate_pending(s, 1, true, out) != 0) return rk_error(err, "mcgs: out of memory");

    bool single = g->nodes[root_node].n_edges == 1; /* one legal move: nothing to search */
    int rc = single ? 0 : run_puct(s, root, root_node, out);
    if (rc != 0) return rk_error(err, "mcgs: out of memory");
    fill_result(s, root, root_node, out);
    out->seconds = rk_seconds() - t0;
    return 0;
}
