/* rookery bench infer: what an inference of the opponent's kept tiles costs
 * (search/infer.h), at several bag sizes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "core/engine.h"
#include "eval/klv.h"
#include "search/infer.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench infer [--positions N] [--tau T] [--seed S] [--lexicon FILE.kwg]\n"
            "\n"
            "For N static self-play positions (default 20) in each of five bag ranges (60-80, 40-59,\n"
            "20-39, 9-19 and 1-8 tiles), infers what the player who just moved kept (search/infer.h:\n"
            "a window of T points, default 5, the default leaves as the model's) and prints the time\n"
            "an inference takes (mean and maximum), how many were exact (every leave weighed) and\n"
            "the leaves and racks weighed, on one core.\n");
}

typedef struct Row {
    int lo, hi;
} Row;

int bench_infer(int argc, char **argv) {
    const char *lexicon = NULL;
    uint64_t npos = 20, seed = 1;
    double tau = 5.0;
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--positions", CLI_U64, &npos, 1, 10000, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--tau", CLI_DOUBLE, &tau, 0.001, 1000, NULL}};
    int parsed = cli_options_parse("bench infer", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (npos == 0) {
        fprintf(stderr, "rookery bench infer: --positions must be at least 1\n");
        return 2;
    }
    Engine e;
    if (engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
    char path[sizeof e.lexicon_path + 8];
    RkError err;
    Klv klv;
    bool have = engine_default_leaves(&e, path, sizeof path, &err) == 1 && klv_load(&klv, path, &e.ld, &err) == 0;
    Game *pos = malloc(npos * sizeof *pos), *scratch = malloc(sizeof *scratch), *before = malloc(sizeof *before);
    int rc = 0;
    if (pos == NULL || scratch == NULL || before == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        rc = 1;
        goto done;
    }
    SelfplayConfig play = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed,
                           .leave_value = have ? klv_leave_value : NULL, .leave_ctx = &klv};
    InferConfig cfg;
    infer_config_defaults(&cfg);
    cfg.tau = tau;
    cfg.leave_value = play.leave_value;
    cfg.leave_ctx = play.leave_ctx;
    printf("bench infer: window %.1f points, leaves %s, every leave weighed up to %llu, else %llu racks drawn\n", tau,
           have ? path : "zero", (unsigned long long)cfg.max_enumerate, (unsigned long long)cfg.samples);
    const Row rows[] = {{60, 80}, {40, 59}, {20, 39}, {9, 19}, {1, 8}};
    InferResult r;
    infer_result_init(&r);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        int got = positions_per_game(&play, rows[k].lo, rows[k].hi, false, pos, (int)npos, scratch);
        double sum = 0.0, worst = 0.0, leaves = 0.0, racks = 0.0;
        int exact = 0, done_n = 0;
        for (int i = 0; i < got; i++) {
            if (!game_before_last(&pos[i], before)) continue;
            cfg.seed = seed + (uint64_t)i;
            if (infer_run(before, &pos[i].last, pos[i].last.kind == MOVE_EXCHANGE, &cfg, &r, &err) != 0) {
                fprintf(stderr, "rookery: %s\n", err.msg);
                continue;
            }
            sum += r.seconds;
            if (r.seconds > worst) worst = r.seconds;
            exact += r.exact;
            leaves += r.count;
            racks += (double)r.racks;
            done_n++;
        }
        if (done_n == 0) {
            printf("  bag %2d-%2d: no position\n", rows[k].lo, rows[k].hi);
            continue;
        }
        printf("  bag %2d-%2d: %3d positions, %7.1f ms a inference (max %7.1f), %3d exact, %7.0f leaves, %7.0f racks weighed\n",
               rows[k].lo, rows[k].hi, done_n, 1000.0 * sum / done_n, 1000.0 * worst, exact, leaves / done_n,
               racks / done_n);
    }
    infer_result_free(&r);
done:
    free(pos);
    free(scratch);
    free(before);
    if (have) klv_free(&klv);
    engine_close(&e);
    return rc;
}
