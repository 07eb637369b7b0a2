/* generation.c - one generation of the training loop, stage by stage (the
 * order and what each stage does: trainer.h). Every stage is collective:
 * the ranks agree on each outcome (agree(): the worst status wins), so
 * they stop, fail or go on together. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/spv_derive.h"
#include "trainer.h"

/* About this many games a rank between two stop checks. */
#define CHECK_ROUNDS 32

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
 * games is reached. t->leaves.acc holds the summed accumulators on entry and on
 * exit. Returns 0, TRAIN_EXIT_STOPPED or 1. */
static int forced_racks(Trainer *t, GenerationWorker *w, int gen, GenerationTotals *tot) {
    uint32_t min = train_config_min_count(&t->cfg, gen);
    if (min == 0 || t->cfg.max_forced_games == 0) return 0;
    RkError err;
    int failed = t->leaves.delta.n == 0 && rack_accum_init(&t->leaves.delta, t->leaves.racks.num_racks, &err) != 0;
    if (failed) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
    if (agree(t, failed) != 0) return 1;
    uint64_t done = 0;
    GenerationTotals before = w->totals;
    w->totals.forced_games = w->totals.forced_observations = 0;
    w->acc = &t->leaves.delta;
    int rc = 0;
    while (rc == 0 && done < t->cfg.max_forced_games) {
        ForcedTasks ft;
        failed = forced_tasks_build(&ft, &t->leaves.acc, min, &err) != 0; /* the same on every rank, but for memory */
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
        memset(t->leaves.delta.count, 0, t->leaves.delta.n * sizeof t->leaves.delta.count[0]);
        memset(t->leaves.delta.sum_mp, 0, t->leaves.delta.n * sizeof t->leaves.delta.sum_mp[0]);
        int status = 0;
        for (uint64_t k = (uint64_t)t->comm.rank; k < games && status == 0; k += (uint64_t)t->comm.size) {
            uint64_t index = w->games + done + k;
            if (generation_play_forced(w, index, &ft, k * FORCED_TASKS_PER_GAME, FORCED_TASKS_PER_GAME, &err) != 0) {
                fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
                status = 2;
            }
        }
        forced_tasks_free(&ft);
        int worst = agree(t, status ? 2 : train_stop_asked(t) ? 1 : 0);
        if (worst == 2) rc = 1;
        else if (worst == 1) {
            SAY(t, "stop requested: generation %d discarded during forced games; rerun to resume", gen);
            rc = TRAIN_EXIT_STOPPED;
        } else if (comm_sum_i64(&t->comm, t->leaves.delta.count, t->leaves.delta.n, &err) != 0 ||
                   comm_sum_i64(&t->comm, t->leaves.delta.sum_mp, t->leaves.delta.n, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
        } else {
            rack_accum_merge(&t->leaves.acc, &t->leaves.delta, &err);
            done += games;
        }
    }
    w->acc = &t->leaves.acc;
    int64_t f[2] = {w->totals.forced_games, w->totals.forced_observations};
    if (rc == 0 && comm_sum_i64(&t->comm, f, 2, &err) != 0) rc = 1;
    tot->forced_games = f[0];
    tot->forced_observations = f[1];
    w->totals = before;
    if (rc == 0 && done > 0) {
        ForcedTasks left;
        uint64_t missing = 0;
        if (forced_tasks_build(&left, &t->leaves.acc, min, &err) == 0) {
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
void train_prune(Trainer *t, int gen) {
    if (t->cfg.keep <= 0) return;
    RunKeep keep = {.newest = t->cfg.keep,
                    .every = t->cfg.keep_every,
                    .shards_from = t->cfg.nn_train ? gen + 2 - t->cfg.nn_window : INT_MAX,
                    .model_gen = t->search.model_in_force};
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
    if (agree(t, train_stop_asked(t) ? 1 : 0) == 0) return 0;
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
    if (t->net.have_model) {
        if ((rc = stop_point(t, gen, "the network's training")) != 0) return rc;
        if (train_nn_generation(t, gen) != 0) return 1;
    }
    if (!t->search.loop) return 0;
    if ((rc = stop_point(t, gen, "the gate")) != 0) return rc;
    if (train_search_gate(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the value check")) != 0) return rc;
    if (train_search_value_check(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the anchor's match")) != 0) return rc;
    if (train_search_anchor(t, gen, rep) != 0) return 1;
    if ((rc = stop_point(t, gen, "the decision study")) != 0) return rc;
    return train_search_decisions(t, gen, rep) != 0 ? 1 : 0;
}

/* The self-play workers of a generation: thread 0's and the helper
 * threads' (run.threads), each with its own play configuration. */
typedef struct GenWorkers {
    int threads;
    SelfplayConfig plays[GENERATION_MAX_THREADS];
    GenerationWorker ws[GENERATION_MAX_THREADS];
} GenWorkers;

/* Sets up the workers of generation gen and clears what the last one left
 * (samples, shard list, the network's and reference's reports). */
static void workers_prepare(Trainer *t, int gen, const GenReport *rep, GenWorkers *gw) {
    SelfplayConfig *play = &gw->plays[0];
    *play = (SelfplayConfig){.ld = &t->engine.ld,
                             .layout = &t->engine.layout,
                             .kwg = &t->engine.kwg,
                             .leave_value = klv_leave_value,
                             .leave_ctx = &t->leaves.klv,
                             .spv = t->spv.on && t->cfg.spv_use ? &t->spv.table : NULL,
                             .spv_k = t->cfg.spv_k,
                             .seed = t->cfg.seed,
                             .generation = (uint64_t)gen,
                             .player = t->have_player ? &t->player : NULL};
    GenerationWorker *w = &gw->ws[0];
    *w = (GenerationWorker){.play = play,
                            .racks = &t->leaves.racks,
                            .games = t->cfg.games_per_generation,
                            .sampled_racks = t->cfg.sampled_racks,
                            .rank = t->comm.rank,
                            .nranks = t->comm.size,
                            .acc = &t->leaves.acc,
                            .spv_acc = rep->spv_trained ? &t->spv.acc : NULL,
                            .res = t->res,
                            .spv_target = t->cfg.spv_target,
                            .samples = t->cfg.nn_shards ? &t->recorder : NULL,
                            .game = t->game};
    /* the static player's k best moves a turn are the shard sampler's
     * targets too (the same leaves: klv_leave_value of t->leaves.klv) */
    if (w->samples != NULL) play->top_list = samples_shared_top(w->samples, &play->top_k);
    /* the other threads' workers: the same, with their own state */
    gw->threads = t->cfg.threads;
    for (int j = 1; j < gw->threads; j++) {
        TrainHelper *h = &t->helpers[j - 1];
        gw->plays[j] = *play;
        gw->plays[j].player = h->have_player ? &h->player : NULL;
        gw->ws[j] = *w;
        gw->ws[j].play = &gw->plays[j];
        gw->ws[j].res = &h->res;
        gw->ws[j].samples = t->cfg.nn_shards ? &h->recorder : NULL;
        gw->plays[j].top_list =
            gw->ws[j].samples != NULL ? samples_shared_top(gw->ws[j].samples, &gw->plays[j].top_k) : NULL;
        gw->ws[j].game = &h->game;
        shardset_clear(&h->samples);
    }
    shardset_clear(&t->samples);
    memset(&t->shard_files, 0, sizeof t->shard_files);
    memset(&t->net.rep, 0, sizeof t->net.rep);
    memset(&t->net.ref_eval, 0, sizeof t->net.ref_eval);
    t->gen_begun = t->net.trained = false;
    t->net.ref_gen = 0;
}

/* play: every rank its share of the games, in rounds, with a stop check
 * every ~CHECK_ROUNDS games a rank and a progress line every
 * run.progress_seconds. 0, TRAIN_EXIT_STOPPED or 1. */
static int stage_play(Trainer *t, int gen, GenWorkers *gw, double t0) {
    RkError err;
    const int threads = gw->threads;
    const GenerationWorker *w = &gw->ws[0];
    uint64_t rounds = generation_rounds(w->games, w->nranks, threads);
    uint64_t check_every = CHECK_ROUNDS / generation_block(threads);
    if (check_every == 0) check_every = 1;
    double last_progress = t0;
    for (uint64_t r = 0; r < rounds; r++) {
        int status = generation_play_round(gw->ws, threads, r, &err) == 0 ? 0 : 1;
        if (status) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
        if ((r + 1) % check_every == 0 || r + 1 == rounds || status) {
            int worst = agree(t, status ? 2 : train_stop_asked(t) ? 1 : 0);
            if (worst == 2) return 1;
            if (worst == 1) {
                SAY(t, "stop requested: generation %d discarded after %" PRIu64 " rounds; rerun to resume", gen,
                    r + 1);
                return TRAIN_EXIT_STOPPED;
            }
        }
        double now = rk_seconds();
        if (t->cfg.progress_seconds > 0 && now - last_progress >= t->cfg.progress_seconds) {
            uint64_t done = (r + 1) * (uint64_t)w->nranks * generation_block(threads);
            if (done > w->games) done = w->games;
            double rate = (double)done / (now - t0);
            SAY(t, "gen %d: %" PRIu64 "/%" PRIu64 " games, %.1f games/s, ETA %.0f s", gen, done, w->games, rate,
                rate > 0 ? (double)(w->games - done) / rate : 0.0);
            last_progress = now;
        }
    }
    return 0;
}

/* reduce: the helper threads' totals and samples into thread 0's, then the
 * rack accumulators, SPV cells and totals in one buffer, one Allreduce,
 * exact integer sums, into *tot. 0 or 1. */
static int stage_reduce(Trainer *t, GenWorkers *gw, GenerationTotals *tot) {
    RkError err;
    GenerationWorker *w = &gw->ws[0];
    merge_helpers(t, gw->ws, gw->threads, &w->totals);
    *tot = w->totals;
    int64_t *tot_arr = t->reduce_buf + t->reduce_words - GENERATION_TOTALS_FIELDS;
    int64_t mine[GENERATION_TOTALS_FIELDS] = {tot->games,     tot->turns,      tot->observations, tot->bingos,
                                              tot->score_sum, tot->equity_sum, 0,                 0,
                                              tot->sampled_observations};
    memcpy(tot_arr, mine, sizeof mine);
    if (comm_sum_i64(&t->comm, t->reduce_buf, t->reduce_words, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    *tot = (GenerationTotals){tot_arr[0], tot_arr[1], tot_arr[2], tot_arr[3], tot_arr[4],
                              tot_arr[5], 0,          0,          tot_arr[8]};
    return 0;
}

/* derive: every rank the same leaves (and SPV table, if it trains this
 * generation) from the same sums; the new tables replace those in force.
 * 0 or 1. */
static int stage_derive(Trainer *t, GenReport *rep) {
    RkError err;
    DeriveOptions dopt = {.shrink = t->cfg.shrink};
    if (derive_leaves_opt(&t->leaves.deriver, &t->leaves.acc, NULL, &dopt, t->leaves.new_values, t->leaves.klv.count, &rep->info, &err) != 0) {
        fprintf(stderr, "rookery: derive: %s\n", err.msg);
        return 1;
    }
    rep->change_rms = 0.0;
    if (rep->leaves_trained) {
        double sq = 0;
        for (uint32_t i = 0; i < t->leaves.klv.count; i++) {
            double d = (double)t->leaves.new_values[i] - (double)t->leaves.klv.values[i];
            sq += d * d;
        }
        rep->change_rms = t->leaves.klv.count ? sqrt(sq / t->leaves.klv.count) : 0.0;
        klv_set_values(&t->leaves.klv, t->leaves.new_values);
    }
    if (rep->spv_trained) {
        SpvDeriveOptions sopt = {.prior_mean = t->cfg.spv_prior_mean, .prior_var = t->cfg.spv_prior_var};
        if (spv_derive(&t->spv.acc, &sopt, &t->spv.derived, &rep->spv_info, &err) != 0) {
            fprintf(stderr, "rookery: spv: %s\n", err.msg);
            return 1;
        }
        spv_replace(&t->spv.table, &t->spv.derived);
    }
    return 0;
}

/* write: rank 0 writes the generation (snapshot.c), then every rank learns
 * whether it worked. tm->wall is rank 0's. 0 or 1. */
static int stage_write(Trainer *t, int gen, const GenReport *rep, GenTimes *tm, double t0) {
    int status = 0;
    if (t->comm.rank == 0) {
        RkError err;
        tm->wall = rk_seconds() - t0;
        if (train_write_generation(t, gen, rep, tm, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        }
    }
    return agree(t, status) != 0 ? 1 : 0;
}

/* Plays generation gen: play, reduce (with the shards and the forced-rack
 * games), derive, evaluate, write. 0 done, TRAIN_EXIT_STOPPED, or 1. */
int train_generation(Trainer *t, int gen) {
    double t0 = rk_seconds();
    GenReport rep;
    memset(&rep, 0, sizeof rep);
    rep.leaves_trained = train_config_leaves_train(&t->cfg, gen);
    rep.spv_trained = t->spv.on && train_config_spv_trains(&t->cfg, gen);
    if (train_search_begin_generation(t) != 0) return 1;
    memset(t->reduce_buf, 0, t->reduce_words * sizeof t->reduce_buf[0]);
    GenWorkers workers, *gw = &workers;
    workers_prepare(t, gen, &rep, gw);
    int rc = stage_play(t, gen, gw, t0);
    double t_play = rk_seconds(), t_reduce = 0, t_forced = 0, t_derive = 0;
    if (rc == 0) rc = stage_reduce(t, gw, &rep.tot);
    if (rc == 0 && t->cfg.nn_shards) rc = write_shards(t, gen);
    if (rc == 0) {
        t_reduce = rk_seconds();
        rc = forced_racks(t, &gw->ws[0], gen, &rep.tot);
        t_forced = rk_seconds(); /* forced games count as play time */
    }
    if (rc == 0) rc = stage_derive(t, &rep);
    if (rc == 0) {
        t_derive = rk_seconds();
        rc = evaluate_generation(t, gen, &rep);
    }
    if (rc != 0) return rc;
    double t_match = rk_seconds(); /* evaluation, not part of the generation's overhead */
    GenTimes tm = {t_play - t0 + (t_forced - t_reduce), t_reduce - t_play, t_derive - t_forced, 0, 0, t_match - t_derive};
    if (stage_write(t, gen, &rep, &tm, t0) != 0) return 1;
    tm.write = rk_seconds() - t_match; /* as every rank saw it */
    t->last_play = tm.play;
    t->last_overhead = tm.reduce + tm.derive + tm.write;
    t->last_wall = tm.wall;
    t->last_games = rep.tot.games;
    if (t->comm.rank == 0) train_prune(t, gen);
    return 0;
}
