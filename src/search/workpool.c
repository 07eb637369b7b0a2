/* workpool.c - a fixed set of threads that run the jobs of a batch (see workpool.h). */
#include "workpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct Helper {
    struct WorkPool *pool;
    int index; /* 1..threads-1 */
} Helper;

struct WorkPool {
    int threads;
    pthread_t *tids;
    Helper *helpers;
    int started;          /* helpers running */
    pthread_mutex_t mu;
    pthread_cond_t start;  /* a batch is posted, or quit */
    pthread_cond_t finish; /* the last helper left the batch */
    atomic_uint_fast64_t batch; /* batches posted so far (written under mu; read by spinning helpers) */
    atomic_int busy;       /* helpers still in the current batch */
    bool quit;
    WorkFn fn;
    void *ctx;
    int jobs;
    atomic_int next;       /* the next job to take */
};

/* Takes and runs jobs until none is left. */
static void drain(WorkPool *p, WorkFn fn, void *ctx, int jobs, int thread) {
    for (;;) {
        int k = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (k >= jobs) return;
        fn(ctx, thread, k);
    }
}

/* Iterations a thread polls before it sleeps: a search posts its batches
 * microseconds apart (the caller only merges and plans in between), and a
 * wake-up from a condition variable costs tens of microseconds, a few per
 * cent of a batch of rollouts. */
#define SPIN 20000

static void *helper_main(void *arg) {
    Helper *h = arg;
    WorkPool *p = h->pool;
    uint64_t seen = 0;
    for (;;) {
        for (int i = 0; i < SPIN && atomic_load_explicit(&p->batch, memory_order_acquire) == seen; i++) {
        }
        pthread_mutex_lock(&p->mu);
        while (!p->quit && atomic_load_explicit(&p->batch, memory_order_relaxed) == seen)
            pthread_cond_wait(&p->start, &p->mu);
        if (p->quit) break;
        seen = atomic_load_explicit(&p->batch, memory_order_relaxed);
        WorkFn fn = p->fn;
        void *ctx = p->ctx;
        int jobs = p->jobs;
        pthread_mutex_unlock(&p->mu);
        drain(p, fn, ctx, jobs, h->index);
        /* the last helper out wakes the caller if it went to sleep */
        if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->finish);
            pthread_mutex_unlock(&p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

WorkPool *workpool_open(int threads, RkError *err) {
    if (threads < 1 || threads > WORKPOOL_MAX_THREADS) {
        rk_error(err, "threads %d, expected 1..%d", threads, WORKPOOL_MAX_THREADS);
        return NULL;
    }
    WorkPool *p = calloc(1, sizeof *p);
    if (p == NULL) {
        rk_error(err, "out of memory");
        return NULL;
    }
    p->threads = threads;
    atomic_init(&p->next, 0);
    atomic_init(&p->batch, 0);
    atomic_init(&p->busy, 0);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->finish, NULL);
    if (threads == 1) return p;
    p->tids = calloc((size_t)threads, sizeof *p->tids);
    p->helpers = calloc((size_t)threads, sizeof *p->helpers);
    if (p->tids == NULL || p->helpers == NULL) {
        rk_error(err, "out of memory");
        workpool_close(p);
        return NULL;
    }
    for (int t = 1; t < threads; t++) {
        p->helpers[t] = (Helper){.pool = p, .index = t};
        if (pthread_create(&p->tids[t], NULL, helper_main, &p->helpers[t]) != 0) {
            rk_error(err, "could not start search thread %d of %d", t + 1, threads);
            workpool_close(p);
            return NULL;
        }
        p->started++;
    }
    return p;
}

int workpool_threads(const WorkPool *p) { return p->threads; }

void workpool_run(WorkPool *p, int jobs, WorkFn fn, void *ctx) {
    if (p->started == 0) {
        for (int k = 0; k < jobs; k++) fn(ctx, 0, k);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->jobs = jobs;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->busy, p->started, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->batch, 1, memory_order_release); /* spinning helpers see the batch */
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    drain(p, fn, ctx, jobs, 0);
    for (int i = 0; i < SPIN && atomic_load_explicit(&p->busy, memory_order_acquire) > 0; i++) {
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load_explicit(&p->busy, memory_order_acquire) > 0) pthread_cond_wait(&p->finish, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void workpool_close(WorkPool *p) {
    if (p == NULL) return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->mu);
    for (int t = 1; t <= p->started; t++) pthread_join(p->tids[t], NULL);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->finish);
    pthread_mutex_destroy(&p->mu);
    free(p->tids);
    free(p->helpers);
    free(p);
}
