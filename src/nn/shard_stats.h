/*
 * shard_stats.h - what a set of training samples holds, in a few numbers
 * (`rookery info SHARD.h5` prints them; tests check shards with them):
 *   samples, games (the set sorted by game, as shards are), the last turn;
 *   P: how many samples have no target (a fast search's decision under
 *      playout cap randomization), moves in targets, the share of
 *      single-move targets and the mean top probability (both over the
 *      samples with a target), and the grid of the probabilities: the smallest
 *      N <= SHARD_STATS_MAX_GRID such that every probability is a multiple
 *      of 1/N (a search's visit counts over N playouts give one; softmax
 *      targets none);
 *   V: results, the mean |final spread|, and the search's estimates: how
 *      many samples have one, and their RMS difference from the final spread;
 *   H: how many samples know the opponent's leave, and its mean size.
 */
#ifndef ROOKERY_NN_SHARD_STATS_H
#define ROOKERY_NN_SHARD_STATS_H
#include "shard.h"

#define SHARD_STATS_MAX_GRID 4096

typedef struct ShardStats {
    uint64_t samples, games, max_turn;
    uint64_t no_policy;          /* samples without a P target */
    uint64_t policy_entries, single_move;
    double mean_top_prob;        /* over the samples with a target */
    int grid;                    /* the N above, 0 if none */
    uint64_t won, drawn, lost;
    double mean_abs_final;       /* points */
    uint64_t estimates;          /* samples with a search estimate */
    double rms_estimate_error;   /* points (0 without estimates) */
    uint64_t leave_known, leave_tiles;
} ShardStats;

/* The statistics of the samples of set. */
void shard_stats(const ShardSet *set, ShardStats *out);

#endif
