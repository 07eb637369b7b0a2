/*
 * comm.h - the MPI side of rookery: every collective goes through here.
 *
 * Nothing outside src/reducer/ calls MPI. A run on one process without
 * mpirun works too (MPI singleton init).
 */
#ifndef ROOKERY_COMM_H
#define ROOKERY_COMM_H
#include <stdbool.h>

#include "core/common.h"

typedef struct Comm {
    int rank, size;
    bool threads_ok; /* MPI allows other threads beside the caller (FUNNELED or more) */
    bool owns_mpi;   /* comm_init initialised MPI, so comm_finalize finalises it */
} Comm;

/* MPI_Init plus the Slurm/PMIx guard: if SLURM_NTASKS > 1 but MPI reports a
 * single process, srun started N independent copies (a PMI mismatch); that is
 * an error, with a message saying how to launch. */
int comm_init(Comm *c, int *argc, char ***argv, RkError *err);
/* MPI_Finalize, if comm_init was the one that initialised MPI. */
void comm_finalize(Comm *c);
/* Ends every rank (after a fatal error on one of them). */
_Noreturn void comm_abort(Comm *c, int code);
/* In-place sum over all ranks, in chunks below 2^28 elements (MPI counts are
 * int). Integer sums are exact, so the result does not depend on the number
 * of ranks or their order. */
int comm_sum_i64(const Comm *c, int64_t *data, size_t n, RkError *err);
/* Maximum of one value over all ranks. */
int64_t comm_max_i64(const Comm *c, int64_t v);
void comm_barrier(const Comm *c);
/* Gathers every rank's bytes on rank 0: *all is their concatenation in rank
 * order and (*offsets)[r] .. (*offsets)[r+1] is rank r's part (both malloc'ed,
 * rank 0 only; NULL elsewhere). Collective; at most 2 GiB in all. */
int comm_gather_bytes(const Comm *c, const void *mine, size_t len, uint8_t **all, size_t **offsets,
                      RkError *err);
/* Broadcasts n bytes from rank 0. */
int comm_bcast(const Comm *c, void *data, size_t n, RkError *err);

#endif
