/*
 * comm_max.h - an element-wise maximum over every rank of an int64 array
 * (comm.h's comm_max_i64 takes one value; the arena's per-engine maximum
 * time a move takes two). Nothing outside src/reducer/ calls MPI.
 */
#ifndef ROOKERY_COMM_MAX_H
#define ROOKERY_COMM_MAX_H

#include <stddef.h>
#include <stdint.h>

#include "reducer/comm.h"

/* In place: data[i] becomes the maximum of data[i] over all ranks.
 * Collective. n must fit an MPI count (below 2^31). */
int comm_max_i64_array(const Comm *c, int64_t *data, size_t n, RkError *err);

#endif
