/* rookery leaves: bag-aware leave values from a rack-equity table (.req),
 * for a pool of tiles or a position (eval/dynleaves.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/bag.h"
#include "core/cgp.h"
#include "eval/dynleaves.h"
#include "worker/leave_study.h"
#include "eval/klv.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery leaves --req FILE.req --unseen TILES [--rack TILES] -o OUT.klv2 [--shrink K] [--all-leaves]\n"
            "       rookery leaves --req FILE.req --cgp '<CGP>' [-o OUT.klv2] [--shrink K]\n"
            "                      [--rerank N --leaves STATIC.klv2] [--lexicon FILE.kwg]\n"
            "       rookery leaves --req FILE.req --study GAMES [--rerank N] [--seed S] [--lexicon FILE.kwg]\n"
            "       (all: [--ld english|FILE.csv])\n"
            "\n"
            "Derives every leave value again for the tiles left in a game instead of the full\n"
            "distribution, from the rack equities of a training generation (RUN/gen-NNNN/racks.req),\n"
            "and writes them as a .klv2. The pool the leaves are drawn from is every tile not on the\n"
            "board, from the player's view: the unseen tiles (bag + opponent's rack) plus the\n"
            "player's rack (docs/leaves.md, \"Bag-aware leaves\").\n"
            "  --unseen TILES  the unseen tiles, e.g. AEEIRST?; with --cgp it is optional and must be\n"
            "                  what the position implies (bag + the opponent's rack)\n"
            "  --rack TILES    the player's rack (with --unseen; default none)\n"
            "  --cgp CGP       a position: unseen = bag + opponent's rack, rack = the rack on turn\n"
            "  -o OUT.klv2     where to write the leaves (required without --rerank)\n"
            "  --shrink K      the generation's shrinkage (leaves.shrink, default 30; 0 = plain formula)\n"
            "  --all-leaves    value every leave; by default only the leaves the pool can hold are\n"
            "                  (the others are 0: no rack drawn from the pool has them), which is\n"
            "                  much faster late in a game\n"
            "  --rerank N      with --cgp and --leaves: the N best moves by static equity, with their\n"
            "                  leaves valued exactly for the unseen tiles (the top-N reranking)\n"
            "  --leaves F      the static leaves the moves are generated with (for --rerank)\n"
            "  --study GAMES   plays GAMES static self-play games (seed S, default 1) with the .req's\n"
            "                  own leaves and, per unseen-tile bucket, prints how often reranking the\n"
            "                  N best moves (default 10) with exact bag-aware leaves changes the best\n"
            "                  move, and how well static and bag-aware leaves predict the player's next\n"
            "                  best-move equity (mean and rms residual; worker/leave_study.h)\n");
}

typedef struct LeavesJob {
    const char *req_path, *unseen_text, *rack_text, *cgp, *out_path, *lexicon, *ld_name, *static_path;
    double shrink;
    int rerank;
    bool all_leaves;
    uint64_t study_games, seed;
    LetterDist ld;
    Engine engine; /* with --cgp */
    bool have_engine;
    Game *game;
    Rack unseen, rack, pool;
    DynLeaves dl;
    Klv static_klv;
} LeavesJob;

static void job_free(LeavesJob *j) {
    dynleaves_close(&j->dl);
    klv_free(&j->static_klv);
    free(j->game);
    if (j->have_engine) engine_close(&j->engine);
}

