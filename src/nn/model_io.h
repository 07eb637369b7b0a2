/*
 * model_io.h - a model's weights and Adam moments in an HDF5 file
 * (model.h5; docs/model.md is the layout).
 *
 * The root group's attributes describe the model (format "rookery-model",
 * the versions, the architecture, the board and distribution, the training
 * step and generation); /weights, /adam_m and /adam_v hold one float32
 * dataset per tensor, named and shaped as the model declares it
 * (params.h). Gradients are not saved.
 *
 * nn_model_save() writes atomically (PATH.tmp, fsync, rename) and without
 * timestamps: the same model gives the same bytes. nn_model_load() builds the
 * model the file describes and checks everything it reads: versions, the
 * distribution's size and board side the caller plays with, the
 * architecture, every tensor's presence and exact shape, and that every value
 * is finite. Errors are one line naming the file (and the tensor, if one is
 * at fault).
 */
#ifndef ROOKERY_NN_MODEL_IO_H
#define ROOKERY_NN_MODEL_IO_H
#include "model.h"

#define NN_MODEL_FORMAT "rookery-model"
#define NN_MODEL_VERSION 1

/* What a model file's attributes say (nn_model_peek). */
typedef struct NnModelInfo {
    bool is_model;          /* its format attribute is NN_MODEL_FORMAT (set even if a later attribute is bad) */
    int model_version;
    int feature_version;
    NnArch arch;            /* as stored: not checked by peek (nn_arch_check) */
    int dim;                /* board side */
    int letters;            /* distribution size, blank included */
    char distribution[64];  /* the distribution's name when saved (informational) */
    int64_t train_step;
    uint32_t generation;
} NnModelInfo;

/* Writes m (weights, Adam moments, train_step and generation) to path; ld is
 * the distribution it was built for (its size must match the model's). */
int nn_model_save(const NnModel *m, const char *path, const LetterDist *ld, RkError *err);
/* Builds *m from the file at path (nn_model_init, then every tensor read
 * over the initial values). Refuses a file that is not a rookery model, of
 * another model or feature version, with another number of letters than ld
 * or another board side than dim, with an invalid architecture, or with a
 * tensor missing, extra, of another shape or with a non-finite value (or a
 * negative second moment). The distribution's name is not compared (a
 * distribution loaded from a file is named by its path). Gradients are zero.
 * On error *m holds nothing (nn_model_free on it is harmless). */
int nn_model_load(NnModel *m, const char *path, const LetterDist *ld, int dim, RkError *err);
/* Reads only the root attributes into *info. Succeeds for any file with the
 * model format attribute and all the others present and in range (versions
 * are not compared), so callers can tell models from shards and describe a
 * model of another version. */
int nn_model_peek(const char *path, NnModelInfo *info, RkError *err);

#endif
