/*
 * shard.h - training samples and the HDF5 shards that hold them
 * (docs/shards.md is the schema).
 *
 * A sample is one position of a self-play game, from the player on turn's
 * point of view, with its targets:
 *   P: a distribution over legal moves (PackedMove + probability, ragged);
 *   V: the final spread and result for the player on turn, and (from a
 *      search player) the search's own estimate of the final spread, which
 *      the trainer can blend into the spread target (nn.value_search_weight);
 *   H: the opponent's leave (the tiles they kept after their last move;
 *      unknown before their first move).
 * A ShardSet is a growable set of samples. Sets travel between ranks as
 * bytes (shardset_pack / shardset_unpack_append) and are sorted by (game,
 * turn) before writing, so a shard's bytes do not depend on which rank
 * played which game.
 *
 * shard_write() writes one file atomically (PATH.tmp, fsync, rename);
 * shard_read() validates every size, index and value it loads.
 */
#ifndef ROOKERY_NN_SHARD_H
#define ROOKERY_NN_SHARD_H
#include <math.h>

#include "core/position.h"

#define SHARD_SCHEMA_VERSION 2  /* 2 added search_spread; version 1 shards still load */
#define SHARD_MAX_SPREAD 100000.0f /* |search_spread| a loader accepts, points */
/* A search estimate a shard may hold: NaN (none), or finite within the bound. */
static inline bool shard_spread_estimate_ok(float x) { return isnan(x) || (x >= -SHARD_MAX_SPREAD && x <= SHARD_MAX_SPREAD); }

typedef struct ShardSample {
    Position pos;
    uint64_t game;
    uint32_t generation;
    uint32_t turn;
    int32_t final_spread;    /* points, the mover's final score minus the opponent's */
    int8_t result;           /* +1 win, 0 draw, -1 loss (the mover) */
    float search_spread;     /* the search's expected final spread for the mover (the
                              * current spread + its root value), NaN if no search gave one */
    uint8_t opp_leave_known;
    Rack opp_leave;
    PackedMove played;
    uint64_t policy_start;   /* into the set's policy arrays */
    uint32_t policy_count;
} ShardSample;

typedef struct ShardSet {
    ShardSample *s;
    size_t n, cap;
    PackedMove *pmove;       /* policy targets: moves and probabilities */
    float *pprob;
    size_t np, pcap;
} ShardSet;

void shardset_init(ShardSet *set);
void shardset_free(ShardSet *set);
void shardset_clear(ShardSet *set);
/* Appends a sample (its policy_start/count are set here) with its policy
 * target of `count` moves. */
void shardset_add(ShardSet *set, const ShardSample *sample, const PackedMove *moves, const float *probs,
                  uint32_t count);
/* Appends every sample of src, with its policy target. */
void shardset_append(ShardSet *set, const ShardSet *src);
/* Sorts by (game, turn). */
void shardset_sort(ShardSet *set);

/* Gives each sample the opponent's last move (Position.last, which shards
 * do not store): the move its predecessor in the set played, when that is
 * the same game's previous turn (the set as read: in game and turn order),
 * its score from the scores of the two positions. Other samples keep
 * last_known false. */
void shardset_link_last_moves(ShardSet *set);

/* Bytes for a set (malloc'ed into *out). */
int shardset_pack(const ShardSet *set, uint8_t **out, size_t *len, RkError *err);
/* Appends the samples packed in buf; validates lengths. */
int shardset_unpack_append(ShardSet *set, const uint8_t *buf, size_t len, RkError *err);

typedef struct ShardInfo {
    int schema_version;
    uint32_t generation;
    int dim, letters;        /* letters = distribution size, blank included */
    char distribution[64];
    uint64_t samples, policy_entries;
} ShardInfo;

/* Writes samples [first, first+count) of set to path. */
int shard_write(const char *path, const ShardSet *set, size_t first, size_t count, const LetterDist *ld, int dim,
                uint32_t generation, RkError *err);
/* Appends the samples of the shard at path to set (set may be NULL to read
 * only the header into info). Checks the schema version (1 or 2; version 1
 * has no search_spread: NaN), the distribution and board size (when ld is
 * given and dim > 0), and every value. */
int shard_read(const char *path, ShardSet *set, ShardInfo *info, const LetterDist *ld, int dim, RkError *err);

#endif
