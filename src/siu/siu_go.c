/* siu_go.c - a `go` of an SIU session: its parameters, then a search in a
 * thread of its own (gen, sim, endgame, auto), its info lines and its one
 * bestmove (see siu_session.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/movegen.h"
#include "search/endgame.h"
#include "search/peg.h"
#include "search/sim.h"
#include "siu_move.h"
#include "siu_session.h"

#ifndef ROOKERY_VERSION
#define ROOKERY_VERSION "dev"
#endif

typedef enum { MODE_AUTO, MODE_GEN, MODE_SIM, MODE_ENDGAME, MODE_PEG, MODE_INFER } Mode;

/* A go's parameters; -1 = not given. */
typedef struct GoParams {
    Mode mode;
    long long depth, iterations, movetime, stopcondition, threads;
    bool infinite;
    bool use_inference; /* useinference, with an inference of this position to use */
    Move search[SIM_MAX_CANDIDATES]; /* searchmoves, legal, with their static equity */
    int nsearch;
    Move also[SIM_MAX_CANDIDATES];   /* alsosearchmoves */
    int nalso;
} GoParams;

/* What the search thread owns. */
typedef struct GoJob {
    SiuSession *s;
    GoParams p;
    Game game; /* the position (a copy: the session may take another one meanwhile) */
    Game before; /* for go infer: the position before the last move, and that move */
    Move last;
    bool last_unknown_tiles;
    double t0;
    double last_report;
    uint64_t reported; /* what the last table streamed covered: a sim's rollouts, a peg's lines searched */
} GoJob;

/* ------------------------------------------------------------ output */

static void move_text(const GoJob *j, const Move *m, char *buf, size_t cap) {
    siu_move_write(m, &j->game.board, j->game.ld, buf, cap);
}

static void leave_text(const GoJob *j, const Move *m, char *buf, size_t cap) {
    Rack kept;
    move_kept_tiles(&j->game.racks[j->game.on_turn], m, &kept);
    rack_to_string(&kept, j->game.ld, buf, cap);
    if (buf[0] == '\0') snprintf(buf, cap, "-");
}

static void say_provenance(GoJob *j) {
    const SiuTables *t = &j->s->tables;
    siu_say(j->s, "info string provenance engine=%s/%s leaves=%s winpct=%s lexicon=%s", SIU_NAME, ROOKERY_VERSION,
            t->leaves_id, t->win_id, t->lexicon_code);
}

static void say_gen(GoJob *j, const Move *m) {
    char mt[SIU_MOVE_MAX], lt[64];
    move_text(j, m, mt, sizeof mt);
    leave_text(j, m, lt, sizeof lt);
    siu_say(j->s, "info gen move %s score %d eq %.3f leave %s", mt, (int)m->score, m->equity / 1000.0, lt);
}

/* Ends the go: under `infinite`, not before stop (the protocol's rule). */
static void say_bestmove(GoJob *j, const Move *m) {
    while (j->p.infinite && !atomic_load(&j->s->halt)) { /* the front end's stop, not the movetime */
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    char mt[SIU_MOVE_MAX];
    move_text(j, m, mt, sizeof mt);
    /* idle from here on: a command the front end sends once it reads the
     * bestmove must find the search over (the thread only frees its own
     * memory after this) */
    atomic_store(&j->s->done, true);
    siu_say(j->s, "bestmove %s", mt);
}

static void say_ignored(SiuSession *s, const char *what) { siu_say(s, "info string ignored %s", what); }

/* ------------------------------------------------------------ gen */

static LeaveValueFn session_leaves(const SiuSession *s) {
    return s->tables.leaves != NULL ? klv_leave_value : NULL;
}

/* Every legal move, by static equity under the session's leaves. */
static void all_moves(const Game *g, const SiuSession *s, MoveList *out) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, session_leaves(s), s->tables.leaves);
    movegen_all(&req, out);
    movelist_sort_by_equity(out);
}

