/*
 * nn_stage.h - the network's stage of a generation: load the window of
 * recent shards, train the model data-parallel over the ranks
 * (nn/sgd.h, collectives from nn_comm.h), evaluate it on the newest
 * generation's held-out games (nn/heldout.h, rank 0), and let rank 0 write
 * model.h5. Used by `rookery train` (each generation, nn.train = yes) and
 * `rookery nn train`.
 *
 * Held-out games: game i of every generation is held out of training if
 * heldout_every > 0 and i mod heldout_every = heldout_every - 1.
 */
#ifndef ROOKERY_NN_STAGE_H
#define ROOKERY_NN_STAGE_H
#include "reducer/comm.h"
#include "nn/heldout.h"
#include "nn/sgd.h"

typedef struct NnStageOptions {
    int window;             /* generations of shards */
    int64_t steps;
    int batch, chunks;
    double lr, weight_decay;
    NnLossOptions loss;     /* the spread target's blend, the policy loss (nn/train_step.h) */
    uint64_t seed;
    int heldout_every;      /* 0: no held-out games */
    uint64_t eval_positions;/* held-out positions evaluated at most */
    double progress_seconds;
    LeaveValueFn leave_value;  /* the leaves of the static baselines of P (nn/heldout.h); NULL: none */
    const void *leave_ctx;
} NnStageOptions;

typedef struct NnStageReport {
    int first_gen, last_gen;        /* the window */
    int gens_without_shards;        /* of the window (nn.shards = no then, or removed by run.keep) */
    uint64_t train_samples, heldout_samples;
    NnTrainReport train;
    NnEvalReport eval;
    double load_s, train_s, eval_s;
} NnStageReport;

/* Is game `game` (of any generation) held out by heldout_every (the rule above)? */
bool nn_stage_held_out(uint64_t game, int heldout_every);

/* Reads the shards of generations max(1, gen - window + 1) .. gen into set
 * (gen's from gen_dir if it is not NULL, the others from RUN/gen-NNNN);
 * *first is the first generation read, *empty (if not NULL) the number of
 * generations without a shard file. */
int nn_stage_load_window(const char *run, int gen, const char *gen_dir, int window, const NnFeatureContext *fc,
                         ShardSet *set, int *first, int *empty, RkError *err);
/* Splits set: *train (n *tn) the samples of games not held out, *test (n
 * *en) at most `cap` held-out samples of generation gen (both malloc'ed):
 * all of them if there are at most cap, else cap of them at an even stride
 * (sample k*n/cap of the n in set order), so that every held-out game of
 * at least n/cap samples is in the test set. */
int nn_stage_split(const ShardSet *set, int heldout_every, int gen, uint64_t cap, size_t **train, size_t *tn,
                   size_t **test, size_t *en, RkError *err);

/* Scores m on generation gen of run (nn_evaluate): at most `cap` samples
 * of the games held out by heldout_every, the V baseline built from the
 * others; leave_value (NULL: none) values the moves for P's static
 * baselines, and fc must carry the same leaves for an equity-prior model.
 * Not collective. Errors name the run's generation (no shards, nothing held
 * out). */
int nn_stage_evaluate(const char *run, int gen, int heldout_every, uint64_t cap, const NnFeatureContext *fc,
                      const NnModel *m, LeaveValueFn leave_value, const void *leave_ctx, NnEvalReport *rep,
                      RkError *err);

/* Trains m at generation gen of run: the window is generations
 * max(1, gen - window + 1) .. gen, where gen's files are in gen_dir (its
 * gen-NNNN.tmp while it is built) and the others in RUN/gen-NNNN. If
 * model_out is not NULL rank 0 writes the trained model there. Collective;
 * the status is agreed by every rank: 0, -1 (this rank failed; err says why)
 * or -2 (this rank did not, another did; err says so), so that each failure
 * is printed by the rank that saw it. */
int nn_stage_run(const Comm *c, const char *run, int gen, const char *gen_dir, const NnStageOptions *o,
                 const NnFeatureContext *fc, NnModel *m, const char *model_out, NnStageReport *rep, RkError *err);

#endif
