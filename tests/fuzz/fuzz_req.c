/* libFuzzer target for the .req loader (req_load_bytes, which req_load
 * uses). The first input byte picks the rack table to check against, the
 * rest is the whole file:
 *   0  English, 7 tiles (3,199,724 racks: a valid file is 38 MB, so only the
 *      header and size checks are reachable)
 *   1  "?AAB", 2 tiles (4 racks)      2  "?AAB", 3 tiles (3 racks)
 *   3  "??AAAABBCCCDEEEEE" (the unit tests' tiny distribution), 7 tiles
 * so that valid files, and the graph and rack checks behind the size check,
 * are within reach. The tables are built once, on first use, and kept in
 * static pointers (English takes about a second: acceptable in a harness).
 *
 * Whatever loads must match its table: the header fields, counts present
 * exactly with the flag, finite means equal to the file's bits, and a rack
 * graph whose word index numbers every rack of the table as the table does. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/kwg_index.h"
#include "eval/racktable.h"
#include "eval/req.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Dist {
    const char *csv; /* NULL: English */
    int rack_size;
} Dist;

static const Dist DISTS[] = {
    {NULL, RK_RACK_SIZE},
    {"?,?,1,0,0\nA,a,2,1,1\nB,b,1,3,0\n", 2},
    {"?,?,1,0,0\nA,a,2,1,1\nB,b,1,3,0\n", 3},
    {"?,?,2,0,0\nA,a,4,1,1\nB,b,2,3,0\nC,c,3,3,0\nD,d,1,2,0\nE,e,5,1,1\n", RK_RACK_SIZE},
};
#define NUM_DISTS (sizeof DISTS / sizeof *DISTS)

static RackTable *tables[NUM_DISTS];

static const RackTable *table(size_t i) {
    if (tables[i] != NULL) return tables[i];
    LetterDist ld;
    RkError err;
    if (DISTS[i].csv == NULL) {
        ld_english(&ld);
    } else if (ld_parse(&ld, DISTS[i].csv, "fuzz", &err) != 0) {
        abort();
    }
    RackTable *rt = malloc(sizeof *rt);
    if (rt == NULL || racktable_build(rt, &ld, DISTS[i].rack_size, &err) != 0) abort();
    tables[i] = rt;
    return rt;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > (1u << 20)) return 0;
    const RackTable *rt = table(data[0] % NUM_DISTS);
    const uint8_t *file = data + 1;
    size_t fsize = size - 1;
    Req q;
    RkError err;
    err.msg[0] = '\0';
    if (req_load_bytes(&q, file, fsize, rt, "fuzz", &err) != 0) {
        /* a one-line message, and nothing held */
        if (err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL) abort();
        if (q.mean != NULL || q.counts != NULL || q.kwg.nodes != NULL) abort();
        req_free(&q); /* harmless after a failure */
        return 0;
    }
    if (q.num_racks != rt->num_racks || q.rack_size != (uint32_t)rt->rack_size) abort();
    if ((q.flags & ~REQ_FLAG_COUNTS) != 0) abort();
    if ((q.counts != NULL) != ((q.flags & REQ_FLAG_COUNTS) != 0)) abort();
    if (q.mean == NULL) abort();
    uint32_t nodes = get32(file + 16);
    const uint8_t *means = file + 20 + 4 * (size_t)nodes;
    for (uint32_t i = 0; i < q.num_racks; i++) {
        if (!isfinite(q.mean[i])) abort();
        uint32_t bits;
        memcpy(&bits, &q.mean[i], sizeof bits);
        if (bits != get32(means + 4 * (size_t)i)) abort();
    }
    /* every rack of the table has its own number in the file's graph */
    KwgIndex ix;
    if (kwg_index_init(&ix, &q.kwg, &err) != 0) abort();
    if (kwg_index_word_count(&ix) != q.num_racks) abort();
    for (uint64_t i = 0; i < q.num_racks && i < 100000; i++) {
        Rack r;
        if (racktable_rack_at(rt, i, &r) != 0) abort();
        uint8_t w[RK_RACK_SIZE];
        int len = 0;
        for (int ml = 0; ml < rt->num_letters; ml++)
            for (int c = 0; c < r.count[ml]; c++) w[len++] = (uint8_t)ml;
        if (len != rt->rack_size) abort();
        if (kwg_index_of(&q.kwg, &ix, w, len) != (int64_t)i) abort();
        if (!kwg_has_word(&q.kwg, w, len)) abort();
    }
    kwg_index_free(&ix);
    req_free(&q);
    if (q.mean != NULL || q.kwg.nodes != NULL) abort();
    return 0;
}
