/* rookery bench nn: throughput of the P/V/H network on one core - the
 * reference sgemm peak, the forward pass (trunk + value + sub-move heads) at
 * several batch sizes, the per-position preparation (nn_batch_set), the full
 * policy (nn_policy_all) and the trainer (nn_train, one process). A
 * benchmark, not a test: it prints figures and never fails on speed.
 *
 * Inputs are deterministic: positions from self-play games of a fixed seed
 * (best score, no leaves), a model initialised from a fixed seed or loaded
 * from --model, and the trainer's batches drawn from its fixed seed. One BLAS
 * thread (main() sets it). */
#include <cblas.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli_common.h"
#include "cli_options.h"
#include "nn/blas_core.h"
#include "nn/model_io.h"
#include "nn/sgd.h"
#include "worker/samples.h"
#include "worker/selfplay.h"
#include "train/config.h"

#define SGEMM_N 1024
#define MODEL_SEED 1

static const int BATCHES[] = {1, 16, 64, 256};
#define NBATCHES (int)(sizeof BATCHES / sizeof BATCHES[0])
#define MAX_BATCH 256
#define POLICY_BATCH 64

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery bench nn [--channels C] [--blocks B] [--embed E] [--head-hidden H] [--h-tiles T]\n"
            "                        [--model FILE.h5] [--positions N] [--seconds S] [--steps K] [--seed X]\n"
            "                        [--lexicon FILE.kwg]\n"
            "\n"
            "The network on one core (one BLAS thread), on N positions (default 1024) of self-play\n"
            "games (best score, seed X, default 1):\n"
            "  sgemm peak   cblas_sgemm of 1024x1024 by 1024x1024 matrices, repeated for at least S\n"
            "               seconds (default 2; at least 3 products): GFLOP/s = 2*M*N*K/time, the\n"
            "               reference for what follows.\n"
            "  forward      nn_forward_trunk + nn_forward_value + nn_forward_submoves at batch 1, 16,\n"
            "               64 and 256, each for at least S seconds of forward time: positions/s, and\n"
            "               GFLOP/s from the analytic count of the layers' multiply-adds (also as a\n"
            "               fraction of the sgemm peak). nn_batch_set (features, move generation and\n"
            "               the legal-move masks) is run before each batch and left out of the time.\n"
            "  batch_set    nn_batch_set per position, and nn_features alone (the board's cross-sets,\n"
            "               move generation, planes, scalars): every position once, then until S seconds.\n"
            "  policy       nn_policy_all (log P of every legal move) per position after the trunk\n"
            "               and sub-move head at batch 64 (not timed): positions/s, step-head rows\n"
            "               and legal moves per position; every position once, then until S seconds.\n"
            "  trainer      nn_train in one process (nn_train_comm_local) for K steps (default 20)\n"
            "               of the [nn] defaults (batch 128, grad_chunks 8, lr, weight decay), on\n"
            "               the samples of the same games (P targets: softmax of the top 16 moves\n"
            "               at temperature 1): samples/s.\n"
            "The architecture defaults to the training defaults (channels 32, blocks 3, embed 64,\n"
            "head-hidden 64, h-tiles 1), initialised from a fixed seed; --model loads a model.h5\n"
            "instead (its architecture; not with the architecture options). The lexicon is found\n"
            "as for the other benchmarks (--lexicon, $ROOKERY_LEXICON, $ROOKERY_LEXICA, lexica/).\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input.\n");
}

/* Floating-point operations per position of nn_forward_trunk +
 * nn_forward_value + nn_forward_submoves, from the architecture: a
 * multiply-add counts 2, and biases, ReLUs, the pooling and the copies
 * (linear in the activations, not in weights x activations) are left out.
 * With sq squares (225), P input planes (3L + 11 = 89), S scalars
 * (2(L + 1) + 10 = 64), C channels, E embed, Hh head hidden units:
 *   trunk     = 2 * ( sq * 9P * C                  stem 3x3 convolution
 *                   + S * C                        scalars' dense layer
 *                   + blocks * 2 * sq * 9C * C     two 3x3 convolutions a block
 *                   + (C + S) * E )                the embedding
 *   value     = 2 * ( E * Hh + Hh * 4 )
 *   sub-moves = 2 * ( sq * C * 14 + E * 8 )        per square (2 dirs x 7 sizes), global
 * A convolution is im2col + sgemm over rows of 9 * cin, so the padding's
 * zeros at the board edges are multiplied too and are counted here (the
 * work the sgemm does). */