static void run_gen(GoJob *j) {
    MoveList list;
    movelist_init(&list);
    const Move *best;
    if (j->p.nsearch > 0) { /* the given moves only, by equity */
        for (int i = 0; i < j->p.nsearch; i++) *movelist_push(&list) = j->p.search[i];
        movelist_sort_by_equity(&list);
        for (size_t i = 0; i < list.count; i++) say_gen(j, &list.moves[i]);
    } else {
        all_moves(&j->game, j->s, &list);
        int shown = 0;
        for (size_t i = 0; i < list.count; i++) {
            bool also = false;
            for (int k = 0; k < j->p.nalso; k++) also |= move_same(&list.moves[i], &j->p.also[k]);
            if (shown < j->s->opt.gen_count || also) say_gen(j, &list.moves[i]);
            shown++;
        }
    }
    best = &list.moves[0];
    say_bestmove(j, best);
    movelist_free(&list);
}

/* ------------------------------------------------------------ sim */

/* info sim lines for the best candidates, live first, by mean. */
static void say_sim(GoJob *j, const SimResult *r) {
    const SimCandidate *order[SIM_MAX_CANDIDATES];
    sim_table_order(r, order);
    int n = r->count < j->s->opt.gen_count ? r->count : j->s->opt.gen_count;
    for (int i = 0; i < n; i++) {
        const SimCandidate *c = order[i];
        char mt[SIU_MOVE_MAX];
        move_text(j, &c->move, mt, sizeof mt);
        siu_say(j->s, "info sim move %s wp %.2f wpse %.2f eq %.3f eqse %.3f iters %llu", mt, 100.0 * sim_win_mean(c),
                100.0 * sim_win_stderr(c), sim_mean(c), sim_stderr(c), (unsigned long long)c->n);
    }
    double ms = (rk_seconds() - j->t0) * 1000.0;
    siu_say(j->s, "info time %.0f nodes %llu", ms, (unsigned long long)r->rollouts); /* a node: a rollout */
}

/* Streams the table about twice a second. */
static void sim_progress(void *ctx, const SimResult *r) {
    GoJob *j = ctx;
    double now = rk_seconds();
    if (now - j->last_report < 0.5) return;
    j->last_report = now;
    j->reported = r->rollouts;
    say_sim(j, r);
}

/* z of a one-sided `pct` % bound. */
static double stop_z(long long pct) { return pct >= 99 ? 2.326 : pct >= 98 ? 2.054 : 1.645; }

/* go auto's simulation under a movetime: it ends before the time only when
 * every other candidate is this many standard errors of the difference
 * behind the leader (a one-sided 99.87% for each): the time is spent while
 * it can still change the answer, and a settled answer comes early. */
#define AUTO_SETTLED_Z 3.0

/* The go's limits on a sim's configuration (its own when none is given). */

/* The threads a search is asked for: the go's `threads N`, else the Threads
 * option when above 1, at most max; 0 when neither asks (the search keeps
 * its own). */
static int asked_threads(const GoJob *j, int max) {
    long long t = j->p.threads >= 1 ? j->p.threads : j->s->opt.threads > 1 ? j->s->opt.threads : 0;
    return t > max ? max : (int)t;
}
static void sim_limits(const GoJob *j, SimConfig *cfg) {
    const GoParams *p = &j->p;
    bool timed = p->movetime >= 0 || p->infinite;
    if (p->depth >= 0) cfg->plies = p->depth > 100 ? 100 : (int)p->depth;
    if (p->iterations >= 0) cfg->iterations = p->iterations > 0 ? (uint64_t)p->iterations : 1;
    else if (timed) cfg->iterations = UINT64_MAX;
    if (p->movetime >= 0 && !p->infinite && p->mode == MODE_AUTO && cfg->stop_z > 0.0 && cfg->stop_z < AUTO_SETTLED_Z)
        cfg->stop_z = AUTO_SETTLED_Z;
    if (p->infinite && p->mode == MODE_AUTO) cfg->stop_z = 0.0; /* refine until stop */
    if (p->stopcondition >= 0) {
        cfg->stop_z = stop_z(p->stopcondition);
        if (cfg->min_iterations < 2) cfg->min_iterations = 2;
    }
    /* threads: the go's, else the Threads option, else (at 1) the player's own */
    int threads = asked_threads(j, SIM_MAX_THREADS);
    if (threads > 0) cfg->threads = threads;
    cfg->stop = &j->s->stop;
    cfg->progress = sim_progress;
    cfg->progress_ctx = (void *)j;
}

