/* rookery afterstate: the afterstate network (nn/afterstate_net.h) on a run's shards.
 *
 *   rookery afterstate train --run RUN   trains it (data-parallel under mpirun)
 *   rookery afterstate eval --run RUN --model FILE   its held-out figures
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "eval/klv.h"
#include "nn/afterstate_train.h"
#include "reducer/nn_comm.h"
#include "search/player.h"
#include "train/nn_stage.h"
#include "train/rundir.h"
#include "train/train.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: mpirun -np N rookery afterstate train --run RUN [--out FILE.h5] [--from FILE.h5]\n"
            "                    [--steps N] [--batch B] [--lr X] [--hidden1 H] [--hidden2 H] [--seed S]\n"
            "                    [--horizon N] [--window W] [--leaves FILE.klv2] [--distill X]\n"
            "       rookery afterstate eval --run RUN --model FILE.h5 [--horizon N] [--window W]\n"
            "                    [--leaves FILE.klv2]\n"
            "\n"
            "The afterstate network values the position right after a move from the mover's side\n"
            "(docs/afterstate.md); the player value:model=FILE.h5 plays the best of the 16 best static\n"
            "moves by it. Its data are the shards of RUN: each sample's move applied to its position,\n"
            "with the game's result and final spread for the mover.\n"
            "\n"
            "train  trains on the shards of RUN's last W generations (default all), every game but\n"
            "       the held-out ones (game i with i mod nn.heldout_every = nn.heldout_every - 1; a run\n"
            "       with nn.heldout_every = 0 holds none out and is refused), for\n"
            "       N Adam steps (default 2000) of B samples (default 512); starts from --from, else a\n"
            "       new network of hidden1 x hidden2 units (default 128 x 32) seeded from S (default\n"
            "       RUN's seed). Data-parallel over the ranks, the same bytes at any rank count. Writes\n"
            "       --out (default RUN/nn/afterstate.h5) and prints the held-out figures.\n"
            "       The win output learns the game's result; the spread output the mover's equity\n"
            "       lead (spread + leave) N plies on (--horizon, even, default 2; 0: the final\n"
            "       spread), what the value player ranks moves by.\n"
            "       --distill X (default 0): samples whose target lists a simulation's candidates\n"
            "       (run.player = static:target_worlds=W) also train every candidate's spread output\n"
            "       on its simulated value, centred over the candidates, with weight X.\n"
            "eval   the held-out figures of a network: log loss and Brier score of its P(win)\n"
            "       against the result, beside the win model of the spread and the tiles left\n"
            "       (eval/winprob.h), and its spread's mean absolute error against the target of\n"
            "       --horizon beside the static equity lead's; where samples hold a simulation's\n"
            "       candidates, how many points of simulated value its choice among them gives up\n"
            "       beside the static equity's choice.\n"
            "The kept tiles are valued (one of the network's inputs) with --leaves, default the\n"
            "lexicon's shipped leaves; a network must be used with the leaves it was trained with.\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input.\n");
}

typedef struct AftOptions {
    const char *run, *from, *out, *model, *leaves;
    int window; /* 0: all */
    int64_t steps;
    int batch, hidden1, hidden2, horizon;
    double lr, distill;
    uint64_t seed;
    bool seed_given;
} AftOptions;

typedef struct AftData {
    Engine engine;
    Klv leaves;
    TrainConfig cfg;
    ShardSet set;
    size_t *train, *test;
    size_t ntrain, ntest;
    int first, last;
    bool engine_ok, leaves_ok;
} AftData;

static void data_free(AftData *d) {
    shardset_free(&d->set);
    free(d->train), free(d->test);
    if (d->leaves_ok) klv_free(&d->leaves);
    if (d->engine_ok) engine_close(&d->engine);
}

/* The run's config, engine, leaves and shards, split into training and held-out samples. */
static int data_load(const AftOptions *o, AftData *d, RkError *err) {
    memset(d, 0, sizeof *d);
    shardset_init(&d->set);
    if (cli_run_config(o->run, NULL, 0, &d->cfg, err) != 0) return -1;
    int latest = rundir_latest(o->run, err);
    if (latest < 0) return latest == -1 ? rk_error(err, "%s: no complete generation", o->run) : -1;
    if (cli_run_engine_open(&d->engine, &d->cfg) != 0)
        return rk_error(err, "%s: the run's lexicon does not open", o->run);
    d->engine_ok = true;
    char lpath[4096];
    const char *leaves = o->leaves;
    if (!leaves) {
        int have = engine_default_leaves(&d->engine, lpath, sizeof lpath, err);
        if (have < 0) return -1;
        if (have == 0) return rk_error(err, "no shipped leaves for this lexicon: give --leaves FILE.klv2");
        leaves = lpath;
    }
    if (klv_load(&d->leaves, leaves, &d->engine.ld, err) != 0) return -1;
    d->leaves_ok = true;
    NnFeatureContext fc;
    nn_feature_context(&fc, &d->engine.ld, &d->engine.layout, &d->engine.kwg);
    int window = o->window > 0 ? o->window : latest;
    if (nn_stage_load_window(o->run, latest, NULL, window, &fc, &d->set, &d->first, NULL, err) != 0) return -1;
    d->last = latest;
    d->train = malloc((d->set.n + 1) * sizeof *d->train);
    d->test = malloc((d->set.n + 1) * sizeof *d->test);
    if (!d->train || !d->test) return rk_error(err, "out of memory for %zu samples", d->set.n);
    for (size_t i = 0; i < d->set.n; i++) {
        if (nn_stage_held_out(d->set.s[i].game, d->cfg.nn_heldout_every)) d->test[d->ntest++] = i;
        else d->train[d->ntrain++] = i;
    }
    if (d->ntrain == 0 || d->ntest == 0)
        return rk_error(err,
                        "%s: generations %d-%d have %zu training and %zu held-out samples (both needed; "
                        "nn.heldout_every = %d)",
                        o->run, d->first, d->last, d->ntrain, d->ntest, d->cfg.nn_heldout_every);
    return 0;
}

