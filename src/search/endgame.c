/*
 * endgame.c - exact values of an empty-bag position (see endgame.h):
 * full-window searches of every root move, negamax with alpha-beta below,
 * and an optional transposition table of one call.
 */
#include "endgame.h"
#include "endgame_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/movegen.h"

void endgame_config_defaults(EndgameConfig *c) {
    c->max_nodes = ENDGAME_DEFAULT_MAX_NODES;
    c->table_bits = ENDGAME_DEFAULT_TABLE_BITS;
    c->stop = NULL;
    c->deadline = 0.0;
    c->max_depth = 0;
    c->threads = 1;
}

void endgame_result_init(EndgameResult *r) { memset(r, 0, sizeof *r); }

void endgame_result_free(EndgameResult *r) {
    free(r->moves);
    free(r->values);
    memset(r, 0, sizeof *r);
}

int endgame_result_find(const EndgameResult *r, const Move *m) {
    for (int i = 0; i < r->count; i++)
        if (move_same(&r->moves[i], m)) return i;
    return -1;
}

/* ------------------------------------------------------------ the solver */

int eg_check_position(const Game *g, const EndgameConfig *cfg, RkError *err) {
    if (cfg->max_nodes < 1) return rk_error(err, "endgame: the node budget must be at least 1");
    if (cfg->table_bits < 0 || cfg->table_bits > ENDGAME_MAX_TABLE_BITS)
        return rk_error(err, "endgame: table bits %d out of range 0..%d", cfg->table_bits, ENDGAME_MAX_TABLE_BITS);
    if (game_over(g)) return rk_error(err, "endgame: the game is over");
    if (g->bag.count != 0)
        return rk_error(err, "endgame: the bag is not empty (%d tile%s): only empty-bag positions can be solved",
                        g->bag.count, g->bag.count == 1 ? "" : "s");
    if (g->racks[0].total == 0 || g->racks[1].total == 0)
        return rk_error(err, "endgame: a rack is empty (the game would be over)");
    return 0;
}

int eg_solver_open(Solver *s, const EndgameConfig *cfg, RkError *err) {
    memset(s, 0, sizeof *s);
    s->max_nodes = cfg->max_nodes;
    s->stop = cfg->stop;
    s->deadline = cfg->deadline;
    if (cfg->table_bits > 0) {
        size_t n = (size_t)1 << cfg->table_bits;
        s->tt = calloc(n, sizeof *s->tt);
        if (s->tt == NULL) return rk_error(err, "endgame: out of memory for a table of %zu entries", n);
        s->tt_mask = (uint64_t)n - 1;
    }
    return 0;
}

void eg_solver_close(Solver *s) {
    for (int i = 0; i < s->nplies; i++) {
        movelist_free(&s->plies[i]->moves);
        free(s->plies[i]);
    }
    free(s->plies);
    free(s->tt);
    memset(s, 0, sizeof *s);
}

/* Makes levels 0..d exist; false when out of memory. */
bool eg_ensure_ply(Solver *s, int d) {
    while (s->nplies <= d) {
        if (s->nplies == s->cap) {
            int cap = s->cap ? 2 * s->cap : 32;
            Ply **p = realloc(s->plies, (size_t)cap * sizeof *p);
            if (p == NULL) return false;
            s->plies = p;
            s->cap = cap;
        }
        Ply *p = malloc(sizeof *p);
        if (p == NULL) return false;
        movelist_init(&p->moves);
        s->plies[s->nplies++] = p;
    }
    return true;
}

static int cmp_moves(const void *a, const void *b) { return movegen_compare(a, b); }

/* Every legal move of g's player on turn, in movegen_compare order. */
static void gen_sorted(const Game *g, MoveList *out) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    movegen_all(&req, out);
    if (out->count > 1) qsort(out->moves, out->count, sizeof *out->moves, cmp_moves);
}

static uint64_t mix64(uint64_t x) {
    x += UINT64_C(0x9E3779B97F4A7C15);
    x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
    return x ^ (x >> 31);
}

