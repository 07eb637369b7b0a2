/* rookery train: the generational training loop, under MPI.
 *
 * A generation = play (every rank its share of the games) -> reduce (one
 * Allreduce of the integer accumulators: rack equities, SPV cells, totals)
 * -> derive (every rank computes the same leaves and SPV table from the same
 * sums) -> evaluate (held-out residuals, matches) -> write (rank 0:
 * gen-NNNN.tmp, then rename) -> every rank plays the next generation with
 * the new tables.
 *
 * Signals: SIGTERM, SIGINT and SIGUSR1 set a flag; every CHECK_ROUNDS rounds
 * the ranks take the maximum of their flags, so all of them stop together,
 * discard the generation in flight and exit with TRAIN_EXIT_STOPPED. The flag
 * is the one piece of file-scope mutable state in rookery: a signal handler
 * can reach nothing else. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "core/atomicfile.h"
#include "eval/derive.h"
#include "eval/klv.h"
#include "eval/racktable.h"
#include "eval/req.h"
#include "eval/spv.h"
#include "eval/spv_derive.h"
#include "reducer/comm.h"
#include "reducer/rundir.h"
#include "reducer/nn_stage.h"
#include "reducer/shard_gather.h"
#include "nn/model_io.h"
#include "worker/generation.h"
#include "worker/match.h"
#include "worker/train_config.h"

#define TRAIN_EXIT_STOPPED 3
#define CHECK_ROUNDS 32

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: mpirun -np N rookery train [--config FILE] [--run DIR] [--set section.key=value]...\n"
            "       rookery train --print-default-config\n"
            "\n"
            "Runs generations of static self-play, leave and SPV training. Each generation plays\n"
            "run.games_per_generation games over all ranks, sums the rack-equity and SPV\n"
            "accumulators, derives the leaves and the SPV positional table (per spv.schedule),\n"
            "evaluates them (held-out residual variance, matches) and writes RUN/gen-NNNN/\n"
            "(leaves.klv2, racks.req, positional.spv, manifest.json), RUN/LATEST and\n"
            "RUN/metrics.csv. Without --config the embedded default is used\n"
            "(--print-default-config shows it, with every key).\n"
            "If RUN already holds generations, its config.ini is used (plus --set overrides), the\n"
            "last complete generation is verified against its manifest, and training continues.\n"
            "  --run DIR      the run directory (overrides run.output)\n"
            "  --set K=V      override one key, e.g. --set run.generations=10\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input, 3 stopped by SIGTERM/SIGINT/SIGUSR1\n"
            "(the generation in flight is discarded; run the same command to resume).\n");
}

static void timestamp(char *buf, size_t cap) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

typedef struct Trainer {
    Comm comm;
    TrainConfig cfg;
    Engine engine;
    RackTable racks;
    Klv klv;
    LeaveDeriver deriver;
    RackAccum acc;
    RackAccum delta; /* forced-rack observations of one batch, before they are summed */
    /* one buffer for the per-generation Allreduce: acc (2 x racks), then the
     * SPV cells (spv_acc), then the generation totals */
    int64_t *reduce_buf;
    size_t reduce_words;
    bool spv_on;     /* spv.schedule != off */
    Spv spv;         /* the SPV table in force */
    Spv new_spv;     /* this generation's derivation */
    SpvAccum spv_acc;
    GameResiduals *res; /* scratch */
    float *new_values; /* the next generation's leaves, before they replace klv's */
    Game *game;
    Player player;      /* run.player when it is not "static" */
    bool have_player;
    bool player_borrows;  /* player.leaves is &klv, not its own */
    /* the last generation played, for `rookery bench train` */
    /* training samples (nn.shards): this rank's, and the files rank 0 wrote */
    ShardSet samples;
    SampleRecorder recorder;
    ShardFiles shard_files;
    bool gen_begun;     /* rank 0 has created this generation's gen-NNNN.tmp/ */
    /* the network (nn.train): the model in force, trained a little more each generation */
    NnFeatureContext nn_fc;
    NnModel model;
    bool have_model, nn_trained;
    NnStageReport nn_rep;
    bool bench;
    double last_play, last_overhead, last_wall;
    int64_t last_games;
} Trainer;

/* Rank 0 prints; the others stay quiet. */
#define SAY(t, ...)                                                                                                  \
    do {                                                                                                             \
        if ((t)->comm.rank == 0) {                                                                                   \
            char ts_[32];                                                                                            \
            timestamp(ts_, sizeof ts_);                                                                              \
            printf("[%s] ", ts_);                                                                                    \
            printf(__VA_ARGS__);                                                                                     \
            printf("\n");                                                                                            \
            fflush(stdout);                                                                                          \
        }                                                                                                            \
    } while (0)

/* Every rank agrees on a status: the worst (max) one wins. */
static int agree(Trainer *t, int status) { return (int)comm_max_i64(&t->comm, status); }

/* The "files" members of a manifest, one line each. */
static void manifest_files(char *buf, size_t cap, const RunFile *f, int n) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "    \"%s\": {\"bytes\": %" PRIu64 ", \"sha256\": \"%s\"}%s\n",
                                f[i].name, f[i].bytes, f[i].sha256, i + 1 < n ? "," : "");
}

static int write_generation0(Trainer *t, RkError *err) {
    const char *run = t->cfg.output;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64], text[8192];
    if (rundir_mkdirs(run, err) != 0) return -1;
    int n = train_config_write(&t->cfg, text, sizeof text);
    snprintf(path, sizeof path, "%s/config.ini", run);
    if (n < 0 || rk_write_file_atomic(path, text, (size_t)n, err) != 0) return -1;
    if (rundir_begin_generation(run, 0, err) != 0) return -1;
    rundir_gen_path(run, 0, true, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/leaves.klv2", dir);
    if (klv_write(&t->klv, path, err) != 0) return -1;
    RunFile f[2] = {{.name = "leaves.klv2"}, {.name = "positional.spv"}};
    int nf = t->spv_on ? 2 : 1;
    snprintf(path, sizeof path, "%s/positional.spv", dir);
    if (t->spv_on && spv_write(&t->spv, path, err) != 0) return -1;
    if (rundir_describe_files(run, 0, f, nf, err) != 0) return -1;
    char files[1024];
    manifest_files(files, sizeof files, f, nf);
    snprintf(text, sizeof text,
             "{\n  \"generation\": 0,\n  \"run_seed\": %" PRIu64 ",\n  \"initial_leaves\": \"%s\",\n"
             "  \"initial_spv\": \"%s\",\n  \"files\": {\n%s  }\n}\n",
             t->cfg.seed, t->cfg.initial_leaves, t->spv_on ? t->cfg.spv_initial : "none", files);
    return rundir_commit_generation(run, 0, text, NULL, NULL, err);
}

