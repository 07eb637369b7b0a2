/*
 * selfplay.h - static-equity self-play: both sides play the best move by
 * equity (score, plus leave values when a leave callback is given) until the
 * game ends. Each game's randomness comes only from (seed, generation, game
 * index), so any process can replay any game.
 */
#ifndef ROOKERY_SELFPLAY_H
#define ROOKERY_SELFPLAY_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/spv.h"
#include "search/player.h"

typedef struct SelfplayStats {
    uint64_t games, turns, bingos;
    int64_t score_sum[2];     /* final scores of the first and second player */
    uint64_t wins[2], draws;
} SelfplayStats;

/* Called before each move is played, with the position it is played from. */
typedef void (*SelfplayObserver)(const Game *before, const Move *move, void *ctx);

typedef struct SelfplayConfig {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    LeaveValueFn leave_value; /* NULL: best score */
    const void *leave_ctx;
    const Spv *spv;           /* NULL: no positional adjustment */
    double spv_k;             /* its spread scale K, points */
    uint64_t seed, generation;
    const Player *player;     /* NULL: the static player above; else this player chooses
                               * every move (spv is then unused; leave_value still values
                               * what moves keep for the observers) */
    /* Optional, for the static player without a positional table: every
     * turn the top_k best moves by equity (move_compare_equity) go into
     * *top_list and the move is chosen from them (the same move
     * movegen_best gives), so an observer that wants them (the shard
     * sampler: samples_shared_top) need not generate again. Emptied at
     * every turn, so it never holds another position's moves. */
    MoveList *top_list;
    int top_k;
} SelfplayConfig;

/* Plays game number game_index to its end in *g (caller-owned storage, so a
 * caller can look at the final position), adding to stats if not NULL. */
void selfplay_game(const SelfplayConfig *cfg, uint64_t game_index, Game *g, SelfplayStats *stats,
                   SelfplayObserver observe, void *ctx);

#endif
