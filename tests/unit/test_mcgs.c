/* The graph search (search/mcgs.h, mcgs_graph.h, infoset.h):
 * - the value formulas on a hand-built graph, their idempotence, and a
 *   child shared by two parents (a transposition) read by both;
 * - information-set keys: blind to the hidden tiles and to move order,
 *   sensitive to everything the player on turn sees;
 * - searches on SOWPODS self-play positions: every playout accounted for,
 *   every node's q a fixed point of its formula, no in-flight marks left,
 *   the same seed giving the same visits, batches with virtual loss;
 * - with an empty bag the worlds are the true position (one outcome per
 *   edge); with tiles in the bag they differ;
 * - a random network as the guide (P priors, V leaves, H worlds, batches);
 * - bad configurations refused with one-line errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/layout.h"
#include "nn/model.h"
#include "search/infoset.h"
#include "search/mcgs.h"
#include "search/mcgs_player.h"
#include "search/player.h"
#include "search/policy_target.h"
#include "search/sim.h"
#include "testutil.h"
#include "worker/endgame_study.h"
#include "worker/samples.h"

static McgsKey key(uint64_t x) { return (McgsKey){x * 0x9E3779B97F4A7C15ull + 1, x}; }

/* ------------------------------------------------------------ formulas */

static void test_graph_formulas(void) {
    McgsGraph g;
    RkError err;
    CU_ASSERT_FATAL(mcgs_graph_init(&g, &err) == 0);
    bool created;
    uint32_t a = mcgs_graph_node(&g, key(1), &created);
    CU_ASSERT(created);
    uint32_t b = mcgs_graph_node(&g, key(2), &created), c = mcgs_graph_node(&g, key(3), &created);
    uint32_t d = mcgs_graph_node(&g, key(4), &created);
    CU_ASSERT_EQUAL(mcgs_graph_node(&g, key(2), &created), b);
    CU_ASSERT(!created);
    CU_ASSERT_EQUAL(mcgs_graph_find(&g, key(99)), 0);
    g.nodes[b].q = 5.0;
    g.nodes[c].q = -3.0;
    g.nodes[d].q = 8.0;
    g.nodes[a].u = 2.0;
    uint32_t e0 = mcgs_graph_add_edges(&g, a, 2);
    CU_ASSERT_FATAL(e0 != 0);
    /* edge 0: reward 10, reached b twice and c once; edge 1: reward 4,
     * ended the game once with value -6 (reward excluded) */
    g.edges[e0].reward = 10;
    g.edges[e0 + 1].reward = 4;
    uint32_t ob = mcgs_graph_outcome(&g, e0, b), oc = mcgs_graph_outcome(&g, e0, c);
    CU_ASSERT_EQUAL(mcgs_graph_outcome(&g, e0, b), ob);
    g.outcomes[ob].visits = 2;
    g.outcomes[oc].visits = 1;
    g.edges[e0].visits = 3;
    g.edges[e0 + 1].terminal_visits = 1;
    g.edges[e0 + 1].terminal_sum = -6.0;
    g.edges[e0 + 1].visits = 1;
    mcgs_edge_recompute(&g, e0);
    mcgs_edge_recompute(&g, e0 + 1);
    double c0 = (2 * -5.0 + 1 * 3.0) / 3.0;
    CU_ASSERT_DOUBLE_EQUAL(g.edges[e0].c, c0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(g.edges[e0 + 1].c, -6.0, 1e-12);
    mcgs_node_recompute(&g, a);
    double qa = (2.0 + 3 * (10 + c0) + 1 * (4 - 6.0)) / (1 + 4);
    CU_ASSERT_DOUBLE_EQUAL(g.nodes[a].q, qa, 1e-12);
    CU_ASSERT_EQUAL(g.nodes[a].visits, 4);
    /* idempotent */
    mcgs_edge_recompute(&g, e0);
    mcgs_node_recompute(&g, a);
    mcgs_node_recompute(&g, a);
    CU_ASSERT_DOUBLE_EQUAL(g.nodes[a].q, qa, 1e-12);
    /* a second parent shares child b (a transposition): a change of b's q
     * reaches both when they recompute, with each parent's own counts */
    uint32_t p2 = mcgs_graph_node(&g, key(5), &created);
    g.nodes[p2].u = 0.0;
    uint32_t f0 = mcgs_graph_add_edges(&g, p2, 1);
    g.edges[f0].reward = 1;
    uint32_t o2 = mcgs_graph_outcome(&g, f0, b);
    g.outcomes[o2].visits = 1;
    g.edges[f0].visits = 1;
    g.nodes[b].q = 11.0;
    mcgs_edge_recompute(&g, f0);
    mcgs_node_recompute(&g, p2);
    CU_ASSERT_DOUBLE_EQUAL(g.nodes[p2].q, (0.0 + (1 - 11.0)) / 2.0, 1e-12);
    mcgs_edge_recompute(&g, e0);
    mcgs_node_recompute(&g, a);
    double c1 = (2 * -11.0 + 3.0) / 3.0;
    CU_ASSERT_DOUBLE_EQUAL(g.nodes[a].q, (2.0 + 3 * (10 + c1) + (4 - 6.0)) / 5.0, 1e-12);
    /* unvisited outcomes and edges do not count */
    uint32_t od = mcgs_graph_outcome(&g, e0, d);
    CU_ASSERT(od != 0);
    mcgs_edge_recompute(&g, e0);
    CU_ASSERT_DOUBLE_EQUAL(g.edges[e0].c, c1, 1e-12);
    /* selection values: unvisited = fpu; in flight = pulled down by vloss */
    McgsEdge fresh = {0};
    CU_ASSERT_DOUBLE_EQUAL(mcgs_edge_select_q(&fresh, 7.0, 20.0), 7.0, 1e-12);
    fresh.inflight = 1;
    CU_ASSERT_DOUBLE_EQUAL(mcgs_edge_select_q(&fresh, 7.0, 20.0), -13.0, 1e-12);
    McgsEdge seen = {.reward = 10, .visits = 3, .inflight = 1, .c = -2.0};
    CU_ASSERT_DOUBLE_EQUAL(mcgs_edge_select_q(&seen, 0.0, 20.0), (3 * 8.0 + (8.0 - 20.0)) / 4.0, 1e-12);
    /* many nodes: the table grows and finds them all */
    for (uint64_t i = 100; i < 5100; i++) CU_ASSERT_FATAL(mcgs_graph_node(&g, key(i), &created) != 0);
    int found = 0;
    for (uint64_t i = 100; i < 5100; i++) found += mcgs_graph_find(&g, key(i)) != 0;
    CU_ASSERT_EQUAL(found, 5000);
    CU_ASSERT_EQUAL(mcgs_graph_find(&g, key(2)), b);
    mcgs_graph_clear(&g);
    CU_ASSERT_EQUAL(mcgs_graph_find(&g, key(2)), 0);
    mcgs_graph_free(&g);
}

/* ------------------------------------------------------------ keys */

static void test_infoset_keys(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    tu_env_position(&e, 23, 3, 50, NULL);
    CU_ASSERT_FATAL(!game_over(e.g));
    McgsKey k0 = infoset_key(e.g);
    /* another world: the opponent's rack and the bag dealt again */
    Game *w = malloc(sizeof *w);
    Rng r;
    rng_seed(&r, 5);
    game_deal_unseen(e.g, w, &r);
    int opp = 1 - e.g->on_turn;
    bool differs = false;
    for (int ml = 0; ml < e.ld.size; ml++) differs |= w->racks[opp].count[ml] != e.g->racks[opp].count[ml];
    CU_ASSERT(differs);
    McgsKey k1 = infoset_key(w);
    CU_ASSERT(k1.lo == k0.lo && k1.hi == k0.hi);
    /* with the last move (a v3 net's key): the same in every world, not the same
     * once the last move differs, nor without one; an exchange's tiles unseen */
    McgsKey l0 = infoset_key_with_last(e.g), l1 = infoset_key_with_last(w);
    CU_ASSERT(e.g->has_last && l0.lo == l1.lo && l0.hi == l1.hi);
    CU_ASSERT(l0.lo != k0.lo || l0.hi != k0.hi);
    w->has_last = false;
    McgsKey l2 = infoset_key_with_last(w);
    CU_ASSERT(l2.lo == k0.lo && l2.hi == k0.hi);
    w->has_last = true;
    w->last.score += 1;
    McgsKey l3 = infoset_key_with_last(w);
    CU_ASSERT(l3.lo != l0.lo || l3.hi != l0.hi);
    w->last = (Move){.kind = MOVE_EXCHANGE, .len = 2, .ntiles = 2, .tiles = {1, 2}};
    McgsKey x1 = infoset_key_with_last(w);
    w->last.tiles[0] = 5;
    McgsKey x2 = infoset_key_with_last(w);
    CU_ASSERT(x1.lo == x2.lo && x1.hi == x2.hi);
    /* the mover's rack, a score, the zeros, a tile on the board: all seen */
    *w = *e.g;
    int me = w->on_turn, swap = -1;
    for (int ml = 0; ml < e.ld.size && swap < 0; ml++)
        if (w->racks[me].count[ml] > 0 && w->racks[opp].count[ml] == 0) swap = ml;
    CU_ASSERT_FATAL(swap >= 0);
    int other = -1;
    for (int ml = 0; ml < e.ld.size && other < 0; ml++)
        if (w->racks[opp].count[ml] > 0 && w->racks[me].count[ml] == 0) other = ml;
    CU_ASSERT_FATAL(other >= 0);
    rack_remove(&w->racks[me], (uint8_t)swap);
    rack_add(&w->racks[me], (uint8_t)other);
    McgsKey k2 = infoset_key(w);
    CU_ASSERT(k2.lo != k0.lo || k2.hi != k0.hi);
    *w = *e.g;
    w->scores[opp] += 1;
    McgsKey k3 = infoset_key(w);
    CU_ASSERT(k3.lo != k0.lo);
    *w = *e.g;
    w->zeros += 1;
    CU_ASSERT(infoset_key(w).lo != k0.lo);
    /* swapping the two scores is a different information set */
    *w = *e.g;
    int t = w->scores[0];
    w->scores[0] = w->scores[1];
    w->scores[1] = t;
    if (w->scores[0] != w->scores[1]) CU_ASSERT(infoset_key(w).lo != k0.lo);
    /* move order: the same tiles placed in two orders give one key */
    Game *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    *a = *e.g;
    *b = *e.g;
    board_put(&a->board, 0, 0, 5);
    board_put(&a->board, 14, 14, 9);
    board_put(&b->board, 14, 14, 9);
    board_put(&b->board, 0, 0, 5);
    if (board_at(&e.g->board, 0, 0) == 0 && board_at(&e.g->board, 14, 14) == 0) {
        McgsKey ka = infoset_key(a), kb = infoset_key(b);
        CU_ASSERT(ka.lo == kb.lo && ka.hi == kb.hi);
        CU_ASSERT(ka.lo != k0.lo);
    }
    free(a);
    free(b);
    free(w);
    tu_env_close(&e);
}

/* ------------------------------------------------------------ searches */

static McgsConfig config(uint32_t visits, int batch) {
    McgsConfig c;
    mcgs_config_defaults(&c);
    c.visits = visits;
    c.batch = batch;
    c.candidates = 8;
    return c;
}

/* Two searches ended with the same root: its moves, best move, visits and
 * values to the bit, and the root's value. */
static void same_root(const McgsResult *a, const McgsResult *b) {
    CU_ASSERT_EQUAL(a->count, b->count);
    CU_ASSERT_EQUAL(a->best, b->best);
    CU_ASSERT(memcmp(a->packed, b->packed, sizeof a->packed) == 0);
    CU_ASSERT(memcmp(a->visits, b->visits, sizeof a->visits) == 0);
    CU_ASSERT(memcmp(a->value, b->value, sizeof a->value) == 0);
    CU_ASSERT(a->root_q == b->root_q);
}

/* Every node is evaluated (a VALUED node, waiting for its second visit to
 * be expanded, has no edges, no visits and q = u); no in-flight marks; every edge's visits are its
 * outcomes' plus its terminal ones; the node visits are the edges'. Every
 * node whose children have no other parent has q at its formula's fixed
 * point (a child shared by several parents may have changed through
 * another parent since: the design accepts that staleness until the next
 * visit). */
static void check_graph(const McgsSearch *s) {
    McgsGraph *g = (McgsGraph *)&s->graph;
    int bad_q = 0, bad_counts = 0, inflight = 0;
    uint32_t *parents = calloc(g->n_nodes, sizeof *parents);
    CU_ASSERT_FATAL(parents != NULL);
    for (uint32_t o = 1; o < g->n_outcomes; o++) parents[g->outcomes[o].child]++;
    for (uint32_t e = 1; e < g->n_edges; e++) {
        McgsEdge *ed = &g->edges[e];
        inflight += ed->inflight != 0;
        uint64_t n = ed->terminal_visits;
        for (uint32_t o = ed->first_outcome; o != 0; o = g->outcomes[o].next) n += g->outcomes[o].visits;
        bad_counts += n != ed->visits;
    }
    for (uint32_t i = 1; i < g->n_nodes; i++) {
        if (g->nodes[i].state == MCGS_NODE_VALUED) {
            const McgsNode *nd = &g->nodes[i];
            bad_q += nd->n_edges != 0 || nd->visits != 0 || nd->q != nd->u;
            continue;
        }
        if (g->nodes[i].state != MCGS_NODE_READY) {
            bad_q++;
            continue;
        }
        uint64_t n = 0;
        bool shared = false;
        for (uint32_t a = 0; a < g->nodes[i].n_edges; a++) {
            const McgsEdge *ed = &g->edges[g->nodes[i].first_edge + a];
            n += ed->visits;
            for (uint32_t o = ed->first_outcome; o != 0; o = g->outcomes[o].next)
                shared |= parents[g->outcomes[o].child] > 1;
        }
        bad_counts += n != g->nodes[i].visits;
        if (shared) continue;
        double before = g->nodes[i].q;
        for (uint32_t a = 0; a < g->nodes[i].n_edges; a++) mcgs_edge_recompute(g, g->nodes[i].first_edge + a);
        mcgs_node_recompute(g, i);
        if (fabs(g->nodes[i].q - before) > 1e-9 * (1 + fabs(before))) bad_q++;
        g->nodes[i].q = before;
    }
    free(parents);
    CU_ASSERT_EQUAL(bad_q, 0);
    CU_ASSERT_EQUAL(bad_counts, 0);
    CU_ASSERT_EQUAL(inflight, 0);
}

static void test_search_accounting_and_determinism(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r1 = malloc(sizeof *r1), *r2 = malloc(sizeof *r2);
    for (int batch = 1; batch <= 8; batch += 7) {
        McgsConfig c = config(120, batch);
        McgsSearch s;
        CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
        for (uint64_t gi = 0; gi < 3; gi++) {
            tu_env_position(&e, 23, gi, 60, NULL);
            CU_ASSERT_FATAL(!game_over(e.g));
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r1, &err) == 0);
            uint64_t sum = 0;
            for (int a = 0; a < r1->count; a++) sum += r1->visits[a];
            CU_ASSERT_EQUAL(sum, 120);
            CU_ASSERT_EQUAL(r1->playouts, 120);
            CU_ASSERT(r1->count >= 2 && r1->count <= 8);
            CU_ASSERT(r1->visits[r1->best] >= r1->visits[0] || r1->best == 0);
            for (int a = 0; a < r1->count; a++) CU_ASSERT(r1->visits[r1->best] >= r1->visits[a]);
            check_graph(&s);
            CU_ASSERT(r1->evaluations <= 1 + r1->playouts); /* the root + at most one leaf a playout */
            /* the same seed: the same search */
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r2, &err) == 0);
            CU_ASSERT_EQUAL(r2->count, r1->count);
            CU_ASSERT(memcmp(r1->visits, r2->visits, sizeof r1->visits) == 0);
            CU_ASSERT(memcmp(r1->value, r2->value, sizeof r1->value) == 0);
            /* another seed: other worlds, other values */
            s.cfg.seed = 99;
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r2, &err) == 0);
            CU_ASSERT(memcmp(r1->value, r2->value, sizeof r1->value) != 0);
            s.cfg.seed = c.seed;
            /* a pool of 3 worlds: a root move leads to at most 3 opponent's nodes */
            s.cfg.worlds = 3;
            s.cfg.crn = false;
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r2, &err) == 0);
            CU_ASSERT_EQUAL(r2->playouts, 120);
            uint32_t root = mcgs_graph_find(&s.graph, infoset_key(e.g)), most = 0;
            CU_ASSERT_FATAL(root != 0);
            for (uint32_t a = 0; a < s.graph.nodes[root].n_edges; a++) {
                uint32_t outs = 0;
                for (uint32_t o = s.graph.edges[s.graph.nodes[root].first_edge + a].first_outcome; o != 0;
                     o = s.graph.outcomes[o].next)
                    outs++;
                if (outs > most) most = outs;
            }
            CU_ASSERT(most >= 2 && most <= 3);
            check_graph(&s);
            s.cfg.worlds = 0;
            s.cfg.crn = true;
        }
        mcgs_search_free(&s);
    }
    free(r1);
    free(r2);
    tu_env_close(&e);
}