uint64_t endgame_position_key(const Game *g) {
    uint64_t k = 0;
    int n = g->board.dim * g->board.dim;
    for (int i = 0; i < n; i++) {
        uint8_t t = g->board.sq[0][i];
        if (t) k ^= mix64(((uint64_t)i << 8) | t);
    }
    for (int p = 0; p < 2; p++)
        for (int ml = 0; ml < g->ld->size; ml++)
            if (g->racks[p].count[ml])
                k ^= mix64((UINT64_C(1) << 40) | ((uint64_t)p << 32) | ((uint64_t)ml << 8) | g->racks[p].count[ml]);
    return k ^ mix64((UINT64_C(2) << 40) | ((uint64_t)g->on_turn << 8) | (uint64_t)g->zeros);
}

/* Whether m, a move of g's player on turn, plays the last tiles of the rack. */
static bool goes_out(const Game *g, const Move *m) {
    return m->kind == MOVE_PLACE && m->ntiles == g->racks[g->on_turn].total;
}

/* The plies left below a position searched with `depth` plies left. */
static int child_depth(int depth) { return depth == DEPTH_PROVEN ? DEPTH_PROVEN : depth - 1; }

/* The value of playing m from level d's position (from its mover's view),
 * searching the reply with the window (alpha, beta) of level d and `depth`
 * plies left (this move is one of them): exact if it lies strictly inside,
 * else a bound on the right side (fail-soft). At the horizon (no plies left
 * after m, the game not over) the reply is valued 0: the line's value is the
 * spread it has made, and the tiles still on the racks count for neither
 * side (going out and six scoreless turns are always valued exactly). */
int32_t eg_move_value(Solver *s, int d, const Move *m, int32_t alpha, int32_t beta, int depth) {
    const Game *g = &s->plies[d]->game;
    int me = g->on_turn, opp = 1 - me;
    if (goes_out(g, m)) /* the game ends */
        return m->score + 2 * rack_score(&g->racks[opp], g->ld);
    if (depth == 1 && m->kind == MOVE_PLACE && m->score > 0) {
        /* a scoring move that does not go out cannot end the game: its value
         * at the horizon is its score, without playing it */
        s->horizon = true;
        return m->score;
    }
    Game *c = &s->plies[d + 1]->game;
    *c = *g;
    game_play(c, m);
    int32_t delta = (c->scores[me] - c->scores[opp]) - (g->scores[me] - g->scores[opp]);
    if (game_over(c)) return delta;
    if (depth == 1) {
        s->horizon = true;
        return delta;
    }
    return delta - eg_search(s, d + 1, delta - beta, delta - alpha, child_depth(depth));
}

bool eg_stopped(const Solver *s) { return s->over_budget || s->out_of_memory || s->stop_seen; }

/* The leave term that makes movegen's equity rank moves by their value at
 * the horizon: a move that keeps tiles is worth its score, one that goes out
 * its score plus twice the opponent's rack. With tiles said to be in the bag
 * equity is 1000*score + leave, and the empty leave must be worth 0, so
 * every other leave is worth -2000 * the opponent's rack instead (ctx: that
 * rack's face value) and the value is equity/1000 + 2 * that face value. */
static int32_t horizon_leave(const void *ctx, const Rack *leave) {
    (void)leave;
    return -2000 * *(const int *)ctx;
}

/* A request for g's player on turn whose equity ranks moves by their value
 * at the horizon (see horizon_leave); *opp_face receives the opponent's
 * rack's face value, and must live as long as the request. */
static void horizon_request(const Game *g, MoveGenRequest *req, int *opp_face) {
    movegen_request_for_game(req, g);
    *opp_face = req->opp_rack_score;
    req->bag_count = 1; /* see horizon_leave */
    req->exchanges_allowed = false;
    req->leave_value = horizon_leave;
    req->leave_ctx = opp_face;
}

/* A placement's value at the horizon from its horizon equity. */
static int32_t horizon_value(const Move *m, int opp_face) { return m->equity / 1000 + 2 * opp_face; }

/* The value of g for its player on turn with one ply left and fewer than
 * five scoreless turns behind (so no move but going out ends the game):
 * the best of the moves' horizon values and the pass's 0, from the best
 * move of movegen (its word-map path) instead of every move. */
static int32_t horizon_best(const Game *g) {
    MoveGenRequest req;
    int opp_face;
    horizon_request(g, &req, &opp_face);
    Move best;
    movegen_best(&req, &best, NULL);
    if (best.kind != MOVE_PLACE) return 0;
    int32_t v = horizon_value(&best, opp_face);
    return v > 0 ? v : 0;
}

