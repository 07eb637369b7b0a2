/*
 * nn_stage.c - loading the shard window, training, evaluating and writing
 * the model of a generation (see nn_stage.h).
 */
#include "nn_stage.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/model_io.h"
#include "reducer/nn_comm.h"
#include "rundir.h"

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); }

/* The shard files (shard-*.h5) of a generation directory, sorted; returns
 * their count (at most cap names of 64 bytes), or -1. */
static int list_shards(const char *dir, char (*names)[64], int cap, RkError *err) {
    DIR *d = opendir(dir);
    if (!d) return rk_error(err, "%s: cannot list the shards", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (!rundir_is_shard_name(e->d_name) || len >= 64) continue;
        if (n == cap) {
            closedir(d);
            return rk_error(err, "%s: more than %d shards", dir, cap);
        }
        memcpy(names[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n, 64, cmp_name);
    return n;
}

#define MAX_SHARDS_PER_GEN 1024

int nn_stage_load_window(const char *run, int gen, const char *gen_dir, int window, const NnFeatureContext *fc,
                         ShardSet *set, int *first, int *empty, RkError *err) {
    *first = gen - window + 1 > 1 ? gen - window + 1 : 1;
    if (empty) *empty = 0;
    char(*names)[64] = malloc(MAX_SHARDS_PER_GEN * 64);
    if (!names) return rk_error(err, "nn: out of memory");
    int rc = 0;
    for (int g = *first; g <= gen && rc == 0; g++) {
        char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 80];
        if (g == gen && gen_dir) snprintf(dir, sizeof dir, "%s", gen_dir);
        else rundir_gen_path(run, g, false, dir, sizeof dir);
        int n = list_shards(dir, names, MAX_SHARDS_PER_GEN, err);
        if (n < 0) rc = -1;
        if (n == 0 && empty) (*empty)++;
        for (int i = 0; i < n && rc == 0; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            rc = shard_read(path, set, NULL, fc->ld, fc->shape.dim, err);
        }
    }
    free(names);
    if (rc == 0) shardset_link_last_moves(set);
    return rc;
}

bool nn_stage_held_out(uint64_t game, int every) { return every > 0 && game % (uint64_t)every == (uint64_t)every - 1; }

int nn_stage_split(const ShardSet *set, int heldout_every, int gen, uint64_t cap, size_t **train, size_t *tn,
                   size_t **test, size_t *en, RkError *err) {
    *train = malloc((set->n + 1) * sizeof **train);
    *test = malloc((set->n + 1) * sizeof **test);
    *tn = *en = 0;
    if (!*train || !*test) {
        free(*train), free(*test);
        *train = *test = NULL;
        return rk_error(err, "nn: out of memory for %zu samples", set->n);
    }
    for (size_t i = 0; i < set->n; i++) {
        if (!nn_stage_held_out(set->s[i].game, heldout_every)) (*train)[(*tn)++] = i;
        else if (set->s[i].generation == (uint32_t)gen) (*test)[(*en)++] = i;
    }
    /* more held-out samples than cap: an even stride over all of them (sample k*n/cap), so
     * that the figures rest on every held-out game and not on the first few dozen */
    if (*en > cap) {
        size_t n = *en;
        for (size_t k = 0; k < cap; k++) (*test)[k] = (*test)[(size_t)((uint64_t)k * (uint64_t)n / cap)];
        *en = (size_t)cap;
    }
    return 0;
}

int nn_stage_evaluate(const char *run, int gen, int heldout_every, uint64_t cap, const NnFeatureContext *fc,
                      const NnModel *m, LeaveValueFn leave_value, const void *leave_ctx, NnEvalReport *rep,
                      RkError *err) {
    char dir[RUNDIR_PATH_MAX];
    rundir_gen_path(run, gen, false, dir, sizeof dir);
    ShardSet set;
    shardset_init(&set);
    size_t *train = NULL, *test = NULL, tn = 0, en = 0;
    int first, rc = nn_stage_load_window(run, gen, NULL, 1, fc, &set, &first, NULL, err);
    if (rc == 0 && set.n == 0) rc = rk_error(err, "%s: no shards", dir);
    if (rc == 0) rc = nn_stage_split(&set, heldout_every, gen, cap, &train, &tn, &test, &en, err);
    if (rc == 0 && en == 0) rc = rk_error(err, "%s: no held-out positions (nn.heldout_every = %d)", dir, heldout_every);
    if (rc == 0) rc = nn_evaluate(m, fc, &set, train, tn, &set, test, en, leave_value, leave_ctx, rep, err);
    free(train), free(test);
    shardset_free(&set);
    return rc;
}

int nn_stage_run(const Comm *c, const char *run, int gen, const char *gen_dir, const NnStageOptions *o,
                 const NnFeatureContext *fc, NnModel *m, const char *model_out, NnStageReport *rep, RkError *err) {
    memset(rep, 0, sizeof *rep);
    rep->last_gen = gen;
    ShardSet set;
    shardset_init(&set);
    size_t *train = NULL, *test = NULL;
    double t0 = rk_seconds();
    int status = nn_stage_load_window(run, gen, gen_dir, o->window, fc, &set, &rep->first_gen,
                                      &rep->gens_without_shards, err) != 0;
    if (comm_max_i64(c, status) != 0) {
        if (!status) rk_error(err, "nn: another rank could not load the shards");
        shardset_free(&set);
        return status ? -1 : -2;
    }
    size_t tn = 0, en = 0;
    if (nn_stage_split(&set, o->heldout_every, gen, o->eval_positions, &train, &tn, &test, &en, err) != 0) status = 1;
    rep->train_samples = tn;
    rep->heldout_samples = en;
    rep->load_s = rk_seconds() - t0;
    NnTrainOptions topt = {.batch = o->batch,
                           .chunks = o->chunks,
                           .steps = o->steps,
                           .adam = nn_adam_default(),
                           .seed = o->seed,
                           .generation = (uint32_t)gen,
                           .progress_seconds = o->progress_seconds,
                           .loss = o->loss};
    topt.adam.lr = (float)o->lr;
    topt.adam.weight_decay = (float)o->weight_decay;
    /* a rank-local failure nn_train would meet alone (leaves missing on one rank) must stop them all,
     * or the others would wait in its collectives */
    if (status == 0 && m->arch.prior_equity && fc->leave_value == NULL) {
        rk_error(err, "nn: the model's policy values moves by static equity (nn.prior = equity) and needs leaves, "
                      "but none were given");
        status = 1;
    }
    if (comm_max_i64(c, status) != 0) {
        if (!status) rk_error(err, "nn: another rank cannot train the model");
        free(train), free(test);
        shardset_free(&set);
        return status ? -1 : -2;
    }
    NnTrainComm tc = nn_train_comm_mpi(c);
    if (status == 0 && nn_train(m, fc, &set, train, tn, &topt, &tc, &rep->train, err) != 0) status = 1;
    /* nn_train fails on every rank at once: the same data and sums, and its set-up agreed */
    rep->train_s = rk_seconds() - t0 - rep->load_s;
    m->generation = (uint32_t)gen;
    double t1 = rk_seconds();
    if (status == 0 && c->rank == 0 && en > 0 &&
        nn_evaluate(m, fc, &set, train, tn, &set, test, en, o->leave_value, o->leave_ctx, &rep->eval, err) != 0)
        status = 1;
    rep->eval_s = rk_seconds() - t1;
    if (status == 0 && c->rank == 0 && model_out && nn_model_save(m, model_out, fc->ld, err) != 0) status = 1;
    free(train);
    free(test);
    shardset_free(&set);
    if (comm_max_i64(c, status) != 0) {
        if (!status) rk_error(err, "nn: the stage failed on another rank");
        return status ? -1 : -2;
    }
    return 0;
}
