/* rookery bench afterstate: what a decision of the value player costs on one core (the
 * static candidates, their afterstates and features, the network over them), and how fast
 * the trainer's per-sample work is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "core/engine.h"
#include "core/position.h"
#include "eval/klv.h"
#include "nn/afterstate_net.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench afterstate [--model FILE.h5 | --hidden1 H --hidden2 H] [--positions N]\n"
            "                                [--candidates K] [--seed S] [--lexicon FILE.kwg]\n"
            "\n"
            "For N static self-play positions (default 200; the first of each game with 1 to 86\n"
            "tiles in the bag), times a value player's decision on one core, ms a decision: the K\n"
            "best static moves (default 16: movegen_top), their afterstates and features, the\n"
            "network's forward pass over them, and the whole; beside it the static decision\n"
            "(movegen_best). The network is --model, or a new one of hidden1 x hidden2 units\n"
            "(default 128 x 32: the cost does not depend on the weights). Also the mean number of\n"
            "active features an afterstate has.\n");
}

int bench_afterstate(int argc, char **argv) {
    const char *model = NULL, *lexicon = NULL;
    int npos = 200, k = 16;
    AftArch arch = AFT_ARCH_DEFAULT;
    uint64_t seed = 1;
    const CliOption opts[] = {{"--model", CLI_STRING, &model, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--positions", CLI_INT, &npos, 1, 100000, NULL},
                              {"--candidates", CLI_INT, &k, 1, MOVEGEN_TOP_MAX, NULL},
                              {"--hidden1", CLI_INT, &arch.hidden1, 1, 1024, NULL},
                              {"--hidden2", CLI_INT, &arch.hidden2, 1, 1024, NULL},
                              {"--seed", CLI_U64, &seed, 0, 1.8446744073709552e19, NULL}};
    int parsed = cli_options_parse("bench afterstate", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    RkError err;
    AftNet net;
    Klv klv;
    char lpath[4096];
    int have = engine_default_leaves(&e, lpath, sizeof lpath, &err);
    if (have != 1 || klv_load(&klv, lpath, &e.ld, &err) != 0) {
        fprintf(stderr, "rookery bench afterstate: %s\n", have == 0 ? "no shipped leaves for this lexicon" : err.msg);
        engine_close(&e);
        return 2;
    }
    if ((model ? aft_net_load(&net, model, &e.ld, e.layout.dim, &err) : aft_net_init(&net, &arch, &e.ld, e.layout.dim, 1, &err)) != 0) {
        fprintf(stderr, "rookery bench afterstate: %s\n", err.msg);
        klv_free(&klv);
        engine_close(&e);
        return 2;
    }
    Game *pos = malloc((size_t)npos * sizeof *pos), *scratch = malloc(sizeof *scratch);
    AftBatch b;
    int rc = 0;
    if (!pos || !scratch || aft_batch_init(&b, &net, k, &err) != 0) {
        fprintf(stderr, "rookery: out of memory\n");
        free(pos), free(scratch);
        aft_net_free(&net), klv_free(&klv), engine_close(&e);
        return 1;
    }
    SelfplayConfig play = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed,
                           .leave_value = klv_leave_value, .leave_ctx = &klv};
    int got = positions_per_game(&play, 1, 86, false, pos, npos, scratch);
    AftContext c;
    aft_context(&c, &e.ld, &e.layout, &e.kwg, klv_leave_value, &klv);
    MoveList top;
    movelist_init(&top);
    double t_top = 0, t_feat = 0, t_net = 0, t_static = 0, active = 0, states = 0;
    for (int i = 0; i < got; i++) {
        const Game *g = &pos[i];
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        klv_request_leaves(&req, klv_leave_value, &klv);
        double t0 = rk_seconds();
        Move best;
        movegen_best(&req, &best, NULL);
        double t1 = rk_seconds();
        size_t n = movegen_top(&req, k, move_compare_equity, &top);
        double t2 = rk_seconds();
        Position p;
        position_from_game(&p, g);
        for (size_t j = 0; j < n; j++) {
            Afterstate as;
            Board after;
            aft_build(&e.ld, &g->board, &p, &top.moves[j], &as, &after);
            aft_batch_set(&b, &c, (int)j, &as, &after);
            active += b.count[j];
        }
        double t3 = rk_seconds();
        aft_net_forward(&net, &b, (int)n);
        double t4 = rk_seconds();
        t_static += t1 - t0, t_top += t2 - t1, t_feat += t3 - t2, t_net += t4 - t3;
        states += (double)n;
    }
    if (got == 0) {
        fprintf(stderr, "rookery bench afterstate: no positions\n");
        rc = 1;
    } else {
        double ms = 1000.0 / got;
        printf("bench afterstate: %d positions, %d candidates, network %d x %d (%zu parameters), one core\n", got, k,
               net.arch.hidden1, net.arch.hidden2, net.params.total);
        printf("  static decision (movegen_best)      %.3f ms\n", t_static * ms);
        printf("  the %d best static moves             %.3f ms\n", k, t_top * ms);
        printf("  afterstates and features            %.3f ms (%.0f active features an afterstate)\n", t_feat * ms,
               active / states);
        printf("  network forward                     %.3f ms\n", t_net * ms);
        printf("  value decision in all               %.3f ms\n", (t_top + t_feat + t_net) * ms);
    }
    movelist_free(&top);
    aft_batch_free(&b);
    free(pos), free(scratch);
    aft_net_free(&net), klv_free(&klv), engine_close(&e);
    return rc;
}
