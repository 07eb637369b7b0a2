/*
 * afterstate_train.h - training the afterstate network on self-play shards,
 * data-parallel over the ranks, and measuring it on held-out games.
 *
 * A shard's sample is a position, the move played in it and the game's
 * result and final spread for the mover: exactly an afterstate (the move
 * applied to the position, aft_from_position) with its outcome. So every
 * shard `rookery train` writes is afterstate data, and a run whose
 * self-play explores (static:explore=T, docs/players.md) gives the network
 * the candidates a static player would not choose.
 *
 * The steps are sgd.h's: each step draws `batch` samples with a stream
 * seeded from (seed, step), cut into `chunks` slices that the ranks compute
 * in turn; rank 0 sums them in chunk order and broadcasts; every rank takes
 * the same Adam step. So the network's bytes are the same at any rank count.
 */
#ifndef ROOKERY_NN_AFTERSTATE_TRAIN_H
#define ROOKERY_NN_AFTERSTATE_TRAIN_H
#include "afterstate_net.h"
#include "eval/winprob.h"
#include "sgd.h"
#include "shard.h"

/* The most candidates of a sample's target the trainer reads (a P target holds up to 64). */
#define AFT_MAX_CANDIDATES 64

typedef struct AftTrainOptions {
    int batch, chunks;
    int64_t steps;
    NnAdam adam;
    uint64_t seed;
    float spread_weight;      /* the spread loss's weight beside the win loss */
    int horizon;              /* plies: the spread target is the mover's equity lead this many plies on
                               * (aft_spread_target); 0: the final spread */
    double progress_seconds;  /* rank 0 prints a progress line this often (0: never) */
    float distill_weight;     /* > 0: samples whose P target lists 2+ candidates (a simulation's,
                               * static:target_worlds) also train every candidate's spread output
                               * on the simulated values, centred over the candidates (the
                               * position's common part cancels); this weight beside the others */
    double distill_temperature; /* points: the targets are softmax(value / this) */
} AftTrainOptions;
AftTrainOptions aft_train_defaults(void);

typedef struct AftTrainReport {
    double first[3], last[3]; /* win, spread and distillation losses a sample, of the first and last steps */
    double seconds, samples_per_second;
} AftTrainReport;

/* Trains n for opt->steps steps on the samples idx[0..count) of data. A
 * sample whose move does not fit its board is an error naming it. Stops at
 * a non-finite loss or weight, keeping the last good step's weights. */
int aft_train(AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx, size_t count,
              const AftTrainOptions *opt, const NnTrainComm *comm, AftTrainReport *rep, RkError *err);

/* Held-out figures: the mean log loss and Brier score of the network's
 * P(win) against the result, the same of the win model of the spread and
 * the tiles left (eval/winprob.h, the baseline), and the mean absolute error
 * of the spread against its target at `horizon` plies (aft_spread_target) beside the static
 * equity lead's, over samples idx[0..count). */
typedef struct AftEvalReport {
    size_t samples;
    double logloss, brier, spread_mae;
    double base_spread_mae;   /* of the static equity lead (aft_prior) against the same target */
    double base_logloss, base_brier;
    double brier_diff_se;     /* standard error of (brier - base_brier) a sample, over samples */
    /* samples with a simulation's target over 2+ candidates: how many points of simulated value
     * the network's choice among them (the highest spread output) and the static prior's give up
     * against the best candidate's */
    size_t distill_samples;
    double distill_regret, base_distill_regret;
    double distill_diff_se;   /* standard error of (distill_regret - base_distill_regret) */
    double distill_rms, base_distill_rms; /* points: the rms error of the candidates' centred spread
                               * outputs (and centred priors) against their centred simulated values */
} AftEvalReport;
int aft_evaluate(const AftNet *n, const AftContext *c, const ShardSet *data, const size_t *idx, size_t count,
                 const WinModel *base, int horizon, double distill_temperature, AftEvalReport *rep, RkError *err);

/* The spread target of sample i for a horizon of `horizon` plies (even: the mover on turn
 * again): the equity lead (aft_prior: spread + leave) of the afterstate of the same game's
 * sample `horizon` turns later, or the final spread if the game ends before (or horizon is
 * 0). A short horizon has a fraction of the final spread's noise and still sees what the
 * board gives the opponent on the next move. */
float aft_spread_target(const AftContext *c, const ShardSet *data, size_t i, int horizon);

/* The win target of a sample: 1 won, 0.5 drawn, 0 lost (the mover). */
static inline float aft_win_target(const ShardSample *s) { return s->result > 0 ? 1.0f : s->result == 0 ? 0.5f : 0.0f; }

#endif
