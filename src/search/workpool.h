/*
 * workpool.h - a fixed set of threads that run the jobs 0..n-1 of a batch.
 *
 * A search that runs on N threads opens a pool of N (the caller's own
 * thread is one of them: N - 1 are started) for the whole search, and hands
 * it one batch at a time: workpool_run() returns when every job of the
 * batch has run. Jobs are taken in index order by whichever thread is free,
 * so a job must not depend on which thread runs it or when; a caller that
 * wants the same answer for any thread count stores each job's result at
 * its index and merges them in index order after the batch (search/sim.c).
 *
 * A pool of 1 starts no thread: workpool_run() runs the jobs in order on
 * the caller's thread. A pool serves one caller at a time.
 */
#ifndef ROOKERY_WORKPOOL_H
#define ROOKERY_WORKPOOL_H

#include "core/common.h"

#define WORKPOOL_MAX_THREADS 256

typedef struct WorkPool WorkPool;

/* Runs job `job` of the batch on pool thread `thread` (0 = the caller's). */
typedef void (*WorkFn)(void *ctx, int thread, int job);

/* A pool of `threads` (1..WORKPOOL_MAX_THREADS); NULL with err set if a
 * thread cannot be started or memory runs out. */
WorkPool *workpool_open(int threads, RkError *err);
int workpool_threads(const WorkPool *p);
/* Runs fn(ctx, t, k) for k = 0..jobs-1 over the pool; returns when all have. */
void workpool_run(WorkPool *p, int jobs, WorkFn fn, void *ctx);
/* Ends and joins the threads (NULL is fine). */
void workpool_close(WorkPool *p);

#endif