typedef struct NnFlops {
    double trunk, value, submoves;
} NnFlops;

static NnFlops forward_flops(const NnModel *m) {
    double sq = m->fs.squares, P = m->fs.planes, S = m->fs.scalars, C = m->arch.channels, E = m->arch.embed;
    double Hh = m->arch.head_hidden, blocks = m->arch.blocks;
    NnFlops f;
    f.trunk = 2.0 * (sq * 9.0 * P * C + S * C + blocks * 2.0 * sq * 9.0 * C * C + (C + S) * E);
    f.value = 2.0 * (E * Hh + Hh * 4.0);
    f.submoves = 2.0 * (sq * C * 2.0 * RK_RACK_SIZE + E * (RK_RACK_SIZE + 1));
    return f;
}

/* GFLOP/s of an n x n x n sgemm (one thread), repeated for at least secs
 * seconds and 3 products; -1 if out of memory. */
static double sgemm_peak(double secs, int *reps_out, double *dt_out) {
    const size_t n = SGEMM_N, nn = n * n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    if (!a || !b || !c) {
        free(a), free(b), free(c);
        return -1.0;
    }
    Rng rng;
    rng_seed(&rng, 7);
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)rng_below(&rng, 2001) / 1000.0f - 1.0f;
        b[i] = (float)rng_below(&rng, 2001) / 1000.0f - 1.0f;
    }
    const int N = SGEMM_N;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N); /* warm-up */
    int reps = 0;
    double t0 = cli_now(), dt;
    do {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N, b, N, 0.0f, c, N);
        reps++;
        dt = cli_now() - t0;
    } while (reps < 3 || dt < secs);
    free(a), free(b), free(c);
    *reps_out = reps;
    *dt_out = dt;
    return 2.0 * (double)n * (double)n * (double)n * reps / dt / 1e9;
}

/* Self-play positions (for the forward passes) and training samples of the
 * same games. */
typedef struct NnCollect {
    Position *pos;
    size_t n, cap;
    SampleRecorder *rec;
} NnCollect;

static void observe(const Game *g, const Move *mv, void *ctx) {
    NnCollect *c = ctx;
    if (c->n < c->cap) position_from_game(&c->pos[c->n++], g);
    samples_record(c->rec, g, mv);
}

typedef struct BenchNnOptions {
    NnArch arch;
    bool arch_given;
    const char *model, *lexicon;
    uint64_t npos, seed;
    double seconds;
    int64_t steps;
} BenchNnOptions;

/* Forward passes of batch bs over the positions (from *next on, cyclic),
 * for at least secs seconds of forward time; nn_batch_set untimed. */
static void time_forward(const NnModel *m, NnBatch *b, const Position *pos, size_t npos, size_t *next, int bs,
                         double secs, double *timed, uint64_t *done) {
    *timed = 0.0;
    *done = 0;
    for (int warm = 1; warm >= 0; warm--) {
        do {
            for (int i = 0; i < bs; i++) nn_batch_set(b, m, i, &pos[(*next)++ % npos]);
            double t0 = cli_now();
            nn_forward_trunk(m, b, bs);
            nn_forward_value(m, b, bs);
            nn_forward_submoves(m, b, bs);
            if (!warm) {
                *timed += cli_now() - t0;
                *done += (uint64_t)bs;
            }
        } while (!warm && *timed < secs);
    }
}

/* Self-play games of seed o->seed until npos positions are collected (and the samples of
 * the same games recorded); returns the number of games played. */
