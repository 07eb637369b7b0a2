/* run.c - train_run: one training run from its request to its exit code
 * (train.h), on every rank: the configuration, the lock, the set-up, the
 * generations, the teardown. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "trainer.h"

void train_timestamp(char *buf, size_t cap) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm);
}

/* The configuration in force: --config, run.output from --run, then the
 * run's record and --set (train_run_config), then the checks across keys.
 * 0 or 2 with err set. */
static int configure(Trainer *t, const TrainRequest *req, RkError *err) {
    if (req->config_path != NULL && train_config_load(&t->cfg, req->config_path, err) != 0) return 2;
    if (req->run_dir != NULL && train_config_set(&t->cfg, "run.output", req->run_dir, err) != 0) return 2;
    int rc = train_run_config(t, req->config_path, req->sets, req->nsets, err);
    if (rc != 0) return rc;
    if (t->cfg.threads > 1 && !t->comm.threads_ok)
        return rk_error(err, "run.threads = %d needs an MPI library that allows threads (MPI_THREAD_FUNNELED); "
                             "this one does not: set run.threads = 1 and run more ranks",
                        t->cfg.threads) != 0 ? 2 : 0;
    return train_config_check(&t->cfg, err) != 0 ? 2 : 0;
}

/* A resume's allowed changes go into RUN/config.ini before anything is
 * played. 0 or 1. */
static int record_config(Trainer *t) {
    int status = 0;
    if (t->comm.rank == 0) {
        RkError err;
        if (train_write_config(t, t->cfg.output, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        } else {
            SAY(t, "config: %s (recorded in %s/config.ini)", t->config_changes, t->cfg.output);
        }
    }
    return agree(t, status) != 0 ? 1 : 0;
}

/* `--bench`: the last generation's throughput and the peak memory. */
static void print_bench(Trainer *t) {
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

/* The generations from start on; 0 or an exit code. */
static int play_generations(Trainer *t, int start) {
    if (t->check_only) {
        if (start > t->cfg.generations)
            SAY(t, "check: OK; nothing to do: gen-%04d reached (run.generations = %d)", start - 1, t->cfg.generations);
        else
            SAY(t, "check: OK; would play generations %d..%d, %" PRIu64 " games each, with %s on %d rank(s)", start,
                t->cfg.generations, t->cfg.games_per_generation, t->cfg.player, t->comm.size);
        return 0; /* nothing is played, written or pruned */
    }
    if (t->comm.rank == 0 && start > 1) train_prune(t, start - 1);
    if (t->bench) t->cfg.generations = start; /* exactly one more generation */
    if (start > t->cfg.generations)
        SAY(t, "nothing to do: gen-%04d reached (run.generations = %d)", start - 1, t->cfg.generations);
    int rc = 0, reached = start - 1; /* LATEST: run.generations may be below it */
    for (int gen = start; rc == 0 && gen <= t->cfg.generations; gen++)
        if ((rc = train_generation(t, gen)) == 0) reached = gen;
    if (rc == 0) SAY(t, "done: %s/LATEST = gen-%04d", t->cfg.output, reached);
    if (rc == 0 && t->bench) print_bench(t);
    return rc;
}

int train_run(const TrainRequest *req) {
    Trainer *t = calloc(1, sizeof *t);
    if (t == NULL) return 1;
    t->run_lock.fd = -1;
    t->stop = req->stop;
    t->check_only = req->check_only;
    t->bench = req->bench;
    train_config_defaults(&t->cfg);
    RkError err;
    if (comm_init(&t->comm, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        free(t);
        return 2;
    }
    int rc = configure(t, req, &err);
    if (rc != 0) {
        if (t->comm.rank == 0) fprintf(stderr, "rookery: %s\n", err.msg);
        comm_finalize(&t->comm);
        free(t);
        return rc;
    }
    int start = 1;
    rc = train_lock_run(t);
    if (rc == 0) rc = train_setup(t, &start);
    if (rc == 0 && t->config_changed && !t->check_only) rc = record_config(t);
    if (rc == 0) rc = play_generations(t, start);
    train_teardown(t);
    if (rc != 0) train_discard_failed_start(t);
    rundir_unlock(&t->run_lock);
    comm_finalize(&t->comm);
    free(t);
    return rc;
}