int32_t endgame_horizon_value(const Game *g) { return horizon_best(g); }

int32_t endgame_selective_two(const Game *g, int width) {
    MoveGenRequest req;
    int opp_face;
    horizon_request(g, &req, &opp_face);
    MoveList top;
    movelist_init(&top);
    movegen_top(&req, width, movegen_compare, &top);
    int32_t best = -EG_INF;
    int me = g->on_turn, opp = 1 - me;
    Game c;
    for (size_t i = 0; i < top.count; i++) {
        const Move *m = &top.moves[i];
        int32_t v;
        if (goes_out(g, m)) {
            v = m->score + 2 * opp_face;
        } else {
            c = *g;
            game_play(&c, m);
            v = (c.scores[me] - c.scores[opp]) - (g->scores[me] - g->scores[opp]);
            if (!game_over(&c)) v -= horizon_best(&c);
        }
        if (v > best) best = v;
    }
    movelist_free(&top);
    return best;
}

/* The moves of level d's position searched in turn (fail-soft alpha-beta):
 * the table's move `first` (or -1) first, then the others in the list's
 * order. With two plies left and fewer than four scoreless turns behind, a
 * reply is valued 0 or more at the horizon, so a move that does not go out
 * is worth at most its score: one whose score cannot raise alpha is not
 * searched, and its score is kept as the upper bound it is. Returns the
 * best value (or bound), its index in *best_i; 0 once stopped. */