static uint64_t collect_positions(const BenchNnOptions *o, Engine *e, Position *pos, Game *g, SampleRecorder *rec) {
    SelfplayConfig play = {.ld = &e->ld, .layout = &e->layout, .kwg = &e->kwg, .seed = o->seed, .generation = 1};
    NnCollect col = {.pos = pos, .cap = o->npos, .rec = rec};
    uint64_t games = 0;
    for (; col.n < col.cap; games++) {
        samples_begin_game(rec, games, 1);
        selfplay_game(&play, games, g, NULL, observe, &col);
        samples_finish_game(rec, g);
    }
    return games;
}

/* The sgemm peak and the forward FLOPs a position, printed; -1 if out of memory. */
static int bench_reference(const NnModel *m, double secs, double *per, double *peak) {
    int reps;
    double sg_dt;
    *peak = sgemm_peak(secs, &reps, &sg_dt);
    if (*peak < 0) {
        fprintf(stderr, "rookery bench nn: out of memory for the sgemm matrices\n");
        return -1;
    }
    printf("sgemm peak: %dx%dx%d, %d products in %.2f s: %.1f GFLOP/s (one thread)\n", SGEMM_N, SGEMM_N, SGEMM_N,
           reps, sg_dt, *peak);
    NnFlops f = forward_flops(m);
    *per = f.trunk + f.value + f.submoves;
    printf("forward FLOPs per position: %.2f M (trunk %.2f M, value %.3f M, sub-moves %.3f M)\n", *per / 1e6,
           f.trunk / 1e6, f.value / 1e6, f.submoves / 1e6);
    return 0;
}

static void bench_forward(const NnModel *m, NnBatch *b, const Position *pos, size_t npos, double secs, double per,
                          double peak) {
    printf("forward (trunk + value + sub-moves; nn_batch_set not timed):\n");
    printf("  %5s %12s %10s %9s %8s\n", "batch", "positions/s", "ms/batch", "GFLOP/s", "of peak");
    size_t next = 0;
    for (int k = 0; k < NBATCHES; k++) {
        int bs = BATCHES[k];
        double t;
        uint64_t n;
        time_forward(m, b, pos, npos, &next, bs, secs, &t, &n);
        double gflops = per * (double)n / t / 1e9;
        printf("  %5d %12.1f %10.3f %9.2f %7.1f%%\n", bs, (double)n / t, 1000.0 * t / ((double)n / bs), gflops,
               100.0 * gflops / peak);
    }
}

/* nn_batch_set, and nn_features alone */
static void bench_batch_set(const NnModel *m, NnBatch *b, const NnFeatureContext *fc, const Position *pos,
                            size_t npos, double secs) {
    uint64_t n = 0;
    double t0 = cli_now(), t_set, t_feat;
    do {
        for (size_t i = 0; i < npos; i++) nn_batch_set(b, m, (int)(i % MAX_BATCH), &pos[i]);
        n += npos;
        t_set = cli_now() - t0;
    } while (t_set < secs);
    double us_set = 1e6 * t_set / (double)n;
    n = 0;
    t0 = cli_now();
    do {
        for (size_t i = 0; i < npos; i++)
            nn_features(fc, &pos[i], b->planes, b->scalars, &b->board[0], &b->legal[0], &b->scratch);
        n += npos;
        t_feat = cli_now() - t0;
    } while (t_feat < secs);
    double us_feat = 1e6 * t_feat / (double)n;
    /* the rest is the difference of two separately timed loops: below
     * their run-to-run noise it can come out negative, and says only "small" */
    char rest[64];
    if (us_set > us_feat)
        snprintf(rest, sizeof rest, "%.1f us", us_set - us_feat);
    else
        snprintf(rest, sizeof rest, "below the timing noise");
    printf("nn_batch_set: %.1f us per position (%.0f positions/s): features %.1f us (the board's cross-sets, "
           "move generation for the legal-move planes, planes and scalars; timed apart), sub-move mask and "
           "score prior %s\n",
           us_set, 1e6 / us_set, us_feat, rest);
}

