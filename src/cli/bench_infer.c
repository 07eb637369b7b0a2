/* rookery bench infer: what an inference of the opponent's kept tiles costs
 * (search/infer.h), at several bag sizes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "core/engine.h"
#include "eval/klv.h"
#include "core/movegen.h"
#include "search/infer.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench infer [--positions N] [--tau T] [--seed S] [--lexicon FILE.kwg]\n"
            "       rookery bench infer --calibrate GAMES [--tau T] [--seed S]\n"
            "\n"
            "For N static self-play positions (default 20) in each of five bag ranges (60-80, 40-59,\n"
            "20-39, 9-19 and 1-8 tiles), infers what the player who just moved kept (search/infer.h:\n"
            "a window of T points, default 5, the default leaves as the model's) and prints the time\n"
            "an inference takes (mean and maximum), how many were exact (every leave weighed) and\n"
            "the leaves and racks weighed, on one core.\n"
            "--calibrate: plays GAMES static games instead and infers every placement made with\n"
            "tiles in the bag from the other side: per bag range, the nats a tile the posterior\n"
            "gains over the prior on the leave really kept, how often that leave is the most likely,\n"
            "and how often a sampled posterior missed it.\n");
}

typedef struct Row {
    int lo, hi;
} Row;

/* log P(leave) under the prior: k tiles drawn from pool without replacement. */
static double log_prior(const Rack *pool, const Rack *leave) {
    double lp = 0.0;
    for (int ml = 0; ml < RK_MAX_LETTERS; ml++)
        lp += lgamma(pool->count[ml] + 1.0) - lgamma(leave->count[ml] + 1.0) -
              lgamma(pool->count[ml] - leave->count[ml] + 1.0);
    int n = pool->total, k = leave->total;
    return lp - (lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0));
}

/* How well the posterior finds what a static player really kept: static
 * games (the default leaves, which the model also uses), each placement
 * with tiles left in the bag inferred from the viewer's side; per bag range,
 * the nats a tile the posterior gains over the prior on the true leave, how
 * often the true leave is the most likely one, and how often it is missing
 * (a sample that did not draw it). */
static int calibrate(const Engine *e, const InferConfig *base, uint64_t games, uint64_t seed) {
    const Row rows[] = {{60, 86}, {40, 59}, {20, 39}, {7, 19}};
    enum { NR = 4 };
    double gain[NR] = {0}, top[NR] = {0}, missed[NR] = {0}, n[NR] = {0}, ms[NR] = {0};
    Game *g = malloc(sizeof *g);
    InferResult r;
    infer_result_init(&r);
    InferConfig cfg = *base;
    if (g == NULL) return 1;
    for (uint64_t gi = 0; gi < games; gi++) {
        game_new(g, &e->ld, &e->layout, &e->kwg, seed, 0, gi);
        while (!game_over(g)) {
            MoveGenRequest req;
            movegen_request_for_game(&req, g);
            klv_request_leaves(&req, cfg.leave_value, cfg.leave_ctx);
            Move m;
            movegen_best(&req, &m, NULL);
            int row = -1;
            for (int k = 0; k < NR; k++)
                if (g->bag.count >= rows[k].lo && g->bag.count <= rows[k].hi) row = k;
            RkError err;
            if (row >= 0 && m.kind == MOVE_PLACE && g->turn > 0) {
                Rack kept, pool;
                move_kept_tiles(&g->racks[g->on_turn], &m, &kept);
                cfg.seed = seed ^ (gi << 16) ^ (uint64_t)g->turn;
                if (kept.total > 0 && infer_run(g, &m, false, &cfg, &r, &err) == 0) {
                    /* the viewer's unseen tiles less the move's: the bag and what was kept */
                    bag_to_rack(&g->bag, &pool);
                    for (int ml = 0; ml < RK_MAX_LETTERS; ml++) pool.count[ml] += kept.count[ml];
                    pool.total += kept.total;
                    double post = 0.0;
                    for (int i = 0; i < r.count; i++)
                        if (rack_equal(&r.leaves[i].leave, &kept)) post = r.leaves[i].prob;
                    if (post > 0.0) gain[row] += (log(post) - log_prior(&pool, &kept)) / kept.total;
                    else missed[row]++;
                    top[row] += r.count > 0 && rack_equal(&r.leaves[0].leave, &kept);
                    ms[row] += r.seconds * 1000.0;
                    n[row]++;
                }
            }
            game_play(g, &m);
        }
    }
    printf("calibration: %llu static games, the model = the player (window %.1f points)\n", (unsigned long long)games,
           cfg.tau);
    for (int k = 0; k < NR; k++) {
        double found = n[k] - missed[k];
        if (n[k] == 0) continue;
        printf("  bag %2d-%2d: %4.0f leaves, gain %.3f nats a tile over the prior, true leave first %.1f%%, "
               "missing %.1f%%, %.0f ms an inference\n",
               rows[k].lo, rows[k].hi, n[k], found > 0 ? gain[k] / found : 0.0, 100.0 * top[k] / n[k],
               100.0 * missed[k] / n[k], ms[k] / n[k]);
    }
    infer_result_free(&r);
    free(g);
    return 0;
}

int bench_infer(int argc, char **argv) {
    const char *lexicon = NULL;
    uint64_t npos = 20, seed = 1, cal_games = 0;
    double tau = 5.0;
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--calibrate", CLI_U64, &cal_games, 1, 100000, NULL},
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
    if (cal_games > 0) {
        rc = calibrate(&e, &cfg, cal_games, seed);
        goto done;
    }
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
