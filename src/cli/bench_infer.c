/* rookery bench infer: what an inference of the opponent's kept tiles costs
 * (search/rack_inference.h), at several bag sizes. */
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
#include "core/position.h"
#include "nn/heldout.h"
#include "nn/forward.h"
#include "nn/model_io.h"
#include "search/rack_inference.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench infer [--positions N] [--tau T] [--enumerate N] [--samples N] [--seed S]\n"
            "                           [--lexicon FILE.kwg]\n"
            "       rookery bench infer --calibrate GAMES [--player SPEC] [--models LIST] [--nets LIST]\n"
            "                           [--tau T] [--seed S]\n"
            "\n"
            "For N static self-play positions (default 20) in each of five bag ranges (60-80, 40-59,\n"
            "20-39, 9-19 and 1-8 tiles), infers what the player who just moved kept (search/rack_inference.h:\n"
            "a window of T points, default 5, the default leaves as the model's) and prints the time\n"
            "an inference takes (mean and maximum), how many were exact (every leave weighed) and\n"
            "the leaves and racks weighed (and of them consistent with the move), on one core.\n"
            "--enumerate N, --samples N: weigh every leave when there are at most N (default\n"
            "20,000), else draw --samples racks (default 2,000); the players use 2,000 and 500.\n"
            "--calibrate: plays GAMES games of --player (default static; any player spec) instead\n"
            "and infers every placement made with tiles in the bag from the other side, under each\n"
            "model of --models (default window:T; e.g. window:5,top:8,softmax:5: a window of T\n"
            "points, the move among the rack's K best, or a softmax of temperature T over static\n"
            "equity, with the default leaves): per bag\n"
            "range, the nats a tile the posterior gains over the uniform deal (the leave drawn from\n"
            "the unseen tiles, as a search without inference deals it) on the leave really kept\n"
            "(where it holds it, and mixed 9:1 with that deal, which counts every position), how\n"
            "often that leave is the most likely, and how often it is missing: excluded by the\n"
            "model, or not drawn by a sampled posterior.\n"
            "--nets A.h5,B.h5: the same figures for each network's H head on the same positions\n"
            "(the position after the move, as the viewer sees it; at most 4 nets).\n");
}

typedef struct Row {
    int lo, hi;
} Row;

/* One model of the opponent to calibrate: window or softmax, tau points. */
typedef struct CalModel {
    InferModel model;
    double tau;
} CalModel;

enum { CAL_MAX_MODELS = 8, CAL_ROWS = 4, CAL_MAX_NETS = 4 };

/* A network whose H head is scored next to the models. */
typedef struct CalNet {
    const char *path;
    NnModel model;
    NnBatch batch;
    bool ready;
} CalNet;

/* A model's or a net's sums over the inferred positions of one bag range. */
typedef struct CalSums {
    double n, found, gain, mixed, top, excluded, unsampled, ms;
} CalSums;

