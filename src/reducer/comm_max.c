/* comm_max.c - the element-wise maximum of an array over ranks (comm_max.h). */
#include "reducer/comm_max.h"

#include <limits.h>
#include <mpi.h>

int comm_max_i64_array(const Comm *c, int64_t *data, size_t n, RkError *err) {
    (void)c;
    if (n > (size_t)INT_MAX) return rk_error(err, "%zu values are too many for one MPI maximum", n);
    if (n == 0) return 0;
    if (MPI_Allreduce(MPI_IN_PLACE, data, (int)n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return rk_error(err, "MPI_Allreduce (max) of %zu values failed", n);
    return 0;
}
