/*
 * klv.h - leave values (.klv2, ../shared/formats.md "KLV2").
 *
 * A .klv2 file is, little-endian:
 *   u32 N, N KWG nodes (a DAWG only: node 1 has arc 0), u32 L, L f32 values.
 * The DAWG's words are the leaves of 1..RK_RACK_SIZE-1 tiles as sorted ML
 * strings (blank 0 first); value i belongs to the word with index i in the
 * word index of kwg_index.h. The empty leave is not stored and is worth 0.
 *
 * Units: `values` are the floats as stored (points). `milli` holds each of
 * them rounded once, at load (or klv_set_values), to the nearest thousandth:
 * lround(v * 1000.0). Move generation only ever uses `milli`, so equities are
 * integers and ties are exact (the reference engine's convention).
 *
 * A Klv is read-only after loading, so one may be shared by any number of
 * threads calling klv_leave_value.
 */
#ifndef ROOKERY_KLV_H
#define ROOKERY_KLV_H

#include "core/kwg.h"
#include "core/kwg_index.h"
#include "core/letters.h"
#include "core/movegen.h"
#include "core/rack.h"

/* Largest |value| accepted, in points: keeps 1000*value well inside int32. */
#define KLV_MAX_ABS_VALUE 1.0e6

typedef struct Klv {
    Kwg kwg;        /* DAWG of the leaves */
    KwgIndex ix;    /* its word index */
    uint32_t count; /* L: leaves (words of the DAWG) */
    float *values;  /* count values as stored, in word-index order */
    int32_t *milli; /* count values in millipoints (rounded once) */
} Klv;

/* Loads path. Checks, before anything is used: the size is exactly
 * 4 + 4N + 4 + 4L bytes; N >= 2; the nodes form a valid DAWG-only KWG with
 * tiles < ld->size and no cycle; L equals the number of words of the DAWG;
 * every value is finite and within KLV_MAX_ABS_VALUE. On error returns -1
 * with a one-line message naming the file and the problem (k is then empty
 * and klv_free is harmless). */
int klv_load(Klv *k, const char *path, const LetterDist *ld, RkError *err);
/* The same from a buffer holding the whole file; `source` names it in
 * messages. klv_load reads the file and calls this. */
int klv_load_bytes(Klv *k, const uint8_t *data, size_t size, const LetterDist *ld, const char *source,
                   RkError *err);
/* Every leave of 1..RK_RACK_SIZE-1 tiles the distribution allows (each
 * count[ml] <= ld->count[ml], the blank included), all worth 0. English has
 * 914,624 leaves (a 3,667,340-byte file). */
int klv_init_zero(Klv *k, const LetterDist *ld, RkError *err);
/* Writes k in the layout above: to PATH.tmp, fsync'ed, then renamed over
 * path (core/atomicfile.h), so path never holds a partial file. */
int klv_write(const Klv *k, const char *path, RkError *err);
void klv_free(Klv *k);

/* The word index of the leave (its tiles as a sorted ML string), or -1 if
 * the leave is empty or not in the file. */
int64_t klv_index(const Klv *k, const Rack *leave);
/* A LeaveValueFn (movegen.h): the leave's value in millipoints; 0 for the
 * empty leave and for leaves not in the file. ctx is a const Klv *. */
int32_t klv_leave_value(const void *klv, const Rack *leave);
/* klv_leave_value's LeaveTableFn (movegen.h): every sub-rack of rack at
 * once, in one walk of the leave graph. */
void klv_leave_table(const void *klv, const Rack *rack, int32_t *out);
/* klv_leave_table if fn is klv_leave_value, else NULL: the companion a
 * caller that has only the function can give movegen. */
LeaveTableFn klv_table_for(LeaveValueFn fn);
/* Gives a move-generation request its leaves: fn (NULL: none) with ctx, and
 * fn's companion table when it has one. */
static inline void klv_request_leaves(MoveGenRequest *req, LeaveValueFn fn, const void *ctx) {
    req->leave_value = fn;
    req->leave_ctx = ctx;
    req->leave_table = klv_table_for(fn);
}
/* Replaces all k->count values (points) and recomputes milli. Non-finite
 * values become 0 and values are clamped to +-KLV_MAX_ABS_VALUE. */
void klv_set_values(Klv *k, const float *v);

#endif
