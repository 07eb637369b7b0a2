/* manifest.h - a generation's record: gen-NNNN/manifest.json and its row of
 * RUN/metrics.csv, written and read through jansson (docs/development.md).
 *
 * Each figure is added once, with its place in the manifest (a dotted path,
 * "nn.heldout.p_top1") and, if it has one, its metrics.csv column: the
 * manifest and the row follow from the same call, so a new metric is one
 * line, and `rookery report RUN --columns NAME` shows it at once (the
 * report's default table, by column name, and the log's summary lines,
 * by path in gen_log.c, show a chosen few).
 *
 * metrics.csv's columns are positional against the newest header (rows
 * written before a column existed stop short of it), so a new column goes
 * after the existing ones, never between them.
 *
 * The manifest is JSON: one top-level member a line, nested objects inline,
 * reals printed as the shortest decimal of the value rounded to its
 * column's decimals. Readers take any JSON layout (manifests before
 * jansson, written by hand with snprintf, read the same). */
#ifndef ROOKERY_TRAIN_MANIFEST_H
#define ROOKERY_TRAIN_MANIFEST_H

#include <stdbool.h>
#include <stdint.h>

#include "core/common.h"
#include "metrics_row.h"
#include "rundir.h"

typedef struct json_t json_t;

typedef struct GenRecord {
    json_t *root;     /* the manifest's object */
    MetricsRow row;   /* the metrics.csv row */
    bool to_manifest; /* false: the next figures go to the row only (a part the manifest leaves out) */
    bool failed;      /* out of memory, or a path through a member that is not an object */
} GenRecord;

/* An empty record (to_manifest on); -1 (err set) out of memory. */
int gen_record_init(GenRecord *r, RkError *err);
void gen_record_free(GenRecord *r);

/* A figure at `path` in the manifest (NULL: none) and in `column` of the
 * row (NULL: none). A real is rounded to `decimals` in both. */
void rec_int(GenRecord *r, const char *path, const char *column, int64_t v);
void rec_uint(GenRecord *r, const char *path, const char *column, uint64_t v);
void rec_real(GenRecord *r, const char *path, const char *column, int decimals, double v);
/* true/false in the manifest, 1/0 in the row */
void rec_bool(GenRecord *r, const char *path, const char *column, bool v);
/* Strings and lists are the manifest's alone. */
void rec_string(GenRecord *r, const char *path, const char *s);
void rec_ints(GenRecord *r, const char *path, const int *v, int n);
void rec_strings(GenRecord *r, const char *path, const char *const *s, int n);
/* "files": {NAME: {"bytes": N, "sha256": HEX}, ...} */
void rec_files(GenRecord *r, const RunFile *f, int n);

/* The manifest's text (malloc'd, ends with a newline), and the row
 * finished; NULL with err set when a figure could not be recorded. */
char *gen_record_finish(GenRecord *r, RkError *err);

/* Reading a manifest: the parsed file (json_decref it), or NULL with err
 * naming the file and, for malformed JSON, the line. */
json_t *manifest_load(const char *path, RkError *err);
/* The member at a dotted path, or NULL. */
json_t *manifest_get(json_t *root, const char *path);
/* An integer or boolean member (true 1, false 0); def if absent or of
 * another type. */
int64_t manifest_int(json_t *root, const char *path, int64_t def);
/* A string member, or NULL. */
const char *manifest_string(json_t *root, const char *path);

#endif
