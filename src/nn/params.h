/*
 * params.h - a model's parameters, gradients and Adam moments, each in one
 * contiguous float block.
 *
 * A model first declares its tensors (nnp_declare: name and shape), then
 * allocates them all at once (nnp_alloc). Every tensor lives at the same
 * offset in the four blocks w (weights), g (gradients), m and v (Adam's
 * moments), so the data-parallel trainer sums every gradient of the model in
 * one collective over g, and the HDF5 writer saves one dataset per tensor.
 *
 * No global state: a NnParams is owned by its model.
 */
#ifndef ROOKERY_NN_PARAMS_H
#define ROOKERY_NN_PARAMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/rng.h"

#define NNP_NAME_MAX 48
#define NNP_MAX_DIMS 4

typedef struct NnParam {
    char name[NNP_NAME_MAX];  /* e.g. "trunk.block0.conv1.w" */
    int ndim;
    int shape[NNP_MAX_DIMS];
    size_t offset, n;         /* floats */
    bool decay;               /* Adam's weight decay applies (weights yes, biases no) */
} NnParam;

typedef struct NnParams {
    NnParam *p;
    int count, cap;
    size_t total;             /* floats in each block */
    float *w, *g, *m, *v;     /* NULL until nnp_alloc; 64-byte aligned */
} NnParams;

void nnp_init(NnParams *ps);
/* Declares a tensor (before nnp_alloc); returns its index. Aborts on
 * out-of-memory or a name longer than NNP_NAME_MAX-1. */
int nnp_declare(NnParams *ps, const char *name, int ndim, const int *shape, bool decay);
/* Allocates the four blocks, all zero. Returns 0, or -1 on out-of-memory. */
int nnp_alloc(NnParams *ps);
void nnp_free(NnParams *ps);
static inline float *nnp_w(const NnParams *ps, int i) { return ps->w + ps->p[i].offset; }
static inline float *nnp_g(const NnParams *ps, int i) { return ps->g + ps->p[i].offset; }
void nnp_zero_grad(NnParams *ps);
/* Index of the tensor called name, or -1. */
int nnp_find(const NnParams *ps, const char *name);
/* Fills tensor i with N(0, std^2) values drawn from rng (Box-Muller over
 * rng_next; deterministic for a given stream). */
void nnp_fill_normal(NnParams *ps, int i, float std, Rng *rng);

#endif