/* Parses "window:5,softmax:10,..." into ms; returns how many, or -1. */
static int parse_models(const char *s, CalModel *ms) {
    int n = 0;
    while (*s) {
        if (n == CAL_MAX_MODELS) return -1;
        const char *colon = strchr(s, ':');
        if (colon == NULL) return -1;
        size_t k = (size_t)(colon - s);
        if (k == 6 && strncmp(s, "window", 6) == 0) ms[n].model = INFER_WINDOW;
        else if (k == 7 && strncmp(s, "softmax", 7) == 0) ms[n].model = INFER_SOFTMAX;
        else if (k == 3 && strncmp(s, "top", 3) == 0) ms[n].model = INFER_TOPK;
        else return -1;
        char *end;
        ms[n].tau = strtod(colon + 1, &end);
        if (end == colon + 1 || !(ms[n].tau >= 0.001 && ms[n].tau <= 1000.0) || (*end != ',' && *end != '\0')) return -1;
        if (ms[n].model == INFER_TOPK && (ms[n].tau != (int)ms[n].tau || ms[n].tau > MOVEGEN_TOP_MAX)) return -1;
        n++;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/* A log likelihood's sums: against the uniform deal's (lprior), per tile,
 * and mixed 9:1 with that deal. Returns whether the leave had a probability above 0 (the
 * caller counts why it had none). */
static bool cal_add(CalSums *c, double lp, double lprior, int tiles) {
    double post = exp(lp);
    if (post > 0.0) {
        c->gain += (lp - lprior) / tiles;
        c->found++;
    }
    c->mixed += (log(0.9 * post + 0.1 * exp(lprior)) - lprior) / tiles;
    c->n++;
    return post > 0.0;
}

/* H's log P of the leave the player not on turn in g kept (g as the player
 * on turn sees it, after that player's move). */
static double net_leave_logprob(CalNet *net, const Game *g, const Rack *kept) {
    Position pos;
    position_from_game(&pos, g);
    nn_batch_set(&net->batch, &net->model, 0, &pos);
    nn_forward_trunk(&net->model, &net->batch, 1);
    return nn_hidden_logprob(&net->model, &net->batch, 0, kept);
}

static void print_sums(const Row *row, const CalSums *c, bool net) {
    if (net) {
        printf("  bag %2d-%2d: %4.0f leaves, gain %.3f nats a tile, mixed 9:1 with the uniform deal %+.3f, %.1f ms a position",
               row->lo, row->hi, c->n, c->found > 0 ? c->gain / c->found : 0.0, c->mixed / c->n, c->ms / c->n);
        if (c->excluded > 0) printf(" (H gave %.0f of the leaves no probability: the gain is over the others)", c->excluded);
        printf("\n");
        return;
    }
    printf("  bag %2d-%2d: %4.0f leaves, gain %.3f nats a tile (where held), mixed 9:1 with the uniform deal %+.3f, "
           "true leave first %.1f%%, excluded %.1f%%, not drawn %.1f%%, %.0f ms an inference\n",
           row->lo, row->hi, c->n, c->found > 0 ? c->gain / c->found : 0.0, c->mixed / c->n, 100.0 * c->top / c->n,
           100.0 * c->excluded / c->n, 100.0 * c->unsampled / c->n, c->ms / c->n);
}

/* The rows of one model or net, then their sum over every bag range. */
static void print_rows(const Row *rows, const CalSums *c, bool net) {
    CalSums all;
    memset(&all, 0, sizeof all);
    for (int row = 0; row < CAL_ROWS; row++) {
        if (c[row].n == 0) continue;
        print_sums(&rows[row], &c[row], net);
        all.n += c[row].n, all.found += c[row].found, all.gain += c[row].gain, all.mixed += c[row].mixed;
        all.top += c[row].top, all.excluded += c[row].excluded, all.unsampled += c[row].unsampled;
        all.ms += c[row].ms;
    }
    if (all.n > 0) print_sums(&(Row){rows[CAL_ROWS - 1].lo, rows[0].hi}, &all, net);
}

/* How well the posterior finds what a player really kept: games of `player`
 * (the default leaves are the model's), each placement with tiles left in
 * the bag inferred from the viewer's side under every model. Per bag range
 * and model: the nats a tile the posterior gains over the uniform deal (the
 * leave drawn from the unseen tiles, what a search without inference does)
 * on the true leave (where it holds it at all), the same for the posterior
 * mixed 9:1 with that deal (a score every position counts in), how often the true
 * leave is the most likely one, and how often it is missing: excluded by
 * the model (an exact posterior without it) or not drawn (a sampled one). */
static int calibrate(const Engine *e, const InferConfig *base, const char *spec, const CalModel *models, int nmodels,
                     CalNet *nets, int nnets, uint64_t games, uint64_t seed) {
    const Row rows[CAL_ROWS] = {{60, 86}, {40, 59}, {20, 39}, {7, 19}};
    CalSums sums[CAL_MAX_MODELS][CAL_ROWS], net_sums[CAL_MAX_NETS][CAL_ROWS];
    memset(sums, 0, sizeof sums);
    memset(net_sums, 0, sizeof net_sums);
    Game *g = malloc(sizeof *g);
    Player player;
    memset(&player, 0, sizeof player);
    RkError err;
    if (g == NULL) return 1;
    if (cli_player_open(&player, spec, e, &err) != 0 || player_check_board(&player, e->layout.dim, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        player_close(&player);
        free(g);
        return 2;
    }
    InferResult r;
    infer_result_init(&r);
    InferConfig cfg = *base;
    int rc = 0;
    double t0 = cli_now(), last = t0;
    for (uint64_t gi = 0; gi < games; gi++) {
        game_new(g, &e->ld, &e->layout, &e->kwg, seed, 0, gi);
        while (!game_over(g)) {
            Move m;
            player_choose(&player, g, &m);
            int row = -1;
            for (int k = 0; k < CAL_ROWS; k++)
                if (g->bag.count >= rows[k].lo && g->bag.count <= rows[k].hi) row = k;
            Rack kept;
            move_kept_tiles(&g->racks[g->on_turn], &m, &kept);
            bool scored = row >= 0 && m.kind == MOVE_PLACE && g->turn > 0 && kept.total > 0;
            double lprior = 0.0;
            if (scored) {
                /* the viewer's unseen tiles less the move's: the bag and what was kept */
                Rack pool;
                bag_plus_rack(&g->bag, &kept, &pool);
                lprior = nn_uniform_leave_logprob(&pool, &kept, e->ld.size - 1);
                for (int k = 0; k < nmodels; k++) {
                    cfg.model = models[k].model;
                    cfg.tau = models[k].model == INFER_TOPK ? base->tau : models[k].tau;
                    cfg.top_k = (int)models[k].tau;
                    cfg.seed = seed ^ (gi << 16) ^ (uint64_t)g->turn;
                    if (infer_run(g, &m, false, &cfg, &r, &err) != 0) {
                        /* a move the game made: every model must weigh it (the same positions for all) */
                        fprintf(stderr, "rookery bench infer: game %llu, turn %d: %s\n", (unsigned long long)gi,
                                g->turn, err.msg);
                        rc = 1;
                        goto out;
                    }
                    CalSums *c = &sums[k][row];
                    double post = 0.0;
                    for (int i = 0; i < r.count; i++)
                        if (rack_equal(&r.leaves[i].leave, &kept)) post = r.leaves[i].prob;
                    if (!cal_add(c, post > 0.0 ? log(post) : -INFINITY, lprior, kept.total)) {
                        if (r.exact) c->excluded++;
                        else c->unsampled++;
                    }
                    c->top += r.count > 0 && rack_equal(&r.leaves[0].leave, &kept);
                    c->ms += r.seconds * 1000.0;
                }
            }
            game_play(g, &m);
            for (int k = 0; k < nnets && scored; k++) {
                double t1 = cli_now();
                if (!cal_add(&net_sums[k][row], net_leave_logprob(&nets[k], g, &kept), lprior, kept.total))
                    net_sums[k][row].excluded++;
                net_sums[k][row].ms += (cli_now() - t1) * 1000.0;
            }
        }
        if (cli_now() - last >= 30.0) {
            last = cli_now();
            fprintf(stderr, "calibrate: %llu of %llu games (%.0f s)\n", (unsigned long long)gi + 1,
                    (unsigned long long)games, last - t0);
        }
    }
    printf("calibration: %llu games of %s; the model: the default leaves\n", (unsigned long long)games, spec);
    for (int k = 0; k < nmodels; k++) {
        if (models[k].model == INFER_TOPK) printf("model top %d (the move among the rack's %d best)\n", (int)models[k].tau, (int)models[k].tau);
        else printf("model %s, tau %.1f points\n", models[k].model == INFER_WINDOW ? "window" : "softmax", models[k].tau);
        print_rows(rows, sums[k], false);
    }
    for (int k = 0; k < nnets; k++) {
        printf("net %s: H (features version %d) on the same leaves\n", nets[k].path, nets[k].model.fs.version);
        print_rows(rows, net_sums[k], true);
    }
out:
    infer_result_free(&r);
    player_close(&player);
    free(g);
    return rc;
}

static void close_nets(CalNet *nets, int n) {
    for (int k = 0; k < n; k++) {
        if (nets[k].ready) nn_batch_free(&nets[k].batch);
        nn_model_free(&nets[k].model);
        free((char *)nets[k].path);
    }
}

/* Opens the comma list `list` (NULL: none) into nets, features from fc; 0, or after a
 * one-line error 2 (bad input) or 1 (out of memory) (*n counts what is to be closed either way). */
static int open_nets(const Engine *e, const NnFeatureContext *fc, const char *list, CalNet *nets, int *n) {
    RkError err;
    for (const char *s = list; s != NULL && *s;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == 0 || (comma != NULL && comma[1] == '\0')) {
            fprintf(stderr, "rookery bench infer: --nets '%s': an empty file name\n", list);
            return 2;
        }
        if (*n == CAL_MAX_NETS) {
            fprintf(stderr, "rookery bench infer: --nets '%s': at most %d files\n", list, CAL_MAX_NETS);
            return 2;
        }
        CalNet *net = &nets[(*n)++];
        memset(net, 0, sizeof *net);
        net->path = strndup(s, len);
        if (net->path == NULL) {
            fprintf(stderr, "rookery bench infer: out of memory\n");
            return 1;
        }
        if (nn_model_load(&net->model, net->path, &e->ld, e->layout.dim, &err) != 0) {
            fprintf(stderr, "rookery bench infer: %s\n", err.msg);
            return 2; /* a bad file: the user's to mend */
        }
        if (nn_batch_init(&net->batch, &net->model, fc, 1, &err) != 0) {
            fprintf(stderr, "rookery bench infer: %s: %s\n", net->path, err.msg);
            return 1;
        }
        net->ready = true;
        s = comma ? comma + 1 : s + len;
    }
    return 0;
}

/* The benchmark proper: up to npos positions in each bag range (pos has room for them), the
 * last move of each inferred under cfg, and a line a range of what the inferences cost;
 * leaves_name names the leaves in the header. */
static void bench_ranges(const SelfplayConfig *play, InferConfig *cfg, const char *leaves_name, uint64_t seed,
                         Game *pos, int npos, Game *scratch, Game *before) {
    RkError err;
    printf("bench infer: window %.1f points, leaves %s, every leave weighed up to %llu, else %llu racks drawn\n",
           cfg->tau, leaves_name, (unsigned long long)cfg->max_enumerate, (unsigned long long)cfg->samples);
    const Row rows[] = {{60, 80}, {40, 59}, {20, 39}, {9, 19}, {1, 8}};
    InferResult r;
    infer_result_init(&r);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        int got = positions_per_game(play, rows[k].lo, rows[k].hi, false, pos, npos, scratch);
        double sum = 0.0, worst = 0.0, leaves = 0.0, racks = 0.0, consistent = 0.0;
        int exact = 0, done_n = 0;
        for (int i = 0; i < got; i++) {
            if (!game_before_last(&pos[i], before)) continue;
            cfg->seed = seed + (uint64_t)i;
            if (infer_run(before, &pos[i].last, pos[i].last.kind == MOVE_EXCHANGE, cfg, &r, &err) != 0) {
                fprintf(stderr, "rookery: %s\n", err.msg);
                continue;
            }
            sum += r.seconds;
            if (r.seconds > worst) worst = r.seconds;
            exact += r.exact;
            leaves += r.count;
            racks += (double)r.racks;
            consistent += (double)r.consistent;
            done_n++;
        }
        if (done_n == 0) {
            printf("  bag %2d-%2d: no position\n", rows[k].lo, rows[k].hi);
            continue;
        }
        printf("  bag %2d-%2d: %3d positions, %7.1f ms an inference (max %7.1f), %3d exact, %7.0f leaves, %7.0f racks "
               "weighed, %7.0f consistent\n",
               rows[k].lo, rows[k].hi, done_n, 1000.0 * sum / done_n, 1000.0 * worst, exact, leaves / done_n,
               racks / done_n, consistent / done_n);
    }
    infer_result_free(&r);
}

int bench_infer(int argc, char **argv) {
    const char *lexicon = NULL, *cal_player = "static", *cal_models = NULL, *cal_nets = NULL;
    uint64_t npos = 20, seed = 1, cal_games = 0, enumerate_max = 20000, samples = 2000;
    double tau = 5.0;
    const CliOption opts[] = {{"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--calibrate", CLI_U64, &cal_games, 1, 100000, NULL},
                              {"--player", CLI_STRING, &cal_player, 0, 0, NULL},
                              {"--models", CLI_STRING, &cal_models, 0, 0, NULL},
                              {"--nets", CLI_STRING, &cal_nets, 0, 0, NULL},
                              {"--positions", CLI_U64, &npos, 1, 10000, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--enumerate", CLI_U64, &enumerate_max, 0, 100000000, NULL},
                              {"--samples", CLI_U64, &samples, 1, 1000000, NULL},
                              {"--tau", CLI_DOUBLE, &tau, 0.001, 1000, NULL}};
    int parsed = cli_options_parse("bench infer", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (npos == 0) {
        fprintf(stderr, "rookery bench infer: --positions must be at least 1\n");
        return 2;
    }
    CalModel models[CAL_MAX_MODELS] = {{INFER_WINDOW, tau}};
    int nmodels = 1;
    if (cal_models != NULL && (nmodels = parse_models(cal_models, models)) < 1) {
        fprintf(stderr,
                "rookery bench infer: --models '%s': expected a comma list of window:T, softmax:T (T in "
                "0.001..1000) or top:K (K in 1..%d), at most %d\n",
                cal_models, MOVEGEN_TOP_MAX, CAL_MAX_MODELS);
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, lexicon, NULL) != 0) return 2;
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
    cfg.max_enumerate = enumerate_max;
    cfg.samples = samples;
    cfg.leave_value = play.leave_value;
    cfg.leave_ctx = play.leave_ctx;
    if (cal_games > 0) {
        CalNet nets[CAL_MAX_NETS];
        int nnets = 0;
        NnFeatureContext fc; /* the nets' batches point to it */
        nn_feature_context(&fc, &e.ld, &e.layout, &e.kwg);
        if (have) nn_feature_context_leaves(&fc, klv_leave_value, &klv); /* for a model with nn.prior = equity */
        rc = open_nets(&e, &fc, cal_nets, nets, &nnets);
        if (rc == 0) rc = calibrate(&e, &cfg, cal_player, models, nmodels, nets, nnets, cal_games, seed);
        close_nets(nets, nnets);
        goto done;
    }
    bench_ranges(&play, &cfg, have ? path : "zero", seed, pos, (int)npos, scratch, before);
done:
    free(pos);
    free(scratch);
    free(before);
    if (have) klv_free(&klv);
    engine_close(&e);
    return rc;
}
