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
    int found = 0, checked = 0, both_exact = 0, agree = 0, peg_better = 0, sim_better = 0;
    double share_peg = 0, share_sim = 0, diff_sum = 0, diff_sq = 0;
    uint64_t games = 0;
    for (uint64_t gi = 0; rc == 0 && (uint64_t)found < b.npos && gi < 100 * b.npos + 1000; gi++) {
        games++;
        if (!endgame_study_peg_position(&sc, gi, b.bag, g)) continue;
        int spread = g->scores[g->on_turn] - g->scores[1 - g->on_turn];
        if (spread > b.max_spread || spread < -b.max_spread) continue;
        found++;
        Move mp, ms;
        if (!peg_move(&p, g, b.movetime, b.candidates, &mp) || !sim_move(&p, g, b.movetime, &ms)) {
            rc = 1;
            break;
        }
        double sp = 0, ss = 0, mean_p = 0, mean_s = 0;
        bool ep = false, es = false, dp = false, ds = false;
        bool same = move_same(&mp, &ms);
        if (!check_move(g, &mp, b.check_depth, b.check, &sp, &dp, &ep, &mean_p) ||
            (!same && !check_move(g, &ms, b.check_depth, b.check, &ss, &ds, &es, &mean_s))) {
            rc = 1;
            break;
        }
        if (same) {
            ss = sp;
            es = ep;
            ds = dp;
            mean_s = mean_p;
        }
        agree += same;
        if (dp && ds) {
            checked++;
            both_exact += ep && es;
            share_peg += sp;
            share_sim += ss;
            diff_sum += sp - ss;
            diff_sq += (sp - ss) * (sp - ss);
            peg_better += sp > ss;
            sim_better += ss > sp;
        }
        if (b.show) {
            char cgp[1024], tp[128], ts[128];
            cgp_write(g, NULL, cgp, sizeof cgp);
            move_to_string(&mp, &g->board, g->ld, tp, sizeof tp);
            move_to_string(&ms, &g->board, g->ld, ts, sizeof ts);
            printf("%s | peg %s %.1f%% %+.1f%s | sim %s %.1f%% %+.1f%s\n", cgp, tp, 100 * sp, mean_p,
                   ep ? " exact" : dp ? "" : " (check cut)", ts, 100 * ss, mean_s, es ? " exact" : ds ? "" : " (check cut)");
            fflush(stdout);
        }
        fprintf(stderr, "\r%d of %" PRIu64 " positions", found, b.npos);
    }
    fprintf(stderr, "\n");
    if (rc == 0 && found == 0) {
        fprintf(stderr, "rookery bench peg: no game of %" PRIu64 " reached %d tiles in the bag\n", games, b.bag);
        rc = 1;
    }
    if (rc == 0) {
        printf("bench peg: %d positions with %d tile%s in the bag, spread within %d (from %" PRIu64
               " static games, seed %" PRIu64 "), %d ms a move, one core; peg candidates %d (0: all)\n",
               found, b.bag, b.bag == 1 ? "" : "s", b.max_spread, games, b.seed, b.movetime, b.candidates);
        printf("  the same move %d of %d; checked to depth %d (exact where proved sooner) in %d, both exact in %d\n",
               agree, found, b.check_depth, checked, both_exact);
        if (checked > 0) {
            double mean = diff_sum / checked, var = checked > 1 ? (diff_sq - checked * mean * mean) / (checked - 1) : 0;
            printf("  share of wins at the check: peg %.2f%%, %s %.2f%%, difference %+.2f +/- %.2f points (1 se);"
                   " peg better in %d, the simulation in %d\n",
                   100 * share_peg / checked, b.spec, 100 * share_sim / checked, 100 * mean,
                   100 * sqrt(var > 0 ? var / checked : 0), peg_better, sim_better);
        }
    }
    if (p.kind != NULL) player_close(&p);
    free(g);
    engine_close(&e);
    return rc;
}
