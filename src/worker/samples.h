/*
 * samples.h - recording training samples from self-play games (the input of
 * the HDF5 shards, nn/shard.h).
 *
 * Every position of a game is recorded from the player on turn's view, with:
 *   P target: the played move (temperature 0), or a softmax of the static
 *             equities of the `top` best legal moves at `temperature` points,
 *             or (samples_record_policy) a search's root distribution (its
 *             visits or its improved policy, search/policy_target.h),
 *             or none (samples_record_no_policy);
 *   V target: the final spread and result for that player (filled in when
 *             the game ends) and, from a search, the search's expected
 *             final spread (the current spread + its root value);
 *   H target: the opponent's leave, i.e. what they kept after their last
 *             move (unknown on the first turn of each player's opponent).
 * Usage: samples_begin_game, then samples_record from the self-play
 * observer before each move, then samples_finish_game on the final game.
 */
#ifndef ROOKERY_SAMPLES_H
#define ROOKERY_SAMPLES_H
#include "core/game.h"
#include "core/movegen.h"
#include "nn/shard.h"

typedef struct SampleRecorder {
    double temperature;        /* points; 0 = the played move only */
    int top;                   /* moves in a softmax target */
    LeaveValueFn leave_value;  /* the equities' leaves (NULL: 0) */
    const void *leave_ctx;
    ShardSet *out;
    /* per game */
    size_t first;              /* the game's first sample in out */
    uint64_t game;
    uint32_t generation;
    bool leave_known[2];
    Rack leave[2];             /* each player's tiles kept after their last move */
    MoveList scratch;
    bool shared;               /* scratch is a self-play's top_list (samples_shared_top) */
} SampleRecorder;

void samples_init(SampleRecorder *r, ShardSet *out, double temperature, int top, LeaveValueFn leave_value,
                  const void *leave_ctx);
/* The list a static self-play may fill each turn with its k best moves
 * (SelfplayConfig.top_list and top_k), so that samples_record takes its
 * policy target from it instead of generating them again; NULL (nothing to
 * share) when targets are the played move only (temperature 0). The
 * self-play must value moves with the recorder's leaves. */
MoveList *samples_shared_top(SampleRecorder *r, int *k);
void samples_free(SampleRecorder *r);
void samples_begin_game(SampleRecorder *r, uint64_t game, uint32_t generation);
/* The position before move m, and m. */
void samples_record(SampleRecorder *r, const Game *before, const Move *m);
/* The same with a search's root distribution as the P target: moves with
 * their probabilities (those of 0 are dropped; none above 0: the played
 * move), and the search's expected final spread for the mover, points
 * (NaN: none; samples_record gives none). */
void samples_record_policy(SampleRecorder *r, const Game *before, const Move *m, const PackedMove *moves,
                           const float *probs, int count, double search_spread);
/* The same without a P target (no policy entries; the trainer skips P's
 * loss for it) and without an estimate: a fast search's decision under
 * playout cap randomization (search/mcgs_player.h), whose few visits are
 * no target. */
void samples_record_no_policy(SampleRecorder *r, const Game *before, const Move *m);
/* Fills the V targets of the game's samples from the final scores. */
void samples_finish_game(SampleRecorder *r, const Game *final);

#endif