/* Lazy expansion changes when a node's moves are generated, never what the
 * search finds: expand=second gives the same visits and values, to the
 * bit, as expand=first, with and without crn, batched or not; and it
 * leaves nodes visited once without edges. */
static void test_lazy_expansion_same_search(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r1 = malloc(sizeof *r1), *r2 = malloc(sizeof *r2);
    int compared = 0;
    for (int variant = 0; variant < 3; variant++) {
        McgsConfig c1 = config(150, variant == 2 ? 4 : 1);
        c1.crn = variant == 1;
        c1.expand = MCGS_EXPAND_FIRST;
        McgsConfig c2 = c1;
        c2.expand = MCGS_EXPAND_SECOND;
        McgsSearch s1, s2;
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s2, &c2, &err) == 0);
        for (uint64_t gi = 0; gi < (uint64_t)tu_size(3, 1); gi++) {
            for (int bag = 0; bag <= 60; bag += 30) {
                tu_env_position(&e, 29, gi, bag, NULL);
                if (game_over(e.g)) continue;
                CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r1, &err) == 0);
                CU_ASSERT_FATAL(mcgs_search_run(&s2, e.g, r2, &err) == 0);
                CU_ASSERT_EQUAL(r1->count, r2->count);
                CU_ASSERT_EQUAL(r1->best, r2->best);
                CU_ASSERT(memcmp(r1->visits, r2->visits, sizeof r1->visits) == 0);
                CU_ASSERT(memcmp(r1->value, r2->value, sizeof r1->value) == 0);
                CU_ASSERT(r1->root_q == r2->root_q);
                CU_ASSERT(r2->edges <= r1->edges);
                if (bag > 0) CU_ASSERT(r2->edges < r1->edges); /* nodes visited once have no edges */
                check_graph(&s2);
                compared++;
            }
        }
        mcgs_search_free(&s1);
        mcgs_search_free(&s2);
    }
    CU_ASSERT(compared >= tu_size(20, 6));
    /* with a net (rollout leaves, V leaves after the reply, and their mix):
     * a node's P is its position's, whichever world reaches it, so expanding
     * at the second visit changes nothing but the network passes
     * (candidates by P, by equity and mixed; in batches, with H worlds) */
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 7, &err) == 0);
    int with_net = 0;
    for (int variant = 0; variant < 5; variant++) { /* 3: V leaves, 4: V mixed with rollouts */
        McgsConfig c1 = config(60, variant == 1 || variant == 3 ? 4 : 1);
        c1.net = &m;
        c1.rollout = variant == 3 ? 0 : 2;
        c1.value_mix = variant == 4 ? 0.5 : 0.0;
        c1.candidates = 6;
        c1.candidates_by = variant == 0 ? MCGS_CANDIDATES_PRIOR : variant == 1 ? MCGS_CANDIDATES_MIX : MCGS_CANDIDATES_EQUITY;
        c1.hidden = variant == 1 ? MCGS_HIDDEN_NET : MCGS_HIDDEN_UNIFORM;
        c1.expand = MCGS_EXPAND_FIRST;
        McgsConfig c2 = c1;
        c2.expand = MCGS_EXPAND_AUTO; /* lazy */
        McgsSearch s1, s2;
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s2, &c2, &err) == 0);
        for (uint64_t gi = 0; gi < 2; gi++) {
            tu_env_position(&e, 31, gi, 40, NULL);
            if (game_over(e.g)) continue;
            CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r1, &err) == 0);
            CU_ASSERT_FATAL(mcgs_search_run(&s2, e.g, r2, &err) == 0);
            same_root(r1, r2);
            CU_ASSERT(memcmp(r1->prior, r2->prior, sizeof r1->prior) == 0);
            CU_ASSERT(r2->net_positions < r1->net_positions); /* the point of it */
            CU_ASSERT(r2->edges < r1->edges);
            check_graph(&s2);
            with_net++;
        }
        mcgs_search_free(&s1);
        mcgs_search_free(&s2);
    }
    CU_ASSERT(with_net >= 8);
    nn_model_free(&m);
    free(r1);
    free(r2);
    tu_env_close(&e);
}

