/* rookery bench: throughput of move generation and self-play. Benchmarks,
 * not tests: they print figures and never fail on speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/rng.h"
#include "eval/derive.h"
#include "eval/dynleaves.h"
#include "eval/klv.h"
#include "worker/rank_share.h"
#include "eval/spv.h"
#include "search/sim.h"
#include "eval/racktable.h"
#include "worker/selfplay.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench movegen [--positions N] [--seconds T] [--seed S] [--lexicon FILE.kwg]\n"
            "                             [--leaves FILE.klv2] [--spv FILE.spv [--spv-k K]]\n"
            "       rookery bench selfplay [--games N] [--seed S] [--lexicon FILE.kwg] [--leaves FILE.klv2]\n"
            "                              [--spv FILE.spv [--spv-k K]]\n"
            "       rookery bench derive [--observed PCT]\n"
            "       rookery bench train [--games N] [--threads T] [--run DIR]\n"
            "       rookery bench leaves --req FILE.req [--positions N] [--seed S] [--rerank N]\n"
            "       rookery bench sim [--positions N] [--iterations N] [--plies P] [--candidates K]\n"
            "                         [--threads T] [--alloc uniform|toptwo]\n"
            "                         [--leaves FILE.klv2] [--seed S]\n"
            "       rookery bench mcgs --player SPEC [--positions N] [--seed S] [--lexicon FILE.kwg]\n"
            "       rookery bench infer [--positions N] [--tau T] [--seed S] [--lexicon FILE.kwg]\n"
            "       rookery bench endgame [--positions N] [--movetime MS] [--min-tiles T] [--check MS]\n"
            "       rookery bench peg [--positions N] [--bag B] [--movetime MS] [--check MS]\n"
            "       rookery bench afterstate [--model FILE.h5] [--positions N] [--candidates K]\n"
            "       rookery bench nn [--channels C --blocks B --embed E --head-hidden H --h-tiles T]\n"
            "                        [--model FILE.h5] [--positions N] [--seconds S] [--steps K]\n"
            "\n"
            "movegen:  plays self-play games (seed S) to collect N positions (default 2000), then\n"
            "          generates every move of each, repeatedly for at least T seconds (default 5),\n"
            "          and prints positions/s and moves/s. Then the same for the best-move path.\n"
            "selfplay: plays N games (default 1000) with the best-move path in one process and\n"
            "          prints games/s and turns/s.\n"
            "derive:   rack table build and leave derivation from random accumulators (PCT%% of the\n"
            "          racks observed, default 75).\n"
            "train:    one generation of the training loop (under mpirun), with its timings;\n"
            "          --threads T: T self-play threads a rank (run.threads).\n"
            "leaves:   bag-aware leaves: for self-play positions (N per row, default 5) at 93, 70, 50,\n"
            "          30 and 15 unseen tiles, the time to derive every leave again from the .req for\n"
            "          the position's pool, and to value the N best moves' leaves exactly (default 10).\n"
            "sim:      simulates N self-play positions (default 20; the first position of each game\n"
            "          with 40 to 80 tiles in the bag) with K candidates (default 10), P plies (default\n"
            "          2) and a fixed budget of iterations (default 50, no stopping; an iteration = as\n"
            "          many rollouts as candidates), on T threads (default 1), allocated uniformly\n"
            "          (default) or by toptwo, and prints iterations/s and rollouts/s.\n"
            "infer:    inference of the opponent's kept tiles at five bag sizes: ms an inference\n"
            "          (`rookery bench infer --help`).\n"
            "endgame:  the endgame search: empty-bag positions proved within a movetime, depth,\n"
            "          positions/s (`rookery bench endgame --help`).\n"
            "peg:      the pre-endgame solver against the simulation at one movetime, each answer's\n"
            "          share of wins checked by a long solve (`rookery bench peg --help`).\n"
            "mcgs:     the graph search player (`rookery bench mcgs --help`): playouts/s, network\n"
            "          positions/s, average batch, memory per node.\n"
            "afterstate: a value player's decision on one core: the static candidates, their\n"
            "          afterstates and features, the afterstate network (`rookery bench afterstate --help`).\n"
            "nn:       the network on one core: sgemm peak, forward positions/s and GFLOP/s at batch 1,\n"
            "          16, 64 and 256, nn_batch_set and nn_policy_all per position, trainer samples/s\n"
            "          (`rookery bench nn --help` says more).\n"
            "--leaves: play (and generate) by static equity with these leave values.\n"
            "--spv:    add the SPV positional adjustment of this table (spread scale K, default 75);\n"
            "          its per-position preparation is inside the timed loops. movegen collects its\n"
            "          positions without the table, so both runs time the same positions.\n");
}

typedef struct Collect {
    Game *positions;
    size_t count, cap;
} Collect;

static void collect(const Game *g, const Move *m, void *vctx) {
    (void)m;
    Collect *c = vctx;
    if (c->count < c->cap) c->positions[c->count++] = *g;
}

/* The evaluation tables a benchmark plays with (NULL: none). */
typedef struct BenchTables {
    const Klv *klv;
    const Spv *spv;
    double spv_k;
} BenchTables;

