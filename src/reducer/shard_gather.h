/*
 * shard_gather.h - a generation's training samples, from every rank to the
 * shard files rank 0 writes.
 *
 * Every rank packs its samples; rank 0 gathers them (comm_gather_bytes, one
 * MPI_Gatherv), sorts them by (game, turn) and writes
 * gen-NNNN.tmp/shard-00000.h5, shard-00001.h5, ... of at most
 * `per_shard` samples each. The sort makes the files byte-identical for any
 * number of ranks.
 */
#ifndef ROOKERY_SHARD_GATHER_H
#define ROOKERY_SHARD_GATHER_H
#include "comm.h"
#include "nn/shard.h"

#define SHARD_GATHER_MAX_FILES 256
typedef struct ShardFiles {
    int count;
    char name[SHARD_GATHER_MAX_FILES][32];
    uint64_t samples;
} ShardFiles;

/* Collective. dir is the generation's directory (rank 0 writes there). On
 * rank 0, out lists the files written. The status is agreed by all ranks. */
int shards_gather_write(const Comm *c, const ShardSet *mine, const char *dir, const LetterDist *ld, int dim,
                        uint32_t generation, uint64_t per_shard, ShardFiles *out, RkError *err);

#endif