/* threads: a round's leaf rollouts on 2 or 3 threads give the same search
 * to the bit as on one (batches of 8; lazy and first expansion, crn and
 * not, a net's V mixed with rollouts), and the graph stays consistent. */
static void test_threads_same_search(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r1 = malloc(sizeof *r1), *r2 = malloc(sizeof *r2);
    int compared = 0;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 7, &err) == 0);
    for (int variant = 0; variant < 5; variant++) {
        McgsConfig c1 = config(variant == 4 ? 48 : 120, 8);
        c1.crn = variant % 2 == 0;
        c1.expand = variant < 2 || variant == 4 ? MCGS_EXPAND_AUTO : MCGS_EXPAND_FIRST;
        if (variant == 4) { /* a net: V after the reply mixed with the rollouts */
            c1.net = &m;
            c1.candidates_by = MCGS_CANDIDATES_EQUITY;
            c1.value_mix = 0.5;
        }
        McgsConfig c2 = c1;
        c2.threads = 2 + variant % 2;
        McgsSearch s1, s2;
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s2, &c2, &err) == 0);
        for (uint64_t gi = 0; gi < 2; gi++) {
            tu_env_position(&e, 41, gi, 30 + 20 * (int)gi, NULL);
            if (game_over(e.g)) continue;
            CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r1, &err) == 0);
            CU_ASSERT_FATAL(mcgs_search_run(&s2, e.g, r2, &err) == 0);
            same_root(r1, r2);
            CU_ASSERT_EQUAL(r1->playouts, r2->playouts);
            CU_ASSERT_EQUAL(r1->collisions, r2->collisions);
            check_graph(&s2);
            compared++;
        }
        mcgs_search_free(&s1);
        mcgs_search_free(&s2);
    }
    CU_ASSERT(compared >= 8);
    nn_model_free(&m);
    McgsConfig bad = config(10, 1);
    bad.threads = 0;
    McgsSearch sb;
    CU_ASSERT(mcgs_search_init(&sb, &bad, &err) == -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "threads"));
    free(r1);
    free(r2);
    tu_env_close(&e);
}

/* crn: the k-th visit of every root move plays in world k. Below a root
 * placement nothing is shared with the other root moves, so its value is a
 * function of the move and its visit count alone. Two searches that visit
 * their candidates in turn (a huge cpuct), one with 8 and one with 6, give
 * their 6 common moves 20 visits each; with crn they agree on each of them
 * to the bit. Without crn the worlds follow the playout's number, which
 * differs between the two, and they do not. */
static void test_crn_values_depend_on_visits_only(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r1 = malloc(sizeof *r1), *r2 = malloc(sizeof *r2);
    for (int crn = 1; crn >= 0; crn--) {
        McgsConfig c1 = config(160, 1);
        c1.crn = crn == 1;
        c1.cpuct = 1e6;
        McgsConfig c2 = c1;
        c2.candidates = 6;
        c2.visits = 120;
        McgsSearch s1, s2;
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s2, &c2, &err) == 0);
        int same_visits = 0, same_value = 0;
        for (uint64_t gi = 0; gi < 6; gi++) {
            tu_env_position(&e, 31, gi, 50, NULL);
            if (game_over(e.g)) continue;
            CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r1, &err) == 0);
            CU_ASSERT_FATAL(mcgs_search_run(&s2, e.g, r2, &err) == 0);
            if (r1->count < 8) continue;
            CU_ASSERT_FATAL(r2->count == 6);
            for (int a = 0; a < r2->count; a++) {
                CU_ASSERT(r1->moves[a].kind == r2->moves[a].kind); /* the same candidates in the same order */
                if (r1->moves[a].kind != MOVE_PLACE || r1->visits[a] == 0 || r1->visits[a] != r2->visits[a]) continue;
                same_visits++;
                same_value += r1->value[a] == r2->value[a];
            }
        }
        CU_ASSERT(same_visits >= 20);
        if (crn) {
            CU_ASSERT_EQUAL(same_value, same_visits);
        } else {
            CU_ASSERT(same_value < same_visits);
        }
        mcgs_search_free(&s1);
        mcgs_search_free(&s2);
    }
    free(r1);
    free(r2);
    tu_env_close(&e);
}

/* The root's edges lead to one child each when the bag is empty (the world
 * is the true position), and to many when it is not. */
static void test_worlds_exact_in_endgame(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r = malloc(sizeof *r);
    McgsConfig c = config(200, 1);
    McgsSearch s;
    CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
    int endgames = 0, midgames = 0;
    for (uint64_t gi = 0; gi < 8; gi++) {
        for (int phase = 0; phase < 2; phase++) {
            tu_env_position(&e, 23, gi, phase == 0 ? 0 : 40, NULL);
            if (game_over(e.g)) continue;
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
            if (r->count < 2) continue;
            const McgsGraph *g = &s.graph;
            uint32_t root = mcgs_graph_find(g, infoset_key(e.g));
            CU_ASSERT_FATAL(root != 0);
            int most = 0;
            for (uint32_t a = 0; a < g->nodes[root].n_edges; a++) {
                int outs = 0;
                for (uint32_t o = g->edges[g->nodes[root].first_edge + a].first_outcome; o != 0;
                     o = g->outcomes[o].next)
                    outs++;
                if (outs > most) most = outs;
            }
            if (phase == 0) {
                CU_ASSERT(most <= 1);
                endgames++;
            } else {
                CU_ASSERT(most > 1);
                midgames++;
            }
            check_graph(&s);
        }
    }
    CU_ASSERT(endgames >= 3);
    CU_ASSERT(midgames >= 3);
    mcgs_search_free(&s);
    free(r);
    tu_env_close(&e);
}