static int bench_movegen(Engine *e, const BenchTables *tb, uint64_t npos, double seconds, uint64_t seed) {
    const Klv *klv = tb->klv;
    PositionalValues *pv = malloc(sizeof *pv);
    Collect c = {.positions = malloc(npos * sizeof(Game)), .count = 0, .cap = npos};
    Game *g = malloc(sizeof *g);
    if (c.positions == NULL || g == NULL || pv == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        free(c.positions);
        free(g);
        free(pv);
        return 1;
    }
    /* positions from games played without the SPV table, so that --spv is
     * timed on the same positions as a run without it */
    SelfplayConfig cfg = {.ld = &e->ld, .layout = &e->layout, .kwg = &e->kwg, .seed = seed,
                          .leave_value = klv ? klv_leave_value : NULL, .leave_ctx = klv};
    for (uint64_t i = 0; c.count < c.cap; i++) selfplay_game(&cfg, i, g, NULL, collect, &c);
    MoveList list;
    movelist_init(&list);
    uint64_t positions = 0, moves = 0;
    double t0 = cli_now(), dt = 0;
    do {
        for (size_t i = 0; i < c.count; i++) {
            MoveGenRequest req;
            movegen_request_for_game(&req, &c.positions[i]);
            klv_request_leaves(&req, cfg.leave_value, cfg.leave_ctx);
            req.positional = spv_prepare_for_game(tb->spv, tb->spv_k, &c.positions[i], pv);
            movegen_all(&req, &list);
            moves += list.count;
        }
        positions += c.count;
        dt = cli_now() - t0;
    } while (dt < seconds);
    printf("bench movegen (all moves): %llu positions, %llu moves in %.2f s: %.0f positions/s, %.0f moves/s, "
           "%.1f moves/position\n",
           (unsigned long long)positions, (unsigned long long)moves, dt, (double)positions / dt,
           (double)moves / dt, (double)moves / (double)positions);
    positions = 0;
    MoveGenStats st = {0};
    t0 = cli_now();
    do {
        for (size_t i = 0; i < c.count; i++) {
            MoveGenRequest req;
            movegen_request_for_game(&req, &c.positions[i]);
            klv_request_leaves(&req, cfg.leave_value, cfg.leave_ctx);
            req.positional = spv_prepare_for_game(tb->spv, tb->spv_k, &c.positions[i], pv);
            Move m;
            movegen_best(&req, &m, &st);
        }
        positions += c.count;
        dt = cli_now() - t0;
    } while (dt < seconds);
    double np = (double)positions;
    if (st.spans_pushed + st.spans_searched > 0)
        printf("bench movegen (best move, word map): %llu positions in %.2f s: %.0f positions/s; per position "
               "%.1f spans bounded above the best so far, %.1f taken, %.1f word-map lookups\n",
               (unsigned long long)positions, dt, np / dt, (double)st.spans_pushed / np,
               (double)st.spans_searched / np, (double)st.wordmap_lookups / np);
    else
        printf("bench movegen (best move, graph): %llu positions in %.2f s: %.0f positions/s; anchors searched "
               "%.1f, pruned %.1f per position\n",
               (unsigned long long)positions, dt, np / dt, (double)st.anchors_searched / np,
               (double)st.anchors_pruned / np);
    movelist_free(&list);
    free(c.positions);
    free(g);
    free(pv);
    return 0;
}

