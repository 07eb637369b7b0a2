/* rookery sim: Monte Carlo simulation of the best candidates of a position
 * (search/sim.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/cgp.h"
#include "eval/dynleaves.h"
#include "search/sim.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery sim --cgp '<CGP>' [--plies P] [--candidates K] [--iterations N] [--seconds T]\n"
            "                   [--seed S] [--stop-z Z] [--alloc toptwo|uniform] [--threads T]\n"
            "                   [--leaves FILE.klv2] [--req FILE.req [--shrink K]]\n"
            "                   [--lexicon FILE.kwg] [--ld english|FILE.csv] [--layout standard15|FILE.txt]\n"
            "\n"
            "Simulates the K best moves by static equity (default 15): a rollout plays a candidate in a\n"
            "world (the opponent's rack and the bag dealt from the unseen tiles; a candidate's k-th\n"
            "rollout in world k) followed by P plies of static best play for both sides (default 2),\n"
            "and values it as the spread change plus the leave values at the horizon. --alloc toptwo\n"
            "(default) gives each rollout to the leader or to its closest challenger (src/search/sim.h);\n"
            "uniform plays every live candidate in each world. It ends when every other candidate is\n"
            "Z standard errors behind the leader (Z default 2, after 16 rollouts of the leader; 0:\n"
            "never), after N x K rollouts (N default 100), or after T seconds (which makes the result\n"
            "depend on the machine). The same seed (default 1) gives the same table on any number of\n"
            "--threads (default 1). Prints one row a candidate: move, static equity, mean value, standard error,\n"
            "win %%, rollouts, whether it is still live.\n"
            "  --leaves F   static leaves for candidates and rollouts (default: the lexicon's\n"
            "               default leaves, NAME.klv2 beside NAME.kwg; zero: none)\n"
            "  --req F      bag-aware leaves instead: derived once at the root from this rack-equity\n"
            "               table for the pool of the player on turn (docs/leaves.md), shrinkage K\n"
            "               (default 30)\n");
}

typedef struct SimJob {
    const char *cgp, *lexicon, *ld_name, *layout_name, *leaves_path, *req_path, *alloc;
    SimConfig cfg;
    double shrink;
} SimJob;

static int parse_args(SimJob *j, int argc, char **argv) {
    const CliOption opts[] = {{"--cgp", CLI_STRING, &j->cgp, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &j->lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &j->ld_name, 0, 0, NULL},
                              {"--layout", CLI_STRING, &j->layout_name, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &j->leaves_path, 0, 0, NULL},
                              {"--req", CLI_STRING, &j->req_path, 0, 0, NULL},
                              {"--plies", CLI_INT, &j->cfg.plies, 0, 100, NULL},
                              {"--candidates", CLI_INT, &j->cfg.candidates, 1, SIM_MAX_CANDIDATES, NULL},
                              {"--iterations", CLI_U64, &j->cfg.iterations, 0, 1099511627776.0, NULL},
                              {"--seed", CLI_U64, &j->cfg.seed, 0, 18446744073709551615.0, NULL},
                              {"--seconds", CLI_DOUBLE, &j->cfg.seconds, 0, 1e6, NULL},
                              {"--stop-z", CLI_DOUBLE, &j->cfg.stop_z, 0, 100, NULL},
                              {"--shrink", CLI_DOUBLE, &j->shrink, 0, 1e12, NULL},
                              {"--threads", CLI_INT, &j->cfg.threads, 1, SIM_MAX_THREADS, NULL},
                              {"--alloc", CLI_STRING, &j->alloc, 0, 0, NULL}};
    int parsed = cli_options_parse("sim", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed;
    if (j->cfg.iterations == 0) {
        fprintf(stderr, "rookery sim: --iterations must be at least 1\n");
        return -1;
    }
    if (j->cgp == NULL) {
        fprintf(stderr, "rookery sim: --cgp is required (see --help)\n");
        return -1;
    }
    if (j->leaves_path != NULL && j->req_path != NULL) {
        fprintf(stderr, "rookery sim: give --leaves or --req, not both\n");
        return -1;
    }
    if (j->alloc != NULL) {
        if (strcmp(j->alloc, "toptwo") != 0 && strcmp(j->alloc, "uniform") != 0) {
            fprintf(stderr, "rookery sim: --alloc %s, expected toptwo or uniform\n", j->alloc);
            return -1;
        }
        j->cfg.alloc = strcmp(j->alloc, "toptwo") == 0 ? SIM_ALLOC_TOPTWO : SIM_ALLOC_UNIFORM;
    }
    return 0;
}

int cmd_sim(int argc, char **argv) {
    SimJob j;
    memset(&j, 0, sizeof j);
    sim_config_defaults(&j.cfg);
    j.shrink = 30.0;
    int a = parse_args(&j, argc, argv);
    if (a != 0) return a > 0 ? 0 : 2;
    RkError err;
    Engine e;
    if (cli_engine_for_cgp(&e, j.cgp, j.ld_name, j.layout_name, j.lexicon) != 0) return 2;
    Game *g = malloc(sizeof *g);
    Klv klv;
    DynLeaves dl;
    memset(&klv, 0, sizeof klv);
    memset(&dl, 0, sizeof dl);
    int rc = 2;
    if (g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        rc = 1;
        goto done;
    }
    /* without --leaves or --req: the lexicon's default leaves; --leaves zero: none */
    char dflt[sizeof e.lexicon_path + 8];
    if (j.leaves_path == NULL && j.req_path == NULL) {
        int have = engine_default_leaves(&e, dflt, sizeof dflt, &err);
        if (have < 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            goto done;
        }
        if (have == 1) j.leaves_path = dflt;
    } else if (j.leaves_path != NULL && strcmp(j.leaves_path, "zero") == 0) {
        j.leaves_path = NULL;
    }
    if (cgp_parse(g, j.cgp, &e.ld, &e.layout, &e.kwg, 0, &err) != 0 ||
        (j.leaves_path != NULL && klv_load(&klv, j.leaves_path, &e.ld, &err) != 0) ||
        (j.req_path != NULL && dynleaves_open(&dl, &e.ld, j.req_path, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        goto done;
    }
    const char *leaves_desc = "none";
    if (j.leaves_path != NULL) {
        j.cfg.leave_value = klv_leave_value;
        j.cfg.leave_ctx = &klv;
        leaves_desc = j.leaves_path;
    } else if (j.req_path != NULL) {
        if (dynleaves_for_game(&dl, g, j.shrink, NULL, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            goto done;
        }
        j.cfg.leave_value = klv_leave_value;
        j.cfg.leave_ctx = &dl.klv;
        leaves_desc = "bag-aware";
    }
    SimResult *r = malloc(sizeof *r);
    if (r == NULL || sim_run(g, &j.cfg, r, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", r == NULL ? "out of memory" : err.msg);
        free(r);
        rc = r == NULL ? 1 : 2;
        goto done;
    }
    printf("sim: %d candidates, %d plies, %llu rollouts in %.2f s (%.0f rollouts/s, %d thread%s), %s, "
           "seed %llu, leaves %s\n",
           r->count, j.cfg.plies, (unsigned long long)r->rollouts, r->seconds,
           r->seconds > 0 ? (double)r->rollouts / r->seconds : 0.0, j.cfg.threads, j.cfg.threads == 1 ? "" : "s",
           j.cfg.alloc == SIM_ALLOC_TOPTWO ? "toptwo" : "uniform",
           (unsigned long long)j.cfg.seed, leaves_desc);
    const SimCandidate *order[SIM_MAX_CANDIDATES];
    sim_table_order(r, order);
    printf("%-24s %10s %10s %8s %7s %9s  %s\n", "move", "static", "mean", "stderr", "win %", "rollouts", "");
    for (int i = 0; i < r->count; i++) {
        const SimCandidate *c = order[i];
        char text[128];
        move_to_string(&c->move, &g->board, &e.ld, text, sizeof text);
        printf("%-24s %10.3f %10.3f %8.3f %7.2f %9llu  %s\n", text, c->move.equity / 1000.0, sim_mean(c), sim_stderr(c),
               100.0 * sim_win_mean(c), (unsigned long long)c->n,
               c == &r->cand[r->best] ? "best" : c->live ? "" : "stopped");
    }
    free(r);
    rc = 0;
done:
    dynleaves_close(&dl);
    klv_free(&klv);
    free(g);
    engine_close(&e);
    return rc;
}