/* The candidates of the go: searchmoves, or the K best plus alsosearchmoves. */
static int sim_candidates(GoJob *j, const SimConfig *cfg, Move *out) {
    if (j->p.nsearch > 0) {
        memcpy(out, j->p.search, (size_t)j->p.nsearch * sizeof *out);
        return j->p.nsearch;
    }
    if (j->p.nalso == 0) return 0;
    MoveGenRequest req;
    movegen_request_for_game(&req, &j->game);
    klv_request_leaves(&req, cfg->leave_value, cfg->leave_ctx);
    MoveList top;
    movelist_init(&top);
    /* room for every alsosearchmove beside the best */
    int best = cfg->candidates < SIM_MAX_CANDIDATES - j->p.nalso ? cfg->candidates : SIM_MAX_CANDIDATES - j->p.nalso;
    movegen_top(&req, best, move_compare_equity, &top);
    int n = 0;
    for (size_t i = 0; i < top.count; i++) out[n++] = top.moves[i];
    for (int k = 0; k < j->p.nalso && n < SIM_MAX_CANDIDATES; k++) {
        bool have = false;
        for (int i = 0; i < n; i++) have |= move_same(&out[i], &j->p.also[k]);
        if (!have) out[n++] = j->p.also[k];
    }
    movelist_free(&top);
    return n;
}

static void run_sim_with(GoJob *j, SimConfig *cfg) {
    Move given[SIM_MAX_CANDIDATES];
    int n = sim_candidates(j, cfg, given);
    if (n > 0) {
        cfg->given = given;
        cfg->given_count = n;
    }
    sim_limits(j, cfg);
    if (j->p.use_inference) cfg->infer = &j->s->inference;
    SimResult *r = malloc(sizeof *r);
    RkError err;
    if (r == NULL || sim_run(&j->game, cfg, r, &err) != 0) {
        siu_say(j->s, "info string sim failed (%s); the static move instead", r == NULL ? "out of memory" : err.msg);
        free(r);
        MoveList list;
        movelist_init(&list);
        all_moves(&j->game, j->s, &list);
        say_bestmove(j, &list.moves[0]);
        movelist_free(&list);
        return;
    }
    if (r->rollouts != j->reported) say_sim(j, r); /* the final table, unless just streamed */
    say_bestmove(j, &r->cand[r->best].move);
    free(r);
}

static void run_sim(GoJob *j) {
    SimConfig cfg;
    sim_config_defaults(&cfg);
    cfg.plies = j->s->opt.sim_plies;
    cfg.candidates = j->s->opt.sim_candidates;
    cfg.leave_value = session_leaves(j->s);
    cfg.leave_ctx = j->s->tables.leaves;
    cfg.win = j->s->tables.win;
    cfg.seed = (uint64_t)j->s->opt.seed ^ rng_next(&j->game.rng);
    if (j->p.movetime >= 0 || j->p.infinite) cfg.stop_z = 0.0; /* search the time given */
    run_sim_with(j, &cfg);
}

/* ------------------------------------------------------------ infer */

static void run_infer(GoJob *j) {
    SiuSession *s = j->s;
    InferConfig cfg;
    infer_config_defaults(&cfg);
    cfg.tau = s->opt.infer_tau > 0 ? s->opt.infer_tau : 0.001; /* 0: exactly the best move */
    cfg.leave_value = session_leaves(s);
    cfg.leave_ctx = s->tables.leaves;
    cfg.seed = (uint64_t)s->opt.seed;
    RkError err;
    InferResult *r = &s->inference; /* the session's: the input thread leaves it alone during a search */
    if (infer_run(&j->before, &j->last, j->last_unknown_tiles, &cfg, r, &err) != 0) {
        siu_say(s, "info string infer: %s", err.msg);
    } else {
        int n = r->count < s->opt.gen_count ? r->count : s->opt.gen_count;
        for (int i = 0; i < n; i++) {
            char lt[64];
            rack_to_string(&r->leaves[i].leave, j->game.ld, lt, sizeof lt);
            siu_say(s, "info infer leave %s prob %.4f", lt[0] != '\0' ? lt : "-", r->leaves[i].prob);
        }
        siu_say(s, "info string infer: %d leaves of %d tiles from %llu racks weighed (%s%s), %.0f ms", r->count,
                r->leave_size, (unsigned long long)r->racks, r->exact ? "all of them" : "drawn and reweighed to the prior",
                r->prior_only ? "; the model explains the move for no rack: the prior" : "", r->seconds * 1000.0);
    }
    while (j->p.infinite && !atomic_load(&s->halt)) nanosleep(&(struct timespec){0, 2000000}, NULL);
    atomic_store(&s->done, true);
    siu_say(s, "bestmove none");
}

