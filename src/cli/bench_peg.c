/* rookery bench peg: the pre-endgame solver (search/peg.h) against the
 * simulation at the same movetime, on positions with 1 or 2 tiles in the
 * bag, each answer's share of wins checked by a long unpruned solve of
 * that move alone (a benchmark: it prints figures and never fails). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "core/cgp.h"
#include "search/endgame.h"
#include "search/peg.h"
#include "search/player.h"
#include "search/sim.h"
#include "worker/endgame_study.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench peg [--positions N] [--bag B] [--movetime MS] [--check-depth D]\n"
            "                         [--check MS] [--seed S]\n"
            "                         [--max-spread P] [--candidates K] [--player SPEC] [--show]\n"
            "                         [--lexicon FILE.kwg]\n"
            "\n"
            "N positions (default 20) with B tiles in the bag (1 or 2, default 1): static games (best\n"
            "score) from the seed (default 1) played until the bag holds B, the spread then within P\n"
            "points either way (default 40: games still to be decided). In each, the simulation\n"
            "(the player SPEC, default sim: rookery siu's go auto before the bag is this small) and the\n"
            "pre-endgame solver each choose a move in MS milliseconds (default 1000) on one core. Then\n"
            "each chosen move alone is solved without pruning, every line D plies deep (default 4;\n"
            "exact where proved sooner), for up to --check MS (default 120000; a check cut by it\n"
            "leaves the position out): its share of wins over every way the unseen tiles can lie\n"
            "(draws half) at that depth. Prints the mean share of each player's moves, the mean\n"
            "difference with its standard error, and how often each is better.\n"
            "--candidates K: the solver's candidates, the best K by static equity (default 0: all).\n"
            "--show: one line a position.\n");
}

typedef struct BenchPeg {
    uint64_t npos, seed;
    int bag, movetime, check, check_depth, max_spread, candidates;
    const char *spec;
    bool show;
} BenchPeg;

/* The share of wins of m alone, solved without pruning to depth `depth`
 * (exact where a line is proved sooner), for up to ms; *done when it got
 * there (every line at that depth or exact), *exact when proved. */
static bool check_move(const Game *g, const Move *m, int depth, int ms, double *share, bool *done, bool *exact,
                       double *mean) {
    PegConfig cfg;
    peg_config_defaults(&cfg);
    cfg.prune = false;
    cfg.max_depth = depth;
    cfg.only = m;
    cfg.only_count = 1;
    cfg.deadline = rk_seconds() + ms / 1000.0;
    PegResult r;
    peg_result_init(&r);
    RkError err;
    int rc = peg_solve(g, &cfg, &r, NULL, NULL, &err);
    bool ok = rc == 0 && r.count == 1;
    if (!ok) fprintf(stderr, "rookery bench peg: %s\n", rc != 0 ? err.msg : "the check found no candidate");
    else {
        *share = r.cand[0].share;
        *exact = r.cand[0].exact;
        *done = r.cand[0].exact || r.stage == depth;
        *mean = r.cand[0].mean;
    }
    peg_result_free(&r);
    return ok;
}

/* The simulation's move in ms. */
static bool sim_move(const Player *p, const Game *g, int ms, Move *out) {
    SimConfig cfg;
    RkError err;
    if (sim_player_prepare(p, g, &cfg, &err) != 0) {
        fprintf(stderr, "rookery bench peg: %s\n", err.msg);
        return false;
    }
    cfg.seconds = ms / 1000.0;
    cfg.iterations = UINT64_MAX;
    cfg.stop_z = 0.0;
    SimResult *r = malloc(sizeof *r);
    bool ok = r != NULL && sim_run(g, &cfg, r, &err) == 0;
    if (ok) *out = r->cand[r->best].move;
    else fprintf(stderr, "rookery bench peg: %s\n", r == NULL ? "out of memory" : err.msg);
    free(r);
    return ok;
}