/* The leak's reach (mcgs.h, LEAKS): an opponent's node below the root
 * chooses from statistics only if an earlier playout went through it. With
 * a fresh world for each visit (crn, no pool) the opponent's racks differ
 * from playout to playout in the middle game, so at 200 visits no
 * opponent's node gets a second visit; a pool of 2 worlds repeats them. */
static void test_leak_reach(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r = malloc(sizeof *r);
    uint64_t choices[2] = {0, 0}, informed[2] = {0, 0};
    for (int pool = 0; pool < 2; pool++) {
        McgsConfig c = config(200, 1);
        c.worlds = pool ? 2 : 0;
        c.crn = !pool;
        McgsSearch s;
        CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
        for (uint64_t gi = 0; gi < 4; gi++) {
            tu_env_position(&e, 31, gi, 40, NULL);
            if (game_over(e.g)) continue;
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
            CU_ASSERT(r->opponent_informed <= r->opponent_choices);
            choices[pool] += r->opponent_choices;
            informed[pool] += r->opponent_informed;
        }
        mcgs_search_free(&s);
    }
    CU_ASSERT_EQUAL(informed[0], 0);
    CU_ASSERT(choices[1] > 0);
    CU_ASSERT(informed[1] > 0);
    free(r);
    tu_env_close(&e);
}

/* A collision (a descent reaching a leaf already waiting in the batch) ends
 * the round: the graph is restored exactly, so the next descent would take
 * the same path again (always with an empty bag, where the world is the true
 * position; and with crn, whose world number is the edge's visit count). At
 * most one collision a round, and every round completes a playout, so
 * collisions never outnumber playouts. Checked where they are most common:
 * empty-bag and near-empty-bag positions with large batches. */
static void test_collisions_end_a_round(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r = malloc(sizeof *r);
    uint64_t collisions = 0, playouts = 0;
    for (int crn = 0; crn < 2; crn++) {
        McgsConfig c = config(400, 16);
        c.crn = crn == 1;
        McgsSearch s;
        CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
        for (uint64_t gi = 0; gi < 6; gi++) {
            for (int bag = 0; bag <= 4; bag += 4) {
                tu_env_position(&e, 29, gi, bag, NULL);
                if (game_over(e.g)) continue;
                CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
                if (r->count < 2) continue;
                CU_ASSERT(r->collisions <= r->playouts);
                CU_ASSERT_EQUAL(r->playouts, 400);
                collisions += r->collisions;
                playouts += r->playouts;
                check_graph(&s);
            }
        }
        mcgs_search_free(&s);
    }
    printf("\n    %llu collisions in %llu playouts\n", (unsigned long long)collisions, (unsigned long long)playouts);
    CU_ASSERT(playouts >= 4 * 400);
    free(r);
    tu_env_close(&e);
}

/* ------------------------------------------------------------ with a net */

static void test_with_random_net(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 3, &err) == 0);
    McgsResult *r = malloc(sizeof *r);
    for (int variant = 0; variant < 3; variant++) {
        McgsConfig c = config(40, variant == 0 ? 1 : 8);
        c.net = &m;
        c.rollout = variant == 2 ? 1 : 0;
        c.hidden = MCGS_HIDDEN_NET;
        McgsSearch s;
        CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
        tu_env_position(&e, 23, 5, 50, NULL);
        CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
        CU_ASSERT_EQUAL(r->playouts, 40);
        double psum = 0.0;
        for (int a = 0; a < r->count; a++) psum += r->prior[a];
        CU_ASSERT_DOUBLE_EQUAL(psum, 1.0, 1e-4);
        for (int a = 1; a < r->count; a++) CU_ASSERT(r->prior[a] <= r->prior[a - 1] + 1e-6);
        CU_ASSERT(r->batches >= 1);
        if (c.rollout > 0) { /* lazy: the root, then one pass per node at its second visit */
            CU_ASSERT(r->net_positions >= 1 && r->net_positions < r->evaluations);
            CU_ASSERT_EQUAL(r->net_positions, r->batches);
        } else { /* V after each leaf's reply (none ends the game at this bag), and a pass for P at
                  * the root and at each node visited twice */
            CU_ASSERT(r->net_positions >= r->evaluations);
            if (c.batch > 1) CU_ASSERT(r->net_positions > r->batches); /* real batches */
        }
        check_graph(&s);
        /* every candidate is a legal move of the root */
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        MoveList all;
        movelist_init(&all);
        movegen_all(&req, &all);
        for (int a = 0; a < r->count; a++) {
            bool found = false;
            for (size_t i = 0; i < all.count && !found; i++) found = move_same(&all.moves[i], &r->moves[a]);
            CU_ASSERT(found);
        }
        movelist_free(&all);
        if (variant == 0) { /* a decision's inference cannot go with H's worlds: refused by the run */
            InferResult inf;
            infer_result_init(&inf);
            s.cfg.infer = &inf;
            CU_ASSERT(mcgs_search_run(&s, e.g, r, &err) != 0 && strstr(err.msg, "not both") != NULL);
            s.cfg.infer = NULL;
        }
        mcgs_search_free(&s);
    }
    free(r);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* ------------------------------------------------------------ endgames */

/* Endgame positions of the test lexicon: seed, racks of at most max_tiles. */
static void study_config(const TuEnv *e, uint64_t seed, int max_tiles, EndgameStudyConfig *c) {
    endgame_study_config_defaults(c);
    c->ld = &e->ld;
    c->layout = &e->lay;
    c->kwg = &e->kwg;
    c->seed = seed;
    c->max_tiles = max_tiles;
}

/* Against the exact solver (search/endgame.h) on the same empty-bag
 * positions (racks of up to 4 tiles): the search, whose worlds are then the
 * true position, finds the best move at least as often as the static player,
 * in all but at most 2 of 40, and loses no more points on average. */
static void test_endgames_against_the_solver(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    EndgameStudyConfig c;
    study_config(&e, 5, 4, &c); /* the static player misses about one in six of these */
    c.positions = tu_size(40, 20);
    Player stat, search;
    CU_ASSERT_FATAL(player_open(&stat, "static", &e.ld, &err) == 0);
    CU_ASSERT_FATAL(player_open(&search, "mcgs:visits=400,candidates=32", &e.ld, &err) == 0);
    EndgameStudyResult both[2];
    const Player *players[2] = {&stat, &search};
    CU_ASSERT_FATAL(endgame_study_run_many(&c, players, 2, both, NULL, NULL, &err) == 0); /* one solve each */
    const EndgameStudyResult rs = both[0], rm = both[1];
    CU_ASSERT_EQUAL(rs.positions, rm.positions);
    CU_ASSERT(rs.positions >= c.positions - 5);
    printf("\n    static: %d/%d best, loss %.2f; mcgs: %d/%d best, loss %.2f\n", rs.best, rs.positions,
           endgame_study_mean_loss(&rs), rm.best, rm.positions, endgame_study_mean_loss(&rm));
    CU_ASSERT(rm.best >= rs.best);
    CU_ASSERT(rm.best >= rm.positions - 2); /* measured: 39 of 40 (static: 33) */
    CU_ASSERT(endgame_study_mean_loss(&rm) <= endgame_study_mean_loss(&rs));
    player_close(&stat);
    player_close(&search);
    tu_env_close(&e);
}

/* ------------------------------------------------------------ visit targets */

/* A search's visit counts become the sample's P target; unvisited moves are
 * dropped; no visits at all (one legal move) leave the played move. The
 * search's expected final spread is kept with the sample (NaN: none). */
