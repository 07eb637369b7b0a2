/*
 * train.h - the generational training loop as a library: what `rookery
 * train` runs, under MPI, on every rank.
 *
 * A run lives in one directory (rundir.h): gen-0000 (the starting tables),
 * then one gen-NNNN per generation, each written whole under a temporary name
 * and renamed, LATEST naming the last complete one, config.ini the
 * configuration on record, .lock held by rank 0. train_run starts a new run
 * or resumes one from its last complete generation, plays generations up to
 * run.generations and returns an exit code:
 *
 *   0 done, 1 runtime failure, 2 bad input (config, files, a run in use),
 *   TRAIN_EXIT_STOPPED (3) the caller's stop flag went up: every rank
 *   stopped at the same point and the generation in flight was discarded.
 *
 * The stages of a generation and the files that hold them: trainer.h.
 */
#ifndef ROOKERY_TRAIN_TRAIN_H
#define ROOKERY_TRAIN_TRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/common.h"
#include "core/letters.h"
#include "eval/klv.h"
#include "train/config.h"
#include "train/nn_stage.h"

#define TRAIN_EXIT_STOPPED 3

typedef struct TrainRequest {
    const char *config_path;  /* --config FILE, or NULL (a new run: the embedded default; a resume: RUN/config.ini) */
    const char *run_dir;      /* --run DIR, or NULL (run.output) */
    const char *const *sets;  /* "section.key=value" overrides, applied after the file */
    int nsets;
    bool check_only;          /* set up and verify everything, write and play nothing */
    bool bench;               /* play exactly one more generation and print its throughput */
    /* Set to nonzero (by the caller's signal handler) to stop: the ranks
     * take the maximum of their flags at their stop checks. May be NULL. */
    const volatile sig_atomic_t *stop;
} TrainRequest;

/* Runs (or resumes) the training a request describes; collective over
 * MPI_COMM_WORLD (it initialises and finalises MPI). Returns an exit code
 * (above); errors are printed as "rookery: ..." lines. */
int train_run(const TrainRequest *req);

/* The network stage's options from a config's [nn] (also `rookery nn train`). */
NnStageOptions train_nn_stage_options(const TrainConfig *cfg);
/* The leaves generation gen of run was played with (RUN/gen-(gen-1)/
 * leaves.klv2; gen-0000 holds the initial ones) into *k, if that file
 * exists: *have says whether it did. 0, or -1 with err set (a bad file). */
int train_played_leaves(const char *run, int gen, const LetterDist *ld, Klv *k, bool *have, RkError *err);
/* nn.reference = RUN or RUN:G (spec): RUN into run (cap bytes), and G or
 * RUN's latest complete generation. Returns G, or -1 with err set. */
int train_reference_of(const char *spec, char *run, size_t cap, RkError *err);

#endif