/* ------------------------------------------------------------ endgame */

/* After every completed depth: the line the search holds best. */
static void say_endgame_depth(void *ctx, const EndgameSearchResult *r) {
    GoJob *j = ctx;
    char line[8192];
    int len = snprintf(line, sizeof line, "info endgame depth %d score spread %+d pv", r->depth, (int)r->value);
    Game g = j->game;
    for (int i = 0; i < r->pv_len && len < (int)sizeof line - SIU_MOVE_MAX - 2; i++) {
        char mt[SIU_MOVE_MAX];
        siu_move_write(&r->pv[i], &g.board, g.ld, mt, sizeof mt);
        len += snprintf(line + len, sizeof line - (size_t)len, " %s", mt);
        game_play(&g, &r->pv[i]);
    }
    siu_say(j->s, "%s", line);
    double secs = r->seconds > 1e-6 ? r->seconds : 1e-6;
    siu_say(j->s, "info depth %d score eq %d nodes %llu time %.0f nps %.0f", r->depth, (int)r->value,
            (unsigned long long)r->nodes, r->seconds * 1000.0, (double)r->nodes / secs);
}

/* The static best move as the answer, after a search that could not run. */
static void static_bestmove(GoJob *j) {
    MoveList list;
    movelist_init(&list);
    all_moves(&j->game, j->s, &list);
    say_bestmove(j, &list.moves[0]);
    movelist_free(&list);
}

/* The endgame search (search/endgame.h) until exact, stop, `depth` plies
 * (0: none) or `deadline` (0: none); the answer in *r. An untimed search
 * without a depth has the solver's default node budget. False (said) if it
 * could not run. */
static bool search_endgame(GoJob *j, long long depth, double deadline, EndgameSearchResult *r) {
    EndgameConfig cfg;
    endgame_config_defaults(&cfg);
    int bits = 0;
    while (bits < ENDGAME_MAX_TABLE_BITS && ((uint64_t)1 << (bits + 1)) * 16 <= (uint64_t)j->s->opt.endgame_hash_mb << 20)
        bits++;
    cfg.table_bits = bits;
    if (j->p.infinite || j->p.movetime >= 0 || deadline > 0) cfg.max_nodes = UINT64_MAX;
    cfg.stop = &j->s->stop;
    cfg.deadline = deadline;
    if (depth > 0) cfg.max_depth = depth < ENDGAME_MAX_DEPTH ? (int)depth : ENDGAME_MAX_DEPTH;
    int threads = asked_threads(j, ENDGAME_MAX_THREADS);
    cfg.threads = threads > 0 ? threads : 1;
    RkError err;
    if (endgame_search(&j->game, &cfg, r, say_endgame_depth, j, &err) != 0) {
        siu_say(j->s, "info string endgame: %s", err.msg);
        return false;
    }
    if (r->exact)
        siu_say(j->s, "info string endgame solved exactly at depth %d: spread %+d", r->depth, (int)r->value);
    else
        siu_say(j->s, "info string endgame not solved: the best move at depth %d of %d root moves", r->depth,
                r->root_moves);
    double secs = r->seconds > 1e-6 ? r->seconds : 1e-6;
    siu_say(j->s, "info time %.0f nodes %llu nps %.0f", (rk_seconds() - j->t0) * 1000.0, (unsigned long long)r->nodes,
            (double)r->nodes / secs);
    return true;
}

static void run_endgame(GoJob *j) {
    EndgameSearchResult r;
    if (search_endgame(j, j->p.depth, 0.0, &r)) say_bestmove(j, &r.best);
    else static_bestmove(j);
}

/* ------------------------------------------------------------ peg */

/* The deals of candidate c whose line ends as `outcome` (1 win, 0 draw, -1
 * loss): each deal's tiles once for every way it happens, separated by |. */