static int bench_selfplay(Engine *e, const BenchTables *tb, uint64_t games, uint64_t seed) {
    Game *g = malloc(sizeof *g);
    if (g == NULL) return 1;
    SelfplayConfig cfg = {.ld = &e->ld, .layout = &e->layout, .kwg = &e->kwg, .seed = seed,
                          .leave_value = tb->klv ? klv_leave_value : NULL, .leave_ctx = tb->klv, .spv = tb->spv,
                          .spv_k = tb->spv_k};
    SelfplayStats st;
    memset(&st, 0, sizeof st);
    double t0 = cli_now();
    for (uint64_t i = 0; i < games; i++) selfplay_game(&cfg, i, g, &st, NULL, NULL);
    double dt = cli_now() - t0;
    printf("bench selfplay: %llu games, %llu turns in %.2f s: %.1f games/s, %.0f turns/s (one process)\n",
           (unsigned long long)games, (unsigned long long)st.turns, dt, (double)games / dt,
           (double)st.turns / dt);
    free(g);
    return 0;
}

/* `bench train` is the training loop itself, told to run one generation and
 * report on it. */
/* A count that must be at least 1: 0, or 2 after the message. */
static int at_least_one(const char *sub, const char *opt, uint64_t v) {
    if (v > 0) return 0;
    fprintf(stderr, "rookery bench %s: %s must be at least 1\n", sub, opt);
    return 2;
}

/* The options after `bench SUB`: 0 go on, else the exit code. */
static int bench_options(const char *sub, int argc, char **argv, const CliOption *opts, int n) {
    char cmd[32];
    snprintf(cmd, sizeof cmd, "bench %s", sub);
    int parsed = cli_options_parse(cmd, argc - 1, argv + 1, opts, n, usage); /* argv[1] is SUB */
    return parsed == 0 ? -1 : parsed > 0 ? 0 : 2;
}

