/*
 * rank_share.h - one rank's share of a generation's self-play.
 *
 * Games of a generation are numbered globally 0..G-1 and dealt by index in
 * rounds (generation_play_round below: with one thread, round r holds games
 * r*P .. r*P+P-1 and rank k plays game r*P+k if it is below G). Game i is seeded from (run seed, generation, i), so what a game
 * contributes does not depend on which rank plays it, and integer sums of
 * the contributions do not depend on the number of ranks. The caller (the
 * training loop) runs one round at a time, so all ranks reach their
 * collective checks after the same rounds.
 *
 * Each turn whose bag holds at least RK_RACK_SIZE tiles adds the mover's full
 * rack and the equity of the best move found for it to the accumulators.
 * With SPV accumulators, each placement played while the bag is not empty
 * adds its residual (worker/residuals.h) to the SPV cells of its fresh tiles
 * when the game ends.
 *
 * SAMPLED RACKS (sampled_racks = K > 0). On each turn that adds the mover's rack, K more racks are
 * valued on the same position: each is RK_RACK_SIZE tiles drawn without
 * replacement from the whole letter distribution (tiles already on the board
 * included: the position only lends its board), its best move under the
 * leaves in force is found, and (rack, equity) is added to the accumulators
 * like the mover's. A dealt rack's mean is taken over the positions where it
 * happened to be dealt: a rack holding the Z only before the Z is played,
 * racks that follow a kept leave in the boards where it was kept. A sampled
 * rack's mean is taken over all the positions of the games, which is what
 * the derivation's weights (the ways to draw the rest of a rack from the
 * whole distribution, eval/derive.h) assume. The draws come from a stream
 * seeded from (run seed, generation, game index, turn), so they do not
 * depend on ranks or threads. docs/leaves.md, "Sampled racks", has the
 * measurements.
 */
#ifndef ROOKERY_RANK_SHARE_H
#define ROOKERY_RANK_SHARE_H

#define GENERATION_MAX_THREADS 256

#include "eval/derive.h"
#include "eval/racktable.h"
#include "residuals.h"
#include "samples.h"
#include "selfplay.h"

typedef struct GenerationTotals {
    /* summed over ranks by the reducer: keep every field an int64 */
    int64_t games, turns, observations, bingos;
    int64_t score_sum;   /* both players' final scores */
    int64_t equity_sum;  /* millipoints, over observations */
    int64_t forced_games, forced_observations;
    int64_t sampled_observations; /* sampled racks valued (leaves.sampled_racks) */
} GenerationTotals;
#define GENERATION_TOTALS_FIELDS 9
/* Upper bound of sampled_racks (leaves.sampled_racks). */
#define GENERATION_MAX_SAMPLED_RACKS 256

typedef struct GenerationWorker {
    const SelfplayConfig *play;  /* lexicon, layout, leaves, seed, generation */
    const RackTable *racks;
    uint64_t games;              /* G */
    int sampled_racks;           /* K of SAMPLED RACKS above; 0 = none */
    int rank, nranks;
    RackAccum *acc;              /* this rank's accumulators */
    SpvAccum *spv_acc;           /* this rank's SPV accumulators, or NULL */
    GameResiduals *res;          /* scratch (needed with spv_acc) */
    ResidualTarget spv_target;   /* what the SPV accumulators learn (residuals.h) */
    SampleRecorder *samples;     /* training samples of this rank's games, or NULL */
    GenerationTotals totals;     /* this rank's totals */
    Game *game;                  /* scratch */
} GenerationWorker;

/*
 * Forced rare racks. After the normal games, racks seen fewer than the
 * generation's minimum count get extra observations: forced games are played
 * like normal ones, but on each turn with at least RK_RACK_SIZE tiles in the
 * bag the next rack of the game's task slice is substituted for the mover's
 * (if it can be made from the mover's rack and the bag), its best move's
 * equity is recorded, and the real rack's best move is then played. The task
 * list (every deficient rack, repeated by its deficit, in rack order) is
 * built from the summed accumulators, so every rank builds the same list;
 * forced game k of a batch takes tasks [k*FORCED_TASKS_PER_GAME, ...). Batch
 * sizes do not depend on the number of ranks, so neither do the results.
 */
#define FORCED_TASKS_PER_GAME 16
#define FORCED_BATCH_GAMES 1024

typedef struct ForcedTasks {
    uint64_t n;        /* deficient racks */
    uint32_t *rack;    /* their indices, ascending */
    uint64_t *end;     /* cumulative deficits: tasks [end[i-1], end[i]) are rack[i] */
    uint64_t total;    /* tasks */
} ForcedTasks;

/* The racks whose count is below min_count, from summed accumulators. */
int forced_tasks_build(ForcedTasks *t, const RackAccum *global, uint32_t min_count, RkError *err);
void forced_tasks_free(ForcedTasks *t);
/* Plays forced game `game_index` with tasks [first, first+count) of t,
 * adding substituted racks' observations to w->acc. */
int generation_play_forced(GenerationWorker *w, uint64_t game_index, const ForcedTasks *t, uint64_t first,
                           uint64_t count, RkError *err);

/* Held-out game `index` (seeded from (seed, HELDOUT_GENERATION(g), index),
 * apart from every training game), played with play: adds the residuals
 * (of the given target) of its placements to st, with the adjustment of each played move under the
 * table `eval` (spread scale k; NULL: none). res is scratch. */
#define HELDOUT_GENERATION(g) ((UINT64_C(1) << 40) + (uint64_t)(g))
void generation_play_heldout(const SelfplayConfig *play, const Spv *eval, double k, ResidualTarget target,
                             uint64_t index, Game *scratch, GameResiduals *res, ResidualStats *st);

/* Games a rank plays in a round: 1 with one thread, else
 * GENERATION_GAMES_PER_THREAD a thread, so that a round does not wait for
 * its longest game with the other threads idle. */
#define GENERATION_GAMES_PER_THREAD 8
static inline uint64_t generation_block(int threads) {
    return threads <= 1 ? 1 : (uint64_t)threads * GENERATION_GAMES_PER_THREAD;
}
/* Rounds needed for G games on P ranks of T threads. */
static inline uint64_t generation_rounds(uint64_t games, int nranks, int threads) {
    uint64_t per_round = (uint64_t)nranks * generation_block(threads);
    return (games + per_round - 1) / per_round;
}
/*
 * Plays this rank's games of round r. With B = generation_block(T) (T =
 * run.threads), round r holds games r*P*B .. r*P*B + P*B - 1 and rank k
 * plays games (r*P + k)*B .. + B - 1 (those below G): with T = 1 game r*P + k,
 * no thread; with T > 1 in T threads, each taking the next game of the block
 * until none is left (thread j plays with worker ws[j]). The workers share
 * the accumulators (their adds are atomic integer adds, so the sums do not
 * depend on the interleaving) and nothing else: each has its own play
 * config (player and its scratch), game, residual scratch, sample recorder
 * and totals. A game's result depends only on its index, and samples are
 * sorted by (game, turn) before they are written, so the shards do not
 * depend on T, P or which thread played what. Returns 0, or -1 on a rack
 * that the rack table does not know (a bug; err says which).
 */
int generation_play_round(GenerationWorker *ws, int threads, uint64_t round, RkError *err);

#endif