static void test_visit_targets(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsConfig c = config(60, 1);
    McgsSearch s;
    CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
    McgsResult *r = malloc(sizeof *r);
    tu_env_position(&e, 23, 2, 50, NULL);
    CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
    ShardSet set;
    shardset_init(&set);
    SampleRecorder rec;
    samples_init(&rec, &set, 1.0, 16, NULL, NULL);
    samples_begin_game(&rec, 7, 1);
    PolicyTarget visits;
    policy_target_defaults(&visits);
    float probs[MCGS_MAX_CANDIDATES], zero[MCGS_MAX_CANDIDATES] = {0};
    CU_ASSERT(policy_target_compute(&visits, r, probs) >= 1);
    samples_record_policy(&rec, e.g, &r->moves[r->best], r->packed, probs, r->count, 12.5);
    CU_ASSERT_FATAL(set.n == 1);
    CU_ASSERT_DOUBLE_EQUAL(set.s[0].search_spread, 12.5, 1e-9);
    uint32_t visited = 0;
    for (int a = 0; a < r->count; a++) visited += r->visits[a] > 0;
    CU_ASSERT_EQUAL(set.s[0].policy_count, visited);
    double sum = 0.0;
    for (uint32_t k = 0; k < set.s[0].policy_count; k++) {
        const PackedMove *pm = &set.pmove[set.s[0].policy_start + k];
        int a = 0;
        while (a < r->count && !packed_equal(&r->packed[a], pm)) a++;
        CU_ASSERT_FATAL(a < r->count);
        CU_ASSERT_DOUBLE_EQUAL(set.pprob[set.s[0].policy_start + k], r->visits[a] / 60.0, 1e-6);
        sum += set.pprob[set.s[0].policy_start + k];
    }
    CU_ASSERT_DOUBLE_EQUAL(sum, 1.0, 1e-5);
    /* no visits: the played move alone */
    samples_record_policy(&rec, e.g, &r->moves[0], r->packed, zero, r->count, NAN);
    CU_ASSERT_FATAL(set.n == 2);
    CU_ASSERT(isnan(set.s[1].search_spread));
    samples_record(&rec, e.g, &r->moves[0]); /* not a search: no estimate */
    CU_ASSERT_FATAL(set.n == 3);
    CU_ASSERT(isnan(set.s[2].search_spread));
    samples_record_policy(&rec, e.g, &r->moves[0], r->packed, probs, r->count, 1e9); /* beyond a shard's range */
    CU_ASSERT_FATAL(set.n == 4);
    CU_ASSERT(isnan(set.s[3].search_spread));
    /* a fast search's decision: no P target, no estimate; the H bookkeeping goes on */
    samples_record_no_policy(&rec, e.g, &r->moves[r->best]);
    CU_ASSERT_FATAL(set.n == 5);
    CU_ASSERT_EQUAL(set.s[4].policy_count, 0);
    CU_ASSERT(isnan(set.s[4].search_spread));
    CU_ASSERT(packed_equal(&set.s[4].played, &set.s[0].played));
    CU_ASSERT_EQUAL(set.s[1].policy_count, 1);
    CU_ASSERT(packed_equal(&set.pmove[set.s[1].policy_start], &r->packed[0]));
    CU_ASSERT_DOUBLE_EQUAL(set.pprob[set.s[1].policy_start], 1.0, 1e-9);
    samples_free(&rec);
    shardset_free(&set);
    mcgs_search_free(&s);
    free(r);
    tu_env_close(&e);
}

/* The player's expected final spread (a V target), checked against the
 * exact solver: in endgames (empty bag, racks of at most 3 tiles, where the
 * search's worlds are the true position) it is the board's spread plus the
 * root's value, which converges on the best move's exact value from the
 * mover's view; a wrong sign, side or scale would miss by tens of points.
 * With a win bonus the values are not points of spread, and there is none. */
static void test_player_expected_spread(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    EndgameStudyConfig c;
    study_config(&e, 11, 3, &c);
    EndgameConfig ec;
    endgame_config_defaults(&ec);
    Player p, bonus;
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=400,candidates=32", &e.ld, &err) == 0);
    CU_ASSERT_FATAL(player_open(&bonus, "mcgs:visits=40,candidates=8,win_bonus=30", &e.ld, &err) == 0);
    CU_ASSERT(isnan(mcgs_player_of(&p)->last_spread)); /* no decision yet */
    Game *g = malloc(sizeof *g);
    EndgameResult solved;
    endgame_result_init(&solved);
    int checked = 0, close = 0;
    double abs_err = 0;
    for (uint64_t i = 0; i < 40 && checked < 12; i++) {
        if (!endgame_study_position(&c, i, g)) continue;
        if (endgame_solve(g, &ec, &solved, &err) != 0) continue;
        Move m;
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&p), g, NULL, NULL, &m, &err) == 0);
        int me = g->on_turn;
        double exact = (double)(g->scores[me] - g->scores[1 - me]) + solved.best_value;
        double miss = fabs(mcgs_player_of(&p)->last_spread - exact);
        abs_err += miss;
        close += miss <= 5.0;
        checked++;
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&bonus), g, NULL, NULL, &m, &err) == 0);
        CU_ASSERT(isnan(mcgs_player_of(&bonus)->last_spread));
    }
    printf("\n    %d endgames: the search's expected final spread within 5 points of the exact one in %d, "
           "mean miss %.2f\n", checked, close, checked ? abs_err / checked : 0.0);
    CU_ASSERT(checked >= 8);
    CU_ASSERT(close >= checked - 2);
    CU_ASSERT(abs_err <= 3.0 * checked);
    /* a failed search leaves nothing of the decision before it: no expected
     * spread, no visits, not a full decision (its sample gets no P target) */
    CU_ASSERT_FATAL(isfinite(mcgs_player_of(&p)->last_spread) && mcgs_player_of(&p)->last.count > 0 && mcgs_player_of(&p)->last_full);
    for (int turns = 0; turns < 50 && !game_over(g); turns++) {
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        Move m;
        movegen_best(&req, &m, NULL);
        game_play(g, &m);
    }
    CU_ASSERT_FATAL(game_over(g));
    Move m;
    CU_ASSERT(mcgs_player_choose(mcgs_player_of(&p), g, NULL, NULL, &m, &err) != 0);
    CU_ASSERT(isnan(mcgs_player_of(&p)->last_spread));
    CU_ASSERT(!mcgs_player_of(&p)->last_full);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->last.count, 0);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->failures, 1);
    endgame_result_free(&solved);
    free(g);
    player_close(&p);
    player_close(&bonus);
    tu_env_close(&e);
}

/* Playout cap randomization: each decision is full (visits) with
 * probability full_share, else fast (fast_visits), drawn from the
 * decision's seed, so the same game replays the same draws; with
 * full_share=1 (what the loop's matches append) every decision is full. */
static void test_playout_cap(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    Player p, again, full;
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=12,candidates=4,full_share=0.3,fast_visits=3", &e.ld, &err) == 0);
    CU_ASSERT_FATAL(player_open(&again, "mcgs:visits=12,candidates=4,full_share=0.3,fast_visits=3", &e.ld, &err) == 0);
    CU_ASSERT_FATAL(player_open(&full, "mcgs:visits=12,candidates=4,full_share=0.3,fast_visits=3,full_share=1", &e.ld,
                                &err) == 0);
    const int n = 40;
    int fulls = 0;
    bool first[40];
    for (int i = 0; i < n; i++) {
        tu_env_position(&e, 31, (uint64_t)i, 60 - i, NULL);
        Move m, m2;
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&p), e.g, NULL, NULL, &m, &err) == 0);
        first[i] = mcgs_player_of(&p)->last_full;
        fulls += first[i];
        /* the budget is the decision's kind */
        CU_ASSERT_EQUAL(mcgs_player_of(&p)->last.playouts, first[i] ? 12u : 3u);
        uint32_t sum = 0;
        for (int a = 0; a < mcgs_player_of(&p)->last.count; a++) sum += mcgs_player_of(&p)->last.visits[a];
        CU_ASSERT_EQUAL(sum, first[i] ? 12u : 3u);
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&again), e.g, NULL, NULL, &m2, &err) == 0);
        CU_ASSERT_EQUAL(mcgs_player_of(&again)->last_full, first[i]);
        CU_ASSERT(move_same(&m, &m2));
        CU_ASSERT_FATAL(mcgs_player_choose(mcgs_player_of(&full), e.g, NULL, NULL, &m2, &err) == 0);
        CU_ASSERT(mcgs_player_of(&full)->last_full);
        CU_ASSERT_EQUAL(mcgs_player_of(&full)->last.playouts, 12u);
    }
    printf("\n    full_share 0.3: %d of %d decisions full\n", fulls, n);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->full_decisions, (uint64_t)fulls);
    CU_ASSERT_EQUAL(mcgs_player_of(&full)->full_decisions, (uint64_t)n);
    CU_ASSERT(fulls >= 4 && fulls <= 22); /* binomial(40, 0.3): mean 12, sd 2.9 */
    player_close(&p);
    player_close(&again);
    player_close(&full);
    tu_env_close(&e);
}

/* nn_policy_top (the search's candidates under P) is the top of
 * nn_policy_all, on positions of the opening, middle and end of games. */