static void peg_draws(const GoJob *j, const PegResult *r, const PegCandidate *c, int outcome, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < r->ndeals; k++) {
        int end = r->spread + c->value[k];
        if ((end > 0 ? 1 : end < 0 ? -1 : 0) != outcome) continue;
        char tiles[16];
        rack_to_string(&r->deal[k].bag, j->game.ld, tiles, sizeof tiles);
        for (int w = 0; w < (int)r->deal[k].ways && len + 20 < cap; w++)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len > 0 ? "|" : "", tiles);
    }
}

/* After every completed stage (and at a stop within one): the best
 * candidates' lines. */
static void say_peg_stage(void *ctx, const PegResult *r) {
    GoJob *j = ctx;
    j->reported = r->endgames;
    int n = r->alive < j->s->opt.gen_count ? r->alive : j->s->opt.gen_count;
    for (int i = 0; i < n; i++) {
        const PegCandidate *c = &r->cand[i];
        if (c->depth == 0) break; /* a stop in stage 1: the candidates it did not reach */
        char mt[SIU_MOVE_MAX], w[2048], d[2048], l[2048];
        move_text(j, &c->move, mt, sizeof mt);
        peg_draws(j, r, c, 1, w, sizeof w);
        peg_draws(j, r, c, 0, d, sizeof d);
        peg_draws(j, r, c, -1, l, sizeof l);
        siu_say(j->s, "info peg move %s w:%s d:%s l:%s spread %+.0f", mt, w, d, l, c->mean);
    }
    double secs = r->seconds > 1e-6 ? r->seconds : 1e-6;
    siu_say(j->s, "info depth %d score wp %.2f nodes %llu time %.0f nps %.0f", r->cand[0].depth,
            100.0 * r->cand[0].share, (unsigned long long)r->nodes, r->seconds * 1000.0, (double)r->nodes / secs);
}

/* go peg and go auto's pre-endgame without a movetime (and not infinite)
 * end after this long. */
#define PEG_UNTIMED_SECONDS 10.0

/* go auto's pre-endgame candidates: the best this many by static equity
 * (stage 1 over every move takes about a second; at 300 ms a move the
 * solver then gets through stage 1 and into stage 2 on these). */
#define AUTO_PEG_CANDIDATES 64

/* The pre-endgame solver (search/peg.h) until every candidate left is
 * exact, stop, `depth` stages or the movetime, over the best
 * max_candidates moves (0: all); the answer in *best. False (said) if it
 * could not run. */
static bool search_peg(GoJob *j, long long depth, int max_candidates, Move *best) {
    PegConfig cfg;
    peg_config_defaults(&cfg);
    cfg.max_candidates = max_candidates;
    cfg.stop = &j->s->stop;
    if (!j->p.infinite && j->p.movetime < 0 && depth <= 0) {
        cfg.deadline = j->t0 + PEG_UNTIMED_SECONDS;
        siu_say(j->s, "info string peg: no movetime or depth, at most %.0f s", PEG_UNTIMED_SECONDS);
    }
    if (depth > 0) cfg.max_depth = depth < ENDGAME_MAX_DEPTH ? (int)depth : ENDGAME_MAX_DEPTH;
    cfg.leave_value = session_leaves(j->s);
    cfg.leave_ctx = j->s->tables.leaves;
    cfg.only = j->p.search; /* searchmoves */
    cfg.only_count = j->p.nsearch;
    PegResult r;
    peg_result_init(&r);
    RkError err;
    j->reported = 0;
    bool ok = peg_solve(&j->game, &cfg, &r, say_peg_stage, j, &err) == 0;
    if (ok && r.endgames != j->reported && r.count > 0 && r.cand[0].depth > 0)
        say_peg_stage(j, &r); /* stopped in a stage: the table it ended with */
    if (!ok) {
        siu_say(j->s, "info string peg: %s", err.msg);
    } else {
        const PegCandidate *c = &r.cand[r.best];
        siu_say(j->s, "info string peg: %s at stage %d, %d of %d candidates left, %d deals (%.0f ways), wins %.2f%%",
                c->exact ? "exact" : "not proved", c->depth, r.alive, r.count, r.ndeals, r.ways, 100.0 * c->share);
        *best = c->move;
    }
    peg_result_free(&r);
    return ok;
}

static void run_peg(GoJob *j) {
    Move best;
    if (search_peg(j, j->p.depth, 0, &best)) say_bestmove(j, &best);
    else static_bestmove(j);
}

/* ------------------------------------------------------------ auto */