static int32_t search_moves(Solver *s, int d, int32_t alpha, int32_t beta, int depth, int first, int *best_i) {
    const Ply *p = s->plies[d];
    int n = (int)p->moves.count;
    const bool bounded = depth == 2 && p->game.zeros < 4;
    int32_t best = -EG_INF;
    *best_i = 0;
    for (int k = first >= 0 ? -1 : 0; k < n; k++) {
        int i = k < 0 ? first : k;
        if (k >= 0 && i == first) continue;
        const Move *m = &p->moves.moves[i];
        if (bounded && m->score <= alpha && !goes_out(&p->game, m)) {
            s->horizon = true;
            if (m->score > best) best = m->score;
            continue;
        }
        int32_t v = eg_move_value(s, d, m, alpha, beta, depth);
        if (eg_stopped(s)) return 0;
        if (v > best) {
            best = v;
            *best_i = i;
        }
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    return best;
}

/* Moves asked of movegen_top at two plies left (see search_two). */
#define TWO_PLY_TOP 16

/* search_moves at two plies left (fewer than four scoreless turns behind)
 * without generating every move: the TWO_PLY_TOP moves of highest horizon
 * value (their upper bounds, see search_moves), best first; the pass, worth
 * at most 0, comes last in that order, so a list shorter than TWO_PLY_TOP
 * ends with it. False when the last of a full list could still raise
 * alpha: then every move must be generated. */
static bool search_two(Solver *s, int d, int32_t alpha, int32_t beta, int32_t *value) {
    Ply *p = s->plies[d];
    MoveGenRequest req;
    int opp_face;
    horizon_request(&p->game, &req, &opp_face);
    size_t got = movegen_top(&req, TWO_PLY_TOP, movegen_compare, &p->moves);
    int32_t best = -EG_INF;
    for (size_t i = 0; i < got; i++) {
        const Move *m = &p->moves.moves[i];
        int32_t bound = m->kind == MOVE_PLACE ? horizon_value(m, opp_face) : 0;
        if (bound <= alpha && !goes_out(&p->game, m)) { /* and so are all the rest, the pass too */
            s->horizon = true;
            *value = best > bound ? best : bound;
            return true;
        }
        int32_t v = eg_move_value(s, d, m, alpha, beta, 2);
        if (eg_stopped(s)) return true;
        if (v > best) best = v;
        if (v > alpha) alpha = v;
        if (alpha >= beta || m->kind != MOVE_PLACE) { /* a cutoff, or the pass: the list held every move */
            *value = best;
            return true;
        }
    }
    return false;
}

/* Negamax value of level d's position for its player on turn, fail-soft
 * alpha-beta, `depth` plies left (DEPTH_PROVEN: to the game's end). Sets
 * s->horizon when the value depends on a line cut by the depth limit (then
 * it is an estimate, stored in the table with its depth). Returns 0
 * (meaningless) once eg_stopped(s). */
int32_t eg_search(Solver *s, int d, int32_t alpha, int32_t beta, int depth) {
    if (s->nodes >= s->max_nodes) {
        s->over_budget = true;
        return 0;
    }
    /* the flag and the clock are read every 64 positions (a few ms at most)
     * rather than at every one */
    if ((s->nodes & 63) == 0 && ((s->stop != NULL && atomic_load_explicit(s->stop, memory_order_relaxed)) ||
                                 (s->deadline > 0.0 && rk_seconds() >= s->deadline))) {
        s->stop_seen = true;
        return 0;
    }
    s->nodes++;
    if (!eg_ensure_ply(s, d + 1)) {
        s->out_of_memory = true;
        return 0;
    }
    Ply *p = s->plies[d];
    const int32_t alpha0 = alpha;
    TtEntry *e = NULL;
    uint64_t key = 0;
    int first = -1;
    if (s->tt != NULL) {
        key = endgame_position_key(&p->game);
        e = &s->tt[key & s->tt_mask];
        if (e->flag != TT_EMPTY && e->key == key) {
            if (e->depth >= depth &&
                (e->flag == TT_EXACT || (e->flag == TT_LOWER && e->value >= beta) ||
                 (e->flag == TT_UPPER && e->value <= alpha))) {
                s->table_hits++;
                if (e->depth != DEPTH_PROVEN) s->horizon = true;
                return e->value;
            }
            first = e->best;
        }
    }
    if (depth == 1 && p->game.zeros < 5) {
        /* every reply is valued at the horizon: the best one alone */
        int32_t v = horizon_best(&p->game);
        s->horizon = true;
        if (e != NULL) *e = (TtEntry){.key = key, .value = v, .best = NO_MOVE, .flag = TT_EXACT, .depth = 1};
        return v;
    }
    const bool outer_horizon = s->horizon;
    s->horizon = false;
    int32_t best = 0;
    int best_i = -1; /* -1: the moves searched are not the sorted list (search_two) */
    if (!(depth == 2 && p->game.zeros < 4 && search_two(s, d, alpha, beta, &best))) {
        gen_sorted(&p->game, &p->moves);
        if (first >= (int)p->moves.count) first = -1;
        best = search_moves(s, d, alpha, beta, depth, first, &best_i);
    }
    if (eg_stopped(s)) return 0;
    if (e != NULL) {
        e->key = key;
        e->value = best;
        e->best = (uint16_t)(best_i >= 0 && best_i < NO_MOVE ? best_i : NO_MOVE);
        e->flag = best <= alpha0 ? TT_UPPER : best >= beta ? TT_LOWER : TT_EXACT;
        e->depth = (uint8_t)(s->horizon ? depth : DEPTH_PROVEN);
    }
    s->horizon = s->horizon || outer_horizon;
    return best;
}

/* The exact value of root move m (level 0 holds the root). */
static int32_t root_move_value(Solver *s, const Move *m) { return eg_move_value(s, 0, m, -EG_INF, EG_INF, DEPTH_PROVEN); }

int eg_solver_error(const Solver *s, RkError *err) {
    if (s->out_of_memory) return rk_error(err, "endgame: out of memory");
    if (s->stop_seen) {
        rk_error(err, "endgame: stopped after %llu positions", (unsigned long long)s->nodes);
        return ENDGAME_STOPPED;
    }
    rk_error(err, "endgame: node budget of %llu positions exceeded", (unsigned long long)s->max_nodes);
    return ENDGAME_OVER_BUDGET;
}

/* Opens the solver with the root at level 0 and its sorted moves there. */
int eg_solver_root(Solver *s, const Game *g, const EndgameConfig *cfg, RkError *err) {
    if (eg_check_position(g, cfg, err) != 0 || eg_solver_open(s, cfg, err) != 0) return -1;
    if (!eg_ensure_ply(s, 1)) {
        eg_solver_close(s);
        return rk_error(err, "endgame: out of memory");
    }
    s->plies[0]->game = *g;
    gen_sorted(g, &s->plies[0]->moves);
    s->nodes = 1;
    return 0;
}

/* The best move, then, while the table holds the position after it with a
 * best move, that move: the line the search found best (the values of the
 * replies may be bounds, so past the first move it is the search's line,
 * not a proof). A position the search valued with one or two plies left
 * keeps no move in the table (NO_MOVE): there the line goes on with the
 * move of the best value at the horizon (the best-scoring reply, what the
 * search assumed at one ply). At most max_len plies (<= ENDGAME_PV_MAX).
 * Level 0 is used as scratch and holds the root again at the end. */
void eg_principal_variation(Solver *s, const Game *root, const Move *best, int max_len, Move *pv,
                                int *pv_len) {
    Game *g = &s->plies[0]->game;
    MoveList *moves = &s->plies[0]->moves;
    *g = *root;
    pv[0] = *best;
    *pv_len = 1;
    game_play(g, best);
    while (s->tt != NULL && !game_over(g) && *pv_len < max_len) {
        uint64_t key = endgame_position_key(g);
        const TtEntry *e = &s->tt[key & s->tt_mask];
        if (e->flag == TT_EMPTY || e->key != key) break;
        Move next;
        if (e->best == NO_MOVE) {
            MoveGenRequest req;
            int opp_face;
            horizon_request(g, &req, &opp_face);
            movegen_best(&req, &next, NULL);
        } else {
            gen_sorted(g, moves);
            if (e->best >= moves->count) break;
            next = moves->moves[e->best];
        }
        pv[(*pv_len)++] = next;
        game_play(g, &next);
    }
    *g = *root;
}

int endgame_solve(const Game *g, const EndgameConfig *cfg, EndgameResult *out, RkError *err) {
    double t0 = rk_seconds();
    Solver s;
    if (eg_solver_root(&s, g, cfg, err) != 0) return -1;
    const MoveList *root = &s.plies[0]->moves;
    int n = (int)root->count;
    if (n > out->cap) {
        Move *m = realloc(out->moves, (size_t)n * sizeof *m);
        if (m != NULL) out->moves = m;
        int32_t *v = realloc(out->values, (size_t)n * sizeof *v);
        if (v != NULL) out->values = v;
        if (m == NULL || v == NULL) {
            eg_solver_close(&s);
            return rk_error(err, "endgame: out of memory");
        }
        out->cap = n;
    }
    out->count = n;
    memcpy(out->moves, root->moves, (size_t)n * sizeof *out->moves);
    out->best = 0;
    out->solved = 0;
    out->pv_len = 0;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        out->values[i] = root_move_value(&s, &out->moves[i]);
        if (eg_stopped(&s)) {
            rc = eg_solver_error(&s, err);
            break;
        }
        out->solved = i + 1;
        if (out->values[i] > out->values[out->best]) out->best = i;
    }
    if (out->solved > 0) {
        out->best_value = out->values[out->best];
        eg_principal_variation(&s, g, &out->moves[out->best], ENDGAME_PV_MAX, out->pv, &out->pv_len);
    }
    out->nodes = s.nodes;
    out->table_hits = s.table_hits;
    out->seconds = rk_seconds() - t0;
    eg_solver_close(&s);
    return rc;
}

int endgame_move_value(const Game *g, const Move *m, const EndgameConfig *cfg, int32_t *value,
                       uint64_t *nodes, RkError *err) {
    Solver s;
    if (eg_solver_root(&s, g, cfg, err) != 0) return -1;
    const MoveList *root = &s.plies[0]->moves;
    const Move *legal = NULL;
    for (size_t i = 0; i < root->count && legal == NULL; i++)
        if (move_same(&root->moves[i], m)) legal = &root->moves[i];
    if (legal == NULL) {
        char text[128];
        move_to_string(m, &g->board, g->ld, text, sizeof text);
        eg_solver_close(&s);
        return rk_error(err, "endgame: '%s' is not a legal move here", text);
    }
    int32_t v = root_move_value(&s, legal);
    int rc = eg_stopped(&s) ? eg_solver_error(&s, err) : 0;
    if (rc == 0) *value = v;
    if (nodes != NULL) *nodes = s.nodes;
    eg_solver_close(&s);
    return rc;
}