static void test_policy_top_matches_all(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 9, &err) == 0);
    NnFeatureContext fc;
    nn_feature_context(&fc, &e.ld, &e.lay, &e.kwg);
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 1, &err) == 0);
    int checked = 0, mismatched = 0;
    for (uint64_t gi = 0; gi < 6; gi++) {
        for (int bag = 86; bag >= 0; bag -= 43) {
            tu_env_position(&e, 23, gi, bag, NULL);
            if (game_over(e.g)) continue;
            Position pos;
            position_from_game(&pos, e.g);
            nn_batch_set(&b, &m, 0, &pos);
            nn_forward_trunk(&m, &b, 1);
            nn_forward_submoves(&m, &b, 1);
            int n = b.legal[0].n;
            double *all = malloc((size_t)n * sizeof *all);
            CU_ASSERT_FATAL(nn_policy_all(&m, &b, 0, all) == n);
            static const int ks[] = {1, 5, 16, 64};
            for (int t = 0; t < 4; t++) {
                int k = ks[t], top[64];
                double lp[64];
                int got = nn_policy_top(&m, &b, 0, k, top, lp);
                CU_ASSERT_EQUAL(got, k < n ? k : n);
                /* the reference: the k best of all, ties to the earlier */
                double *copy = malloc((size_t)n * sizeof *copy);
                memcpy(copy, all, (size_t)n * sizeof *copy);
                for (int q = 0; q < got; q++) {
                    int arg = 0;
                    for (int j = 1; j < n; j++)
                        if (copy[j] > copy[arg]) arg = j;
                    /* the same move, or a near tie (float rounding of another batch of rows) */
                    if (top[q] != arg && fabs(all[top[q]] - all[arg]) > 1e-4) mismatched++;
                    CU_ASSERT(fabs(lp[q] - all[top[q]]) < 1e-4);
                    copy[arg] = -INFINITY;
                    checked++;
                }
                free(copy);
            }
            free(all);
        }
    }
    CU_ASSERT_EQUAL(mismatched, 0);
    CU_ASSERT(checked > 300);
    nn_batch_free(&b);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* candidates_by with a net: EQUITY makes the root's edges the K best moves
 * by static equity (movegen_compare order) with P renormalised over them as
 * priors; MIX takes the ceil(K/2) best by equity, then P's most probable
 * moves that are not among them, up to K, with no move twice. */
static int compare_moves(const void *a, const void *b) { return movegen_compare(a, b); }

static void test_candidates_by(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 5, &err) == 0);
    NnFeatureContext fc;
    nn_feature_context(&fc, &e.ld, &e.lay, &e.kwg);
    NnBatch b;
    CU_ASSERT_FATAL(nn_batch_init(&b, &m, &fc, 1, &err) == 0);
    McgsResult *r = malloc(sizeof *r);
    MoveList all;
    movelist_init(&all);
    int positions = 0;
    for (uint64_t gi = 0; gi < 4; gi++) {
        tu_env_position(&e, 29, gi, 60, NULL);
        if (game_over(e.g)) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        movegen_all(&req, &all);
        if (all.count < 12) continue;
        positions++;
        qsort(all.moves, all.count, sizeof all.moves[0], compare_moves);
        /* P over the root position, as the search's batch computes it */
        Position pos;
        position_from_game(&pos, e.g);
        nn_batch_set(&b, &m, 0, &pos);
        nn_forward_trunk(&m, &b, 1);
        nn_forward_submoves(&m, &b, 1);
        int ptop[8];
        double plp[8];
        CU_ASSERT_FATAL(nn_policy_top(&m, &b, 0, 8, ptop, plp) == 8);
        for (int by = MCGS_CANDIDATES_EQUITY; by <= MCGS_CANDIDATES_MIX; by++) {
            for (int K = 5; K <= 8; K += 3) {
                McgsConfig c = config(1, 1);
                c.net = &m;
                c.rollout = 0;
                c.candidates = K;
                c.candidates_by = (McgsCandidateKind)by;
                McgsSearch s;
                CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
                CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
                CU_ASSERT_EQUAL_FATAL(r->count, K);
                int from_equity = by == MCGS_CANDIDATES_EQUITY ? K : (K + 1) / 2;
                for (int a = 0; a < from_equity; a++) CU_ASSERT(move_same(&r->moves[a], &all.moves[a]));
                /* MIX: then P's order, skipping the moves already in */
                int next = 0;
                for (int a = from_equity; a < K; a++) {
                    PackedMove want;
                    bool dup;
                    do {
                        CU_ASSERT_FATAL(next < 8);
                        want = b.legal[0].m[ptop[next++]].pm;
                        dup = false;
                        for (int q = 0; q < a && !dup; q++) dup = memcmp(&r->packed[q], &want, sizeof want) == 0;
                    } while (dup);
                    CU_ASSERT(memcmp(&r->packed[a], &want, sizeof want) == 0);
                }
                for (int a = 0; a < K; a++)
                    for (int q = 0; q < a; q++) CU_ASSERT(!move_same(&r->moves[a], &r->moves[q]));
                /* priors: P renormalised over the K */
                double psum = 0.0;
                for (int a = 0; a < K; a++) psum += r->prior[a];
                CU_ASSERT_DOUBLE_EQUAL(psum, 1.0, 1e-4);
                double lp0 = nn_policy_logprob(&m, &b, 0, &r->packed[0]);
                for (int a = 1; a < K; a++) {
                    double lpa = nn_policy_logprob(&m, &b, 0, &r->packed[a]);
                    CU_ASSERT(isfinite(lpa));
                    CU_ASSERT_DOUBLE_EQUAL(log(r->prior[a] / r->prior[0]), lpa - lp0, 1e-3);
                }
                mcgs_search_free(&s);
            }
        }
    }
    CU_ASSERT(positions >= 3);
    movelist_free(&all);
    free(r);
    nn_batch_free(&b);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* prior=equity with a net (candidates by equity): the prior is the equity
 * prior of the search without a net times P (that of prior=uniform, P
 * renormalised over the same candidates), candidate by candidate. */
static void test_equity_prior_with_net(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 11, &err) == 0);
    McgsResult *r0 = malloc(sizeof *r0), *rp = malloc(sizeof *rp), *re = malloc(sizeof *re);
    int positions = 0;
    for (uint64_t gi = 0; gi < 3; gi++) {
        tu_env_position(&e, 37, gi, 50, NULL);
        if (game_over(e.g)) continue;
        positions++;
        McgsConfig c0 = config(60, 1);
        c0.candidates = 6;
        c0.prior = MCGS_PRIOR_EQUITY;
        c0.prior_temperature = 4.0;
        McgsConfig c1 = c0;
        c1.net = &m;
        c1.candidates_by = MCGS_CANDIDATES_EQUITY;
        McgsConfig cp = c1;
        cp.prior = MCGS_PRIOR_UNIFORM;
        McgsSearch s0, sp, s1;
        CU_ASSERT_FATAL(mcgs_search_init(&s0, &c0, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&sp, &cp, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s0, e.g, r0, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&sp, e.g, rp, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, re, &err) == 0);
        CU_ASSERT(r0->prior[0] > r0->prior[r0->count - 1]); /* the equity prior is not flat */
        CU_ASSERT_EQUAL_FATAL(re->count, r0->count);
        CU_ASSERT(memcmp(re->packed, r0->packed, sizeof r0->packed) == 0);
        CU_ASSERT(memcmp(rp->packed, r0->packed, sizeof r0->packed) == 0);
        double psum = 0.0;
        for (int a = 0; a < re->count; a++) psum += re->prior[a];
        CU_ASSERT_DOUBLE_EQUAL(psum, 1.0, 1e-5);
        for (int a = 1; a < re->count; a++) {
            double want = log(r0->prior[a] / r0->prior[0]) + log(rp->prior[a] / rp->prior[0]);
            CU_ASSERT_DOUBLE_EQUAL(log(re->prior[a] / re->prior[0]), want, 1e-3);
        }
        mcgs_search_free(&s0);
        mcgs_search_free(&sp);
        mcgs_search_free(&s1);
    }
    CU_ASSERT(positions >= 2);
    free(r0);
    free(rp);
    free(re);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* V AFTER THE REPLY (mcgs.h): the position V values below the root has the
 * player who moved into the leaf on turn, holding the tiles their move kept
 * (+ their draw). Two root moves of the same score and different leaves,
 * played in the same world, so give V different racks, each containing its
 * move's leave; and the leaf's value is the reply's spread change minus V's
 * expected change from there (checked against the search's own value of a
 * root edge after one playout). */
