/* rookery bench endgame: how often the endgame search (search/endgame.h)
 * proves an empty-bag position within a movetime, how deep it gets and how
 * fast it goes (a benchmark: it prints figures and never fails on speed). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "core/cgp.h"
#include "worker/endgame_study.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench endgame [--positions N] [--movetime MS] [--min-tiles T] [--max-tiles T]\n"
            "                             [--seed S] [--depth D] [--threads T] [--table-bits B]\n"
            "                             [--check MS] [--show] [--lexicon FILE.kwg]\n"
            "\n"
            "N empty-bag positions (default 20): the first of each static game (best score; the\n"
            "endgame study's games, rookery endgame --help) whose two racks both hold at least T\n"
            "tiles (default 7: seven against seven); --max-tiles T: the games go on with the same\n"
            "moves until both racks hold at most T (default 7). Each is searched for MS\n"
            "milliseconds (default 1000) by the iterative-deepening endgame search on one core,\n"
            "with a table of 2^B entries (default %d). Prints how many were proved (solved exactly)\n"
            "in that time, the depth reached, and the positions searched a second. --check MS: each\n"
            "position is also searched that long, and the answer at --movetime is compared with its\n"
            "answer (the same move, or the same value at the longer search's depth when that one is\n"
            "exact; and when it is exact, the points the answer loses against the best move's exact\n"
            "value).\n"
            "--depth D: stop at depth D (the time to reach it compares versions of the search).\n"
            "--threads T: the search on T threads (default 1; the --check search too).\n"
            "--show: one line a position (CGP, depth, exact, value, nodes, time).\n",
            ENDGAME_DEFAULT_TABLE_BITS);
}

typedef struct BenchEg {
    uint64_t npos, seed;
    int movetime, check, min_tiles, max_tiles, table_bits, depth, threads;
    bool show;
} BenchEg;

/* Searches g for ms milliseconds into *r; false (said) on an error. */
static bool search_for(const Game *g, const BenchEg *b, int ms, EndgameSearchResult *r) {
    EndgameConfig cfg;
    endgame_config_defaults(&cfg);
    cfg.table_bits = b->table_bits;
    cfg.max_nodes = UINT64_MAX;
    cfg.deadline = rk_seconds() + (double)ms / 1000.0;
    cfg.max_depth = b->depth;
    cfg.threads = b->threads;
    RkError err;
    if (endgame_search(g, &cfg, r, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery bench endgame: %s\n", err.msg);
        return false;
    }
    return true;
}

/* The value of m at the exact search's answer's position: a search of the
 * position after m, to the end (check only); false if not proved in ms. */
static bool exact_value_of(const Game *g, const Move *m, const BenchEg *b, int ms, int32_t *value) {
    Game *c = malloc(sizeof *c);
    if (c == NULL) return false;
    *c = *g;
    game_play(c, m);
    int me = g->on_turn, opp = 1 - me;
    int32_t delta = (c->scores[me] - c->scores[opp]) - (g->scores[me] - g->scores[opp]);
    bool ok = true;
    if (!game_over(c)) {
        EndgameSearchResult r;
        ok = search_for(c, b, ms, &r) && r.exact;
        delta -= r.value;
    }
    free(c);
    *value = delta;
    return ok;
}

/* What the positions add up to. */
typedef struct BenchTotals {
    int found, proved, agree, checked, same_value, scored;
    uint64_t nodes, games;
    double secs, depth_sum, proved_secs, loss_sum, loss_sq;
} BenchTotals;

/* The --check search of g against r, the answer at --movetime: its counts
 * into t and its part of the --show line into line. false on an error. */
static bool check_answer(const Game *g, const BenchEg *b, const EndgameSearchResult *r, BenchTotals *t, char *line,
                         size_t cap) {
    EndgameSearchResult ref;
    if (!search_for(g, b, b->check, &ref)) return false;
    t->checked++;
    bool same = move_same(&ref.best, &r->best);
    int32_t v = 0;
    /* a different move with the proved value is as good */
    bool valued = ref.exact && (same ? (v = ref.value, true) : exact_value_of(g, &r->best, b, b->check, &v));
    bool equal = same || (valued && v == ref.value);
    t->agree += same;
    t->same_value += equal;
    if (valued) { /* the answer's loss against the exact best */
        double loss = (double)ref.value - (double)v;
        t->scored++;
        t->loss_sum += loss;
        t->loss_sq += loss * loss;
    }
    int n = snprintf(line, cap, " | check: depth %d%s value %+d, %s", ref.depth, ref.exact ? " exact" : "",
                     (int)ref.value, same ? "same move" : equal ? "same value" : "differs");
    if (valued && n > 0 && (size_t)n < cap) snprintf(line + n, cap - (size_t)n, ", loses %d", (int)(ref.value - v));
    return true;
}

static void print_totals(const BenchEg *b, const BenchTotals *t) {
    printf("bench endgame: %d positions (racks of %d-%d tiles, from %" PRIu64 " static games, seed %" PRIu64
           "), %d ms each, one core, table 2^%d\n",
           t->found, b->min_tiles, b->max_tiles, t->games, b->seed, b->movetime, b->table_bits);
    printf("  proved (solved exactly) within the time: %d of %d (%.1f%%)", t->proved, t->found,
           100.0 * t->proved / t->found);
    if (t->proved > 0) printf(", mean %.3f s when proved", t->proved_secs / t->proved);
    printf("\n  mean depth %.2f plies; %.0f positions/s; %.3f s a position\n", t->depth_sum / t->found,
           (double)t->nodes / t->secs, t->secs / t->found);
    if (t->checked > 0)
        printf("  against a %d ms search: the same move %d of %d, a move of the same proved value %d\n", b->check,
               t->agree, t->checked, t->same_value);
    if (t->scored > 0) {
        double mean = t->loss_sum / t->scored;
        double var = t->scored > 1 ? (t->loss_sq - t->scored * mean * mean) / (t->scored - 1) : 0.0;
        printf("  points lost against the exact best, where the check proved it: %.3f +/- %.3f a position (%d)\n",
               mean, var > 0 ? sqrt(var / t->scored) : 0.0, t->scored);
    }
}

int bench_endgame(int argc, char **argv) {
    const char *lexicon = NULL;
    BenchEg b = {.npos = 20, .seed = 1, .movetime = 1000, .check = 0, .min_tiles = 7, .max_tiles = RK_RACK_SIZE,
                 .table_bits = ENDGAME_DEFAULT_TABLE_BITS, .threads = 1, .show = false};
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--positions", CLI_U64, &b.npos, 1, 100000, NULL},
                              {"--movetime", CLI_INT, &b.movetime, 1, 86400000, NULL},
                              {"--check", CLI_INT, &b.check, 1, 86400000, NULL},
                              {"--min-tiles", CLI_INT, &b.min_tiles, 1, RK_RACK_SIZE, NULL},
                              {"--max-tiles", CLI_INT, &b.max_tiles, 1, RK_RACK_SIZE, NULL},
                              {"--depth", CLI_INT, &b.depth, 0, ENDGAME_MAX_DEPTH, NULL},
                              {"--threads", CLI_INT, &b.threads, 1, ENDGAME_MAX_THREADS, NULL},
                              {"--table-bits", CLI_INT, &b.table_bits, 0, ENDGAME_MAX_TABLE_BITS, NULL},
                              {"--seed", CLI_U64, &b.seed, 0, 18446744073709551615.0, NULL},
                              {"--show", CLI_FLAG, &b.show, 0, 0, NULL}};
    /* argv[1] is "endgame": the options follow it */
    int parsed =
        cli_options_parse("bench endgame", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    EndgameStudyConfig sc;
    endgame_study_config_defaults(&sc);
    sc.ld = &e.ld;
    sc.layout = &e.layout;
    sc.kwg = &e.kwg;
    sc.seed = b.seed;
    sc.max_tiles = b.max_tiles;
    if (b.min_tiles > b.max_tiles) {
        fprintf(stderr, "rookery bench endgame: --min-tiles %d is above --max-tiles %d\n", b.min_tiles, b.max_tiles);
        engine_close(&e);
        return 2;
    }
    Game *g = malloc(sizeof *g);
    if (g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        engine_close(&e);
        return 1;
    }
    BenchTotals t = {0};
    int rc = 0;
    uint64_t max_games = 200 * b.npos + 1000;
    for (uint64_t gi = 0; gi < max_games && (uint64_t)t.found < b.npos; gi++) {
        t.games++;
        if (!endgame_study_position(&sc, gi, g)) continue;
        if (g->racks[0].total < b.min_tiles || g->racks[1].total < b.min_tiles) continue;
        t.found++;
        EndgameSearchResult r;
        if (!search_for(g, &b, b.movetime, &r)) {
            rc = 1;
            break;
        }
        t.nodes += r.nodes;
        t.secs += r.seconds;
        t.depth_sum += r.depth;
        t.proved += r.exact;
        if (r.exact) t.proved_secs += r.seconds;
        char line[160] = "";
        if (b.check > 0 && !check_answer(g, &b, &r, &t, line, sizeof line)) {
            rc = 1;
            break;
        }
        if (b.show) {
            char cgp[1024];
            cgp_write(g, NULL, cgp, sizeof cgp);
            printf("%s | depth %d%s value %+d, %" PRIu64 " nodes, %.3f s%s\n", cgp, r.depth, r.exact ? " exact" : "",
                   (int)r.value, r.nodes, r.seconds, line);
        }
        fprintf(stderr, "\r%d of %" PRIu64 " positions", t.found, b.npos);
    }
    fprintf(stderr, "\n");
    if (rc == 0 && t.found == 0) {
        fprintf(stderr, "rookery bench endgame: no game of %" PRIu64 " reached an empty bag with %d tiles a rack\n",
                t.games, b.min_tiles);
        rc = 1;
    }
    if (rc == 0) print_totals(&b, &t);
    free(g);
    engine_close(&e);
    return rc;
}
