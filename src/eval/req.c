/*
 * req.c - reading and writing .req rack-equity tables (see req.h).
 */
#include "req.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/textfile.h"

/* A .req for any distribution the rack graph can address is far smaller. */
#define REQ_MAX_FILE_BYTES ((uint64_t)1 << 34)

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t get64(const uint8_t *p) {
    return (uint64_t)get32(p) | ((uint64_t)get32(p + 4) << 32);
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ------------------------------------------------------------------ write */

typedef struct Out {
    RkAtomicFile af;
    uint8_t buf[1 << 16];
    size_t n;
} Out;

static void out_flush(Out *o) {
    if (o->n > 0) rk_atomic_write(&o->af, o->buf, o->n);
    o->n = 0;
}

static void out_u32(Out *o, uint32_t v) {
    if (o->n + 4 > sizeof o->buf) out_flush(o);
    put32(o->buf + o->n, v);
    o->n += 4;
}

static void out_u64(Out *o, uint64_t v) {
    if (o->n + 8 > sizeof o->buf) out_flush(o);
    put64(o->buf + o->n, v);
    o->n += 8;
}

/* mean from an array or from accumulators. */
typedef struct Vals {
    const float *mean;
    const uint64_t *counts;
    const RackAccum *acc;
} Vals;

static int write_req(const char *path, const RackTable *rt, const Vals *v, RkError *err) {
    if (rt == NULL || rt->kwg.nodes == NULL) return rk_error(err, "%s: no rack table", path);
    if (rt->num_racks > UINT32_MAX) return rk_error(err, "%s: too many racks for a .req", path);
    uint32_t num = (uint32_t)rt->num_racks;
    bool with_counts = v->acc != NULL || v->counts != NULL;
    if (v->acc != NULL && v->acc->n != rt->num_racks)
        return rk_error(err, "%s: %llu accumulators, but the distribution has %u racks", path,
                        (unsigned long long)v->acc->n, num);
    for (uint32_t i = 0; v->mean != NULL && i < num; i++)
        if (!isfinite(v->mean[i]))
            return rk_error(err, "%s: the equity of rack %u is not finite", path, i);

    Out *o = malloc(sizeof *o);
    if (o == NULL) return rk_error(err, "%s: out of memory", path);
    if (rk_atomic_open(&o->af, path, err) != 0) {
        free(o);
        return -1;
    }
    memcpy(o->buf, REQ_MAGIC, 4);
    o->n = 4;
    out_u32(o, num);
    out_u32(o, (uint32_t)rt->rack_size);
    out_u32(o, with_counts ? REQ_FLAG_COUNTS : 0);
    out_u32(o, rt->kwg.n);
    for (uint32_t i = 0; i < rt->kwg.n; i++)
        out_u32(o, rt->kwg.nodes[i]);
    for (uint32_t i = 0; i < num; i++) {
        float m;
        if (v->acc != NULL) {
            m = v->acc->count[i] > 0 ? (float)rack_accum_mean(v->acc, i) : 0.0f;
        } else {
            m = v->mean[i];
        }
        out_u32(o, float_bits(m));
    }
    if (with_counts) {
        for (uint32_t i = 0; i < num; i++) {
            uint64_t c;
            if (v->acc != NULL) {
                c = v->acc->count[i] > 0 ? (uint64_t)v->acc->count[i] : 0;
            } else {
                c = v->counts[i];
            }
            out_u64(o, c);
        }
    }
    out_flush(o);
    int rc = rk_atomic_commit(&o->af, err);
    free(o);
    return rc;
}

int req_write(const char *path, const RackTable *rt, const float *mean, const uint64_t *counts,
              RkError *err) {
    if (mean == NULL) return rk_error(err, "%s: no rack equities to write", path);
    Vals v = {.mean = mean, .counts = counts};
    return write_req(path, rt, &v, err);
}

int req_write_accum(const char *path, const RackTable *rt, const RackAccum *acc, RkError *err) {
    if (acc == NULL || acc->count == NULL)
        return rk_error(err, "%s: no accumulators to write", path);
    Vals v = {.acc = acc};
    return write_req(path, rt, &v, err);
}

/* ------------------------------------------------------------------- load */

typedef struct CheckCtx {
    const RackTable *rt;
    uint64_t next;
    bool bad;
    uint64_t bad_at;
} CheckCtx;

/* Word number next must be rack number next. */
static int check_word(const uint8_t *ml, int len, void *vctx) {
    CheckCtx *c = vctx;
    uint64_t at = c->next++;
    Rack r;
    rack_clear(&r);
    bool ok = len == c->rt->rack_size;
    for (int i = 0; ok && i < len; i++) {
        if (ml[i] >= c->rt->num_letters || (i > 0 && ml[i] < ml[i - 1])) {
            ok = false;
        } else {
            rack_add(&r, ml[i]);
        }
    }
    if (ok && racktable_index(c->rt, &r) != (int64_t)at) ok = false;
    if (!ok) {
        c->bad = true;
        c->bad_at = at;
        return 1;
    }
    return 0;
}

static void req_zero(Req *q) { memset(q, 0, sizeof *q); }

/* The header (the first REQ_HEADER_BYTES + 4 bytes, of `have`) against the
 * rack table and the file's size: a file is judged by its header before
 * its body is read (a 2 GB file of zeros used to be read whole first). */
static int check_header(const uint8_t *data, size_t have, uint64_t size, const RackTable *rt, const char *source,
                        RkError *err) {
    if (rt == NULL || rt->fill == NULL)
        return rk_error(err, "%s: no rack table to check against", source);
    if (rk_check_magic(data, have, REQ_HEADER_BYTES + 4, REQ_MAGIC, "a REQ1 rack-equity file (.req)", source, err) != 0)
        return -1;
    uint32_t num = get32(data + 4), rack_size = get32(data + 8), flags = get32(data + 12);
    if (rack_size != (uint32_t)rt->rack_size)
        return rk_error(err, "%s: rack size %u, expected %d", source, rack_size, rt->rack_size);
    if ((uint64_t)num != rt->num_racks)
        return rk_error(err, "%s: %u racks, but the distribution has %llu racks of %d tiles",
                        source, num, (unsigned long long)rt->num_racks, rt->rack_size);
    if ((flags & ~REQ_FLAG_COUNTS) != 0)
        return rk_error(err, "%s: unknown flag bits 0x%x", source, flags & ~REQ_FLAG_COUNTS);
    uint32_t nodes = get32(data + 16);
    uint64_t expect = (uint64_t)REQ_HEADER_BYTES + 4 + 4 * (uint64_t)nodes + 4 * (uint64_t)num +
                      ((flags & REQ_FLAG_COUNTS) ? 8 * (uint64_t)num : 0);
    if (size != expect)
        return rk_error(err, "%s: %llu bytes, expected %llu for %u graph nodes and %u racks%s (%s)",
                        source, (unsigned long long)size, (unsigned long long)expect, nodes, num,
                        (flags & REQ_FLAG_COUNTS) ? " with counts" : "",
                        size < expect ? "truncated" : "trailing bytes");
    if (nodes < 2)
        return rk_error(err, "%s: rack graph of %u nodes, at least 2 needed", source, nodes);
    return 0;
}

int req_load_bytes(Req *q, const uint8_t *data, size_t size, const RackTable *rt,
                   const char *source, RkError *err) {
    req_zero(q);
    if (source == NULL) source = "req";
    if (check_header(data, size, (uint64_t)size, rt, source, err) != 0) return -1;
    uint32_t num = get32(data + 4), rack_size = get32(data + 8), flags = get32(data + 12), nodes = get32(data + 16);
    const uint8_t *p = data + REQ_HEADER_BYTES + 4;
    uint32_t *nv = malloc((size_t)nodes * sizeof *nv);
    q->mean = malloc(((size_t)num ? num : 1) * sizeof *q->mean);
    if (flags & REQ_FLAG_COUNTS) q->counts = malloc(((size_t)num ? num : 1) * sizeof *q->counts);
    if (nv == NULL || q->mean == NULL || ((flags & REQ_FLAG_COUNTS) && q->counts == NULL)) {
        free(nv);
        req_free(q);
        return rk_error(err, "%s: out of memory", source);
    }
    for (uint32_t i = 0; i < nodes; i++)
        nv[i] = get32(p + 4 * (size_t)i);
    p += 4 * (size_t)nodes;
    char what[600];
    snprintf(what, sizeof what, "%s: rack graph", source);
    if (kwg_from_nodes(&q->kwg, nv, nodes, (uint32_t)rt->num_letters, what, err) != 0) {
        free(nv);
        req_free(q);
        return -1;
    }
    uint32_t gaddag = kwg_gaddag_root(&q->kwg);
    if (gaddag != 0) {
        req_free(q);
        return rk_error(err,
                        "%s: rack graph has a GADDAG (node 1 arc %u); a .req holds a DAWG only",
                        source, gaddag);
    }
    KwgIndex ix;
    RkError ierr;
    if (kwg_index_init(&ix, &q->kwg, &ierr) != 0) {
        req_free(q);
        return rk_error(err, "%s: %s", source, ierr.msg);
    }
    uint64_t words = kwg_index_word_count(&ix);
    kwg_index_free(&ix);
    if (words != num) {
        req_free(q);
        return rk_error(err, "%s: the rack graph holds %llu words, but the header says %u racks",
                        source, (unsigned long long)words, num);
    }
    CheckCtx cc = {.rt = rt};
    kwg_foreach_word(&q->kwg, rt->rack_size + 1, check_word, &cc);
    if (cc.bad || cc.next != num) {
        req_free(q);
        if (cc.bad)
            return rk_error(err,
                            "%s: word %llu of the rack graph is not rack %llu of the distribution",
                            source, (unsigned long long)cc.bad_at, (unsigned long long)cc.bad_at);
        return rk_error(err, "%s: the rack graph lists %llu racks, expected %u", source,
                        (unsigned long long)cc.next, num);
    }
    for (uint32_t i = 0; i < num; i++) {
        float m = bits_float(get32(p + 4 * (size_t)i));
        if (!isfinite(m)) {
            req_free(q);
            return rk_error(err, "%s: the equity of rack %u is %s", source, i,
                            isnan(m) ? "NaN" : "infinite");
        }
        q->mean[i] = m;
    }
    p += 4 * (size_t)num;
    if (flags & REQ_FLAG_COUNTS)
        for (uint32_t i = 0; i < num; i++)
            q->counts[i] = get64(p + 8 * (size_t)i);
    q->num_racks = num;
    q->rack_size = rack_size;
    q->flags = flags;
    return 0;
}

int req_load(Req *q, const char *path, const RackTable *rt, RkError *err) {
    req_zero(q);
    int fd = rk_open_regular(path, err);
    if (fd < 0) return -1;
    uint8_t head[REQ_HEADER_BYTES + 4];
    struct stat st;
    ssize_t got = fstat(fd, &st) == 0 ? pread(fd, head, sizeof head, 0) : -1;
    int e = errno;
    close(fd);
    if (got < 0) return rk_error(err, "%s: %s", path, strerror(e));
    if (check_header(head, (size_t)got, (uint64_t)st.st_size, rt, path, err) != 0) return -1;
    size_t size;
    uint8_t *data = rk_read_regular_file(path, REQ_MAX_FILE_BYTES, "a rack-equity file", &size, err);
    if (data == NULL) return -1;
    int rc = req_load_bytes(q, data, size, rt, path, err);
    free(data);
    return rc;
}

void req_free(Req *q) {
    if (q == NULL) return;
    kwg_free(&q->kwg);
    free(q->mean);
    free(q->counts);
    req_zero(q);
}