static void test_value_after_reply(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    int pairs = 0;
    for (uint64_t gi = 0; gi < 12 && pairs < 6; gi++) {
        tu_env_position(&e, 53, gi, 50, NULL);
        if (game_over(e.g)) continue;
        MoveGenRequest req;
        movegen_request_for_game(&req, e.g);
        MoveList all;
        movelist_init(&all);
        movegen_all(&req, &all);
        /* two placements of the same score whose leaves differ */
        int a = -1, b = -1;
        for (size_t i = 0; i < all.count && a < 0; i++)
            for (size_t j = i + 1; j < all.count && a < 0; j++) {
                const Move *x = &all.moves[i], *y = &all.moves[j];
                if (x->kind != MOVE_PLACE || y->kind != MOVE_PLACE || x->score != y->score) continue;
                Rack lx, ly;
                move_kept_tiles(&e.g->racks[e.g->on_turn], x, &lx);
                move_kept_tiles(&e.g->racks[e.g->on_turn], y, &ly);
                if (!rack_equal(&lx, &ly)) a = (int)i, b = (int)j;
            }
        if (a < 0) {
            movelist_free(&all);
            continue;
        }
        Rng r;
        rng_seed(&r, 99 + gi);
        Game world = *e.g;
        game_deal_unseen(e.g, &world, &r);
        McgsConfig c = config(10, 1);
        Rack seen[2];
        for (int k = 0; k < 2; k++) {
            const Move *mv = &all.moves[k == 0 ? a : b];
            Rack kept;
            move_kept_tiles(&e.g->racks[e.g->on_turn], mv, &kept);
            Game leaf = world;
            game_play(&leaf, mv);
            CU_ASSERT_FATAL(!game_over(&leaf));
            Game after;
            Move reply;
            double gain;
            CU_ASSERT_FATAL(mcgs_value_after_reply(&c, &leaf, &after, &reply, &gain) == 1);
            CU_ASSERT_EQUAL(after.on_turn, e.g->on_turn); /* the root player's turn again */
            Position pos;
            position_from_game(&pos, &after);
            bool holds = true; /* V sees the kept tiles */
            for (int t = 0; t < RK_MAX_LETTERS; t++) holds &= pos.rack.count[t] >= kept.count[t];
            CU_ASSERT(holds);
            seen[k] = pos.rack;
            /* the reply is the leaf player's best static move, its gain that move's score */
            Move best;
            MoveGenRequest lr;
            movegen_request_for_game(&lr, &leaf);
            movegen_best(&lr, &best, NULL);
            CU_ASSERT(move_same(&best, &reply));
            CU_ASSERT_DOUBLE_EQUAL(gain, (double)reply.score, 1e-12);
        }
        CU_ASSERT(!rack_equal(&seen[0], &seen[1])); /* different leaves, different inputs to V */
        movelist_free(&all);
        pairs++;
    }
    CU_ASSERT(pairs >= 3);
    /* the search's value of the root edge its one playout went through: the
     * move's score, then minus the leaf's value (the reply's gain - V's
     * expected spread change after it), in world 0 (sim_deal_world's) */
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 17, &err) == 0);
    NnFeatureContext fc;
    nn_feature_context(&fc, &e.ld, &e.lay, &e.kwg);
    NnBatch nb;
    CU_ASSERT_FATAL(nn_batch_init(&nb, &m, &fc, 1, &err) == 0);
    McgsResult *res = malloc(sizeof *res);
    int checked = 0;
    for (uint64_t gi = 0; gi < 4; gi++) {
        tu_env_position(&e, 59, gi, 40, NULL);
        if (game_over(e.g)) continue;
        McgsConfig c = config(1, 1);
        c.net = &m;
        c.rollout = 0;
        McgsSearch s;
        CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, res, &err) == 0);
        int a = -1;
        for (int k = 0; k < res->count; k++)
            if (res->visits[k] == 1) a = k;
        CU_ASSERT_FATAL(a >= 0);
        Game leaf, after;
        sim_deal_world(e.g, NULL, c.seed, 0, &leaf);
        game_play(&leaf, &res->moves[a]);
        Move reply;
        double gain;
        CU_ASSERT_FATAL(mcgs_value_after_reply(&c, &leaf, &after, &reply, &gain) == 1);
        Position pos;
        position_from_game(&pos, &after);
        nn_batch_set(&nb, &m, 0, &pos);
        nn_forward_trunk(&m, &nb, 1);
        nn_forward_value(&m, &nb, 1);
        double future = nn_value_spread(&nb, 0) - (pos.score_self - pos.score_opp);
        CU_ASSERT_DOUBLE_EQUAL(res->value[a], res->moves[a].score - (gain - future), 1e-6);
        mcgs_search_free(&s);
        checked++;
    }
    CU_ASSERT(checked >= 2);
    free(res);
    nn_batch_free(&nb);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* The tempo (search/sim.h): a rollout of 2 plies stops with the leaf's
 * player on turn, so without the value of moving next the root's own
 * rollout (the root player moves next at its horizon) and its children's
 * (the opponent moves next) differ by two tempi, ~38 points, and the
 * unvisited edges' first-play urgency (q - fpu) starts that far below the
 * visited ones. With the tempo both estimate the final spread: on
 * middle-game positions the root's u and the mean value of its edges
 * agree on average (the standard error of the mean is ~3 points here). */
static void test_root_value_agrees_with_edges(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    McgsResult *r = malloc(sizeof *r);
    McgsConfig c = config(16, 1);
    McgsSearch s;
    CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
    double sum = 0.0, sum2 = 0.0;
    int n = 0;
    for (uint64_t gi = 0; gi < 80; gi++) {
        tu_env_position(&e, 61, gi, 30 + (int)(gi % 40), NULL);
        if (game_over(e.g) || e.g->bag.count < 14) continue;
        CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r, &err) == 0);
        if (r->count < 2) continue;
        /* root q = (u + sum over edges of N(a) Q(a)) / (1 + N) */
        double edges = 0.0;
        uint32_t visits = 0;
        for (int a = 0; a < r->count; a++) {
            edges += r->visits[a] * r->value[a];
            visits += r->visits[a];
        }
        double u = (1.0 + visits) * r->root_q - edges, gap = u - edges / visits;
        sum += gap;
        sum2 += gap * gap;
        n++;
    }
    double mean = sum / n, se = sqrt((sum2 / n - mean * mean) / (n - 1));
    printf("\n    root u - edges' mean value: %.1f +- %.1f points over %d positions", mean, se, n);
    CU_ASSERT(n >= 40);
    CU_ASSERT(fabs(mean) < 12.0 && fabs(mean) < 4.0 * se + 2.0);
    mcgs_search_free(&s);
    free(r);
    tu_env_close(&e);
}

/* value_mix = m: a leaf is worth (1 - m) rollout + m V while the bag has
 * tiles. m = 1 is the search with V leaves (rollout = 0), visit for visit;
 * after one playout (the root and one child valued) the root's values are
 * linear in m; the mix takes the net's pass at every leaf (expand=first). */
static void test_value_mix(void) {
    TuEnv e;
    if (!tu_env_open(&e)) return;
    RkError err;
    NnArch arch = {.channels = 8, .blocks = 1, .embed = 16, .head_hidden = 16, .h_tiles = 1};
    NnModel m;
    CU_ASSERT_FATAL(nn_model_init(&m, &arch, &e.ld, 15, 13, &err) == 0);
    McgsResult *r[3], *rv = malloc(sizeof *rv);
    for (int k = 0; k < 3; k++) r[k] = malloc(sizeof *r[k]);
    int positions = 0, v_moves_value = 0;
    for (uint64_t gi = 0; gi < 3; gi++) {
        tu_env_position(&e, 41, gi, 60, NULL);
        if (game_over(e.g)) continue;
        positions++;
        /* one playout with m = 0, 1/2, 1 */
        const double mix[3] = {0.0, 0.5, 1.0};
        for (int k = 0; k < 3; k++) {
            McgsConfig c = config(1, 1);
            c.net = &m;
            c.value_mix = mix[k];
            c.expand = MCGS_EXPAND_FIRST; /* the same expansion for m = 0 */
            McgsSearch s;
            CU_ASSERT_FATAL(mcgs_search_init(&s, &c, &err) == 0);
            CU_ASSERT_FATAL(mcgs_search_run(&s, e.g, r[k], &err) == 0);
            mcgs_search_free(&s);
        }
        CU_ASSERT_EQUAL_FATAL(r[0]->count, r[2]->count);
        CU_ASSERT(memcmp(r[0]->visits, r[1]->visits, sizeof r[0]->visits) == 0); /* the same edge */
        CU_ASSERT(memcmp(r[0]->visits, r[2]->visits, sizeof r[0]->visits) == 0);
        CU_ASSERT_DOUBLE_EQUAL(r[1]->root_q, 0.5 * (r[0]->root_q + r[2]->root_q), 1e-9);
        for (int a = 0; a < r[0]->count; a++)
            CU_ASSERT_DOUBLE_EQUAL(r[1]->value[a], 0.5 * (r[0]->value[a] + r[2]->value[a]), 1e-9);
        v_moves_value += r[0]->root_q != r[2]->root_q;
        /* m = 1 against V leaves, 40 playouts, batched: the same search (no leaf reaches an empty bag) */
        McgsConfig c1 = config(40, 4), cv = c1;
        c1.net = cv.net = &m;
        c1.value_mix = 1.0;
        cv.rollout = 0;
        McgsSearch s1, sv;
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&sv, &cv, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r[2], &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&sv, e.g, rv, &err) == 0);
        /* every leaf had its pass (V after the reply; no reply ends the game at this bag), and
         * the nodes visited twice one more for their candidates */
        CU_ASSERT(r[2]->net_positions >= r[2]->evaluations);
        CU_ASSERT(memcmp(r[2]->packed, rv->packed, sizeof rv->packed) == 0);
        CU_ASSERT(memcmp(r[2]->visits, rv->visits, sizeof rv->visits) == 0);
        CU_ASSERT(memcmp(r[2]->value, rv->value, sizeof rv->value) == 0);
        CU_ASSERT(r[2]->root_q == rv->root_q);
        check_graph(&s1);
        mcgs_search_free(&s1);
        mcgs_search_free(&sv);
    }
    /* with an empty bag the rollout alone values the leaves: m = 1 is m = 0 */
    int endgames = 0;
    for (uint64_t gi = 0; gi < 4 && endgames < 2; gi++) {
        tu_env_position(&e, 43, gi, 0, NULL);
        if (game_over(e.g) || e.g->bag.count != 0) continue;
        endgames++;
        McgsConfig c0 = config(30, 1), c1;
        c0.net = &m;
        c0.expand = MCGS_EXPAND_FIRST;
        c1 = c0;
        c1.value_mix = 1.0;
        McgsSearch s0, s1;
        CU_ASSERT_FATAL(mcgs_search_init(&s0, &c0, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_init(&s1, &c1, &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s0, e.g, r[0], &err) == 0);
        CU_ASSERT_FATAL(mcgs_search_run(&s1, e.g, r[2], &err) == 0);
        CU_ASSERT(memcmp(r[0]->visits, r[2]->visits, sizeof r[0]->visits) == 0);
        CU_ASSERT(memcmp(r[0]->value, r[2]->value, sizeof r[0]->value) == 0);
        CU_ASSERT(r[0]->root_q == r[2]->root_q);
        mcgs_search_free(&s0);
        mcgs_search_free(&s1);
    }
    CU_ASSERT(endgames >= 1);
    CU_ASSERT(positions >= 2);
    CU_ASSERT(v_moves_value >= 1); /* V and the rollouts disagree, so the test tells them apart */
    for (int k = 0; k < 3; k++) free(r[k]);
    free(rv);
    nn_model_free(&m);
    tu_env_close(&e);
}