/* nn_policy_all per position after an untimed trunk and sub-move head; -1 if out of memory. */
static int bench_policy(const NnModel *m, NnBatch *b, const Position *pos, size_t npos, double secs) {
    double *logp = NULL;
    size_t logp_cap = 0;
    uint64_t rows = 0, legal = 0, n = 0;
    double t_pol = 0.0;
    do {
        for (size_t at = 0; at < npos; at += POLICY_BATCH) {
            int bs = npos - at < POLICY_BATCH ? (int)(npos - at) : POLICY_BATCH;
            for (int i = 0; i < bs; i++) {
                nn_batch_set(b, m, i, &pos[at + (size_t)i]);
                if ((size_t)b->legal[i].n > logp_cap) {
                    logp_cap = (size_t)b->legal[i].n * 2;
                    free(logp);
                    logp = malloc(logp_cap * sizeof *logp);
                    if (!logp) {
                        fprintf(stderr, "rookery bench nn: out of memory for %zu moves\n", logp_cap);
                        return -1;
                    }
                }
            }
            nn_forward_trunk(m, b, bs);
            nn_forward_submoves(m, b, bs);
            for (int i = 0; i < bs; i++) {
                double t1 = cli_now();
                legal += (uint64_t)nn_policy_all(m, b, i, logp);
                t_pol += cli_now() - t1;
                rows += (uint64_t)b->steps.n;
            }
            n += (uint64_t)bs;
        }
    } while (t_pol < secs);
    free(logp);
    printf("nn_policy_all: %.1f positions/s (%.3f ms per position), %.1f step-head rows and %.1f legal moves "
           "per position\n",
           (double)n / t_pol, 1000.0 * t_pol / (double)n, (double)rows / (double)n, (double)legal / (double)n);
    return 0;
}

/* nn_train in one process on every sample, with the [nn] defaults; -1 on failure (printed). */
static int bench_trainer(NnModel *m, const NnFeatureContext *fc, const ShardSet *set, const TrainConfig *tc,
                         const BenchNnOptions *o) {
    RkError err;
    size_t *idx = malloc(set->n * sizeof *idx);
    if (!idx) {
        fprintf(stderr, "rookery bench nn: out of memory for %zu samples\n", set->n);
        return -1;
    }
    for (size_t i = 0; i < set->n; i++) idx[i] = i;
    NnTrainOptions topt = {.batch = tc->nn_batch, .chunks = tc->nn_chunks, .steps = o->steps,
                           .adam = nn_adam_default(), .seed = o->seed, .generation = 1};
    topt.adam.lr = (float)tc->nn_lr;
    topt.adam.weight_decay = (float)tc->nn_weight_decay;
    topt.loss = train_config_loss_options(tc);
    NnTrainComm comm = nn_train_comm_local();
    NnTrainReport rep;
    int rc = nn_train(m, fc, set, idx, set->n, &topt, &comm, &rep, &err);
    free(idx);
    if (rc != 0) {
        fprintf(stderr, "rookery bench nn: %s\n", err.msg);
        return -1;
    }
    printf("trainer (nn_train, one process, batch %d, grad_chunks %d): %" PRId64 " steps in %.2f s: %.1f "
           "samples/s; loss %.4f -> %.4f; %zu samples (P: top %d at temperature %g)\n",
           topt.batch, topt.chunks, o->steps, rep.seconds, rep.samples_per_second, nn_loss_total(&rep.first),
           nn_loss_total(&rep.last), set->n, tc->nn_top, tc->nn_temperature);
    return 0;
}