static bool peg_move(const Player *p, const Game *g, int ms, int candidates, Move *out) {
    PegConfig cfg;
    peg_config_defaults(&cfg);
    cfg.max_candidates = candidates;
    cfg.deadline = rk_seconds() + ms / 1000.0;
    cfg.leave_value = player_leave_fn(p);
    cfg.leave_ctx = p->leaves;
    PegResult r;
    peg_result_init(&r);
    RkError err;
    bool ok = peg_solve(g, &cfg, &r, NULL, NULL, &err) == 0;
    if (ok) *out = r.cand[r.best].move;
    else fprintf(stderr, "rookery bench peg: %s\n", err.msg);
    peg_result_free(&r);
    return ok;
}

/* One position's comparison: each player's move, its share of wins at the check and mean
 * spread there, whether the check got to its depth (d) and whether it proved the share (e). */
typedef struct PegPair {
    Move mp, ms;
    double sp, ss, mean_p, mean_s;
    bool ep, es, dp, ds, same;
} PegPair;

/* The running totals over the positions compared. */
typedef struct PegTally {
    int found, checked, both_exact, agree, peg_better, sim_better;
    double share_peg, share_sim, diff_sum, diff_sq;
    uint64_t games;
} PegTally;

/* Both players' moves in g, each then checked (once when they agree); false after an error
 * (printed). */
static bool compare_position(const BenchPeg *b, const Player *p, const Game *g, PegPair *x) {
    *x = (PegPair){0};
    if (!peg_move(p, g, b->movetime, b->candidates, &x->mp) || !sim_move(p, g, b->movetime, &x->ms)) return false;
    x->same = move_same(&x->mp, &x->ms);
    if (!check_move(g, &x->mp, b->check_depth, b->check, &x->sp, &x->dp, &x->ep, &x->mean_p) ||
        (!x->same && !check_move(g, &x->ms, b->check_depth, b->check, &x->ss, &x->ds, &x->es, &x->mean_s)))
        return false;
    if (x->same) {
        x->ss = x->sp;
        x->es = x->ep;
        x->ds = x->dp;
        x->mean_s = x->mean_p;
    }
    return true;
}

/* Adds one position's comparison to the totals (its shares only when both checks finished). */
static void tally_add(PegTally *t, const PegPair *x) {
    t->agree += x->same;
    if (x->dp && x->ds) {
        t->checked++;
        t->both_exact += x->ep && x->es;
        t->share_peg += x->sp;
        t->share_sim += x->ss;
        t->diff_sum += x->sp - x->ss;
        t->diff_sq += (x->sp - x->ss) * (x->sp - x->ss);
        t->peg_better += x->sp > x->ss;
        t->sim_better += x->ss > x->sp;
    }
}

/* Prints the --show line of one position: its CGP, then each player's move and check. */
static void show_position(const Game *g, const PegPair *x) {
    char cgp[1024], tp[128], ts[128];
    cgp_write(g, NULL, cgp, sizeof cgp);
    move_to_string(&x->mp, &g->board, g->ld, tp, sizeof tp);
    move_to_string(&x->ms, &g->board, g->ld, ts, sizeof ts);
    printf("%s | peg %s %.1f%% %+.1f%s | sim %s %.1f%% %+.1f%s\n", cgp, tp, 100 * x->sp, x->mean_p,
           x->ep ? " exact" : x->dp ? "" : " (check cut)", ts, 100 * x->ss, x->mean_s,
           x->es ? " exact" : x->ds ? "" : " (check cut)");
    fflush(stdout);
}

