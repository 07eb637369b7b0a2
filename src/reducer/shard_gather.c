/*
 * shard_gather.c - samples from every rank into rank 0's shard files (see
 * shard_gather.h).
 */
#include "shard_gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shards_gather_write(const Comm *c, const ShardSet *mine, const char *dir, const LetterDist *ld, int dim,
                        uint32_t generation, uint64_t per_shard, ShardFiles *out, RkError *err) {
    memset(out, 0, sizeof *out);
    uint8_t *bytes = NULL, *all = NULL;
    size_t len = 0, *offs = NULL;
    int rc = shardset_pack(mine, &bytes, &len, err);
    if (comm_max_i64(c, rc != 0) != 0) {
        free(bytes);
        return -1;
    }
    rc = comm_gather_bytes(c, bytes, len, &all, &offs, err);
    free(bytes);
    if (rc != 0) return -1;
    int status = 0;
    if (c->rank == 0) {
        ShardSet set;
        shardset_init(&set);
        for (int r = 0; r < c->size && status == 0; r++)
            if (shardset_unpack_append(&set, all + offs[r], offs[r + 1] - offs[r], err) != 0) status = 1;
        if (status == 0) {
            shardset_sort(&set);
            if (per_shard == 0) per_shard = set.n ? set.n : 1;
            uint64_t files = (set.n + per_shard - 1) / per_shard;
            if (files > SHARD_GATHER_MAX_FILES) {
                rk_error(err, "%zu samples make %llu shards of %llu (at most %d a generation); raise "
                              "nn.shard_samples", set.n, (unsigned long long)files, (unsigned long long)per_shard,
                         SHARD_GATHER_MAX_FILES);
                status = 1;
            }
            for (uint64_t f = 0; status == 0 && f < files; f++) {
                char path[4096];
                snprintf(out->name[f], sizeof out->name[f], "shard-%05llu.h5", (unsigned long long)f);
                snprintf(path, sizeof path, "%s/%s", dir, out->name[f]);
                size_t first = (size_t)(f * per_shard);
                size_t count = set.n - first < per_shard ? set.n - first : (size_t)per_shard;
                if (shard_write(path, &set, first, count, ld, dim, generation, err) != 0) status = 1;
                else out->count++;
            }
            out->samples = set.n;
        }
        shardset_free(&set);
    }
    free(all);
    free(offs);
    if (comm_max_i64(c, status) == 0) return 0;
    if (c->rank != 0) rk_error(err, "rank 0 could not write the generation's shards");
    return -1;
}