static int run(const BenchNnOptions *o, Engine *e) {
    RkError err;
    TrainConfig tc;
    train_config_defaults(&tc);
    NnModel m;
    int r = o->model ? nn_model_load(&m, o->model, &e->ld, e->layout.dim, &err)
                     : nn_model_init(&m, &o->arch, &e->ld, e->layout.dim, MODEL_SEED, &err);
    if (r != 0) {
        fprintf(stderr, "rookery bench nn: %s\n", err.msg);
        return 2;
    }
    NnFeatureContext fc;
    nn_feature_context(&fc, &e->ld, &e->layout, &e->kwg);
    fc.shape = m.fs; /* the model's own feature version */
    Position *pos = malloc(o->npos * sizeof *pos);
    Game *g = malloc(sizeof *g);
    ShardSet set;
    shardset_init(&set);
    SampleRecorder rec;
    samples_init(&rec, &set, tc.nn_temperature, tc.nn_top, NULL, NULL);
    NnBatch b;
    bool have_batch = false;
    int rc = 1;
    if (!pos || !g) {
        fprintf(stderr, "rookery bench nn: out of memory for %" PRIu64 " positions\n", o->npos);
        goto done;
    }
    size_t npos = o->npos; /* collect_positions fills every one */
    uint64_t games = collect_positions(o, e, pos, g, &rec);
    const NnArch *a = &m.arch;
    printf("bench nn: channels %d, blocks %d, embed %d, head-hidden %d, h-tiles %d (%s), %zu parameters; "
           "%zu positions of %" PRIu64 " self-play games (seed %" PRIu64 "); one BLAS thread, OpenBLAS core %s\n",
           a->channels, a->blocks, a->embed, a->head_hidden, a->h_tiles, o->model ? o->model : "new model, seed 1",
           m.params.total, npos, games, o->seed, blas_core_name());
    double per, peak;
    if (bench_reference(&m, o->seconds, &per, &peak) != 0) goto done;
    if (nn_batch_init(&b, &m, &fc, MAX_BATCH, &err) != 0) {
        fprintf(stderr, "rookery bench nn: %s\n", err.msg);
        goto done;
    }
    have_batch = true;
    bench_forward(&m, &b, pos, npos, o->seconds, per, peak);
    bench_batch_set(&m, &b, &fc, pos, npos, o->seconds);
    if (bench_policy(&m, &b, pos, npos, o->seconds) != 0) goto done;
    nn_batch_free(&b);
    have_batch = false;
    if (bench_trainer(&m, &fc, &set, &tc, o) != 0) goto done;
    rc = 0;
done:
    if (have_batch) nn_batch_free(&b);
    samples_free(&rec);
    shardset_free(&set);
    free(pos);
    free(g);
    nn_model_free(&m);
    return rc;
}

int bench_nn(int argc, char **argv) {
    TrainConfig tc;
    train_config_defaults(&tc);
    BenchNnOptions o = {.arch = tc.nn_arch, .npos = 1024, .seed = 1, .seconds = 2.0, .steps = 20};
    uint64_t steps = (uint64_t)o.steps;
    const CliOption opts[] = {{"--channels", CLI_INT, &o.arch.channels, 1, 512, &o.arch_given},
                              {"--blocks", CLI_INT, &o.arch.blocks, 0, 40, &o.arch_given},
                              {"--embed", CLI_INT, &o.arch.embed, 1, 4096, &o.arch_given},
                              {"--head-hidden", CLI_INT, &o.arch.head_hidden, 1, 4096, &o.arch_given},
                              {"--h-tiles", CLI_INT, &o.arch.h_tiles, 1, 2, &o.arch_given},
                              {"--model", CLI_STRING, &o.model, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &o.lexicon, 0, 0, NULL},
                              {"--positions", CLI_U64, &o.npos, 0, 1000000, NULL},
                              {"--seconds", CLI_DOUBLE, &o.seconds, 0, 86400, NULL},
                              {"--steps", CLI_U64, &steps, 0, 1000000, NULL},
                              {"--seed", CLI_U64, &o.seed, 0, 18446744073709551615.0, NULL}};
    /* argv[1] is "nn": the options follow it */
    int parsed = cli_options_parse("bench nn", argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (o.npos == 0 || steps == 0) {
        fprintf(stderr, "rookery bench nn: --%s must be at least 1\n", o.npos == 0 ? "positions" : "steps");
        return 2;
    }
    o.steps = (int64_t)steps;
    if (o.model && o.arch_given) {
        fprintf(stderr, "rookery bench nn: --model %s gives the architecture; drop the architecture options\n",
                o.model);
        return 2;
    }
    Engine e;
    if (cli_engine_open(&e, NULL, NULL, o.lexicon, NULL) != 0) return 2;
    int rc = run(&o, &e);
    engine_close(&e);
    return rc;
}
