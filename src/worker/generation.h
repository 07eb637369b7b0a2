/*
 * generation.h - one rank's share of a generation's self-play.
 *
 * Games of a generation are numbered globally 0..G-1 and dealt by index:
 * round r holds games r*P .. r*P+P-1 and rank k plays game r*P+k (if it is
 * below G). Game i is seeded from (run seed, generation, i), so what a game
 * contributes does not depend on which rank plays it, and integer sums of
 * the contributions do not depend on the number of ranks. The caller (the
 * training loop) runs one round at a time, so all ranks reach their
 * collective checks after the same rounds.
 *
 * Each turn whose bag holds at least RK_RACK_SIZE tiles adds the mover's full
 * rack and the equity of the best move found for it to the accumulators.
 */
#ifndef ROOKERY_GENERATION_H
#define ROOKERY_GENERATION_H

#include "eval/derive.h"
#include "eval/racktable.h"
#include "selfplay.h"

typedef struct GenerationTotals {
    /* summed over ranks by the reducer: keep every field an int64 */
    int64_t games, turns, observations, bingos;
    int64_t score_sum;   /* both players' final scores */
    int64_t equity_sum;  /* millipoints, over observations */
} GenerationTotals;
#define GENERATION_TOTALS_FIELDS 6

typedef struct GenerationWorker {
    const SelfplayConfig *play;  /* lexicon, layout, leaves, seed, generation */
    const RackTable *racks;
    uint64_t games;              /* G */
    int rank, nranks;
    RackAccum *acc;              /* this rank's accumulators */
    GenerationTotals totals;     /* this rank's totals */
    Game *game;                  /* scratch */
} GenerationWorker;

/* Rounds needed for G games on P ranks. */
static inline uint64_t generation_rounds(uint64_t games, int nranks) {
    return (games + (uint64_t)nranks - 1) / (uint64_t)nranks;
}
/* Plays this rank's game of round r (if any). Returns 0, or -1 on a rack
 * that the rack table does not know (a bug; err says which). */
int generation_play_round(GenerationWorker *w, uint64_t round, RkError *err);

#endif