/* Prints the summary of the totals; 1 (after saying so) when no position was found. */
static int report(const BenchPeg *b, const PegTally *t) {
    if (t->found == 0) {
        fprintf(stderr, "rookery bench peg: no game of %" PRIu64 " reached %d tiles in the bag\n", t->games, b->bag);
        return 1;
    }
    printf("bench peg: %d positions with %d tile%s in the bag, spread within %d (from %" PRIu64
           " static games, seed %" PRIu64 "), %d ms a move, one core; peg candidates %d (0: all)\n",
           t->found, b->bag, b->bag == 1 ? "" : "s", b->max_spread, t->games, b->seed, b->movetime, b->candidates);
    printf("  the same move %d of %d; checked to depth %d (exact where proved sooner) in %d, both exact in %d\n",
           t->agree, t->found, b->check_depth, t->checked, t->both_exact);
    if (t->checked > 0) {
        int checked = t->checked;
        double mean = t->diff_sum / checked,
               var = checked > 1 ? (t->diff_sq - checked * mean * mean) / (checked - 1) : 0;
        printf("  share of wins at the check: peg %.2f%%, %s %.2f%%, difference %+.2f +/- %.2f points (1 se);"
               " peg better in %d, the simulation in %d\n",
               100 * t->share_peg / checked, b->spec, 100 * t->share_sim / checked, 100 * mean,
               100 * sqrt(var > 0 ? var / checked : 0), t->peg_better, t->sim_better);
    }
    return 0;
}

int bench_peg(int argc, char **argv) {
    const char *lexicon = NULL;
    BenchPeg b = {.npos = 20, .seed = 1, .bag = 1, .movetime = 1000, .check = 120000, .check_depth = 4, .max_spread = 40,
                .spec = "sim"};
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--positions", CLI_U64, &b.npos, 1, 100000, NULL},
                              {"--bag", CLI_INT, &b.bag, 1, PEG_MAX_BAG, NULL},
                              {"--movetime", CLI_INT, &b.movetime, 1, 86400000, NULL},
                              {"--check", CLI_INT, &b.check, 1, 86400000, NULL},
                              {"--check-depth", CLI_INT, &b.check_depth, 1, ENDGAME_MAX_DEPTH, NULL},
                              {"--candidates", CLI_INT, &b.candidates, 0, 100000, NULL},
                              {"--max-spread", CLI_INT, &b.max_spread, 0, 1000, NULL},
                              {"--seed", CLI_U64, &b.seed, 0, 18446744073709551615.0, NULL},
                              {"--player", CLI_STRING, &b.spec, 0, 0, NULL},
                              {"--show", CLI_FLAG, &b.show, 0, 0, NULL}};
    int parsed = cli_options_parse("bench peg", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (b.npos == 0) {
        fprintf(stderr, "rookery bench peg: --positions must be at least 1\n");
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    Player p;
    memset(&p, 0, sizeof p);
    RkError err;
    Game *g = malloc(sizeof *g);
    int rc = 0;
    if (g == NULL || cli_player_open(&p, b.spec, &e, &err) != 0 || strcmp(player_kind_name(&p), "sim") != 0) {
        fprintf(stderr, "rookery bench peg: %s\n",
                g == NULL ? "out of memory" : p.kind == NULL ? err.msg : "--player must be a sim: player");
        rc = 2;
    }
    EndgameStudyConfig sc; /* the endgame study's static games */
    endgame_study_config_defaults(&sc);
    sc.ld = &e.ld;
    sc.layout = &e.layout;
    sc.kwg = &e.kwg;
    sc.seed = b.seed;
    PegTally t = {0};
    for (uint64_t gi = 0; rc == 0 && (uint64_t)t.found < b.npos && gi < 100 * b.npos + 1000; gi++) {
        t.games++;
        if (!endgame_study_peg_position(&sc, gi, b.bag, g)) continue;
        int spread = g->scores[g->on_turn] - g->scores[1 - g->on_turn];
        if (spread > b.max_spread || spread < -b.max_spread) continue;
        t.found++;
        PegPair x;
        if (!compare_position(&b, &p, g, &x)) {
            rc = 1;
            break;
        }
        tally_add(&t, &x);
        if (b.show) show_position(g, &x);
        fprintf(stderr, "\r%d of %" PRIu64 " positions", t.found, b.npos);
    }
    fprintf(stderr, "\n");
    if (rc == 0) rc = report(&b, &t);
    if (p.kind != NULL) player_close(&p);
    free(g);
    engine_close(&e);
    return rc;
}
