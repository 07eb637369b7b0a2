/*
 * req.h - the rack-equity table file (.req, ../shared/formats.md "REQ").
 *
 * Layout, little-endian:
 *   16-byte header: "REQ1", u32 num_racks, u32 rack_size, u32 flags
 *                   (bit 0: a count array follows; other bits must be 0)
 *   u32 N, N KWG nodes: a DAWG (node 1 arc 0) of every full rack as a
 *                   sorted ML string
 *   num_racks x f32 mean equity in points, in word-index order (0 for
 *                   unobserved racks)
 *   if flags bit 0: num_racks x u64 observation counts
 *
 * The racks are those of a RackTable (racktable.h), so equity i belongs to
 * racktable_rack_at(rt, i).
 */
#ifndef ROOKERY_REQ_H
#define ROOKERY_REQ_H

#include "eval/derive.h"
#include "eval/racktable.h"

#define REQ_MAGIC "REQ1"
#define REQ_HEADER_BYTES 16
#define REQ_FLAG_COUNTS 1u

typedef struct Req {
    uint32_t num_racks;
    uint32_t rack_size;
    uint32_t flags;
    Kwg kwg; /* the file's rack graph */
    float *mean; /* num_racks, points */
    uint64_t *counts; /* num_racks if flags & REQ_FLAG_COUNTS, else NULL */
} Req;

/* Writes a .req for rt's racks: mean[num_racks] (points, finite) and
 * counts[num_racks] (NULL: no count array, flag bit 0 clear). Written to
 * PATH.tmp, fsync'ed, then renamed over path (core/atomicfile.h); a write error
 * (e.g. ENOSPC) is reported naming the path and the temporary file is
 * removed. */
int req_write(const char *path, const RackTable *rt, const float *mean, const uint64_t *counts,
              RkError *err);
/* The same from accumulators: mean = sum/count in points (0 if
 * unobserved), with the counts. */
int req_write_accum(const char *path, const RackTable *rt, const RackAccum *acc, RkError *err);

/* Loads path and checks it before anything is used: the magic, rack_size
 * equal to rt's, num_racks equal to rt's rack count, no unknown flag bits,
 * the exact file size for the sections present (so a truncated or padded
 * file is refused), a valid KWG (tiles < rt->num_letters, no cycle) whose
 * words are exactly rt's racks in the same order, and finite means. On
 * error returns -1 with a one-line message naming the file; q is then
 * empty (req_free is harmless). */
int req_load(Req *q, const char *path, const RackTable *rt, RkError *err);
/* The same from the file's bytes; `source` names them in messages. */
int req_load_bytes(Req *q, const uint8_t *data, size_t size, const RackTable *rt,
                   const char *source, RkError *err);
void req_free(Req *q);

#endif