/* go auto's endgame search without a movetime (and not infinite) ends after
 * this long if it has not solved the position. */
#define AUTO_ENDGAME_SECONDS 10.0

/* go auto with an empty bag: the endgame search for the movetime (less when
 * it is solved sooner), to any depth (go's depth is the simulation's plies);
 * true when it answered. */
static bool auto_endgame(GoJob *j) {
    double deadline = j->p.infinite || j->p.movetime >= 0 ? 0.0 : j->t0 + AUTO_ENDGAME_SECONDS;
    EndgameSearchResult r;
    if (!search_endgame(j, 0, deadline, &r)) return false;
    say_bestmove(j, &r.best);
    return true;
}

static void run_auto(GoJob *j) {
    SiuSession *s = j->s;
    if (j->game.bag.count == 0 && s->opt.auto_endgame && auto_endgame(j)) {
        if (j->p.use_inference) say_ignored(s, "useinference (the endgame solver answered)");
        return;
    }
    Move best;
    if (j->game.bag.count > 0 && j->game.bag.count <= s->opt.auto_peg &&
        search_peg(j, 0, AUTO_PEG_CANDIDATES, &best)) {
        if (j->p.use_inference) say_ignored(s, "useinference (the pre-endgame solver answered)");
        if (j->p.nalso > 0) say_ignored(s, "alsosearchmoves (the pre-endgame solver answered)");
        say_bestmove(j, &best);
        return;
    }
    Player *pl = &s->tables.player;
    if (strcmp(player_kind_name(pl), "sim") != 0 && j->p.use_inference)
        say_ignored(s, "useinference (only the sim player of go auto draws from it)");
    if (strcmp(player_kind_name(pl), "sim") == 0) {
        SimConfig cfg;
        RkError err;
        if (sim_player_prepare(pl, &j->game, &cfg, &err) == 0) {
            run_sim_with(j, &cfg);
            return;
        }
        siu_say(s, "info string the sim player failed (%s); it chooses alone", err.msg);
    }
    bool is_static = strcmp(player_kind_name(pl), "static") == 0;
    if (!is_static && j->p.movetime >= 0) say_ignored(s, "movetime");
    if (j->p.threads > 1) say_ignored(s, "threads (only the sim player of go auto runs threads)");
    if (j->p.nsearch > 0 || j->p.nalso > 0) say_ignored(s, j->p.nsearch > 0 ? "searchmoves" : "alsosearchmoves");
    Move m;
    player_choose(pl, &j->game, &m);
    if (is_static) say_gen(j, &m);
    else siu_say(s, "info string player %s chose its move in %.0f ms", pl->spec, (rk_seconds() - j->t0) * 1000.0);
    say_bestmove(j, &m);
}

/* ------------------------------------------------------------ the thread */

static void *search_main(void *arg) {
    GoJob *j = arg;
    say_provenance(j);
    switch (j->p.mode) {
    case MODE_GEN: run_gen(j); break;
    case MODE_SIM: run_sim(j); break;
    case MODE_ENDGAME: run_endgame(j); break;
    case MODE_PEG: run_peg(j); break;
    case MODE_AUTO: run_auto(j); break;
    case MODE_INFER: run_infer(j); break;
    }
    free(j); /* s->done was set with the bestmove */
    return NULL;
}

/* ------------------------------------------------------------ parameters */

static bool is_keyword(const char *t) {
    static const char *const K[] = {"searchmoves", "alsosearchmoves", "depth", "iterations", "movetime",
                                    "stopcondition", "firstwin", "useinference", "threads", "infinite"};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(t, K[i]) == 0) return true;
    return false;
}

/* A number after keyword tok[*i]; -1 (and an info line) if absent or bad. */
static long long number_after(SiuSession *s, char **tok, int n, int *i) {
    if (*i + 1 >= n) return siu_say(s, "info string %s needs a number", tok[*i]), -1;
    char *end;
    long long v = strtoll(tok[*i + 1], &end, 10);
    if (*end != '\0' || v < 0) return siu_say(s, "info string %s: bad number '%s'", tok[*i], tok[*i + 1]), -1;
    (*i)++;
    return v;
}

/* Reads moves after searchmoves/alsosearchmoves: each legal one (found in
 * the full list, with its equity) into out. */
