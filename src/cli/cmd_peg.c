/* rookery peg: one pre-endgame position (1 or 2 tiles in the bag) solved by
 * search/peg.h, a table of the best candidates after every stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/cgp.h"
#include "eval/klv.h"
#include "search/endgame.h"
#include "search/peg.h"

#define PEG_SHOW_DEFAULT 10

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery peg --cgp '<CGP>' [--movetime MS] [--depth D] [--all] [--candidates K]\n"
            "                   [--show N]\n"
            "                   [--table-bits B] [--lexicon FILE.kwg] [--ld english|FILE.csv]\n"
            "                   [--layout standard15|FILE.txt]\n"
            "\n"
            "Solves a pre-endgame: the position's bag holds 1 or 2 tiles. The CGP gives both racks: the\n"
            "player on turn's, and any of the unseen tiles as the opponent's (the bag is the rest; which\n"
            "ones does not matter). Every way the unseen tiles can lie is weighed; a move that draws\n"
            "the bag empty is followed by the endgame search, stage after stage one ply deeper, and the\n"
            "candidates are ranked by their share of wins (draws half), then by their mean spread\n"
            "(docs/endgame.md).\n"
            "  --movetime MS    stop after MS milliseconds (default 10000) with the best so far\n"
            "  --depth D        stop after stage D (endgame plies)\n"
            "  --all            prune nothing: every candidate to the end (exact with 1 tile in the\n"
            "                   bag, except the pass; slow)\n"
            "  --candidates K   only the best K moves by static equity are candidates (default 0:\n"
            "                   every move); stage 1 takes them in that order (the lexicon's\n"
            "                   default leaves, NAME.klv2 beside NAME.kwg, if there are any)\n"
            "  --show N         candidates shown after each stage (default %d)\n"
            "  --table-bits B   each endgame search's table of 2^B entries (default 16)\n",
            PEG_SHOW_DEFAULT);
}

typedef struct PegJob {
    const char *lexicon, *ld_name, *layout_name, *cgp;
    int movetime, depth, show, table_bits, candidates;
    bool all;
    const Game *g;
} PegJob;

static void print_stage(void *ctx, const PegResult *r) {
    const PegJob *j = ctx;
    printf("stage %d: %d of %d candidates left, %llu lines, %llu positions, %.3f s\n", r->stage, r->alive, r->count,
           (unsigned long long)r->endgames, (unsigned long long)r->nodes, r->seconds);
    int n = r->alive < j->show ? r->alive : j->show;
    for (int i = 0; i < n; i++) {
        const PegCandidate *c = &r->cand[i];
        char mt[128];
        move_to_string(&c->move, &j->g->board, j->g->ld, mt, sizeof mt);
        printf("  %-24s wins %6.2f%%  %5.1f-%.1f-%.1f of %.0f  mean %+7.2f  %s\n", mt, 100.0 * c->share, c->win,
               c->draw, c->loss, r->ways, c->mean, c->exact ? "exact" : c->empties_bag ? "depth-limited" : "estimate");
    }
    fflush(stdout);
}

int cmd_peg(int argc, char **argv) {
    PegJob j;
    memset(&j, 0, sizeof j);
    j.show = PEG_SHOW_DEFAULT;
    j.table_bits = 16;
    j.movetime = 10000;
    const CliOption opts[] = {{"--cgp", CLI_STRING, &j.cgp, 0, 0, NULL},
                              {"--movetime", CLI_INT, &j.movetime, 1, 86400000, NULL},
                              {"--depth", CLI_INT, &j.depth, 1, ENDGAME_MAX_DEPTH, NULL},
                              {"--all", CLI_FLAG, &j.all, 0, 0, NULL},
                              {"--candidates", CLI_INT, &j.candidates, 0, 100000, NULL},
                              {"--show", CLI_INT, &j.show, 0, 1000000, NULL},
                              {"--table-bits", CLI_INT, &j.table_bits, 0, ENDGAME_MAX_TABLE_BITS, NULL},
                              {"--lexicon", CLI_STRING, &j.lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &j.ld_name, 0, 0, NULL},
                              {"--layout", CLI_STRING, &j.layout_name, 0, 0, NULL}};
    int parsed = cli_options_parse("peg", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (j.cgp == NULL) {
        fprintf(stderr, "rookery peg: give --cgp '<CGP>' (see --help)\n");
        return 2;
    }
    Engine *e = malloc(sizeof *e);
    Game *g = malloc(sizeof *g);
    if (e == NULL || g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        free(e);
        free(g);
        return 1;
    }
    if (cli_engine_for_cgp(e, j.cgp, j.ld_name, j.layout_name, j.lexicon) != 0) {
        free(e);
        free(g);
        return 2;
    }
    RkError err;
    int rc = 2;
    PegResult r;
    peg_result_init(&r);
    Klv klv; /* the lexicon's default leaves, if it has any: the candidates' order */
    memset(&klv, 0, sizeof klv);
    char dflt[sizeof e->lexicon_path + 8];
    int have = engine_default_leaves(e, dflt, sizeof dflt, &err);
    if (have < 0 || (have == 1 && klv_load(&klv, dflt, &e->ld, &err) != 0) ||
        cgp_parse(g, j.cgp, &e->ld, &e->layout, &e->kwg, 0, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
    } else {
        PegConfig cfg;
        peg_config_defaults(&cfg);
        cfg.table_bits = j.table_bits;
        cfg.max_depth = j.depth;
        cfg.prune = !j.all;
        cfg.max_candidates = j.candidates;
        if (have == 1) {
            cfg.leave_value = klv_leave_value;
            cfg.leave_ctx = &klv;
        }
        cfg.deadline = cli_now() + j.movetime / 1000.0;
        j.g = g;
        if (peg_solve(g, &cfg, &r, print_stage, &j, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
        } else {
            const PegCandidate *c = &r.cand[r.best];
            char mt[128];
            move_to_string(&c->move, &g->board, g->ld, mt, sizeof mt);
            printf("best %s  wins %.2f%%  mean %+.2f  %s after stage %d  (%d candidates, %d deals, %.3f s)\n", mt,
                   100.0 * c->share, c->mean, c->exact ? "exact" : "not proved", c->depth, r.count, r.ndeals,
                   r.seconds);
            rc = 0;
        }
    }
    peg_result_free(&r);
    klv_free(&klv);
    engine_close(e);
    free(e);
    free(g);
    return rc;
}