static int parse_args(LeavesJob *j, int argc, char **argv) {
    bool study = false;
    const CliOption opts[] = {{"--req", CLI_STRING, &j->req_path, 0, 0, NULL},
                              {"--unseen", CLI_STRING, &j->unseen_text, 0, 0, NULL},
                              {"--rack", CLI_STRING, &j->rack_text, 0, 0, NULL},
                              {"--cgp", CLI_STRING, &j->cgp, 0, 0, NULL},
                              {"-o", CLI_STRING, &j->out_path, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &j->lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &j->ld_name, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &j->static_path, 0, 0, NULL},
                              {"--shrink", CLI_DOUBLE, &j->shrink, 0, 1e12, NULL},
                              {"--study", CLI_U64, &j->study_games, 0, 1000000, &study},
                              {"--seed", CLI_U64, &j->seed, 0, 18446744073709551615.0, NULL},
                              {"--all-leaves", CLI_FLAG, &j->all_leaves, 0, 0, NULL},
                              {"--rerank", CLI_INT, &j->rerank, 1, 100000, NULL}};
    int parsed = cli_options_parse("leaves", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed;
    if (study && j->study_games == 0) {
        fprintf(stderr, "rookery leaves: --study must be at least 1 (games)\n");
        return -1;
    }
    const char *problem = NULL;
    if (j->req_path == NULL) problem = "--req is required";
    else if (j->study_games > 0) problem = j->unseen_text || j->cgp || j->out_path ? "--study takes no position or -o" : NULL;
    else if (j->unseen_text == NULL && j->cgp == NULL) problem = "give --unseen or --cgp";
    else if (j->cgp != NULL && j->rack_text != NULL) problem = "--rack goes with --unseen, not --cgp (its rack is on turn)";
    else if (j->rerank > 0 && (j->cgp == NULL || j->static_path == NULL) && j->study_games == 0)
        problem = "--rerank needs --cgp and --leaves";
    else if (j->rerank == 0 && j->out_path == NULL) problem = "-o OUT.klv2 is required";
    if (problem != NULL) {
        fprintf(stderr, "rookery leaves: %s (see --help)\n", problem);
        return -1;
    }
    return 0;
}

/* Parses a multiset of tiles (no blanked letters, any size). */
static int parse_tiles(const LetterDist *ld, const char *what, const char *text, Rack *out) {
    uint8_t tiles[RK_MAX_BAG];
    int n = ld_parse_tiles(ld, text, tiles, RK_MAX_BAG, false);
    if (n < 0) {
        fprintf(stderr, "rookery leaves: %s '%s' is not a list of tiles of the distribution\n", what, text);
        return -1;
    }
    rack_clear(out);
    for (int i = 0; i < n; i++) {
        if (out->count[tiles[i]] >= ld->count[tiles[i]]) {
            char label[16] = "";
            ld_tile_label(ld, tiles[i], label, sizeof label);
            fprintf(stderr, "rookery leaves: %s '%s' holds more %s than the distribution's %d\n", what, text, label,
                    ld->count[tiles[i]]);
            return -1;
        }
        rack_add(out, tiles[i]);
    }
    return 0;
}

/* The unseen tiles and the rack, from --unseen/--rack or from the CGP. */
static int position(LeavesJob *j) {
    RkError err;
    if (j->cgp == NULL) {
        if (ld_open(&j->ld, j->ld_name != NULL ? j->ld_name : "english", &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            return -1;
        }
        rack_clear(&j->rack);
        if (parse_tiles(&j->ld, "--unseen", j->unseen_text, &j->unseen) != 0) return -1;
        if (j->rack_text != NULL && parse_tiles(&j->ld, "--rack", j->rack_text, &j->rack) != 0) return -1;
        if (j->rack.total > RK_RACK_SIZE) {
            fprintf(stderr, "rookery leaves: --rack '%s' holds %d tiles, a rack at most %d\n", j->rack_text,
                    j->rack.total, RK_RACK_SIZE);
            return -1;
        }
        return 0;
    }
    if (cli_engine_for_cgp(&j->engine, j->cgp, j->ld_name, NULL, j->lexicon) != 0) return -1;
    j->have_engine = true;
    j->ld = j->engine.ld;
    j->game = malloc(sizeof *j->game);
    if (j->game == NULL || cgp_parse(j->game, j->cgp, &j->engine.ld, &j->engine.layout, &j->engine.kwg, 0, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", j->game == NULL ? "out of memory" : err.msg);
        return -1;
    }
    game_unseen(j->game, &j->unseen);
    j->rack = j->game->racks[j->game->on_turn];
    if (j->unseen_text != NULL) {
        Rack given;
        if (parse_tiles(&j->ld, "--unseen", j->unseen_text, &given) != 0) return -1;
        if (!rack_equal(&given, &j->unseen)) {
            char want[RK_MAX_BAG * 4];
            rack_to_string(&j->unseen, &j->ld, want, sizeof want);
            fprintf(stderr, "rookery leaves: --unseen '%s' contradicts the position, whose unseen tiles are %s\n",
                    j->unseen_text, want);
            return -1;
        }
    }
    return 0;
}

static int load_tables(LeavesJob *j) {
    RkError err;
    if (dynleaves_open(&j->dl, &j->ld, j->req_path, &err) != 0 ||
        (j->static_path != NULL && klv_load(&j->static_klv, j->static_path, &j->ld, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int show_rerank(LeavesJob *j) {
    RkError err;
    if (j->game->bag.count == 0) {
        fprintf(stderr, "rookery leaves: --rerank: the bag is empty, so leaves do not count in this position\n");
        return 2;
    }
    MoveGenRequest mreq;
    movegen_request_for_game(&mreq, j->game);
    klv_request_leaves(&mreq, klv_leave_value, &j->static_klv);
    MoveList list;
    movelist_init(&list);
    movegen_all(&mreq, &list);
    movelist_sort_by_equity(&list);
    size_t n = (size_t)j->rerank < list.count ? (size_t)j->rerank : list.count;
    Move *orig = malloc((n > 0 ? n : 1) * sizeof *orig);
    if (orig == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        free(orig), movelist_free(&list);
        return 1;
    }
    memcpy(orig, list.moves, n * sizeof *orig);
    double t0 = cli_now();
    int rc = dynleaves_rerank(&j->dl.rt, &j->dl.req, klv_leave_value, &j->static_klv, &j->rack, &j->unseen, &list,
                              (int)n, NULL, &err);
    double ms = 1000.0 * (cli_now() - t0);
    if (rc < 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        free(orig), movelist_free(&list);
        return 1;
    }
    printf("%d unseen tiles; the %zu best moves by static equity, reranked with exact bag-aware leaves "
           "(%.1f ms):\n", j->unseen.total, n, ms);
    printf("%4s  %-24s %7s %10s %10s\n", "rank", "move", "score", "static", "bag-aware");
    for (size_t i = 0; i < n; i++) {
        const Move *m = &list.moves[i];
        int32_t st = 0;
        for (size_t k = 0; k < n; k++)
            if (move_same(&orig[k], m)) st = orig[k].equity;
        char text[128];
        move_to_string(m, &j->game->board, &j->ld, text, sizeof text);
        printf("%4zu  %-24s %7d %10.3f %10.3f\n", i + 1, text, m->score, st / 1000.0, m->equity / 1000.0);
    }
    free(orig), movelist_free(&list);
    return 0;
}

/* --study: the .req's own static leaves, then leave_study over the games. */
static int run_study(LeavesJob *j) {
    RkError err;
    if (cli_engine_open(&j->engine, j->ld_name, NULL, j->lexicon, NULL) != 0) return 2;
    j->have_engine = true;
    j->ld = j->engine.ld;
    if (load_tables(j) != 0) return 2;
    Rack full;
    racktable_full_bag(&j->dl.rt, &full);
    DeriveOptions opt = {.shrink = j->shrink};
    DeriveInfo info;
    j->game = malloc(sizeof *j->game);
    if (j->game == NULL || dynleaves_recompute(&j->dl.deriver, &j->dl.req, &full, &opt, &j->dl.klv, &info, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", j->game == NULL ? "out of memory" : err.msg);
        return 1;
    }
    SelfplayConfig play = {.ld = &j->engine.ld, .layout = &j->engine.layout, .kwg = &j->engine.kwg,
                           .leave_value = klv_leave_value, .leave_ctx = &j->dl.klv, .seed = j->seed};
    LeaveStudy s;
    memset(&s, 0, sizeof s);
    s.play = &play;
    s.rt = &j->dl.rt;
    s.req = &j->dl.req;
    s.static_klv = &j->dl.klv;
    s.static_baseline = info.baseline;
    s.rerank = j->rerank > 0 ? j->rerank : 10;
    double t0 = cli_now(), last = t0;
    for (uint64_t i = 0; i < j->study_games; i++) {
        if (leave_study_game(&s, i, j->game, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            return 1;
        }
        if (cli_now() - last > 10.0) {
            last = cli_now();
            fprintf(stderr, "study: %llu/%llu games, %.0f s\n", (unsigned long long)(i + 1),
                    (unsigned long long)j->study_games, last - t0);
        }
    }
    printf("leave study: %s, %llu static self-play games (seed %llu), top %d reranked; static baseline %.3f; "
           "%.1f s (%.1f s in exact values)\n",
           j->req_path, (unsigned long long)j->study_games, (unsigned long long)j->seed, s.rerank, info.baseline,
           cli_now() - t0, s.seconds_exact);
    printf("%8s %10s %10s %10s %14s %14s %14s %14s\n", "unseen", "positions", "changed", "changed%", "predictions",
           "static mean", "static rms", "bag-aware rms");
    for (int b = 0; b < LEAVE_STUDY_BUCKETS; b++) {
        const LeaveStudyBucket *k = &s.bucket[b];
        double n = (double)k->residuals;
        char range[16];
        snprintf(range, sizeof range, "%d-%d", b * LEAVE_STUDY_BUCKET_TILES + 1, (b + 1) * LEAVE_STUDY_BUCKET_TILES);
        printf("%8s %10llu %10llu %9.1f%% %14llu %14.3f %14.3f %14.3f   (bag-aware mean %.3f)\n", range,
               (unsigned long long)k->positions, (unsigned long long)k->changed,
               k->positions ? 100.0 * (double)k->changed / (double)k->positions : 0.0,
               (unsigned long long)k->residuals, n > 0 ? k->sum_static / n : 0.0,
               n > 0 ? sqrt(k->sq_static / n) : 0.0, n > 0 ? sqrt(k->sq_dynamic / n) : 0.0,
               n > 0 ? k->sum_dynamic / n : 0.0);
    }
    return 0;
}

int cmd_leaves(int argc, char **argv) {
    LeavesJob j;
    memset(&j, 0, sizeof j);
    j.shrink = 30.0;
    j.seed = 1;
    int a = parse_args(&j, argc, argv);
    if (a != 0) return a > 0 ? 0 : 2;
    if (j.study_games > 0) {
        int rc = run_study(&j);
        job_free(&j);
        return rc;
    }
    int rc = 0;
    if (position(&j) != 0 || load_tables(&j) != 0) {
        job_free(&j);
        return 2;
    }
    RkError err;
    if (dynleaves_pool(&j.ld, &j.unseen, &j.rack, &j.pool, &err) != 0) {
        fprintf(stderr, "rookery leaves: %s\n", err.msg);
        job_free(&j);
        return 2;
    }
    if (j.out_path != NULL) {
        DeriveOptions opt = {.shrink = j.shrink, .n_eff = NULL, .holdable_only = !j.all_leaves};
        DeriveInfo info;
        double t0 = cli_now();
        if (dynleaves_recompute(&j.dl.deriver, &j.dl.req, &j.pool, &opt, &j.dl.klv, &info, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            job_free(&j);
            return 1;
        }
        double ms = 1000.0 * (cli_now() - t0);
        if (klv_write(&j.dl.klv, j.out_path, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            job_free(&j);
            return 1;
        }
        printf("%s: %u leaves for a pool of %d tiles (%d unseen + %d on the rack): %llu observed racks drawable "
               "of %llu, %llu leaves valued, baseline %.3f; derived in %.1f ms\n",
               j.out_path, j.dl.klv.count, j.pool.total, j.unseen.total, j.rack.total,
               (unsigned long long)info.racks_used, (unsigned long long)info.racks_observed,
               (unsigned long long)info.leaves_valued, info.baseline, ms);
    }
    if (j.rerank > 0) rc = show_rerank(&j);
    job_free(&j);
    return rc;
}