static int read_moves(SiuSession *s, const MoveList *legal, char **tok, int n, int *i, Move *out, int have) {
    while (*i + 1 < n && !is_keyword(tok[*i + 1])) {
        const char *t = tok[++*i];
        Move m;
        bool unknown;
        RkError err;
        const Game *g = &s->pos->game;
        int found = -1;
        if (siu_move_parse(&m, &unknown, t, &g->board, g->ld, &err) == 0 && !unknown)
            for (size_t k = 0; k < legal->count && found < 0; k++)
                if (move_same(&legal->moves[k], &m)) found = (int)k;
        if (found < 0) siu_say(s, "info string error bad-move %s is not a legal move here", t);
        else if (have >= SIM_MAX_CANDIDATES) siu_say(s, "info string more than %d moves: %s left out", SIM_MAX_CANDIDATES, t);
        else out[have++] = legal->moves[found];
    }
    return have;
}

/* The parameters; false (after an error line) if the go cannot run. */
static bool parse_params(SiuSession *s, const char *args, GoParams *p) {
    char *buf = strdup(args), *tok[1024], *save = NULL;
    int n = 0;
    if (buf == NULL) return false;
    for (char *t = strtok_r(buf, " \t\r\n", &save); t != NULL && n < 1024; t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    memset(p, 0, sizeof *p);
    p->depth = p->iterations = p->movetime = p->stopcondition = p->threads = -1;
    MoveList legal; /* the legal moves, listed only if searchmoves or alsosearchmoves need them */
    movelist_init(&legal);
    for (int i = 0; i < n && legal.count == 0; i++)
        if (strcmp(tok[i], "searchmoves") == 0 || strcmp(tok[i], "alsosearchmoves") == 0) all_moves(&s->pos->game, s, &legal);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        const char *t = tok[i];
        if (i == 0 && strcmp(t, "peg") == 0) p->mode = MODE_PEG;
        else if (i == 0 && strcmp(t, "infer") == 0) p->mode = MODE_INFER;
        else if (i == 0 && strcmp(t, "gen") == 0) p->mode = MODE_GEN;
        else if (i == 0 && strcmp(t, "sim") == 0) p->mode = MODE_SIM;
        else if (i == 0 && strcmp(t, "endgame") == 0) p->mode = MODE_ENDGAME;
        else if (i == 0 && strcmp(t, "auto") == 0) p->mode = MODE_AUTO;
        else if (strcmp(t, "searchmoves") == 0) p->nsearch = read_moves(s, &legal, tok, n, &i, p->search, p->nsearch);
        else if (strcmp(t, "alsosearchmoves") == 0) p->nalso = read_moves(s, &legal, tok, n, &i, p->also, p->nalso);
        else if (strcmp(t, "depth") == 0) p->depth = number_after(s, tok, n, &i);
        else if (strcmp(t, "iterations") == 0) p->iterations = number_after(s, tok, n, &i);
        else if (strcmp(t, "movetime") == 0) p->movetime = number_after(s, tok, n, &i);
        else if (strcmp(t, "stopcondition") == 0) p->stopcondition = number_after(s, tok, n, &i);
        else if (strcmp(t, "threads") == 0) p->threads = number_after(s, tok, n, &i);
        else if (strcmp(t, "infinite") == 0) p->infinite = true;
        else if (strcmp(t, "useinference") == 0) p->use_inference = true;
        else if (strcmp(t, "firstwin") == 0) say_ignored(s, t);
        /* anything else: an unknown token, skipped */
    }
    movelist_free(&legal);
    free(buf);
    return ok;
}

/* The parameters a mode does not use, said once each. */
static void say_unused(SiuSession *s, GoParams *p) {
    bool sim = p->mode == MODE_SIM || p->mode == MODE_AUTO;
    if (p->use_inference && (!sim || s->inference.count == 0 || s->inference_pos == NULL || s->pos_text == NULL ||
                             strcmp(s->inference_pos, s->pos_text) != 0)) {
        say_ignored(s, sim ? "useinference (no go infer on this position)" : "useinference");
        p->use_inference = false;
    }
    if (p->mode == MODE_INFER && (p->movetime >= 0 || p->depth >= 0 || p->iterations >= 0))
        say_ignored(s, "movetime, depth and iterations (go infer)");
    if (p->threads > 1 && !sim && p->mode != MODE_ENDGAME) say_ignored(s, "threads");
    if (!sim && p->iterations >= 0) say_ignored(s, "iterations");
    if (!sim && p->stopcondition >= 0) say_ignored(s, "stopcondition");
    if (p->mode == MODE_GEN && p->depth >= 0) say_ignored(s, "depth");
    if (p->mode == MODE_PEG && p->nalso > 0) say_ignored(s, "alsosearchmoves");
    if (p->mode == MODE_ENDGAME && (p->nsearch > 0 || p->nalso > 0))
        say_ignored(s, p->nsearch > 0 ? "searchmoves" : "alsosearchmoves");
}