static void print_eval(const AftEvalReport *e) {
    printf("held-out: %zu afterstates\n", e->samples);
    printf("  log loss     %.5f (win model of the spread %.5f)\n", e->logloss, e->base_logloss);
    printf("  Brier score  %.5f (win model of the spread %.5f; difference %+.5f +/- %.5f)\n", e->brier, e->base_brier,
           e->brier - e->base_brier, e->brier_diff_se);
    printf("  spread mean absolute error %.2f points (the static equity lead %.2f)\n", e->spread_mae, e->base_spread_mae);
    if (e->distill_samples > 0)
        printf("  choices among a simulation's candidates (%zu positions): %.3f points below the best "
               "(the static equity's %.3f; difference %+.3f +/- %.3f)\n",
               e->distill_samples, e->distill_regret, e->base_distill_regret, e->distill_regret - e->base_distill_regret,
               e->distill_diff_se);
    if (e->distill_samples > 0)
        printf("  their simulated values, centred: rms error %.3f points (the static equity's %.3f)\n", e->distill_rms,
               e->base_distill_rms);
}

static int evaluate(const AftNet *n, const AftData *d, int horizon, RkError *err) {
    AftContext c;
    aft_context(&c, &d->engine.ld, &d->engine.layout, &d->engine.kwg, klv_leave_value, &d->leaves);
    WinModel base = WINPROB_DEFAULT;
    AftEvalReport e;
    if (aft_evaluate(n, &c, &d->set, d->test, d->ntest, &base, horizon, PLAYER_TARGET_TEMPERATURE, &e, err) != 0)
        return -1;
    print_eval(&e);
    return 0;
}