static const char METRICS_HEADER[] =
    "generation,games,turns,ranks,games_per_s,wall_s,play_s,reduce_s,derive_s,write_s,mean_best_equity,"
    "mean_final_score,bingos_per_game,racks_observed,baseline,leave_change_rms,forced_games,forced_observations,"
    "match_pairs,match_win_pct,match_ci95_pct,leaves_trained,spv_trained,spv_cells_observed,spv_mean_abs,"
    "heldout_moves,resid_var,resid_var_spv,spv_match_pairs,spv_match_win_pct,spv_match_ci95_pct,samples,"
    "nn_trained,nn_steps,nn_train_samples,nn_samples_per_s,nn_loss_first,nn_loss_last,nn_value_loss,nn_policy_loss,"
    "nn_hidden_loss,nn_heldout_positions,nn_p_top1,nn_brier,nn_brier_base,nn_spread_rmse,nn_spread_rmse_base,"
    "nn_h_nll,nn_h_nll_uniform";

typedef struct GenTimes {
    double play, reduce, derive, write, wall;
} GenTimes;

/* What a generation found, for the manifest and metrics.csv. */
typedef struct GenReport {
    GenerationTotals tot;
    DeriveInfo info;
    double change_rms;
    MatchResult match;       /* new leaves vs zero leaves */
    bool leaves_trained, spv_trained;
    SpvDeriveInfo spv_info;
    ResidualStats heldout;
    MatchResult spv_match;   /* new leaves with the new SPV vs without */
    uint64_t spv_match_pairs;
} GenReport;

/* The network's part of the manifest (a JSON member line, or "") and of the
 * metrics row (its columns). */
static void nn_report_text(const Trainer *t, char *json, size_t jcap, char *row, size_t rcap) {
    const NnStageReport *r = &t->nn_rep;
    const NnLossSums *mean = &r->train.mean;
    double n = mean->samples > 0 ? mean->samples : 1.0;
    double value = (mean->wdl + mean->spread) / n, policy = (mean->sub + mean->steps) / n, hidden = mean->hidden / n;
    const NnEvalReport *e = &r->eval;
    int64_t steps = t->nn_trained ? t->cfg.nn_steps : 0;
    snprintf(row, rcap, "%d,%" PRId64 ",%" PRIu64 ",%.1f,%.5f,%.5f,%.5f,%.5f,%.5f,%" PRIu64 ",%.4f,%.5f,%.5f,%.2f,%.2f,%.4f,%.4f",
             t->nn_trained, steps, r->train_samples, r->train.samples_per_second, nn_loss_total(&r->train.first),
             nn_loss_total(&r->train.last), value, policy, hidden, e->positions, e->p_top1, e->v_brier,
             e->v_brier_base, e->spread_rmse, e->spread_rmse_base, e->h_nll, e->h_nll_uniform);
    if (!t->nn_trained) return;
    snprintf(json, jcap,
             "  \"nn\": {\"window\": [%d, %d], \"train_samples\": %" PRIu64 ", \"steps\": %" PRId64
             ", \"train_step\": %" PRId64 ", \"samples_per_s\": %.1f, \"loss_first\": %.5f, \"loss_last\": %.5f, "
             "\"value_loss\": %.5f, \"policy_loss\": %.5f, \"hidden_loss\": %.5f,\n"
             "         \"heldout\": {\"positions\": %" PRIu64 ", \"p_top1\": %.4f, \"brier\": %.5f, "
             "\"brier_base\": %.5f, \"spread_rmse\": %.2f, \"spread_rmse_base\": %.2f, \"h_nll_per_tile\": %.4f, "
             "\"h_nll_uniform\": %.4f}},\n",
             r->first_gen, r->last_gen, r->train_samples, steps, t->model.train_step, r->train.samples_per_second,
             nn_loss_total(&r->train.first), nn_loss_total(&r->train.last), value, policy, hidden, e->positions,
             e->p_top1, e->v_brier, e->v_brier_base, e->spread_rmse, e->spread_rmse_base, e->h_nll, e->h_nll_uniform);
}

