#include "comm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK ((size_t)1 << 27)

int comm_init(Comm *c, int *argc, char ***argv, RkError *err) {
    int ok = 0;
    c->owns_mpi = false;
    MPI_Initialized(&ok);
    /* FUNNELED: the self-play threads of run.threads never call MPI; the
     * main thread joins them before every collective */
    int provided = MPI_THREAD_SINGLE;
    if (!ok && MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return rk_error(err, "MPI_Init_thread failed");
    if (ok) MPI_Query_thread(&provided);
    c->owns_mpi = !ok; /* a caller that initialised MPI itself (a test, a library user) finalises it */
    c->threads_ok = provided >= MPI_THREAD_FUNNELED;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    const char *ntasks = getenv("SLURM_NTASKS");
    if (ntasks != NULL && atoi(ntasks) > 1 && c->size == 1) {
        rk_error(err,
                 "SLURM_NTASKS=%s but MPI sees 1 process: srun started independent copies (PMI mismatch); "
                 "launch with `srun --mpi=pmix` (see `srun --mpi=list`) or with mpirun",
                 ntasks);
        return -1;
    }
    return 0;
}

void comm_finalize(Comm *c) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (c->owns_mpi && !fin) MPI_Finalize();
}

_Noreturn void comm_abort(Comm *c, int code) {
    (void)c;
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); /* not reached */
}

int comm_sum_i64(const Comm *c, int64_t *data, size_t n, RkError *err) {
    (void)c;
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        if (MPI_Allreduce(MPI_IN_PLACE, data + off, (int)len, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
            return rk_error(err, "MPI_Allreduce of %zu values failed", len);
    }
    return 0;
}

int64_t comm_max_i64(const Comm *c, int64_t v) {
    (void)c;
    int64_t out = v;
    MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

void comm_barrier(const Comm *c) {
    (void)c;
    MPI_Barrier(MPI_COMM_WORLD);
}

int comm_bcast(const Comm *c, void *data, size_t n, RkError *err) {
    (void)c;
    unsigned char *p = data;
    for (size_t off = 0; off < n; off += CHUNK) {
        size_t len = n - off < CHUNK ? n - off : CHUNK;
        if (MPI_Bcast(p + off, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return rk_error(err, "MPI_Bcast of %zu bytes failed", len);
    }
    return 0;
}

int comm_gather_bytes(const Comm *c, const void *mine, size_t len, uint8_t **all, size_t **offsets,
                      RkError *err) {
    *all = NULL;
    *offsets = NULL;
    /* a share over 2 GiB fails every rank together (status 3), not this one alone */
    int bad = len > (size_t)INT32_MAX ? 3 : 0;
    int n = bad ? 0 : (int)len;
    int *counts = NULL, *displs = NULL;
    if (c->rank == 0) {
        counts = calloc((size_t)c->size, sizeof *counts);
        displs = calloc((size_t)c->size, sizeof *displs);
        *offsets = calloc((size_t)c->size + 1, sizeof **offsets);
        if (!counts || !displs || !*offsets) bad = bad ? bad : 1;
    }
    if (MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) bad = 1;
    size_t total = 0;
    if (c->rank == 0 && !bad) {
        for (int r = 0; r < c->size; r++) {
            (*offsets)[r] = total;
            displs[r] = (int)total;
            total += (size_t)counts[r];
        }
        (*offsets)[c->size] = total;
        if (total > (size_t)INT32_MAX) bad = 2;
        else if (!(*all = malloc(total + 1))) bad = 1;
    }
    /* everyone learns whether rank 0 can receive */
    int64_t status = comm_max_i64(c, bad);
    if (status == 0 && MPI_Gatherv(mine, n, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        status = 1;
    free(counts);
    free(displs);
    if (status != 0) {
        free(*all);
        free(*offsets);
        *all = NULL;
        *offsets = NULL;
        if (status == 3 && len > (size_t)INT32_MAX)
            return rk_error(err, "rank %d: %zu bytes to gather (limit 2 GiB a rank)", c->rank, len);
        if (status >= 2) return rk_error(err, "more than 2 GiB to gather on rank 0 at once");
        return rk_error(err, "gathering %zu bytes on rank 0 failed (out of memory?)", total);
    }
    return 0;
}