static int bench_derive(int argc, char **argv) {
    int pct = 75;
    const CliOption opts[] = {{"--observed", CLI_INT, &pct, 0, 100, NULL}};
    int rc = bench_options("derive", argc, argv, opts, 1);
    if (rc >= 0) return rc;
    LetterDist ld;
    ld_english(&ld);
    RkError err;
    RackTable rt;
    Klv klv;
    LeaveDeriver d;
    RackAccum acc;
    double t0 = cli_now();
    if (racktable_build(&rt, &ld, RK_RACK_SIZE, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    double t1 = cli_now();
    if (klv_init_zero(&klv, &ld, &err) != 0 || leave_deriver_init(&d, &rt, &klv.kwg, &err) != 0 ||
        rack_accum_init(&acc, rt.num_racks, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    double t2 = cli_now();
    Rng rng;
    rng_seed(&rng, 1);
    for (uint64_t i = 0; i < acc.n; i++) {
        if ((int)rng_below(&rng, 100) >= pct) continue;
        acc.count[i] = 1 + (int64_t)rng_below(&rng, 5);
        acc.sum_mp[i] = acc.count[i] * (int64_t)rng_below(&rng, 80000);
    }
    float *out = malloc(klv.count * sizeof *out);
    if (out == NULL) return 1;
    double t3 = cli_now();
    DeriveInfo info;
    if (derive_leaves(&d, &acc, NULL, out, klv.count, &info, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    double t4 = cli_now();
    printf("bench derive: rack table %llu racks in %.2f s; leave graph + deriver %.2f s; derive %u leaves from "
           "%llu observed racks in %.3f s (one core)\n",
           (unsigned long long)rt.num_racks, t1 - t0, t2 - t1, klv.count, (unsigned long long)info.racks_observed,
           t4 - t3);
    free(out);
    rack_accum_free(&acc);
    leave_deriver_free(&d);
    klv_free(&klv);
    racktable_free(&rt);
    return 0;
}

/* The first position of each game whose bag (by_unseen: the unseen tiles
 * of the player on turn) holds lo..hi tiles. */
typedef struct FirstPerGame {
    Game *out;
    int got, want, lo, hi;
    bool by_unseen;
    bool taken; /* this game already gave one */
} FirstPerGame;

static void collect_first(const Game *g, const Move *m, void *vctx) {
    (void)m;
    FirstPerGame *c = vctx;
    int n = g->bag.count + (c->by_unseen ? g->racks[1 - g->on_turn].total : 0);
    if (c->taken || c->got >= c->want || n < c->lo || n > c->hi) return;
    c->out[c->got++] = *g;
    c->taken = true;
}

int positions_per_game(const SelfplayConfig *play, int lo, int hi, bool by_unseen, Game *out, int want,
                              Game *scratch) {
    FirstPerGame c = {.out = out, .want = want, .lo = lo, .hi = hi, .by_unseen = by_unseen};
    for (uint64_t gi = 0; c.got < c.want && gi < 100 * (uint64_t)want; gi++) {
        c.taken = false;
        selfplay_game(play, gi, scratch, NULL, collect_first, &c);
    }
    return c.got;
}

static int bench_leaves(int argc, char **argv) {
    const char *req_path = NULL, *lexicon = NULL;
    uint64_t npos = 5, seed = 1;
    int rerank = 10;
    const CliOption opts[] = {{"--req", CLI_STRING, &req_path, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--positions", CLI_U64, &npos, 0, 10000, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--rerank", CLI_INT, &rerank, 0, 1000, NULL}};
    int orc = bench_options("leaves", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    if (orc >= 0) return orc;
    if (at_least_one("leaves", "--positions", npos) != 0) return 2;
    if (req_path == NULL) {
        fprintf(stderr, "rookery bench leaves: --req FILE.req is required (see --help)\n");
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    RkError err;
    DynLeaves dl;
    int rc = 0;
    Game *pos = malloc(npos * sizeof *pos);
    Game *scratch = malloc(sizeof *scratch);
    if (pos == NULL || scratch == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        free(pos), free(scratch), engine_close(&e);
        return 1;
    }
    if (dynleaves_open(&dl, &e.ld, req_path, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 2;
        goto done;
    }
    err.msg[0] = '\0'; /* set by a failure in the rows below */
    printf("bench leaves: %s, %llu positions per row (self-play, seed %llu), one core\n", req_path,
           (unsigned long long)npos, (unsigned long long)seed);
    printf("%8s %14s %12s %16s\n", "unseen", "recompute ms", "racks used", "exact top-N ms");
    SelfplayConfig cfg = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed};
    const int targets[] = {93, 70, 50, 30, 15};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        int got = positions_per_game(&cfg, 0, targets[t], true, pos, (int)npos, scratch);
        double t_re = 0.0, t_ex = 0.0, unseen_sum = 0.0, used = 0.0;
        for (int i = 0; i < got; i++) {
            Rack unseen, pool;
            game_unseen(&pos[i], &unseen);
            const Rack *rack = &pos[i].racks[pos[i].on_turn];
            unseen_sum += unseen.total;
            if (dynleaves_pool(&e.ld, &unseen, rack, &pool, &err) != 0) break;
            DeriveOptions opt = {.shrink = 30.0, .n_eff = NULL, .holdable_only = true};
            DeriveInfo info;
            double t0 = cli_now();
            if (dynleaves_recompute(&dl.deriver, &dl.req, &pool, &opt, &dl.klv, &info, &err) != 0) break;
            double t1 = cli_now();
            used += (double)info.racks_used;
            MoveGenRequest mreq;
            movegen_request_for_game(&mreq, &pos[i]);
            klv_request_leaves(&mreq, klv_leave_value, &dl.klv);
            MoveList list;
            movelist_init(&list);
            movegen_all(&mreq, &list);
            movelist_sort_by_equity(&list);
            double t2 = cli_now();
            int n = dynleaves_rerank(&dl.rt, &dl.req, klv_leave_value, &dl.klv, rack, &unseen, &list, rerank, NULL, &err);
            double t3 = cli_now();
            movelist_free(&list);
            if (n < 0) break;
            t_re += t1 - t0;
            t_ex += t3 - t2;
        }
        if (err.msg[0] != '\0' && got > 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
            goto done;
        }
        if (got == 0) continue;
        printf("%8.1f %14.1f %12.0f %16.1f\n", unseen_sum / got, 1000.0 * t_re / got, used / got,
               1000.0 * t_ex / got);
    }
    printf("(recompute: every leave, shrinkage 30, pool = unseen + rack; exact: top %d moves' leaves "
           "for the unseen tiles)\n", rerank);
done:
    dynleaves_close(&dl);
    free(pos);
    free(scratch);
    engine_close(&e);
    return rc;
}

static int bench_sim(int argc, char **argv) {
    const char *lexicon = NULL, *leaves = NULL;
    uint64_t npos = 20, iterations = 50, seed = 1;
    int plies = 2, candidates = 10, threads = 1;
    const char *alloc = "uniform";
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--threads", CLI_INT, &threads, 1, SIM_MAX_THREADS, NULL},
                              {"--alloc", CLI_STRING, &alloc, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &leaves, 0, 0, NULL},
                              {"--positions", CLI_U64, &npos, 0, 100000, NULL},
                              {"--iterations", CLI_U64, &iterations, 0, 1000000, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--plies", CLI_INT, &plies, 0, 100, NULL},
                              {"--candidates", CLI_INT, &candidates, 1, SIM_MAX_CANDIDATES, NULL}};
    int orc = bench_options("sim", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    if (orc >= 0) return orc;
    if (at_least_one("sim", "--positions", npos) != 0 || at_least_one("sim", "--iterations", iterations) != 0) return 2;
    if (strcmp(alloc, "uniform") != 0 && strcmp(alloc, "toptwo") != 0) {
        fprintf(stderr, "rookery bench sim: --alloc %s, expected uniform or toptwo\n", alloc);
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    RkError err;
    Klv klv;
    memset(&klv, 0, sizeof klv);
    if (leaves != NULL && klv_load(&klv, leaves, &e.ld, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        engine_close(&e);
        return 2;
    }
    Game *pos = malloc(npos * sizeof *pos), *scratch = malloc(sizeof *scratch);
    SimResult *r = malloc(sizeof *r);
    int rc = 0;
    if (pos == NULL || scratch == NULL || r == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        rc = 1;
        goto done;
    }
    SelfplayConfig play = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed,
                           .leave_value = leaves ? klv_leave_value : NULL, .leave_ctx = &klv};
    int got = positions_per_game(&play, 40, 80, false, pos, (int)npos, scratch); /* mid-game */
    if (got == 0) {
        fprintf(stderr, "rookery bench sim: no self-play game reached 40 to 80 tiles in the bag\n");
        rc = 1;
        goto done;
    }
    SimConfig cfg;
    sim_config_defaults(&cfg);
    cfg.plies = plies;
    cfg.candidates = candidates;
    cfg.iterations = iterations;
    cfg.stop_z = 0.0;
    cfg.threads = threads;
    cfg.alloc = strcmp(alloc, "toptwo") == 0 ? SIM_ALLOC_TOPTWO : SIM_ALLOC_UNIFORM;
    cfg.leave_value = play.leave_value;
    cfg.leave_ctx = play.leave_ctx;
    uint64_t its = 0, rollouts = 0;
    double secs = 0.0;
    for (int i = 0; i < got; i++) {
        cfg.seed = seed + (uint64_t)i;
        if (sim_run(&pos[i], &cfg, r, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
            goto done;
        }
        its += r->iterations;
        rollouts += r->rollouts;
        secs += r->seconds;
    }
    printf("bench sim: %d positions, %d candidates, %d plies, %llu iterations each (no stopping), %s, leaves %s\n",
           got, candidates, plies, (unsigned long long)iterations, alloc, leaves ? leaves : "none");
    printf("  %.1f iterations/s, %.3f ms per iteration, %.0f rollouts/s (%d thread%s)\n", (double)its / secs,
           1000.0 * secs / (double)its, (double)rollouts / secs, threads, threads == 1 ? "" : "s");
done:
    free(pos);
    free(scratch);
    free(r);
    klv_free(&klv);
    engine_close(&e);
    return rc;
}

static int bench_train(int argc, char **argv) {
    uint64_t games = 2000, threads = 1;
    const char *run = "runs/bench";
    const CliOption opts[] = {{"--games", CLI_U64, &games, 0, 1099511627776.0, NULL},
                              {"--threads", CLI_U64, &threads, 0, GENERATION_MAX_THREADS, NULL},
                              {"--run", CLI_STRING, &run, 0, 0, NULL}};
    int orc = bench_options("train", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]));
    if (orc >= 0) return orc;
    if (at_least_one("train", "--games", games) != 0 || at_least_one("train", "--threads", threads) != 0) return 2;
    char set_games[64];
    snprintf(set_games, sizeof set_games, "run.games_per_generation=%llu", (unsigned long long)games);
    char set_threads[64];
    snprintf(set_threads, sizeof set_threads, "run.threads=%llu", (unsigned long long)threads);
    char *targv[] = {"train", "--bench",   "--run", (char *)run, "--set", set_games, "--set", "run.progress_seconds=0",
                     "--set", set_threads, NULL};
    return cmd_train(10, targv);
}

int cmd_bench(int argc, char **argv) {
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *what = argv[1];
    if (strcmp(what, "train") == 0) return bench_train(argc, argv);
    if (strcmp(what, "derive") == 0) return bench_derive(argc, argv);
    if (strcmp(what, "leaves") == 0) return bench_leaves(argc, argv);
    if (strcmp(what, "sim") == 0) return bench_sim(argc, argv);
    if (strcmp(what, "nn") == 0) return bench_nn(argc, argv);
    if (strcmp(what, "mcgs") == 0) return bench_mcgs(argc, argv);
    if (strcmp(what, "infer") == 0) return bench_infer(argc, argv);
    if (strcmp(what, "afterstate") == 0) return bench_afterstate(argc, argv);
    if (strcmp(what, "endgame") == 0) return bench_endgame(argc, argv);
    if (strcmp(what, "peg") == 0) return bench_peg(argc, argv);
    if (strcmp(what, "movegen") != 0 && strcmp(what, "selfplay") != 0) {
        fprintf(stderr,
                "rookery bench: unknown benchmark '%s' (movegen, selfplay, derive, train, leaves, sim, mcgs, nn, infer, endgame or peg)\n",
                what);
        return 2;
    }
    uint64_t npos = 2000, games = 1000, seed = 1;
    int secs = 5;
    const char *lexicon = NULL, *leaves = NULL, *spv_path = NULL;
    double spv_k = 75.0;
    const CliOption opts[] = {{"--positions", CLI_U64, &npos, 0, 10000000, NULL},
                              {"--games", CLI_U64, &games, 0, 100000000, NULL},
                              {"--seconds", CLI_INT, &secs, 0, 86400, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &leaves, 0, 0, NULL},
                              {"--spv", CLI_STRING, &spv_path, 0, 0, NULL},
                              {"--spv-k", CLI_DOUBLE, &spv_k, 0, 1e6, NULL}};
    int parsed = cli_options_parse("bench", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (at_least_one("movegen", "--positions", npos) != 0 || at_least_one("movegen", "--games", games) != 0) return 2;
    if (spv_k == 0.0) {
        fprintf(stderr, "rookery bench: --spv-k must be above 0\n");
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    Klv klv;
    RkError err;
    if (leaves != NULL && klv_load(&klv, leaves, &e.ld, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        engine_close(&e);
        return 2;
    }
    Spv spv;
    if (spv_path != NULL &&
        (spv_load(&spv, spv_path, &err) != 0 || spv_check_board(&spv, e.layout.dim, spv_path, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        if (leaves != NULL) klv_free(&klv);
        spv_free(&spv);
        engine_close(&e);
        return 2;
    }
    BenchTables tb = {leaves != NULL ? &klv : NULL, spv_path != NULL ? &spv : NULL, spv_k};
    int rc = strcmp(what, "movegen") == 0 ? bench_movegen(&e, &tb, npos, secs, seed)
                                          : bench_selfplay(&e, &tb, games, seed);
    if (leaves != NULL) klv_free(&klv);
    if (spv_path != NULL) spv_free(&spv);
    engine_close(&e);
    return rc;
}