/* ------------------------------------------------------------ errors */

static void test_bad_configs(void) {
    RkError err;
    McgsConfig c = config(0, 1);
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "visits") != NULL);
    c = config(10, 1);
    c.hidden = MCGS_HIDDEN_NET;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "needs a net") != NULL);
    c = config(10, 1);
    c.rollout = 0;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "rollout") != NULL);
    c = config(10, 0);
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    c = config(10, 1);
    c.crn = true;
    c.worlds = 4;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "crn") != NULL);
    c = config(10, 1);
    NnModel any_net; /* only its presence is checked */
    memset(&any_net, 0, sizeof any_net);
    c.net = &any_net;
    c.expand = MCGS_EXPAND_SECOND;
    CU_ASSERT(mcgs_config_check(&c, &err) == 0); /* rollouts value the leaves: lazy is fine */
    c.rollout = 0;
    CU_ASSERT(mcgs_config_check(&c, &err) == 0); /* V after the reply brings no P: lazy is fine too */
    c = config(10, 1);
    c.candidates_by = MCGS_CANDIDATES_MIX;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "candidates_by") != NULL);
    c.candidates_by = MCGS_CANDIDATES_PRIOR;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    c.candidates_by = MCGS_CANDIDATES_EQUITY; /* without a net: what auto is */
    CU_ASSERT(mcgs_config_check(&c, &err) == 0);
    c.net = &any_net;
    c.prior = MCGS_PRIOR_EQUITY; /* with a net: needs every candidate's equity */
    c.candidates_by = MCGS_CANDIDATES_MIX;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "candidates_by=equity") != NULL);
    c.candidates_by = MCGS_CANDIDATES_EQUITY;
    CU_ASSERT(mcgs_config_check(&c, &err) == 0);
    c = config(10, 1);
    c.value_mix = 0.5; /* mixes V with rollouts: needs V */
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "value_mix") != NULL);
    c.net = &any_net;
    CU_ASSERT(mcgs_config_check(&c, &err) == 0);
    c.expand = MCGS_EXPAND_SECOND; /* V's pass is the reply's position's, not the leaf's */
    CU_ASSERT(mcgs_config_check(&c, &err) == 0);
    c.expand = MCGS_EXPAND_AUTO;
    c.rollout = 0; /* nothing to mix V with */
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "value_mix") != NULL);
    c.rollout = 2;
    c.value_mix = 1.5;
    CU_ASSERT(mcgs_config_check(&c, &err) != 0);
    CU_ASSERT(strstr(err.msg, "value_mix") != NULL);
    c = config(10, 1);
    CU_ASSERT(mcgs_config_check(&c, &err) == 0);

    LetterDist ld;
    ld_english(&ld);
    Player p;
    static const char *const bad[] = {"mcgs:visits=0",       "mcgs:hidden=net",   "mcgs:rollout=0",
                                      "mcgs:bogus=1",        "mcgs:prior=maybe",  "mcgs:net=/nonexistent/m.h5",
                                      "mcgs:batch=100000",   "mcgs:visits=abc",   "mcgs:resample=net", /* taken out: unknown now */
                                      "mcgs:spv=x.spv",       "mcgs:crn=maybe",    "mcgs:expand=third",
                                      "mcgs:crn=yes,worlds=8", "mcgs:root=halving",
                                      "mcgs:candidates_by=mix", "mcgs:candidates_by=best",
                                      "mcgs:visits=10,full_share=0.5", "mcgs:visits=10,full_share=0.5,fast_visits=10",
                                      "mcgs:full_share=1.5", "mcgs:visits=10,fast_visits=0",
                                      "mcgs:visits=10,full_share=0,fast_visits=2", "mcgs:prior_mix=0.5",
                                      "mcgs:p_weight=0", "mcgs:value_mix=0.5", "mcgs:value_mix=2",
                                      "mcgs:rollout_worlds=2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        CU_ASSERT(player_open(&p, bad[i], &ld, &err) != 0);
        CU_ASSERT(strchr(err.msg, '\n') == NULL && err.msg[0] != '\0');
        if (strstr(bad[i], "net=") == NULL) CU_ASSERT(strstr(err.msg, bad[i]) != NULL); /* names the spec */
    }
    /* an option taken out says so (a spec of an older run) */
    CU_ASSERT(player_open(&p, "mcgs:visits=10,p_weight=0", &ld, &err) != 0);
    CU_ASSERT(strstr(err.msg, "taken out") != NULL && strstr(err.msg, "research.md") != NULL);
    CU_ASSERT(player_open(&p, "static:exposure=x.txt", &ld, &err) != 0);
    CU_ASSERT(strstr(err.msg, "taken out") != NULL);
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=50,candidates=4,prior=equity,leaves=zero", &ld, &err) == 0);
    CU_ASSERT_STRING_EQUAL(player_kind_name(&p), "mcgs");
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->cfg.visits, 50);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->cfg.prior, MCGS_PRIOR_EQUITY);
    player_close(&p);
    /* crn is the default, and a pool of worlds replaces it */
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=50,leaves=zero", &ld, &err) == 0);
    CU_ASSERT(mcgs_player_of(&p)->cfg.crn);
    player_close(&p);
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=50,worlds=8,leaves=zero", &ld, &err) == 0);
    CU_ASSERT(!mcgs_player_of(&p)->cfg.crn);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->cfg.worlds, 8);
    player_close(&p);
    CU_ASSERT_FATAL(player_open(&p, "mcgs:visits=50,crn=no,expand=first,leaves=zero", &ld, &err) == 0);
    CU_ASSERT(!mcgs_player_of(&p)->cfg.crn);
    CU_ASSERT_EQUAL(mcgs_player_of(&p)->cfg.expand, MCGS_EXPAND_FIRST);
    player_close(&p);
}

int main(void) {
    CU_TestInfo tests[] = {
        {"threads: the same search to the bit on 1, 2 and 3 threads", test_threads_same_search},
        {"value formulas, idempotence, shared children", test_graph_formulas},
        {"information-set keys", test_infoset_keys},
        {"searches: accounting, fixed points, determinism, batches", test_search_accounting_and_determinism},
        {"worlds: exact in the endgame, sampled before", test_worlds_exact_in_endgame},
        {"a collision ends the round", test_collisions_end_a_round},
        {"the leak's reach: opponent's nodes chosen from statistics", test_leak_reach},
        {"lazy expansion: the same search, fewer edges", test_lazy_expansion_same_search},
        {"crn: a root move's value depends on its visits only", test_crn_values_depend_on_visits_only},
        {"guided by a random network", test_with_random_net},
        {"endgames against the exact solver", test_endgames_against_the_solver},
        {"visit distributions as P targets", test_visit_targets},
        {"the search's expected final spread", test_player_expected_spread},
        {"nn_policy_top is the top of nn_policy_all", test_policy_top_matches_all},
        {"candidates_by: equity and mix with a net", test_candidates_by},
        {"the equity prior with a net: the no-net equity prior times P", test_equity_prior_with_net},
        {"V after the reply sees the mover's kept tiles", test_value_after_reply},
        {"the root's value agrees with its edges' (the tempo)", test_root_value_agrees_with_edges},
        {"value_mix: V mixed with rollouts at the leaves", test_value_mix},
        {"playout cap randomization: full and fast decisions", test_playout_cap},
        {"bad configurations", test_bad_configs},
        CU_TEST_INFO_NULL,
    };
    return tu_run("mcgs", tests);
}
