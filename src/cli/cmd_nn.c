/* rookery nn: the network outside the training loop.
 *
 *   rookery nn train --run RUN   trains a model on RUN's shards (data-parallel
 *                                under mpirun), as the loop's stage does
 *   rookery nn eval --run RUN --model FILE   held-out metrics of a model
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "nn/model_io.h"
#include "train/nn_stage.h"
#include "train/rundir.h"
#include "train/train.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: mpirun -np N rookery nn train --run RUN [--generation G] [--from MODEL.h5] [--out FILE]\n"
            "                                     [--set nn.key=value]...\n"
            "       rookery nn eval --run RUN --model MODEL.h5 [--generation G] [--leaves FILE.klv2]\n"
            "\n"
            "train  trains the network on the shards of generations G-window+1..G of RUN (G: the\n"
            "       last complete one), with RUN/config.ini's [nn] settings and --set overrides\n"
            "       (e.g. --set nn.steps=2000). It starts from --from, else from RUN/gen-G/model.h5\n"
            "       if there is one, else from a new model. Data-parallel over the ranks, with the\n"
            "       same bytes at any rank count (docs/nn.md). Writes --out (default\n"
            "       RUN/nn/model-gen-GGGG.h5) and prints the losses and held-out metrics.\n"
            "eval   the held-out metrics of a model on generation G's held-out games (P top-1\n"
            "       agreement with the move played, V Brier score and spread error against a\n"
            "       spread-and-unseen-tiles baseline, H log-likelihood per tile against uniform).\n"
            "       P is also scored against static equity with the leaves the games were played\n"
            "       with (--leaves, default RUN/gen-(G-1)/leaves.klv2 if it exists): the static\n"
            "       best move's agreement, and the cross-entropy with the P target (the search's\n"
            "       visits) of P, of softmax(equity / 10 points), and of their product.\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input.\n");
}

typedef struct NnOptions {
    const char *run, *from, *out, *model, *leaves;
    int generation; /* -1: latest */
    const char *sets[64];
    int nsets;
} NnOptions;

/* The generation: --generation, else RUN/LATEST. */
static int pick_generation(const NnOptions *o, RkError *err) {
    int latest = rundir_latest(o->run, err);
    if (latest < 0) {
        if (latest == -1) rk_error(err, "%s: no complete generation", o->run);
        return -1;
    }
    if (o->generation < 0) return latest;
    if (o->generation < 1 || o->generation > latest)
        return rk_error(err, "--generation %d: %s has generations 1..%d", o->generation, o->run, latest);
    return o->generation;
}

static void print_eval(const NnEvalReport *e) {
    printf("held-out: %" PRIu64 " positions of %" PRIu64 " games\n", e->positions, e->games);
    printf("  P top-1 agreement with the move played   %.2f%% +/- %.2f", 100.0 * e->p_top1, 100.0 * e->p_top1_se);
    if (e->p_positions < e->positions) /* fast searches' samples have no P target */
        printf(" (on the %" PRIu64 " with a P target)", e->p_positions);
    if (e->has_static)
        printf(" (static equity's best %.2f%%, P x static's over the top %d %.2f%%)", 100.0 * e->static_top1,
               NN_EVAL_CANDIDATES, 100.0 * e->p_static_top1);
    printf("\n");
    printf("  P cross-entropy with the P target        %.4f +/- %.4f nats", e->p_ce, e->p_ce_se);
    if (e->has_static)
        printf(" (static softmax(eq / %.0f) %.4f, over the top %d %.4f, P x static %.4f)", NN_EVAL_STATIC_T, e->static_ce,
               NN_EVAL_CANDIDATES, e->static_cand_ce, e->p_static_ce);
    printf("\n");
    printf("  V Brier score                            %.5f +/- %.5f (baseline %.5f; difference %+.5f +/- %.5f)\n",
           e->v_brier, e->v_brier_se, e->v_brier_base, e->v_brier - e->v_brier_base, e->v_brier_diff_se);
    printf("  V final spread rmse                      %.2f +/- %.2f (baseline %.2f; difference %+.2f +/- %.2f)\n",
           e->spread_rmse, e->spread_rmse_se, e->spread_rmse_base, e->spread_rmse - e->spread_rmse_base,
           e->spread_rmse_diff_se);
    printf("  H leave NLL per tile                     %.4f +/- %.4f nats (uniform %.4f; difference %+.4f +/- %.4f; "
           "%" PRIu64 " leaves, %" PRIu64 " tiles)\n",
           e->h_nll, e->h_nll_se, e->h_nll_uniform, e->h_nll - e->h_nll_uniform, e->h_nll_diff_se, e->leaves,
           e->leave_tiles);
    printf("  H against the tilted draw (27 numbers)   %.4f nats (difference %+.4f +/- %.4f)\n", e->h_nll_tilt,
           e->h_nll - e->h_nll_tilt, e->h_nll_tilt_diff_se);
    printf("  (+/-: standard errors by a bootstrap over the %" PRIu64 " games of the positions)\n", e->games);
}

