/*
 * params_io.h - a network's tensors in an open HDF5 file: the weights and
 * the two Adam moments of NnParams, one float32 dataset per tensor under
 * /weights, /adam_m and /adam_v (docs/model.md). The P/V/H model
 * (model_io.c) and the afterstate network (afterstate_net.c) both store
 * their parameters this way; each writes its own root attributes.
 *
 * Call both inside H5E_BEGIN_TRY (they print nothing).
 */
#ifndef ROOKERY_NN_PARAMS_IO_H
#define ROOKERY_NN_PARAMS_IO_H
#include <hdf5.h>

#include "core/common.h"
#include "params.h"

/* Writes the three groups of every tensor (each one chunk, shuffle +
 * deflate + Fletcher-32). Returns 0, or nonzero if a write failed. */
int nn_params_write(hid_t file, const NnParams *ps);
/* Reads the three groups into ps's blocks (declared and allocated), checking
 * each tensor's presence, shape and values (finite; second moments not
 * negative) and that a group holds nothing else. Errors name path and the
 * tensor. */
int nn_params_read(hid_t file, NnParams *ps, const char *path, RkError *err);

#endif
