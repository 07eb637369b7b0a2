/*
 * params.c - declaring, allocating and initialising a model's tensors (see
 * params.h).
 *
 * Layout. Each tensor starts at an offset that is a multiple of
 * NNP_ALIGN_FLOATS (16 floats = 64 bytes), so with 64-byte aligned blocks
 * every tensor is itself 64-byte aligned in w, g, m and v. The padding
 * between tensors is zero in every block and stays zero: no layer writes it
 * and the optimizer only walks the tensors. `total` counts the padding.
 *
 * Normal values: Box-Muller over two uniforms built from the top 53 bits of
 * rng_next, both outputs of a pair used, in double; so a stream gives the
 * same values on every machine with IEEE doubles and a correctly rounded
 * libm (log, sqrt, cos, sin).
 */
#include "params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NNP_ALIGN_BYTES 64u
#define NNP_ALIGN_FLOATS (NNP_ALIGN_BYTES / sizeof(float))

static void nnp_die(const char *what) {
    fprintf(stderr, "rookery nn: %s\n", what);
    abort();
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

void nnp_init(NnParams *ps) { memset(ps, 0, sizeof *ps); }

int nnp_declare(NnParams *ps, const char *name, int ndim, const int *shape, bool decay) {
    if (ps->w != NULL) nnp_die("nnp_declare after nnp_alloc");
    if (strlen(name) >= NNP_NAME_MAX) nnp_die("tensor name too long");
    if (ndim < 1 || ndim > NNP_MAX_DIMS) nnp_die("tensor rank out of range");
    size_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] <= 0) nnp_die("tensor dimension not positive");
        n *= (size_t)shape[d];
    }
    if (ps->count == ps->cap) {
        int cap = ps->cap ? 2 * ps->cap : 16;
        NnParam *p = realloc(ps->p, (size_t)cap * sizeof *p);
        if (p == NULL) nnp_die("out of memory declaring a tensor");
        ps->p = p;
        ps->cap = cap;
    }
    NnParam *t = &ps->p[ps->count];
    memset(t, 0, sizeof *t);
    memcpy(t->name, name, strlen(name) + 1);
    t->ndim = ndim;
    for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
    t->offset = ps->total;
    t->n = n;
    t->decay = decay;
    ps->total = round_up(ps->total + n, NNP_ALIGN_FLOATS);
    return ps->count++;
}

static float *alloc_block(size_t floats) {
    /* aligned_alloc wants a size that is a multiple of the alignment; total
     * already is one (round_up above), and an empty model gets one line. */
    size_t bytes = floats ? floats * sizeof(float) : NNP_ALIGN_BYTES;
    float *b = aligned_alloc(NNP_ALIGN_BYTES, bytes);
    if (b != NULL) memset(b, 0, bytes);
    return b;
}

static void free_blocks(NnParams *ps) {
    free(ps->w);
    free(ps->g);
    free(ps->m);
    free(ps->v);
    ps->w = ps->g = ps->m = ps->v = NULL;
}

int nnp_alloc(NnParams *ps) {
    free_blocks(ps);
    ps->w = alloc_block(ps->total);
    ps->g = alloc_block(ps->total);
    ps->m = alloc_block(ps->total);
    ps->v = alloc_block(ps->total);
    if (ps->w == NULL || ps->g == NULL || ps->m == NULL || ps->v == NULL) {
        free_blocks(ps);
        return -1;
    }
    return 0;
}

void nnp_free(NnParams *ps) {
    free_blocks(ps);
    free(ps->p);
    nnp_init(ps);
}

void nnp_zero_grad(NnParams *ps) {
    if (ps->g != NULL) memset(ps->g, 0, ps->total * sizeof(float));
}

int nnp_find(const NnParams *ps, const char *name) {
    for (int i = 0; i < ps->count; i++)
        if (strcmp(ps->p[i].name, name) == 0) return i;
    return -1;
}

/* Uniform in (0, 1] (never 0, so its log is finite). */
static double uniform_open0(Rng *rng) { return (double)((rng_next(rng) >> 11) + 1) * 0x1.0p-53; }

void nnp_fill_normal(NnParams *ps, int i, float std, Rng *rng) {
    float *w = nnp_w(ps, i);
    size_t n = ps->p[i].n;
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t k = 0; k < n; k += 2) {
        double r = sqrt(-2.0 * log(uniform_open0(rng)));
        double a = two_pi * uniform_open0(rng);
        w[k] = (float)(std * r * cos(a));
        if (k + 1 < n) w[k + 1] = (float)(std * r * sin(a));
    }
}
