/* rookery train: the generational training loop, under MPI.
 *
 * A generation = play (every rank its share of the games) -> reduce (one
 * Allreduce of the integer accumulators: rack equities, SPV cells, totals)
 * -> derive (every rank computes the same leaves and SPV table from the same
 * sums) -> evaluate (held-out residuals, matches) -> write (rank 0:
 * gen-NNNN.tmp, then rename) -> every rank plays the next generation with
 * the new tables.
 *
 * Signals: SIGTERM, SIGINT and SIGUSR1 set a flag; every CHECK_ROUNDS games a rank
 * the ranks take the maximum of their flags, so all of them stop together,
 * discard the generation in flight and exit with TRAIN_EXIT_STOPPED. The flag
 * is the one piece of file-scope mutable state in rookery: a signal handler
 * can reach nothing else. */
#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <dirent.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "core/atomicfile.h"
#include "core/sha256.h"
#include "core/textfile.h"
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
#include "nn/blas_core.h"
#include "nn/model_io.h"
#include "worker/generation.h"
#include "worker/match.h"
#include "worker/train_config.h"
#include "train.h"

#define TRAIN_EXIT_STOPPED 3
#define CHECK_ROUNDS 32

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

void train_timestamp(char *buf, size_t cap) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
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
            "If RUN already holds generations, its config.ini is used (or --config, plus --set), the\n"
            "last complete generation is verified whole against its manifest (and the lexicon\n"
            "against its checksum), and training continues. A resume may not change the seed,\n"
            "player, lexicon, starting points, network shape or held-out split (exit 2 naming the\n"
            "key); other changes are written into RUN/config.ini and the log. Each generation\n"
            "keeps its configuration (gen-NNNN/config.ini). Rank 0 holds RUN/.lock: a second\n"
            "training on RUN exits 2 naming the holder.\n"
            "With run.keep = N, generations older than the newest N keep only their manifest and\n"
            "metrics row (not the shards of nn.window or the model in force; run.keep_every = M\n"
            "keeps every M-th whole).\n"
            "  --run DIR      the run directory (overrides run.output)\n"
            "  --set K=V      override one key, e.g. --set run.generations=10\n"
            "  --check        set up everything a run needs (config, lexicon, leaves, players, the\n"
            "                 model, nn.initial, nn.reference, the anchor; a resumed run's last\n"
            "                 generation verified), say what the run would do, and stop without\n"
            "                 writing or playing anything: for a login node before sbatch\n"
            "Exit codes: 0 done, 1 runtime failure, 2 bad input, 3 stopped by SIGTERM/SIGINT/SIGUSR1\n"
            "(the generation in flight is discarded; run the same command to resume).\n");
}

/* --------------------------------------------- self-play threads (run.threads) */

static int helpers_init(Trainer *t) {
    int n = t->cfg.threads - 1;
    if (n <= 0) return 0;
    t->helpers = calloc((size_t)n, sizeof *t->helpers);
    if (t->helpers == NULL) return 1;
    for (int j = 0; j < n; j++) {
        TrainHelper *h = &t->helpers[j];
        shardset_init(&h->samples);
        samples_init(&h->recorder, &h->samples, t->cfg.nn_temperature, t->cfg.nn_top, klv_leave_value, &t->klv);
    }
    return 0;
}

static void helpers_free(Trainer *t) {
    if (t->helpers == NULL) return;
    for (int j = 0; j < t->cfg.threads - 1; j++) {
        TrainHelper *h = &t->helpers[j];
        if (h->have_player) player_close(&h->player);
        samples_free(&h->recorder);
        shardset_free(&h->samples);
    }
    free(t->helpers);
    t->helpers = NULL;
}

int train_player_open(Trainer *t, Player *p, const char *spec, RkError *err) {
    if (player_open(p, spec, &t->engine.ld, err) != 0) return -1;
    if (player_check_board(p, t->engine.layout.dim, err) != 0) {
        player_close(p);
        return -1;
    }
    player_lend_leaves(p, &t->klv);
    return 0;
}

int train_open_helper_players(Trainer *t, const char *spec) {
    for (int j = 0; j < t->cfg.threads - 1; j++) {
        TrainHelper *h = &t->helpers[j];
        if (h->have_player) player_close(&h->player);
        RkError err;
        h->have_player = train_player_open(t, &h->player, spec, &err) == 0;
        if (!h->have_player) {
            fprintf(stderr, "rookery: rank %d: player of thread %d: %s\n", t->comm.rank, j + 1, err.msg);
            return 1;
        }
    }
    return 0;
}

/* The helper threads' totals into *tot and their samples into t->samples
 * (sorted by game and turn when they are written). */
