/*
 * nn_comm.c - MPI_Gatherv and MPI_Bcast of float blocks for the trainer
 * (see nn_comm.h).
 */
#include "nn_comm.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

static int mpi_gather(void *ctx, const float *mine, size_t n, float *all, const size_t *counts, RkError *err) {
    const Comm *c = ctx;
    int *cnt = malloc((size_t)c->size * sizeof(int)), *displ = malloc((size_t)c->size * sizeof(int));
    if (!cnt || !displ) {
        free(cnt), free(displ);
        return rk_error(err, "nn: out of memory");
    }
    size_t at = 0;
    int rc = 0;
    for (int r = 0; r < c->size; r++) {
        if (counts[r] > INT_MAX || at > INT_MAX) rc = rk_error(err, "nn: a model too large to gather (%zu floats)", at);
        cnt[r] = (int)counts[r];
        displ[r] = (int)at;
        at += counts[r];
    }
    if (rc == 0 && MPI_Gatherv(mine, (int)n, MPI_FLOAT, all, cnt, displ, MPI_FLOAT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = rk_error(err, "nn: MPI_Gatherv of the gradients failed");
    free(cnt), free(displ);
    return rc;
}

static int mpi_bcast(void *ctx, float *data, size_t n, RkError *err) {
    (void)ctx;
    if (n > INT_MAX) return rk_error(err, "nn: %zu floats to broadcast", n);
    if (MPI_Bcast(data, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rk_error(err, "nn: MPI_Bcast of the gradients failed");
    return 0;
}

static int mpi_agree(void *ctx, int status) { return (int)comm_max_i64(ctx, status); }

NnTrainComm nn_train_comm_mpi(const Comm *c) {
    return (NnTrainComm){.rank = c->rank,
                         .size = c->size,
                         .ctx = (void *)c,
                         .gather = mpi_gather,
                         .bcast = mpi_bcast,
                         .agree = mpi_agree};
}