static int train_cmd(const AftOptions *o) {
    RkError err;
    Comm comm;
    if (comm_init(&comm, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery afterstate: %s\n", err.msg);
        return 2;
    }
    AftData d;
    AftNet net;
    bool net_ok = false;
    int rc = data_load(o, &d, &err) != 0 ? 2 : 0;
    char out[RUNDIR_PATH_MAX + 64];
    if (rc == 0) {
        AftArch arch = {.hidden1 = o->hidden1, .hidden2 = o->hidden2};
        uint64_t seed = o->seed_given ? o->seed : d.cfg.seed;
        int r = o->from ? aft_net_load(&net, o->from, &d.engine.ld, d.engine.layout.dim, &err)
                        : aft_net_init(&net, &arch, &d.engine.ld, d.engine.layout.dim, seed, &err);
        if (r != 0) rc = 2;
        else net_ok = true;
    }
    if (rc == 0) {
        if (o->out) snprintf(out, sizeof out, "%s", o->out);
        else {
            snprintf(out, sizeof out, "%s/nn", o->run);
            if (comm.rank == 0 && rundir_mkdirs(out, &err) != 0) rc = 1;
            snprintf(out, sizeof out, "%s/nn/afterstate.h5", o->run);
        }
    }
    if ((int)comm_max_i64(&comm, rc) != 0) {
        if (rc != 0 && comm.rank == 0) fprintf(stderr, "rookery afterstate: %s\n", err.msg);
        rc = rc ? rc : 2;
        goto done;
    }
    if (comm.rank == 0)
        printf("rookery afterstate train: %s, generations %d-%d: %zu training and %zu held-out afterstates; network %s "
               "(step %" PRId64 ", %zu parameters), %d rank(s)\n",
               o->run, d.first, d.last, d.ntrain, d.ntest, o->from ? o->from : "new", net.train_step,
               net.params.total, comm.size);
    AftContext c;
    aft_context(&c, &d.engine.ld, &d.engine.layout, &d.engine.kwg, klv_leave_value, &d.leaves);
    AftTrainOptions to = aft_train_defaults();
    to.steps = o->steps, to.batch = o->batch, to.adam.lr = (float)o->lr, to.horizon = o->horizon;
    to.seed = o->seed_given ? o->seed : d.cfg.seed;
    to.chunks = to.batch < to.chunks ? to.batch : to.chunks;
    to.distill_weight = (float)o->distill;
    to.distill_temperature = PLAYER_TARGET_TEMPERATURE;
    NnTrainComm tc = nn_train_comm_mpi(&comm);
    AftTrainReport rep;
    if (aft_train(&net, &c, &d.set, d.train, d.ntrain, &to, &tc, &rep, &err) != 0) {
        fprintf(stderr, "rookery afterstate: rank %d: %s\n", comm.rank, err.msg);
        rc = 1;
        goto done;
    }
    if (comm.rank == 0) {
        printf("trained %" PRId64 " steps: win loss %.4f -> %.4f, spread loss %.4f -> %.4f, distill loss %.4f -> %.4f, "
               "%.0f samples/s (%.1f s)\n",
               o->steps, rep.first[0], rep.last[0], rep.first[1], rep.last[1], rep.first[2], rep.last[2],
               rep.samples_per_second, rep.seconds);
        if (aft_net_save(&net, out, &d.engine.ld, &err) != 0 || evaluate(&net, &d, o->horizon, &err) != 0) {
            fprintf(stderr, "rookery afterstate: %s\n", err.msg);
            rc = 1;
        } else
            printf("wrote %s\n", out);
    }
done:
    if (net_ok) aft_net_free(&net);
    data_free(&d);
    comm_finalize(&comm);
    return rc;
}

static int eval_cmd(const AftOptions *o) {
    RkError err;
    if (!o->model) {
        fprintf(stderr, "rookery afterstate eval: give --model FILE.h5 (see --help)\n");
        return 2;
    }
    AftData d;
    AftNet net;
    int rc = 0;
    if (data_load(o, &d, &err) != 0 || aft_net_load(&net, o->model, &d.engine.ld, d.engine.layout.dim, &err) != 0) {
        fprintf(stderr, "rookery afterstate: %s\n", err.msg);
        data_free(&d);
        return 2;
    }
    printf("%s (step %" PRId64 ") on %s generations %d-%d\n", o->model, net.train_step, o->run, d.first, d.last);
    if (evaluate(&net, &d, o->horizon, &err) != 0) {
        fprintf(stderr, "rookery afterstate: %s\n", err.msg);
        rc = 1;
    }
    aft_net_free(&net);
    data_free(&d);
    return rc;
}

int cmd_afterstate(int argc, char **argv) {
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (strcmp(sub, "train") != 0 && strcmp(sub, "eval") != 0) {
        fprintf(stderr, "rookery afterstate: unknown subcommand '%s' (train or eval; see --help)\n", sub);
        return 2;
    }
    AftArch arch = AFT_ARCH_DEFAULT;
    AftOptions o = {.steps = 2000, .batch = 512, .hidden1 = arch.hidden1, .hidden2 = arch.hidden2, .lr = 1e-3,
                    .horizon = aft_train_defaults().horizon};
    uint64_t steps = (uint64_t)o.steps;
    const CliOption opts[] = {{"--run", CLI_STRING, &o.run, 0, 0, NULL},
                              {"--from", CLI_STRING, &o.from, 0, 0, NULL},
                              {"--out", CLI_STRING, &o.out, 0, 0, NULL},
                              {"--model", CLI_STRING, &o.model, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &o.leaves, 0, 0, NULL},
                              {"--window", CLI_INT, &o.window, 1, 100000, NULL},
                              {"--steps", CLI_U64, &steps, 0, 1e12, NULL},
                              {"--batch", CLI_INT, &o.batch, 1, 65536, NULL},
                              {"--hidden1", CLI_INT, &o.hidden1, 1, 1024, NULL},
                              {"--hidden2", CLI_INT, &o.hidden2, 1, 1024, NULL},
                              {"--lr", CLI_DOUBLE, &o.lr, 0, 10, NULL},
                              {"--horizon", CLI_INT, &o.horizon, 0, 1000, NULL},
                              {"--distill", CLI_DOUBLE, &o.distill, 0, 1000, NULL},
                              {"--seed", CLI_U64, &o.seed, 0, 1.8446744073709552e19, &o.seed_given}};
    char cmd[32];
    snprintf(cmd, sizeof cmd, "afterstate %s", sub);
    int parsed = cli_options_parse(cmd, argc - 1, argv + 1, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    o.steps = (int64_t)steps;
    if (o.horizon % 2 != 0) {
        fprintf(stderr, "rookery afterstate %s: --horizon %d is odd (the mover is on turn again after an even number)\n",
                sub, o.horizon);
        return 2;
    }
    if (!o.run) {
        fprintf(stderr, "rookery afterstate %s: give --run RUN (see --help)\n", sub);
        return 2;
    }
    return strcmp(sub, "train") == 0 ? train_cmd(&o) : eval_cmd(&o);
}