static int write_generation(Trainer *t, int gen, const GenReport *rep, GenTimes *tm, RkError *err) {
    const GenerationTotals *tot = &rep->tot;
    const DeriveInfo *info = &rep->info;
    const MatchResult *match = &rep->match;
    double change_rms = rep->change_rms;
    double t0 = cli_now();
    const char *run = t->cfg.output;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64];
    if (!t->gen_begun && rundir_begin_generation(run, gen, err) != 0) return -1;
    rundir_gen_path(run, gen, true, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/leaves.klv2", dir);
    if (klv_write(&t->klv, path, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/racks.req", dir);
    if (req_write_accum(path, &t->racks, &t->acc, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/positional.spv", dir);
    if (t->spv_on && spv_write(&t->spv, path, err) != 0) return -1;
    RunFile files[4 + SHARD_GATHER_MAX_FILES] = {{.name = "leaves.klv2"}, {.name = "racks.req"}};
    int nfiles = 2;
    if (t->spv_on) snprintf(files[nfiles++].name, sizeof files[0].name, "positional.spv");
    for (int i = 0; i < t->shard_files.count; i++)
        snprintf(files[nfiles++].name, sizeof files[0].name, "%s", t->shard_files.name[i]);
    if (t->nn_trained) snprintf(files[nfiles++].name, sizeof files[0].name, "model.h5");
    if (rundir_describe_files(run, gen, files, nfiles, err) != 0) return -1;
    char files_json[160 * (4 + SHARD_GATHER_MAX_FILES)];
    manifest_files(files_json, sizeof files_json, files, nfiles);
    double var0 = residual_stats_variance(&rep->heldout, false), var1 = residual_stats_variance(&rep->heldout, true);
    tm->write = cli_now() - t0; /* the data files; the manifest follows */
    tm->wall += tm->write;
    double games = (double)tot->games;
    double mean_eq = tot->observations ? (double)tot->equity_sum / 1000.0 / (double)tot->observations : 0.0;
    static_assert(sizeof files_json < 65536 - 4096, "manifest buffer");
    char manifest[65536], row[4096], nn_json[2048] = "", nn_row[1024];
    nn_report_text(t, nn_json, sizeof nn_json, nn_row, sizeof nn_row);
    snprintf(manifest, sizeof manifest,
             "{\n  \"generation\": %d,\n  \"run_seed\": %" PRIu64 ",\n"
             "  \"game_seed\": \"game i of this generation is seeded from (run_seed, %d, i)\",\n"
             "  \"ranks\": %d,\n  \"games\": %" PRId64 ",\n  \"turns\": %" PRId64 ",\n"
             "  \"observations\": %" PRId64 ",\n  \"forced_games\": %" PRId64 ",\n"
             "  \"forced_observations\": %" PRId64 ",\n  \"racks_observed\": %" PRIu64 ",\n"
             "  \"baseline\": %.6f,\n  \"mean_best_equity\": %.6f,\n"
             "  \"match_vs_zero_leaves\": {\"pairs\": %" PRIu64 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f},\n"
             "  \"leaves_trained\": %s,\n  \"spv_trained\": %s,\n"
             "  \"spv\": {\"schedule\": \"%s\", \"use\": %s, \"k\": %.17g, \"cells_observed\": %u, "
             "\"tile_observations\": %" PRIu64 ", \"mean_abs\": %.6f},\n"
             "  \"heldout\": {\"moves\": %" PRId64 ", \"resid_var\": %.4f, \"resid_var_spv\": %.4f},\n"
             "  \"match_spv_on_vs_off\": {\"pairs\": %" PRIu64 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f},\n"
             "  \"samples\": %" PRIu64 ",\n"
             "%s"
             "  \"timings_s\": {\"play\": %.3f, \"reduce\": %.3f, \"derive\": %.3f, \"write\": %.3f, "
             "\"wall\": %.3f},\n"
             "  \"files\": {\n%s  }\n}\n",
             gen, t->cfg.seed, gen, t->comm.size, tot->games, tot->turns, tot->observations, tot->forced_games,
             tot->forced_observations, info->racks_observed,
             info->baseline, mean_eq, t->cfg.match_pairs, match->win_pct, match->ci95_pct,
             rep->leaves_trained ? "true" : "false", rep->spv_trained ? "true" : "false",
             train_config_schedule_name(t->cfg.spv_schedule), t->cfg.spv_use ? "true" : "false", t->cfg.spv_k,
             rep->spv_info.cells_observed, rep->spv_info.observations, rep->spv_info.mean_abs, rep->heldout.moves,
             var0, var1, rep->spv_match_pairs, rep->spv_match.win_pct, rep->spv_match.ci95_pct,
             t->shard_files.samples, nn_json, tm->play, tm->reduce,
             tm->derive, tm->write, tm->wall, files_json);
    snprintf(row, sizeof row,
             "%d,%" PRId64 ",%" PRId64 ",%d,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.2f,%.3f,%" PRIu64 ",%.4f,%.5f,%" PRId64
             ",%" PRId64 ",%" PRIu64 ",%.2f,%.2f,%d,%d,%u,%.5f,%" PRId64 ",%.4f,%.4f,%" PRIu64 ",%.2f,%.2f,%" PRIu64
             ",%s\n",
             gen,
             tot->games, tot->turns, t->comm.size, tm->play > 0 ? games / tm->play : 0.0, tm->wall, tm->play,
             tm->reduce, tm->derive, tm->write, mean_eq, games > 0 ? (double)tot->score_sum / (2.0 * games) : 0.0,
             games > 0 ? (double)tot->bingos / games : 0.0, info->racks_observed, info->baseline, change_rms,
             tot->forced_games, tot->forced_observations, t->cfg.match_pairs, match->win_pct, match->ci95_pct,
             rep->leaves_trained, rep->spv_trained, rep->spv_info.cells_observed, rep->spv_info.mean_abs,
             rep->heldout.moves, var0, var1, rep->spv_match_pairs, rep->spv_match.win_pct, rep->spv_match.ci95_pct,
             t->shard_files.samples, nn_row);
    return rundir_commit_generation(run, gen, manifest, METRICS_HEADER, row, err);
}

/* The forced-rack phase (generation_play_forced): batches of forced games
 * until every rack has the generation's minimum count or the cap on forced
 * games is reached. t->acc holds the summed accumulators on entry and on
 * exit. Returns 0, TRAIN_EXIT_STOPPED or 1. */
static int forced_racks(Trainer *t, GenerationWorker *w, int gen, GenerationTotals *tot) {
    uint32_t min = train_config_min_count(&t->cfg, gen);
    if (min == 0 || t->cfg.max_forced_games == 0) return 0;
    RkError err;
    if (t->delta.n == 0 && rack_accum_init(&t->delta, t->racks.num_racks, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    uint64_t done = 0;
    GenerationTotals before = w->totals;
    w->totals.forced_games = w->totals.forced_observations = 0;
    w->acc = &t->delta;
    int rc = 0;
    while (rc == 0 && done < t->cfg.max_forced_games) {
        ForcedTasks ft;
        if (forced_tasks_build(&ft, &t->acc, min, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
            break;
        }
        if (ft.total == 0) break;
        uint64_t games = (ft.total + FORCED_TASKS_PER_GAME - 1) / FORCED_TASKS_PER_GAME;
        if (games > FORCED_BATCH_GAMES) games = FORCED_BATCH_GAMES;
        if (games > t->cfg.max_forced_games - done) games = t->cfg.max_forced_games - done;
        if (done == 0)
            SAY(t, "gen %d: %" PRIu64 " racks below %u observations (%" PRIu64 " missing): forced games", gen,
                ft.n, min, ft.total);
        memset(t->delta.count, 0, t->delta.n * sizeof t->delta.count[0]);
        memset(t->delta.sum_mp, 0, t->delta.n * sizeof t->delta.sum_mp[0]);
        int status = 0;
        for (uint64_t k = (uint64_t)t->comm.rank; k < games && status == 0; k += (uint64_t)t->comm.size) {
            uint64_t index = w->games + done + k;
            if (generation_play_forced(w, index, &ft, k * FORCED_TASKS_PER_GAME, FORCED_TASKS_PER_GAME, &err) != 0) {
                fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
                status = 2;
            }
        }
        forced_tasks_free(&ft);
        int worst = agree(t, status ? 2 : stop_requested ? 1 : 0);
        if (worst == 2) rc = 1;
        else if (worst == 1) {
            SAY(t, "stop requested: generation %d discarded during forced games; rerun to resume", gen);
            rc = TRAIN_EXIT_STOPPED;
        } else if (comm_sum_i64(&t->comm, t->delta.count, t->delta.n, &err) != 0 ||
                   comm_sum_i64(&t->comm, t->delta.sum_mp, t->delta.n, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
        } else {
            rack_accum_merge(&t->acc, &t->delta, &err);
            done += games;
        }
    }
    w->acc = &t->acc;
    int64_t f[2] = {w->totals.forced_games, w->totals.forced_observations};
    if (rc == 0 && comm_sum_i64(&t->comm, f, 2, &err) != 0) rc = 1;
    tot->forced_games = f[0];
    tot->forced_observations = f[1];
    w->totals = before;
    if (rc == 0 && done > 0) {
        ForcedTasks left;
        uint64_t missing = 0;
        if (forced_tasks_build(&left, &t->acc, min, &err) == 0) {
            missing = left.total;
            forced_tasks_free(&left);
        }
        SAY(t, "gen %d: %" PRId64 " forced games, %" PRId64 " forced observations; %" PRIu64 " still missing", gen,
            f[0], f[1], missing);
    }
    return rc;
}

/* `pairs` game pairs between a and b dealt to the ranks by index, the same
 * pairs every generation. */
static int play_match(Trainer *t, const Player *a, const Player *b, uint64_t pairs, MatchResult *r) {
    memset(r, 0, sizeof *r);
    if (pairs == 0) return 0;
    MatchTotals m;
    memset(&m, 0, sizeof m);
    for (uint64_t i = (uint64_t)t->comm.rank; i < pairs; i += (uint64_t)t->comm.size)
        match_play_pair(a, b, &t->engine.ld, &t->engine.layout, &t->engine.kwg, t->cfg.seed, i, t->game, &m);
    int64_t arr[MATCH_TOTALS_FIELDS];
    match_totals_pack(&m, arr);
    RkError err;
    if (comm_sum_i64(&t->comm, arr, MATCH_TOTALS_FIELDS, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    match_totals_unpack(arr, &m);
    match_result(&m, r);
    return 0;
}

/* The new leaves against zero leaves (match.pairs), and with the new SPV
 * table against without it (spv.match_pairs). */
static int evaluation_matches(Trainer *t, GenReport *rep) {
    Player leaves = {.kind = PLAYER_STATIC, .spec = "new leaves", .leaves = &t->klv, .spv_k = t->cfg.spv_k};
    Player zero = {.kind = PLAYER_STATIC, .spec = "zero leaves", .leaves = NULL};
    if (play_match(t, &leaves, &zero, t->cfg.match_pairs, &rep->match) != 0) return 1;
    if (!t->spv_on || t->cfg.spv_match_pairs == 0) return 0;
    Player with_spv = leaves;
    with_spv.spv = &t->spv;
    rep->spv_match_pairs = t->cfg.spv_match_pairs;
    return play_match(t, &with_spv, &leaves, t->cfg.spv_match_pairs, &rep->spv_match);
}

/* Residual variance on held-out games played with the new tables, without
 * and with the new SPV table's adjustment. */
static int heldout_residuals(Trainer *t, int gen, ResidualStats *st) {
    memset(st, 0, sizeof *st);
    if (!t->spv_on || t->cfg.spv_heldout_games == 0) return 0;
    SelfplayConfig play = {.ld = &t->engine.ld,
                           .layout = &t->engine.layout,
                           .kwg = &t->engine.kwg,
                           .leave_value = klv_leave_value,
                           .leave_ctx = &t->klv,
                           .spv = t->cfg.spv_use ? &t->spv : NULL,
                           .spv_k = t->cfg.spv_k,
                           .seed = t->cfg.seed,
                           .generation = HELDOUT_GENERATION(gen)};
    for (uint64_t i = (uint64_t)t->comm.rank; i < t->cfg.spv_heldout_games; i += (uint64_t)t->comm.size)
        generation_play_heldout(&play, &t->spv, t->cfg.spv_k, t->cfg.spv_target, i, t->game, t->res, st);
    int64_t arr[RESIDUAL_STATS_FIELDS];
    residual_stats_pack(st, arr);
    RkError err;
    if (comm_sum_i64(&t->comm, arr, RESIDUAL_STATS_FIELDS, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    residual_stats_unpack(arr, st);
    return 0;
}

/* Replaces the table in force by the derived one (same dimensions). */
static void spv_replace(Spv *dst, const Spv *src) {
    size_t cells = (size_t)src->num_squares * src->num_buckets;
    memcpy(dst->mean, src->mean, cells * sizeof(float));
    if (dst->var && src->var) memcpy(dst->var, src->var, cells * sizeof(float));
    memcpy(dst->openness, src->openness, sizeof dst->openness);
}

/* Rank 0 opens gen-NNNN.tmp/ and writes the generation's samples there as
 * shards (gathered from every rank, sorted: the same bytes for any rank
 * count). */
static int write_shards(Trainer *t, int gen) {
    RkError err;
    int status = 0;
    if (t->comm.rank == 0) {
        status = rundir_begin_generation(t->cfg.output, gen, &err) != 0;
        if (status) fprintf(stderr, "rookery: %s\n", err.msg);
        t->gen_begun = !status;
    }
    if (agree(t, status) != 0) return 1;
    char dir[RUNDIR_PATH_MAX];
    rundir_gen_path(t->cfg.output, gen, true, dir, sizeof dir);
    if (shards_gather_write(&t->comm, &t->samples, dir, &t->engine.ld, t->engine.layout.dim, (uint32_t)gen,
                            t->cfg.nn_shard_samples, &t->shard_files, &err) != 0) {
        if (t->comm.rank == 0) fprintf(stderr, "rookery: shards: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* The network's stage: trains the model in force on the window of shards
 * (this generation's included) and writes gen-NNNN.tmp/model.h5. */
static int nn_generation(Trainer *t, int gen) {
    RkError err;
    char dir[RUNDIR_PATH_MAX], out[RUNDIR_PATH_MAX + 16];
    rundir_gen_path(t->cfg.output, gen, true, dir, sizeof dir);
    snprintf(out, sizeof out, "%s/model.h5", dir);
    NnStageOptions o = {.window = t->cfg.nn_window,
                        .steps = t->cfg.nn_steps,
                        .batch = t->cfg.nn_batch,
                        .chunks = t->cfg.nn_chunks,
                        .lr = t->cfg.nn_lr,
                        .weight_decay = t->cfg.nn_weight_decay,
                        .seed = t->cfg.seed,
                        .heldout_every = t->cfg.nn_heldout_every,
                        .eval_positions = t->cfg.nn_eval_positions,
                        .progress_seconds = t->cfg.progress_seconds};
    if (nn_stage_run(&t->comm, t->cfg.output, gen, dir, &o, &t->nn_fc, &t->model, out, &t->nn_rep, &err) != 0) {
        if (t->comm.rank == 0) fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    t->nn_trained = true;
    const NnStageReport *r = &t->nn_rep;
    const NnEvalReport *e = &r->eval;
    SAY(t,
        "gen %d nn: %" PRId64 " steps on %" PRIu64 " samples (gens %d-%d), loss %.3f -> %.3f, %.0f samples/s; "
        "held-out %" PRIu64 " positions: P top-1 %.1f%%, Brier %.4f (baseline %.4f), spread rmse %.1f (baseline "
        "%.1f), H %.3f nats/tile (uniform %.3f); load %.1f s, train %.1f s, eval %.1f s",
        gen, t->cfg.nn_steps, r->train_samples, r->first_gen, r->last_gen, nn_loss_total(&r->train.first),
        nn_loss_total(&r->train.last), r->train.samples_per_second, e->positions, 100.0 * e->p_top1, e->v_brier,
        e->v_brier_base, e->spread_rmse, e->spread_rmse_base, e->h_nll, e->h_nll_uniform, r->load_s, r->train_s,
        r->eval_s);
    return 0;
}

/* Plays generation gen; returns 0 done, TRAIN_EXIT_STOPPED, or 1 (error). */
static int run_generation(Trainer *t, int gen) {
    RkError err;
    double t0 = cli_now();
    GenReport rep;
    memset(&rep, 0, sizeof rep);
    rep.leaves_trained = train_config_leaves_train(&t->cfg, gen);
    rep.spv_trained = t->spv_on && train_config_spv_trains(&t->cfg, gen);
    memset(t->reduce_buf, 0, t->reduce_words * sizeof t->reduce_buf[0]);
    SelfplayConfig play = {.ld = &t->engine.ld,
                           .layout = &t->engine.layout,
                           .kwg = &t->engine.kwg,
                           .leave_value = klv_leave_value,
                           .leave_ctx = &t->klv,
                           .spv = t->spv_on && t->cfg.spv_use ? &t->spv : NULL,
                           .spv_k = t->cfg.spv_k,
                           .seed = t->cfg.seed,
                           .generation = (uint64_t)gen,
                           .player = t->have_player ? &t->player : NULL};
    GenerationWorker w = {.play = &play,
                          .racks = &t->racks,
                          .games = t->cfg.games_per_generation,
                          .rank = t->comm.rank,
                          .nranks = t->comm.size,
                          .acc = &t->acc,
                          .spv_acc = rep.spv_trained ? &t->spv_acc : NULL,
                          .res = t->res,
                          .spv_target = t->cfg.spv_target,
                          .samples = t->cfg.nn_shards ? &t->recorder : NULL,
                          .game = t->game};
    shardset_clear(&t->samples);
    memset(&t->shard_files, 0, sizeof t->shard_files);
    memset(&t->nn_rep, 0, sizeof t->nn_rep);
    t->gen_begun = t->nn_trained = false;
    uint64_t rounds = generation_rounds(w.games, w.nranks);
    double last_progress = t0;
    for (uint64_t r = 0; r < rounds; r++) {
        int status = generation_play_round(&w, r, &err) == 0 ? 0 : 1;
        if (status) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
        if ((r + 1) % CHECK_ROUNDS == 0 || r + 1 == rounds || status) {
            int worst = agree(t, status ? 2 : stop_requested ? 1 : 0);
            if (worst == 2) return 1;
            if (worst == 1) {
                SAY(t, "stop requested: generation %d discarded after %" PRIu64 " rounds; rerun to resume", gen,
                    r + 1);
                return TRAIN_EXIT_STOPPED;
            }
        }
        double now = cli_now();
        if (t->cfg.progress_seconds > 0 && now - last_progress >= t->cfg.progress_seconds) {
            uint64_t done = (r + 1) * (uint64_t)w.nranks;
            if (done > w.games) done = w.games;
            double rate = (double)done / (now - t0);
            SAY(t, "gen %d: %" PRIu64 "/%" PRIu64 " games, %.1f games/s, ETA %.0f s", gen, done, w.games, rate,
                rate > 0 ? (double)(w.games - done) / rate : 0.0);
            last_progress = now;
        }
    }
    double t_play = cli_now();
    /* reduce: rack accumulators, SPV cells and totals in one buffer, one
     * Allreduce, exact integer sums */
    GenerationTotals tot = w.totals;
    int64_t *tot_arr = t->reduce_buf + t->reduce_words - GENERATION_TOTALS_FIELDS;
    int64_t mine[GENERATION_TOTALS_FIELDS] = {tot.games,     tot.turns,      tot.observations, tot.bingos,
                                              tot.score_sum, tot.equity_sum, 0,                0};
    memcpy(tot_arr, mine, sizeof mine);
    if (comm_sum_i64(&t->comm, t->reduce_buf, t->reduce_words, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    tot = (GenerationTotals){tot_arr[0], tot_arr[1], tot_arr[2], tot_arr[3], tot_arr[4], tot_arr[5], 0, 0};
    if (t->cfg.nn_shards && write_shards(t, gen) != 0) return 1;
    double t_reduce = cli_now();
    int frc = forced_racks(t, &w, gen, &tot);
    if (frc != 0) return frc;
    double t_forced = cli_now(); /* forced games count as play time */
    /* derive: every rank the same, from the same sums */
    DeriveInfo info;
    DeriveOptions dopt = {.shrink = t->cfg.shrink};
    if (derive_leaves_opt(&t->deriver, &t->acc, NULL, &dopt, t->new_values, t->klv.count, &info, &err) != 0) {
        fprintf(stderr, "rookery: derive: %s\n", err.msg);
        return 1;
    }
    double change_rms = 0.0;
    if (rep.leaves_trained) {
        double sq = 0;
        for (uint32_t i = 0; i < t->klv.count; i++) {
            double d = (double)t->new_values[i] - (double)t->klv.values[i];
            sq += d * d;
        }
        change_rms = t->klv.count ? sqrt(sq / t->klv.count) : 0.0;
        klv_set_values(&t->klv, t->new_values);
    }
    if (rep.spv_trained) {
        SpvDeriveOptions sopt = {.prior_mean = t->cfg.spv_prior_mean, .prior_var = t->cfg.spv_prior_var};
        if (spv_derive(&t->spv_acc, &sopt, &t->new_spv, &rep.spv_info, &err) != 0) {
            fprintf(stderr, "rookery: spv: %s\n", err.msg);
            return 1;
        }
        spv_replace(&t->spv, &t->new_spv);
    }
    double t_derive = cli_now();
    rep.tot = tot;
    rep.info = info;
    rep.change_rms = change_rms;
    if (heldout_residuals(t, gen, &rep.heldout) != 0 || evaluation_matches(t, &rep) != 0) return 1;
    if (t->have_model && nn_generation(t, gen) != 0) return 1;
    MatchResult match = rep.match;
    double t_match = cli_now(); /* evaluation, not part of the generation's overhead */
    /* write: rank 0, then everyone learns whether it worked */
    int status = 0;
    GenTimes tm = {t_play - t0 + (t_forced - t_reduce), t_reduce - t_play, t_derive - t_forced, 0, 0};
    if (t->comm.rank == 0) {
        tm.wall = cli_now() - t0;
        if (write_generation(t, gen, &rep, &tm, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        }
    }
    if (agree(t, status) != 0) return 1;
    tm.write = cli_now() - t_match; /* as every rank saw it */
    t->last_play = tm.play;
    t->last_overhead = tm.reduce + tm.derive + tm.write;
    t->last_wall = tm.wall;
    t->last_games = tot.games;
    SAY(t,
        "gen %d done: %" PRId64 " games, %" PRId64 " turns, %.1f games/s; mean best equity %.3f; racks observed "
        "%" PRIu64 "; leave change rms %.4f; vs zero leaves %.1f%% +/- %.1f; play %.2f s, reduce %.2f s, "
        "derive %.2f s, evaluate %.2f s, write %.2f s",
        gen, tot.games, tot.turns, (double)tot.games / tm.play,
        tot.observations ? (double)tot.equity_sum / 1000.0 / (double)tot.observations : 0.0, info.racks_observed,
        change_rms, match.win_pct, match.ci95_pct, tm.play, tm.reduce, tm.derive, t_match - t_derive, tm.write);
    if (t->spv_on) {
        char mult[SPV_MAX_OPENNESS * 8 + 1] = "";
        for (uint32_t o = 0, off = 0; o < t->new_spv.num_openness; o++)
            off += (uint32_t)snprintf(mult + off, sizeof mult - off, "%s%.2f", o ? " " : "", t->new_spv.openness[o]);
        SAY(t,
            "gen %d spv: %s; %u cells observed, %" PRIu64 " tile observations, mean |adj| %.3f; priors of "
            "1-point tiles: mean %.3g, var %.3g; openness multipliers %s; held-out residual "
            "variance %.1f -> %.1f with SPV (%" PRId64 " moves); SPV on vs off %.1f%% +/- %.1f (%" PRIu64 " pairs)",
            gen, rep.spv_trained ? "derived" : "kept", rep.spv_info.cells_observed, rep.spv_info.observations,
            rep.spv_info.mean_abs, rep.spv_info.prior_mean[1], rep.spv_info.prior_var[1], mult,
            residual_stats_variance(&rep.heldout, false),
            residual_stats_variance(&rep.heldout, true), rep.heldout.moves, rep.spv_match.win_pct,
            rep.spv_match.ci95_pct, rep.spv_match_pairs);
    }
    return 0;
}

/* The SPV table in force: the last complete generation's positional.spv
 * (a zero table if that generation has none: a run from before SPV), or
 * spv.initial. It must have the board's squares, SPV_DEFAULT_BUCKETS buckets
 * and a variance table; its multipliers are kept if it has
 * SPV_DEFAULT_OPENNESS of them (else they start at 1). */
static int load_spv(Trainer *t, int latest, RkError *err) {
    char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    const char *src = NULL;
    if (latest >= 0) {
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/positional.spv", dir);
        if (access(path, F_OK) == 0) src = path;
    } else if (strcmp(t->cfg.spv_initial, "zero") != 0) {
        src = t->cfg.spv_initial;
    }
    uint32_t squares = (uint32_t)(t->engine.layout.dim * t->engine.layout.dim);
    if (spv_init_zero(&t->spv, squares, SPV_DEFAULT_BUCKETS, SPV_DEFAULT_OPENNESS, true, err) != 0) return -1;
    if (src == NULL) return 0;
    Spv in;
    if (spv_load(&in, src, err) != 0) return -1;
    int rc = spv_check_board(&in, t->engine.layout.dim, src, err);
    if (rc == 0 && in.num_buckets != SPV_DEFAULT_BUCKETS)
        rc = rk_error(err, "%s: %u buckets; training uses %d (face values 0..10)", src, in.num_buckets,
                      SPV_DEFAULT_BUCKETS);
    if (rc == 0) {
        size_t cells = (size_t)squares * SPV_DEFAULT_BUCKETS;
        memcpy(t->spv.mean, in.mean, cells * sizeof(float));
        if (in.var) memcpy(t->spv.var, in.var, cells * sizeof(float));
        if (in.num_openness == SPV_DEFAULT_OPENNESS) memcpy(t->spv.openness, in.openness, sizeof in.openness);
    }
    spv_free(&in);
    return rc;
}

/* The model in force: the last complete generation's model.h5, else a new
 * one of the configured architecture (seeded from the run seed). A loaded
 * model keeps its own architecture. */
static int setup_model(Trainer *t, int latest, RkError *err) {
    if (!t->cfg.nn_shards) return rk_error(err, "nn.train = yes needs nn.shards = yes (the trainer learns from shards)");
    nn_feature_context(&t->nn_fc, &t->engine.ld, &t->engine.layout, &t->engine.kwg);
    char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    path[0] = 0;
    if (latest >= 0) {
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/model.h5", dir);
        if (access(path, F_OK) != 0) path[0] = 0;
    }
    int rc = path[0] ? nn_model_load(&t->model, path, &t->engine.ld, t->engine.layout.dim, err)
                     : nn_model_init(&t->model, &t->cfg.nn_arch, &t->engine.ld, t->engine.layout.dim,
                                     t->cfg.seed ^ UINT64_C(0x6d6f64656c), err);
    if (rc != 0) return -1;
    t->have_model = true;
    if (path[0])
        SAY(t, "model: %s (step %" PRId64 ", %zu parameters)", path, t->model.train_step, t->model.params.total);
    else
        SAY(t, "model: new, %d channels x %d blocks, embed %d, heads %d, H %d tile(s) a step (%zu parameters)",
            t->model.arch.channels, t->model.arch.blocks, t->model.arch.embed, t->model.arch.head_hidden,
            t->model.arch.h_tiles, t->model.params.total);
    return 0;
}

/* Loads everything every rank needs; returns 0 or an exit code. */
static int setup(Trainer *t, int *start_gen) {
    RkError err;
    if (engine_open(&t->engine, t->cfg.ld, t->cfg.layout,
                    strchr(t->cfg.lexicon, '/') || strstr(t->cfg.lexicon, ".kwg") ? t->cfg.lexicon : NULL,
                    t->cfg.lexicon) != 0)
        return 2;
    double t0 = cli_now();
    if (racktable_build(&t->racks, &t->engine.ld, RK_RACK_SIZE, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    t->spv_on = t->cfg.spv_schedule != SPV_SCHEDULE_OFF;
    int dim = t->engine.layout.dim;
    uint32_t squares = (uint32_t)(dim * dim);
    size_t racks_words = 2 * (size_t)t->racks.num_racks;
    size_t spv_words =
        t->spv_on ? spv_accum_words(SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, squares, SPV_DEFAULT_BUCKETS) : 0;
    t->reduce_words = racks_words + spv_words + GENERATION_TOTALS_FIELDS;
    t->reduce_buf = calloc(t->reduce_words, sizeof t->reduce_buf[0]);
    t->res = malloc(sizeof *t->res);
    if (t->reduce_buf == NULL || t->res == NULL) {
        fprintf(stderr, "rookery: out of memory for the accumulators (%zu words)\n", t->reduce_words);
        return 1;
    }
    rack_accum_init_in(&t->acc, t->racks.num_racks, t->reduce_buf);
    if (t->spv_on &&
        (spv_accum_init(&t->spv_acc, SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, squares, SPV_DEFAULT_BUCKETS,
                        t->reduce_buf + racks_words, &err) != 0 ||
         spv_init_zero(&t->new_spv, squares, SPV_DEFAULT_BUCKETS, SPV_DEFAULT_OPENNESS, true, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    /* the leaves in force: the last complete generation's, or the initial ones */
    int latest = -1;
    if (t->comm.rank == 0) {
        latest = rundir_latest(t->cfg.output, &err);
        if (latest == -2) {
            fprintf(stderr, "rookery: %s\n", err.msg);
        } else if (latest >= 0 && rundir_verify_generation(t->cfg.output, latest, &err) != 0) {
            fprintf(stderr, "rookery: cannot resume: %s\n", err.msg);
            latest = -2;
        }
    }
    if (comm_bcast(&t->comm, &latest, sizeof latest, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    if (latest == -2) return 2;
    int rc = 0;
    if (latest >= 0) {
        char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/leaves.klv2", dir);
        rc = klv_load(&t->klv, path, &t->engine.ld, &err);
        SAY(t, "resuming %s from gen-%04d (verified)", t->cfg.output, latest);
    } else if (strcmp(t->cfg.initial_leaves, "zero") == 0) {
        rc = klv_init_zero(&t->klv, &t->engine.ld, &err);
    } else {
        rc = klv_load(&t->klv, t->cfg.initial_leaves, &t->engine.ld, &err);
    }
    if (agree(t, rc != 0) != 0) {
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    if (t->spv_on) {
        rc = load_spv(t, latest, &err);
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        if (agree(t, rc != 0) != 0) return 2;
    }
    rc = leave_deriver_init(&t->deriver, &t->racks, &t->klv.kwg, &err);
    if (rc != 0) fprintf(stderr, "rookery: leaves: %s\n", err.msg);
    if (agree(t, rc != 0) != 0) return 2;
    if (strcmp(t->cfg.player, "static") != 0) {
        rc = player_open(&t->player, t->cfg.player, &t->engine.ld, &err);
        if (rc != 0) fprintf(stderr, "rookery: run.player: %s\n", err.msg);
        t->have_player = rc == 0; /* closed at exit even if another rank failed */
        if (agree(t, rc != 0) != 0) return 2;
        if (t->player.leaves == NULL && t->player.dyn == NULL) { /* the leaves in force */
            t->player.leaves = &t->klv;
            t->player_borrows = true;
        }
    }
    if (t->cfg.nn_train) {
        rc = setup_model(t, latest, &err);
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        if (agree(t, rc != 0) != 0) return 2;
    }
    shardset_init(&t->samples);
    samples_init(&t->recorder, &t->samples, t->cfg.nn_temperature, t->cfg.nn_top, klv_leave_value, &t->klv);
    t->new_values = malloc(t->klv.count * sizeof(float));
    t->game = malloc(sizeof *t->game);
    if (!t->new_values || !t->game) {
        fprintf(stderr, "rookery: out of memory\n");
        return 1;
    }
    if (latest < 0) {
        int status = 0;
        if (t->comm.rank == 0 && write_generation0(t, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        }
        if (agree(t, status) != 0) return 1;
        latest = 0;
        SAY(t, "new run %s: gen-0000 written (%s leaves)", t->cfg.output, t->cfg.initial_leaves);
    }
    SAY(t, "%d rank(s); %" PRIu64 " racks, %u leaves; setup %.2f s", t->comm.size, t->racks.num_racks,
        t->klv.count, cli_now() - t0);
    *start_gen = latest + 1;
    return 0;
}

int cmd_train(int argc, char **argv) {
    Trainer *t = calloc(1, sizeof *t);
    if (t == NULL) return 1;
    RkError err;
    train_config_defaults(&t->cfg);
    const char *config_path = NULL, *run_dir = NULL;
    /* --set overrides are applied after the config file */
    const char *sets[64];
    int nsets = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            free(t);
            return 0;
        } else if (strcmp(a, "--bench") == 0) {
            t->bench = true;
        } else if (strcmp(a, "--print-default-config") == 0) {
            fputs(TRAIN_DEFAULT_CONFIG, stdout);
            free(t);
            return 0;
        } else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
        } else if (strcmp(a, "--run") == 0 && i + 1 < argc) {
            run_dir = argv[++i];
        } else if (strcmp(a, "--set") == 0 && i + 1 < argc && nsets < 64) {
            sets[nsets++] = argv[++i];
        } else {
            fprintf(stderr, "rookery train: unknown or incomplete option '%s' (see --help)\n", a);
            free(t);
            return 2;
        }
    }
    if (comm_init(&t->comm, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        free(t);
        return 2;
    }
    int rc = 0;
    /* the run directory: --run, else the config's */
    if (config_path != NULL && train_config_load(&t->cfg, config_path, &err) != 0) rc = 2;
    if (rc == 0 && run_dir != NULL) rc = train_config_set(&t->cfg, "run.output", run_dir, &err) != 0 ? 2 : 0;
    if (rc == 0) {
        /* an existing run keeps its own config.ini */
        char path[RUNDIR_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/config.ini", t->cfg.output);
        if (access(path, F_OK) == 0) {
            char output[TRAIN_PATH_MAX];
            snprintf(output, sizeof output, "%s", t->cfg.output);
            train_config_defaults(&t->cfg);
            if (train_config_load(&t->cfg, path, &err) != 0) rc = 2;
            snprintf(t->cfg.output, sizeof t->cfg.output, "%s", output);
        }
    }
    for (int i = 0; rc == 0 && i < nsets; i++) {
        char key[256];
        const char *eq = strchr(sets[i], '=');
        if (eq == NULL || (size_t)(eq - sets[i]) >= sizeof key) {
            rk_error(&err, "--set %s: expected section.key=value", sets[i]);
            rc = 2;
            break;
        }
        memcpy(key, sets[i], (size_t)(eq - sets[i]));
        key[eq - sets[i]] = '\0';
        if (train_config_set(&t->cfg, key, eq + 1, &err) != 0) rc = 2;
    }
    if (rc != 0) {
        if (t->comm.rank == 0) fprintf(stderr, "rookery: %s\n", err.msg);
        comm_finalize(&t->comm);
        free(t);
        return rc;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    int start = 1;
    rc = setup(t, &start);
    if (rc == 0 && t->bench) t->cfg.generations = start; /* exactly one more generation */
    if (rc == 0 && start > t->cfg.generations)
        SAY(t, "nothing to do: gen-%04d reached (run.generations = %d)", start - 1, t->cfg.generations);
    for (int gen = start; rc == 0 && gen <= t->cfg.generations; gen++) rc = run_generation(t, gen);
    if (rc == 0) SAY(t, "done: %s/LATEST = gen-%04d", t->cfg.output, t->cfg.generations);
    if (rc == 0 && t->bench) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        int64_t rss_kb = comm_max_i64(&t->comm, ru.ru_maxrss);
        if (t->comm.rank == 0)
            printf("bench train: gen %d, %" PRId64 " games on %d rank(s): %.1f games/s (%.1f per rank); "
                   "wall %.2f s, of which reduce+derive+write %.2f s = %.1f%%; peak RSS %.0f MB (max over ranks)\n",
                   t->cfg.generations, t->last_games, t->comm.size, (double)t->last_games / t->last_play,
                   (double)t->last_games / t->last_play / t->comm.size, t->last_wall, t->last_overhead,
                   100.0 * t->last_overhead / t->last_wall, (double)rss_kb / 1024.0);
    }
    free(t->game);
    samples_free(&t->recorder);
    shardset_free(&t->samples);
    if (t->have_model) nn_model_free(&t->model);
    free(t->new_values);
    leave_deriver_free(&t->deriver);
    rack_accum_free(&t->acc);
    if (t->have_player) {
        if (t->player_borrows) t->player.leaves = NULL;
        player_close(&t->player);
    }
    spv_accum_free(&t->spv_acc);
    spv_free(&t->spv);
    spv_free(&t->new_spv);
    free(t->reduce_buf);
    free(t->res);
    if (t->delta.n) rack_accum_free(&t->delta);
    klv_free(&t->klv);
    racktable_free(&t->racks);
    engine_close(&t->engine);
    comm_finalize(&t->comm);
    free(t);
    return rc;
}