static void merge_helpers(Trainer *t, const GenerationWorker *ws, int threads, GenerationTotals *tot) {
    for (int j = 1; j < threads; j++) {
        const GenerationTotals *h = &ws[j].totals;
        tot->games += h->games;
        tot->turns += h->turns;
        tot->observations += h->observations;
        tot->bingos += h->bingos;
        tot->score_sum += h->score_sum;
        tot->equity_sum += h->equity_sum;
        tot->sampled_observations += h->sampled_observations;
        shardset_append(&t->samples, &t->helpers[j - 1].samples);
    }
}

/* The forced-rack phase (generation_play_forced): batches of forced games
 * until every rack has the generation's minimum count or the cap on forced
 * games is reached. t->acc holds the summed accumulators on entry and on
 * exit. Returns 0, TRAIN_EXIT_STOPPED or 1. */
static int forced_racks(Trainer *t, GenerationWorker *w, int gen, GenerationTotals *tot) {
    uint32_t min = train_config_min_count(&t->cfg, gen);
    if (min == 0 || t->cfg.max_forced_games == 0) return 0;
    RkError err;
    int failed = t->delta.n == 0 && rack_accum_init(&t->delta, t->racks.num_racks, &err) != 0;
    if (failed) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
    if (agree(t, failed) != 0) return 1;
    uint64_t done = 0;
    GenerationTotals before = w->totals;
    w->totals.forced_games = w->totals.forced_observations = 0;
    w->acc = &t->delta;
    int rc = 0;
    while (rc == 0 && done < t->cfg.max_forced_games) {
        ForcedTasks ft;
        failed = forced_tasks_build(&ft, &t->acc, min, &err) != 0; /* the same on every rank, but for memory */
        if (failed) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
        if (agree(t, failed) != 0) {
            if (!failed) forced_tasks_free(&ft);
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

/* run.keep: removes the bulky files of generations older than the newest
 * run.keep, but never what the generation after `gen` reads (the trainer's
 * window of shards, the model in force). Rank 0, at start-up (so that a
 * finished run can be pruned) and after each generation is committed; a
 * failure is reported and the run goes on (the snapshot is complete). */
static void prune_old_generations(Trainer *t, int gen) {
    if (t->cfg.keep <= 0) return;
    RunKeep keep = {.newest = t->cfg.keep,
                    .every = t->cfg.keep_every,
                    .shards_from = t->cfg.nn_train ? gen + 2 - t->cfg.nn_window : INT_MAX,
                    .model_gen = t->model_in_force};
    int files = 0;
    uint64_t bytes = 0;
    RkError err;
    int rc = rundir_prune(t->cfg.output, gen, &keep, &files, &bytes, &err);
    if (rc != 0) fprintf(stderr, "rookery: warning: %s\n", err.msg);
    if (files > 0)
        SAY(t, "run.keep = %d after gen %d: removed %d file(s) of older generations, %.1f MB", t->cfg.keep, gen,
            files, (double)bytes / 1e6);
}

/* A stop check between the stages that follow a generation's games (each
 * can take minutes: the network's training, the gate, the anchor, the
 * studies): TRAIN_EXIT_STOPPED, the generation discarded, if any rank was
 * asked to stop; else 0. */
static int stop_point(Trainer *t, int gen, const char *next) {
    if (agree(t, stop_requested ? 1 : 0) == 0) return 0;
    SAY(t, "stop requested: generation %d discarded before %s; rerun to resume", gen, next);
    return TRAIN_EXIT_STOPPED;
}

/* The stages after a generation's games and derivation, each after a stop
 * check: 0, TRAIN_EXIT_STOPPED or 1. */
static int evaluate_generation(Trainer *t, int gen, GenReport *rep) {
    int rc;
    if ((rc = stop_point(t, gen, "its held-out games")) != 0) return rc;
    if (train_heldout_residuals(t, gen, &rep->heldout) != 0) return 1;
    if ((rc = stop_point(t, gen, "its evaluation matches")) != 0) return rc;
    if (train_evaluation_matches(t, rep) != 0) return 1;
    if (t->have_model) {
        if ((rc = stop_point(t, gen, "the network's training")) != 0) return rc;
        if (train_nn_generation(t, gen) != 0) return 1;
    }
    if (!t->mcgs_loop) return 0;
    if ((rc = stop_point(t, gen, "the gate")) != 0) return rc;
    if (train_search_gate(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the value check")) != 0) return rc;
    if (train_search_value_check(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the anchor's match")) != 0) return rc;
    if (train_search_anchor(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the decision study")) != 0) return rc;
    return train_search_decisions(t, gen, rep) != 0 ? 1 : 0;
}

/* Plays generation gen; returns 0 done, TRAIN_EXIT_STOPPED, or 1 (error). */
static int run_generation(Trainer *t, int gen) {
    RkError err;
    double t0 = cli_now();
    GenReport rep;
    memset(&rep, 0, sizeof rep);
    rep.leaves_trained = train_config_leaves_train(&t->cfg, gen);
    rep.spv_trained = t->spv_on && train_config_spv_trains(&t->cfg, gen);
    if (train_search_begin_generation(t) != 0) return 1;
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
                          .sampled_racks = t->cfg.sampled_racks,
                          .rank = t->comm.rank,
                          .nranks = t->comm.size,
                          .acc = &t->acc,
                          .spv_acc = rep.spv_trained ? &t->spv_acc : NULL,
                          .res = t->res,
                          .spv_target = t->cfg.spv_target,
                          .samples = t->cfg.nn_shards ? &t->recorder : NULL,
                          .game = t->game};
    /* the static player's k best moves a turn are the shard sampler's
     * targets too (the same leaves: klv_leave_value of t->klv) */
    if (w.samples != NULL) play.top_list = samples_shared_top(w.samples, &play.top_k);
    /* the other threads' workers: the same, with their own state */
    const int threads = t->cfg.threads;
    GenerationWorker ws[GENERATION_MAX_THREADS];
    SelfplayConfig plays[GENERATION_MAX_THREADS];
    for (int j = 1; j < threads; j++) {
        TrainHelper *h = &t->helpers[j - 1];
        plays[j] = play;
        plays[j].player = h->have_player ? &h->player : NULL;
        ws[j] = w;
        ws[j].play = &plays[j];
        ws[j].res = &h->res;
        ws[j].samples = t->cfg.nn_shards ? &h->recorder : NULL;
        plays[j].top_list = ws[j].samples != NULL ? samples_shared_top(ws[j].samples, &plays[j].top_k) : NULL;
        ws[j].game = &h->game;
        shardset_clear(&h->samples);
    }
    shardset_clear(&t->samples);
    memset(&t->shard_files, 0, sizeof t->shard_files);
    memset(&t->nn_rep, 0, sizeof t->nn_rep);
    memset(&t->ref_eval, 0, sizeof t->ref_eval);
    t->gen_begun = t->nn_trained = false;
    t->ref_gen = 0;
    uint64_t rounds = generation_rounds(w.games, w.nranks, threads);
    /* about CHECK_ROUNDS games a rank between the stop checks, whatever the threads */
    uint64_t check_every = CHECK_ROUNDS / generation_block(threads);
    if (check_every == 0) check_every = 1;
    double last_progress = t0;
    ws[0] = w; /* w again after the rounds, with its totals */
    for (uint64_t r = 0; r < rounds; r++) {
        int status = generation_play_round(ws, threads, r, &err) == 0 ? 0 : 1;
        if (status) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
        if ((r + 1) % check_every == 0 || r + 1 == rounds || status) {
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
            uint64_t done = (r + 1) * (uint64_t)w.nranks * generation_block(threads);
            if (done > w.games) done = w.games;
            double rate = (double)done / (now - t0);
            SAY(t, "gen %d: %" PRIu64 "/%" PRIu64 " games, %.1f games/s, ETA %.0f s", gen, done, w.games, rate,
                rate > 0 ? (double)(w.games - done) / rate : 0.0);
            last_progress = now;
        }
    }
    double t_play = cli_now();
    w = ws[0];
    merge_helpers(t, ws, threads, &w.totals);
    /* reduce: rack accumulators, SPV cells and totals in one buffer, one
     * Allreduce, exact integer sums */
    GenerationTotals tot = w.totals;
    int64_t *tot_arr = t->reduce_buf + t->reduce_words - GENERATION_TOTALS_FIELDS;
    int64_t mine[GENERATION_TOTALS_FIELDS] = {tot.games,     tot.turns,      tot.observations, tot.bingos,
                                              tot.score_sum, tot.equity_sum, 0,                0,
                                              tot.sampled_observations};
    memcpy(tot_arr, mine, sizeof mine);
    if (comm_sum_i64(&t->comm, t->reduce_buf, t->reduce_words, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    tot = (GenerationTotals){tot_arr[0], tot_arr[1], tot_arr[2], tot_arr[3], tot_arr[4], tot_arr[5], 0, 0, tot_arr[8]};
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
    int erc = evaluate_generation(t, gen, &rep);
    if (erc != 0) return erc;
    MatchResult match = rep.match;
    double t_match = cli_now(); /* evaluation, not part of the generation's overhead */
    /* write: rank 0, then everyone learns whether it worked */
    int status = 0;
    GenTimes tm = {t_play - t0 + (t_forced - t_reduce), t_reduce - t_play, t_derive - t_forced, 0, 0};
    if (t->comm.rank == 0) {
        tm.wall = cli_now() - t0;
        if (train_write_generation(t, gen, &rep, &tm, &err) != 0) {
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
    char sampled[48] = ""; /* only when there are some (leaves.sampled_racks) */
    if (tot.sampled_observations > 0)
        snprintf(sampled, sizeof sampled, "sampled racks %" PRId64 "; ", tot.sampled_observations);
    SAY(t,
        "gen %d done: %" PRId64 " games, %" PRId64 " turns, %.1f games/s; mean best equity %.3f; %sracks observed "
        "%" PRIu64 "; leave change rms %.4f; vs zero leaves %.1f%% +/- %.1f; play %.2f s, reduce %.2f s, "
        "derive %.2f s, evaluate %.2f s, write %.2f s",
        gen, tot.games, tot.turns, (double)tot.games / tm.play,
        tot.observations ? (double)tot.equity_sum / 1000.0 / (double)tot.observations : 0.0, sampled,
        info.racks_observed,
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
    if (t->comm.rank == 0) prune_old_generations(t, gen);
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

/* The model the trainer continues: the last complete generation's model.h5
 * (gen-0000's is nn.initial's copy), else nn.initial's for a new run, else a
 * new one of the configured architecture (seeded from the run seed). A loaded
 * model keeps its own architecture. */
static int setup_model(Trainer *t, int latest, RkError *err) {
    if (!t->cfg.nn_shards) return rk_error(err, "nn.train = yes needs nn.shards = yes (the trainer learns from shards)");
    nn_feature_context(&t->nn_fc, &t->engine.ld, &t->engine.layout, &t->engine.kwg);
    nn_feature_context_leaves(&t->nn_fc, klv_leave_value, &t->klv); /* the leaves in force, for nn.prior = equity */
    char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    path[0] = 0;
    if (latest >= 0) {
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/model.h5", dir);
        if (access(path, F_OK) != 0) path[0] = 0;
    }
    bool initial = latest < 0 && t->cfg.nn_initial[0];
    if (initial) snprintf(path, sizeof path, "%s", t->cfg.nn_initial);
    int rc = path[0] ? nn_model_load(&t->model, path, &t->engine.ld, t->engine.layout.dim, err)
                     : nn_model_init(&t->model, &t->cfg.nn_arch, &t->engine.ld, t->engine.layout.dim,
                                     t->cfg.seed ^ UINT64_C(0x6d6f64656c), err);
    if (rc != 0) return -1;
    t->have_model = true;
    NnLossOptions lo = train_config_loss_options(&t->cfg);
    if (nn_loss_options_check(&lo, &t->model, err) != 0) return -1; /* before any game is played */
    char ref_run[TRAIN_PATH_MAX];
    int ref_gen = t->cfg.nn_reference[0] ? train_reference_of(t->cfg.nn_reference, ref_run, sizeof ref_run, err) : 0;
    if (ref_gen < 0) return -1;
    if (ref_gen > 0) { /* the leaves its games were played with, which its scores need */
        char ref_dir[RUNDIR_PATH_MAX], leaves[RUNDIR_PATH_MAX + 16];
        rundir_gen_path(ref_run, ref_gen - 1, false, ref_dir, sizeof ref_dir);
        snprintf(leaves, sizeof leaves, "%s/leaves.klv2", ref_dir);
        if (access(leaves, R_OK) != 0)
            return rk_error(err, "nn.reference %s: %s, the leaves its games were played with, is missing (pruned by "
                                 "run.keep?)", t->cfg.nn_reference, leaves);
    }
    if (initial)
        SAY(t, "model: starts from nn.initial = %s (step %" PRId64 ", %d channels x %d blocks, prior %s, %zu "
               "parameters; it guides the search once a model trained from it wins its gate)",
            path, t->model.train_step, t->model.arch.channels, t->model.arch.blocks,
            t->model.arch.prior_equity ? "equity" : "score", t->model.params.total);
    else if (path[0])
        SAY(t, "model: %s (step %" PRId64 ", %zu parameters)%s", path, t->model.train_step, t->model.params.total,
            t->cfg.nn_initial[0] ? "; nn.initial applies to a new run only" : "");
    else
        SAY(t, "model: new, %d channels x %d blocks, embed %d, heads %d, H %d tile(s) a step (%zu parameters)%s",
            t->model.arch.channels, t->model.arch.blocks, t->model.arch.embed, t->model.arch.head_hidden,
            t->model.arch.h_tiles, t->model.params.total,
            t->cfg.nn_initial[0] ? "; nn.initial applies to a new run only" : "");
    return 0;
}

/* The set-up each rank does alone, before any collective: the engine, the
 * rack table and the accumulators. Returns 0 or an exit code. */
static int setup_alone(Trainer *t) {
    RkError err;
    if (engine_open(&t->engine, t->cfg.ld, t->cfg.layout,
                    strchr(t->cfg.lexicon, '/') || strstr(t->cfg.lexicon, ".kwg") ? t->cfg.lexicon : NULL,
                    t->cfg.lexicon) != 0)
        return 2;
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
    return 0;
}

/* --check: the run directory (or, for a new run, its nearest existing
 * parent) is writable and its file system has room for a generation: the
 * last one's size, or for a new run the tables (~45 MB for English) and
 * ~160 bytes a shard sample (25 a game), twice over for the temporary
 * copy. 0, or an error naming the directory and the numbers. */
static int check_room(const Trainer *t, int latest, RkError *err) {
    char dir[RUNDIR_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", t->cfg.output);
    while (access(dir, F_OK) != 0) { /* the nearest existing parent */
        char *slash = strrchr(dir, '/');
        if (slash == NULL) {
            snprintf(dir, sizeof dir, ".");
            break;
        }
        if (slash == dir) slash[1] = '\0';
        else *slash = '\0';
        if (slash == dir) break;
    }
    if (access(dir, W_OK) != 0) return rk_error(err, "%s: not writable (%s)", dir, strerror(errno));
    uint64_t need = 0;
    if (latest >= 0) {
        char gen[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, latest, false, gen, sizeof gen);
        DIR *d = opendir(gen);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[RUNDIR_PATH_MAX * 2];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", gen, e->d_name);
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) need += (uint64_t)st.st_size;
        }
        if (d != NULL) closedir(d);
    } else {
        need = 45u << 20;
        if (t->cfg.nn_shards) need += t->cfg.games_per_generation * 25u * 160u;
    }
    need *= 2;
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) return rk_error(err, "%s: %s", dir, strerror(errno));
    uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    if (avail < need)
        return rk_error(err, "%s: %.0f MB free, a generation needs about %.0f MB (with its temporary copy)", dir,
                        (double)avail / 1048576.0, (double)need / 1048576.0);
    return 0;
}

/* Rank 0 takes the run directory's lock (created if new) before anything in
 * it is written (the configuration was read before, and a resume's changes
 * are recorded once setup has verified the run): a second training on the
 * directory exits 2 naming the holder. --check only tries it (on an
 * existing directory) and lets go. Returns 0 or an exit code, on every
 * rank. */
static int lock_run(Trainer *t) {
    int status = 0;
    if (t->comm.rank == 0) {
        RkError err;
        char stale[256];
        const char *run = t->cfg.output;
        bool exists = access(run, F_OK) == 0;
        t->created_run = !exists && !t->check_only;
        if (t->created_run && rundir_mkdirs(run, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 2;
        } else if (exists || !t->check_only) {
            switch (rundir_lock(run, &t->run_lock, stale, sizeof stale, &err)) {
            case RUNDIR_LOCKED:
                if (stale[0])
                    SAY(t, "%s/.lock: took over the lock of a run that ended without letting go (%s)", run, stale);
                if (t->check_only) {
                    rundir_unlock(&t->run_lock);
                    SAY(t, "check: %s is not in use by another run", run);
                    if (t->config_changed) SAY(t, "check: would record in config.ini: %s", t->config_changes);
                }
                break;
            case RUNDIR_LOCK_UNSUPPORTED:
                fprintf(stderr, "rookery: warning: %s\n", err.msg);
                break;
            default:
                fprintf(stderr, "rookery: %s\n", err.msg);
                status = 2;
            }
        }
    }
    return agree(t, status) != 0 ? 2 : 0;
}

/* The lexicon in force is the one generation gen was made with: its sha256
 * against the manifest's (generations made before manifests kept it pass). */
static int same_lexicon(const Trainer *t, int gen, RkError *err) {
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64];
    rundir_gen_path(t->cfg.output, gen, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    char *json = rk_read_file(path, 1 << 20, NULL, err);
    if (json == NULL) return -1;
    const char *h = strstr(json, "\"lexicon_sha256\": \"");
    int rc = 0;
    if (h != NULL && strncmp(h + 19, t->lexicon_sha256, 64) != 0)
        rc = rk_error(err, "the lexicon %s (sha256 %.12s...) is not the one the run was made with (sha256 %.12s... in "
                           "%s): a changed or damaged word list",
                      t->engine.lexicon_path, t->lexicon_sha256, h + 19, path);
    free(json);
    return rc;
}

/* The shards the trainer will read besides the last generation's (the older
 * generations of nn.window) are verified before anything is played: a
 * damaged one used to be found only after a whole generation. */
static int window_shards_ok(const Trainer *t, int latest, RkError *err) {
    if (!t->cfg.nn_train) return 0;
    for (int g = latest - 1; g >= 1 && g > latest - t->cfg.nn_window; g--) {
        char dir[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, g, false, dir, sizeof dir);
        if (access(dir, F_OK) == 0 && rundir_verify_shards(t->cfg.output, g, err) != 0) return -1;
    }
    return 0;
}

/* Loads everything every rank needs; returns 0 or an exit code. A failure
 * on one rank (a file it cannot read, memory) stops every rank. */
static int setup(Trainer *t, int *start_gen) {
    double t0 = cli_now();
    int alone = setup_alone(t), worst = agree(t, alone);
    if (worst != 0) {
        if (alone == 0 && t->comm.rank == 0)
            fprintf(stderr, "rookery: another rank failed to set up (its own error is in the log)\n");
        return alone != 0 ? alone : worst;
    }
    RkError err;
    /* the leaves in force: the last complete generation's, or the initial ones */
    int latest = -1;
    if (t->comm.rank == 0) {
        latest = rundir_latest(t->cfg.output, &err);
        if (latest == -2) {
            fprintf(stderr, "rookery: %s\n", err.msg);
        } else if (sha256_file(t->engine.lexicon_path, t->lexicon_sha256, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            latest = -2;
        } else if (latest >= 0 && (rundir_verify_generation(t->cfg.output, latest, &err) != 0 ||
                                   same_lexicon(t, latest, &err) != 0 || window_shards_ok(t, latest, &err) != 0)) {
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
    if (helpers_init(t) != 0) {
        fprintf(stderr, "rookery: out of memory for %d self-play threads\n", t->cfg.threads);
        return 1;
    }
    if (strncmp(t->cfg.player, "mcgs", 4) == 0) {
        rc = train_search_setup(t, latest);
        if (rc != 0) return rc;
    } else if (strcmp(t->cfg.player, "static") != 0) {
        rc = train_player_open(t, &t->player, t->cfg.player, &err);
        if (rc != 0) fprintf(stderr, "rookery: run.player: %s\n", err.msg);
        t->have_player = rc == 0; /* closed at exit even if another rank failed */
        if (rc == 0) rc = train_open_helper_players(t, t->cfg.player);
        if (agree(t, rc != 0) != 0) return 2;
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
    bool no_memory = !t->new_values || !t->game;
    if (no_memory) fprintf(stderr, "rookery: rank %d: out of memory\n", t->comm.rank);
    if (agree(t, no_memory) != 0) return 1;
    if (t->check_only) {
        int bad = 0;
        if (t->comm.rank == 0 && check_room(t, latest, &err) != 0) {
            fprintf(stderr, "rookery: check: %s\n", err.msg);
            bad = 2;
        }
        if (agree(t, bad) != 0) return 2;
    }
    if (latest < 0 && t->check_only) {
        SAY(t, "check: a new run %s would start from %s leaves", t->cfg.output, t->cfg.initial_leaves);
    } else if (latest < 0) {
        int status = 0;
        if (t->comm.rank == 0 && train_write_generation0(t, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        }
        if (agree(t, status) != 0) return 1;
        latest = 0;
        SAY(t, "new run %s: gen-0000 written (%s leaves)", t->cfg.output, t->cfg.initial_leaves);
    }
    SAY(t, "%d rank(s); %" PRIu64 " racks, %u leaves; OpenBLAS core %s; setup %.2f s", t->comm.size,
        t->racks.num_racks, t->klv.count, blas_core_name(), cli_now() - t0);
    *start_gen = (latest < 0 ? 0 : latest) + 1;
    return 0;
}

/* Where key's new value came from, for the message. */
static const char *source_of(const char *key, const char *config_path, const char **sets, int nsets, char *buf,
                             size_t cap) {
    size_t n = strlen(key);
    for (int i = 0; i < nsets; i++)
        if (strncmp(sets[i], key, n) == 0 && sets[i][n] == '=') return "--set";
    if (config_path != NULL) {
        snprintf(buf, cap, "--config %s", config_path);
        return buf;
    }
    return "config.ini (edited?)";
}

/* The configuration in force (t->cfg, with --config already loaded and
 * run.output set): a new run's is --config (or the embedded default) plus
 * --set. A run that exists resumes only with its configuration on record:
 * RUN/config.ini is required; the candidate (--config FILE if given, else
 * RUN/config.ini, plus --set) is compared with the record (the last
 * generation's config.ini, or RUN/config.ini for runs made before
 * generations kept one): a key that cannot change mid-run
 * (train_config_differences) that differs is refused, naming it and where
 * the new value came from; keys that may change are applied, and
 * RUN/config.ini is rewritten once the run holds its lock. Returns 0 or 2. */
static int run_config(Trainer *t, const char *config_path, const char **sets, int nsets, RkError *err) {
    const char *run = t->cfg.output;
    char ini[RUNDIR_PATH_MAX + 16], rec_path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    snprintf(ini, sizeof ini, "%s/config.ini", run);
    RkError ignore;
    int latest = rundir_latest(run, &ignore);
    bool have_ini = access(ini, F_OK) == 0;
    if (latest == -1) { /* a new run (a config.ini without LATEST: a start that failed, overwritten) */
        for (int i = 0; i < nsets; i++)
            if (train_config_assign(&t->cfg, sets[i], err) != 0) return 2;
        return 0;
    }
    if (!have_ini) {
        rk_error(err, "%s holds generations but no config.ini: a run resumes only with its configuration on record "
                      "(restore it: each generation keeps the one it was made with, gen-NNNN/config.ini)", run);
        return 2;
    }
    snprintf(rec_path, sizeof rec_path, "%s", ini);
    if (latest >= 0) {
        rundir_gen_path(run, latest, false, dir, sizeof dir);
        char gen_ini[RUNDIR_PATH_MAX + 64];
        snprintf(gen_ini, sizeof gen_ini, "%s/config.ini", dir);
        if (access(gen_ini, F_OK) == 0) snprintf(rec_path, sizeof rec_path, "%s", gen_ini);
    }
    char output[TRAIN_PATH_MAX];
    snprintf(output, sizeof output, "%s", run);
    TrainConfig *rec = malloc(sizeof *rec);
    if (rec == NULL) {
        rk_error(err, "out of memory");
        return 2;
    }
    train_config_defaults(rec);
    int rc = train_config_load(rec, rec_path, err) != 0 ? 2 : 0;
    if (rc == 0 && config_path == NULL) {
        train_config_defaults(&t->cfg);
        if (train_config_load(&t->cfg, ini, err) != 0) rc = 2;
    }
    snprintf(t->cfg.output, sizeof t->cfg.output, "%s", output);
    snprintf(rec->output, sizeof rec->output, "%s", output);
    for (int i = 0; rc == 0 && i < nsets; i++)
        if (train_config_assign(&t->cfg, sets[i], err) != 0) rc = 2;
    int nd = rc == 0 ? train_config_differences(rec, &t->cfg, NULL, 0) : 0; /* how many */
    TrainConfigDiff *diff = nd > 0 ? malloc((size_t)nd * sizeof *diff) : NULL;
    if (nd < 0 || (nd > 0 && diff == NULL)) {
        rk_error(err, "%s: the configuration cannot be compared (too long, or out of memory)", run);
        rc = 2;
    } else if (nd > 0) {
        train_config_differences(rec, &t->cfg, diff, nd);
    }
    char from[TRAIN_PATH_MAX + 16];
    size_t off = 0;
    t->config_changes[0] = '\0';
    for (int i = 0; rc == 0 && i < nd; i++) {
        const TrainConfigDiff *d = &diff[i];
        if (!d->may_change) {
            rk_error(err, "%s: %s = %s in the run's record (%s), %s from %s: it cannot change mid-run (the seed, "
                          "player, lexicon, starting points, network shape and held-out split make the run); start "
                          "a new run from this one instead (leaves.initial, nn.initial)",
                     run, d->key, d->from, rec_path, d->to, source_of(d->key, config_path, sets, nsets, from, sizeof from));
            rc = 2;
            break;
        }
        if (strcmp(d->key, "run.output") == 0) continue; /* the directory's own name is not recorded as a change */
        t->config_changed = true;
        off += (size_t)snprintf(t->config_changes + off, sizeof t->config_changes - off, "%s%s %s -> %s",
                                off ? "; " : "", d->key, d->from, d->to);
        if (off >= sizeof t->config_changes) off = sizeof t->config_changes - 1;
    }
    free(diff);
    free(rec);
    return rc;
}

int cmd_train(int argc, char **argv) {
    Trainer *t = calloc(1, sizeof *t);
    if (t == NULL) return 1;
    t->run_lock.fd = -1;
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
        } else if (strcmp(a, "--check") == 0) {
            t->check_only = true;
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
    if (rc == 0) rc = run_config(t, config_path, sets, nsets, &err);
    if (rc == 0 && t->cfg.threads > 1 && !t->comm.threads_ok)
        rc = rk_error(&err, "run.threads = %d needs an MPI library that allows threads (MPI_THREAD_FUNNELED); "
                            "this one does not: set run.threads = 1 and run more ranks",
                      t->cfg.threads) != 0 ? 2 : 0;
    if (rc == 0 && t->cfg.keep_every > 0 && t->cfg.keep == 0)
        rc = rk_error(&err, "run.keep_every = %d needs run.keep = N (with keep = all every file stays)",
                      t->cfg.keep_every) != 0 ? 2 : 0;
    bool search_loop = strncmp(t->cfg.player, "mcgs", 4) == 0;
    if (rc == 0 && t->cfg.mcgs_anchor_pairs > 0 && !search_loop)
        rc = rk_error(&err, "mcgs.anchor_pairs = %" PRIu64 " needs the search's loop (run.player = mcgs:...)",
                      t->cfg.mcgs_anchor_pairs) != 0 ? 2 : 0;
    if (rc == 0 && t->cfg.mcgs_decisions > 0 && !search_loop)
        rc = rk_error(&err, "mcgs.decisions = %d needs the search's loop (run.player = mcgs:...); "
                            "`rookery decisions` studies any players",
                      t->cfg.mcgs_decisions) != 0 ? 2 : 0;
    if (rc == 0 && t->cfg.nn_initial[0] && !t->cfg.nn_train)
        rc = rk_error(&err, "nn.initial = %s needs nn.train = yes (it is where the training starts)",
                      t->cfg.nn_initial) != 0 ? 2 : 0;
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
    rc = lock_run(t);
    if (rc == 0) rc = setup(t, &start);
    if (rc == 0 && t->config_changed && !t->check_only) { /* the resume's changes, on record before play */
        int status = 0;
        if (t->comm.rank == 0) {
            if (train_write_config(t, t->cfg.output, &err) != 0) {
                fprintf(stderr, "rookery: %s\n", err.msg);
                status = 1;
            } else {
                SAY(t, "config: %s (recorded in %s/config.ini)", t->config_changes, t->cfg.output);
            }
        }
        rc = agree(t, status) != 0 ? 1 : 0;
    }
    if (rc == 0 && t->check_only) {
        if (start > t->cfg.generations)
            SAY(t, "check: OK; nothing to do: gen-%04d reached (run.generations = %d)", start - 1, t->cfg.generations);
        else
            SAY(t, "check: OK; would play generations %d..%d, %" PRIu64 " games each, with %s on %d rank(s)", start,
                t->cfg.generations, t->cfg.games_per_generation, t->cfg.player, t->comm.size);
        t->cfg.generations = 0; /* nothing is played, written or pruned */
    }
    if (rc == 0 && t->comm.rank == 0 && start > 1 && !t->check_only) prune_old_generations(t, start - 1);
    if (rc == 0 && t->bench) t->cfg.generations = start; /* exactly one more generation */
    if (rc == 0 && start > t->cfg.generations && !t->check_only)
        SAY(t, "nothing to do: gen-%04d reached (run.generations = %d)", start - 1, t->cfg.generations);
    int reached = start - 1; /* LATEST: run.generations may be below it */
    for (int gen = start; rc == 0 && gen <= t->cfg.generations; gen++)
        if ((rc = run_generation(t, gen)) == 0) reached = gen;
    if (rc == 0 && !t->check_only) SAY(t, "done: %s/LATEST = gen-%04d", t->cfg.output, reached);
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
    helpers_free(t);
    free(t->game);
    samples_free(&t->recorder);
    shardset_free(&t->samples);
    if (t->have_model) nn_model_free(&t->model);
    free(t->new_values);
    leave_deriver_free(&t->deriver);
    rack_accum_free(&t->acc);
    if (t->have_player) player_close(&t->player);
    spv_accum_free(&t->spv_acc);
    spv_free(&t->spv);
    spv_free(&t->new_spv);
    free(t->reduce_buf);
    free(t->res);
    if (t->delta.n) rack_accum_free(&t->delta);
    klv_free(&t->klv);
    racktable_free(&t->racks);
    engine_close(&t->engine);
    if (rc != 0 && t->created_run && t->run_lock.fd >= 0) {
        /* a new run this process created and locked that never got its gen-0000: leave no
         * directory behind (what gen-0000 left half-written, then the lock, still held while
         * its name goes, then the directory if nothing else is in it) */
        char path[RUNDIR_PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/LATEST", t->cfg.output);
        if (access(path, F_OK) != 0) {
            RkError ignore;
            rundir_discard_generation(t->cfg.output, 0, &ignore);
            snprintf(path, sizeof path, "%s/config.ini", t->cfg.output);
            unlink(path);
            snprintf(path, sizeof path, "%s/.lock", t->cfg.output);
            unlink(path);
            rundir_unlock(&t->run_lock);
            rmdir(t->cfg.output); /* only if empty */
        }
    }
    rundir_unlock(&t->run_lock);
    comm_finalize(&t->comm);
    free(t);
    return rc;
}