void siu_go_start(SiuSession *s, const char *args) {
    if (!s->have_position) {
        siu_say(s, "info string error no-position go needs a position first");
        return;
    }
    const SiuPosition *pos = s->pos;
    if (game_over(&pos->game)) {
        siu_say(s, "info string error bad-position the game is over");
        return;
    }
    const char *first = args + strspn(args, " \t");
    bool infer = strcspn(first, " \t") == 5 && strncmp(first, "infer", 5) == 0; /* the whole first token */
    if (infer && !pos->has_last) {
        siu_say(s, "info string error bad-position go infer needs the opponent's move: position cgp ... moves <move>");
        return;
    }
    if (infer && !pos->rack_known[pos->game.on_turn]) {
        /* the mover held 7 if the unseen tiles before the move were at least the two racks of 7;
         * with fewer, how many they held depends on the viewer's rack, which is not given */
        Rack unseen;
        bag_plus_rack(&pos->before.bag, &pos->before.racks[pos->before.on_turn], &unseen);
        if (unseen.total < 2 * RK_RACK_SIZE) {
            siu_say(s, "info string error bad-position go infer with the rack of the player on turn unknown "
                       "needs %d unseen tiles before the move (there were %d): give the rack",
                    2 * RK_RACK_SIZE, unseen.total);
            return;
        }
    }
    if (!infer && !pos->rack_known[pos->game.on_turn]) {
        siu_say(s, "info string error bad-position the rack of the player on turn is unknown "
                   "(give it in the CGP or as rack.<tiles> after the moves)");
        return;
    }
    GoJob *j = calloc(1, sizeof *j);
    if (j == NULL || !parse_params(s, args, &j->p)) {
        free(j);
        return;
    }
    if (j->p.mode == MODE_ENDGAME && pos->game.bag.count > 0) {
        siu_say(s, "info string endgame needs an empty bag (%d tiles in it): simulating instead", pos->game.bag.count);
        j->p.mode = MODE_SIM;
    }
    if (j->p.mode == MODE_PEG && pos->game.bag.count == 0) {
        siu_say(s, "info string peg needs 1 to %d tiles in the bag (it is empty): the endgame search instead",
                PEG_MAX_BAG);
        j->p.mode = MODE_ENDGAME;
    } else if (j->p.mode == MODE_PEG && pos->game.bag.count > PEG_MAX_BAG) {
        siu_say(s, "info string peg needs 1 to %d tiles in the bag (%d in it): simulating instead", PEG_MAX_BAG,
                pos->game.bag.count);
        j->p.mode = MODE_SIM;
    }
    say_unused(s, &j->p);
    j->s = s;
    j->game = pos->game;
    if (j->p.mode == MODE_INFER) {
        j->before = pos->before;
        j->last = pos->last;
        j->last_unknown_tiles = pos->last_unknown_tiles;
        free(s->inference_pos); /* made anew by this go */
        s->inference_pos = strdup(s->pos_text);
    }
    j->t0 = j->last_report = rk_seconds();
    atomic_store(&s->stop, false);
    atomic_store(&s->halt, false);
    atomic_store(&s->done, false);
    s->infinite = j->p.infinite;
    s->deadline = j->p.movetime >= 0 ? j->t0 + (double)j->p.movetime / 1000.0 : 0;
    if (pthread_create(&s->thread, NULL, search_main, j) != 0) {
        atomic_store(&s->done, true);
        if (j->p.mode == MODE_INFER) { /* the last posterior is not this position's */
            free(s->inference_pos);
            s->inference_pos = NULL;
        }
        free(j);
        siu_say(s, "info string error bad-position could not start a search thread");
        return;
    }
    s->thread_live = true;
}