/* The leaves generation gen's games were played with, for P's static
 * baselines: --leaves, else RUN/gen-(gen-1)/leaves.klv2 if it exists.
 * *have is false (and 0 returned) when there are none. */
static int load_played_leaves(const NnOptions *o, int gen, const Engine *e, Klv *k, bool *have, RkError *err) {
    if (!o->leaves) return train_played_leaves(o->run, gen, &e->ld, k, have, err);
    *have = false;
    if (klv_load(k, o->leaves, &e->ld, err) != 0) return -1;
    *have = true;
    return 0;
}

static int nn_train_cmd(const NnOptions *o) {
    RkError err;
    Comm comm;
    if (comm_init(&comm, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery nn: %s\n", err.msg);
        return 2;
    }
    TrainConfig cfg;
    Engine engine;
    bool engine_ok = false, model_ok = false;
    NnModel model;
    int rc = 0, gen = -1;
    if (cli_run_config(o->run, o->sets, o->nsets, &cfg, &err) != 0 || (gen = pick_generation(o, &err)) < 0) rc = 2;
    if (rc == 0) {
        if (cli_run_engine_open(&engine, &cfg) != 0) rc = 2;
        else engine_ok = true;
    }
    char dir[RUNDIR_PATH_MAX], from[RUNDIR_PATH_MAX + 16], out[RUNDIR_PATH_MAX + 64];
    if (rc == 0) {
        rundir_gen_path(o->run, gen, false, dir, sizeof dir);
        snprintf(from, sizeof from, "%s/model.h5", dir);
        const char *src = o->from ? o->from : access(from, F_OK) == 0 ? from : NULL;
        int r = src ? nn_model_load(&model, src, &engine.ld, engine.layout.dim, &err)
                    : nn_model_init(&model, &cfg.nn_arch, &engine.ld, engine.layout.dim,
                                    cfg.seed ^ UINT64_C(0x6d6f64656c), &err);
        if (r != 0) rc = 2;
        else model_ok = true;
        if (rc == 0 && comm.rank == 0)
            printf("rookery nn train: %s, generation %d, model %s (step %" PRId64 ", %zu parameters), %d rank(s)\n",
                   o->run, gen, src ? src : "new", model.train_step, model.params.total, comm.size);
    }
    if (rc == 0) {
        if (o->out) snprintf(out, sizeof out, "%s", o->out);
        else {
            snprintf(out, sizeof out, "%s/nn", o->run);
            if (comm.rank == 0 && rundir_mkdirs(out, &err) != 0) rc = 1;
            snprintf(out, sizeof out, "%s/nn/model-gen-%04d.h5", o->run, gen);
        }
    }
    if ((int)comm_max_i64(&comm, rc) != 0) {
        if (rc != 0 && comm.rank == 0) fprintf(stderr, "rookery nn: %s\n", err.msg);
        rc = rc ? rc : 2;
    } else {
        NnFeatureContext fc;
        nn_feature_context(&fc, &engine.ld, &engine.layout, &engine.kwg);
        NnStageOptions so = train_nn_stage_options(&cfg);
        Klv klv;
        bool have_klv = false;
        /* every rank: the baseline is rank 0's, but an equity-prior model trains on them everywhere */
        int lrc = load_played_leaves(o, gen, &engine, &klv, &have_klv, &err) != 0;
        NnStageReport rep;
        if ((int)comm_max_i64(&comm, lrc) != 0) {
            if (comm.rank == 0) fprintf(stderr, "rookery nn: %s\n", err.msg);
            rc = 2;
        } else {
            if (have_klv) {
            so.leave_value = klv_leave_value, so.leave_ctx = &klv;
            nn_feature_context_leaves(&fc, klv_leave_value, &klv); /* for a model with nn.prior = equity */
        }
            int src = nn_stage_run(&comm, o->run, gen, NULL, &so, &fc, &model, out, &rep, &err);
            if (src != 0) {
                if (src == -1 || comm.rank == 0) fprintf(stderr, "rookery nn: rank %d: %s\n", comm.rank, err.msg);
                rc = 1;
            } else if (comm.rank == 0) {
                printf("trained %" PRId64 " steps on %" PRIu64 " samples of generations %d-%d: loss %.4f -> %.4f, "
                       "%.0f samples/s (%.1f s)\n",
                       cfg.nn_steps, rep.train_samples, rep.first_gen, rep.last_gen,
                       nn_loss_total(&rep.train.first), nn_loss_total(&rep.train.last),
                       rep.train.samples_per_second, rep.train_s);
                if (rep.gens_without_shards > 0)
                    printf("note: %d generation(s) of %d-%d have no shards (written with nn.shards = no, or removed "
                           "by run.keep)\n",
                           rep.gens_without_shards, rep.first_gen, rep.last_gen);
                print_eval(&rep.eval);
                printf("wrote %s\n", out);
            }
        }
        if (have_klv) klv_free(&klv);
    }
    if (model_ok) nn_model_free(&model);
    if (engine_ok) engine_close(&engine);
    comm_finalize(&comm);
    return rc;
}

static int nn_eval_cmd(const NnOptions *o) {
    RkError err;
    TrainConfig cfg;
    Engine engine;
    int gen;
    if (!o->model) {
        fprintf(stderr, "rookery nn eval: give --model FILE (see --help)\n");
        return 2;
    }
    if (cli_run_config(o->run, o->sets, o->nsets, &cfg, &err) != 0 || (gen = pick_generation(o, &err)) < 0) {
        fprintf(stderr, "rookery nn: %s\n", err.msg);
        return 2;
    }
    if (cli_run_engine_open(&engine, &cfg) != 0) return 2;
    NnModel model;
    if (nn_model_load(&model, o->model, &engine.ld, engine.layout.dim, &err) != 0) {
        fprintf(stderr, "rookery nn: %s\n", err.msg);
        engine_close(&engine);
        return 2;
    }
    NnFeatureContext fc;
    nn_feature_context(&fc, &engine.ld, &engine.layout, &engine.kwg);
    Klv klv;
    bool have_klv = false;
    int rc = load_played_leaves(o, gen, &engine, &klv, &have_klv, &err) != 0 ? 2 : 0;
    if (have_klv) nn_feature_context_leaves(&fc, klv_leave_value, &klv); /* for a model with nn.prior = equity */
    NnEvalReport e;
    if (rc == 0 && nn_stage_evaluate(o->run, gen, cfg.nn_heldout_every, cfg.nn_eval_positions, &fc, &model,
                                     have_klv ? klv_leave_value : NULL, have_klv ? &klv : NULL, &e, &err) != 0)
        rc = 2;
    if (have_klv) klv_free(&klv);
    if (rc != 0) fprintf(stderr, "rookery nn: %s\n", err.msg);
    else {
        printf("%s on %s generation %d (model step %" PRId64 ")\n", o->model, o->run, gen, model.train_step);
        print_eval(&e);
    }
    nn_model_free(&model);
    engine_close(&engine);
    return rc;
}

int cmd_nn(int argc, char **argv) {
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "train") != 0 && strcmp(sub, "eval") != 0) {
        fprintf(stderr, "rookery nn: unknown subcommand '%s' (train or eval; see --help)\n", sub);
        return 2;
    }
    NnOptions o = {.generation = -1};
    CliStrings sets = {o.sets, 0, 64, NULL};
    const CliOption opts[] = {{"--run", CLI_STRING, &o.run, 0, 0, NULL},
                              {"--from", CLI_STRING, &o.from, 0, 0, NULL},
                              {"--out", CLI_STRING, &o.out, 0, 0, NULL},
                              {"--model", CLI_STRING, &o.model, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &o.leaves, 0, 0, NULL},
                              {"--generation", CLI_INT, &o.generation, 1, 1000000, NULL},
                              {"--set", CLI_STRINGS, &sets, 0, 0, NULL}};
    char cmd[32];
    snprintf(cmd, sizeof cmd, "nn %s", sub);
    /* argv[1] is the subcommand: the options follow it */
    int parsed = cli_options_parse(cmd, argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    o.nsets = sets.n;
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (!o.run) {
        fprintf(stderr, "rookery nn %s: give --run RUN (see --help)\n", sub);
        return 2;
    }
    return strcmp(sub, "train") == 0 ? nn_train_cmd(&o) : nn_eval_cmd(&o);
}
