/* manifest.c - see manifest.h. */
#include "manifest.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reals: the shortest decimal that reads back as the rounded value (15
 * significant digits hold any value rounded to a few decimals exactly). */
#define REAL_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))

int gen_record_init(GenRecord *r, RkError *err) {
    memset(r, 0, sizeof *r);
    metrics_row_init(&r->row);
    r->to_manifest = true;
    r->root = json_object();
    return r->root != NULL ? 0 : rk_error(err, "out of memory for a generation's record");
}

void gen_record_free(GenRecord *r) {
    json_decref(r->root);
    r->root = NULL;
}

/* Puts v (a new reference, taken) at path, creating the objects on the
 * way. */
static void put(GenRecord *r, const char *path, json_t *v) {
    if (path == NULL || !r->to_manifest || r->failed) {
        json_decref(v);
        return;
    }
    if (v == NULL) {
        r->failed = true;
        return;
    }
    json_t *obj = r->root;
    const char *seg = path;
    for (const char *dot; (dot = strchr(seg, '.')) != NULL; seg = dot + 1) {
        char key[64];
        size_t n = (size_t)(dot - seg);
        if (n == 0 || n >= sizeof key) goto fail;
        memcpy(key, seg, n);
        key[n] = '\0';
        json_t *next = json_object_get(obj, key);
        if (next == NULL) {
            next = json_object();
            if (next == NULL || json_object_set_new(obj, key, next) != 0) goto fail;
        }
        if (!json_is_object(next)) goto fail;
        obj = next;
    }
    if (json_object_set_new(obj, seg, v) != 0) r->failed = true; /* v is taken either way */
    return;
fail:
    json_decref(v);
    r->failed = true;
}

void rec_int(GenRecord *r, const char *path, const char *column, int64_t v) {
    put(r, path, path ? json_integer((json_int_t)v) : NULL);
    if (column) metrics_row_int(&r->row, column, v);
}

void rec_uint(GenRecord *r, const char *path, const char *column, uint64_t v) {
    /* json_int_t is long long: counts past 2^63 do not occur */
    put(r, path, path ? json_integer((json_int_t)v) : NULL);
    if (column) metrics_row_uint(&r->row, column, v);
}

void rec_real(GenRecord *r, const char *path, const char *column, int decimals, double v) {
    if (path) {
        double scale = pow(10.0, decimals), x = round(v * scale) / scale;
        put(r, path, isfinite(x) ? json_real(x) : json_null()); /* JSON has no NaN or infinity */
    }
    if (column) metrics_row_real(&r->row, column, decimals, v);
}

void rec_bool(GenRecord *r, const char *path, const char *column, bool v) {
    put(r, path, path ? json_boolean(v) : NULL);
    if (column) metrics_row_int(&r->row, column, v ? 1 : 0);
}

/* s as a JSON string. jansson takes UTF-8 only; text that is not (a path
 * in another encoding) goes through rk_json_escape, as manifests were
 * written before jansson: each byte that does not begin a well-formed
 * UTF-8 character becomes U+00XX, so any path can be recorded and the JSON
 * stays valid. */
static json_t *text(const char *s) {
    json_t *j = json_string(s);
    if (j != NULL) return j;
    size_t cap = 6 * strlen(s) + 3; /* \u00XX at most a byte, and the quotes */
    char *q = malloc(cap);
    if (q == NULL) return NULL;
    q[0] = '"';
    size_t n = strlen(rk_json_escape(s, q + 1, cap - 2)) + 1;
    q[n] = '"';
    j = json_loadb(q, n + 1, JSON_DECODE_ANY, NULL);
    free(q);
    return j;
}

void rec_string(GenRecord *r, const char *path, const char *s) { put(r, path, path ? text(s) : NULL); }

/* Appends v (taken) to the array a; a, or NULL (a freed) when either is
 * missing or the append fails. */
static json_t *push(json_t *a, json_t *v) {
    if (a == NULL || v == NULL) {
        json_decref(a);
        json_decref(v);
        return NULL;
    }
    if (json_array_append_new(a, v) == 0) return a;
    json_decref(a); /* v is taken either way */
    return NULL;
}

void rec_ints(GenRecord *r, const char *path, const int *v, int n) {
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++) a = push(a, json_integer(v[i]));
    put(r, path, a);
}

void rec_strings(GenRecord *r, const char *path, const char *const *s, int n) {
    json_t *a = json_array();
    for (int i = 0; a != NULL && i < n; i++) a = push(a, text(s[i]));
    put(r, path, a);
}

void rec_files(GenRecord *r, const RunFile *f, int n) {
    json_t *files = json_object();
    for (int i = 0; files != NULL && i < n; i++) {
        json_t *e = json_pack("{s:I, s:s}", "bytes", (json_int_t)f[i].bytes, "sha256", f[i].sha256);
        if (e == NULL || json_object_set_new(files, f[i].name, e) != 0) {
            json_decref(files);
            files = NULL;
        }
    }
    put(r, "files", files);
}

/* Appends text to the growing buffer; false out of memory. */
static bool append(char **buf, size_t *len, size_t *cap, const char *text) {
    size_t n = strlen(text);
    if (*len + n + 1 > *cap) {
        size_t c = (*cap ? *cap : 4096);
        while (c < *len + n + 1) c *= 2;
        char *b = realloc(*buf, c);
        if (b == NULL) return false;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, text, n + 1);
    *len += n;
    return true;
}

char *gen_record_finish(GenRecord *r, RkError *err) {
    if (r->failed) {
        rk_error(err, "a generation's record: out of memory (or a figure's path crosses another figure)");
        return NULL;
    }
    if (metrics_row_finish(&r->row) != 0) {
        rk_error(err, "the metrics row does not fit its buffer");
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    bool ok = append(&buf, &len, &cap, "{");
    const char *key;
    json_t *v;
    size_t i = 0, n = json_object_size(r->root);
    json_object_foreach(r->root, key, v) {
        json_t *k = json_string(key);
        char *ktext = k ? json_dumps(k, JSON_ENCODE_ANY) : NULL, *vtext = json_dumps(v, REAL_FLAGS);
        ok = ok && ktext && vtext && append(&buf, &len, &cap, "\n  ") && append(&buf, &len, &cap, ktext) &&
             append(&buf, &len, &cap, ": ") && append(&buf, &len, &cap, vtext) &&
             append(&buf, &len, &cap, ++i < n ? "," : "");
        free(ktext);
        free(vtext);
        json_decref(k);
    }
    ok = ok && append(&buf, &len, &cap, "\n}\n");
    if (!ok) {
        free(buf);
        rk_error(err, "out of memory writing a manifest");
        return NULL;
    }
    return buf;
}

/* No manifest comes near this; a bigger file is damage, not read into memory. */
#define MANIFEST_MAX_BYTES (16u << 20)

json_t *manifest_load(const char *path, RkError *err) {
    struct stat st;
    if (stat(path, &st) == 0 && st.st_size > (off_t)MANIFEST_MAX_BYTES) {
        rk_error(err, "%s: %lld bytes, more than any manifest (%u MB): a damaged file", path, (long long)st.st_size,
                 MANIFEST_MAX_BYTES >> 20);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        if (jerr.line > 0) rk_error(err, "%s: line %d: %s", path, jerr.line, jerr.text);
        else rk_error(err, "%s: %s", path, jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        rk_error(err, "%s: not a JSON object (not a rookery manifest)", path);
        return NULL;
    }
    return root;
}

json_t *manifest_get(json_t *root, const char *path) {
    json_t *obj = root;
    const char *seg = path;
    for (const char *dot; (dot = strchr(seg, '.')) != NULL; seg = dot + 1) {
        char key[64];
        size_t n = (size_t)(dot - seg);
        if (n >= sizeof key) return NULL;
        memcpy(key, seg, n);
        key[n] = '\0';
        obj = json_object_get(obj, key);
        if (!json_is_object(obj)) return NULL;
    }
    return json_object_get(obj, seg);
}

int64_t manifest_int(json_t *root, const char *path, int64_t def) {
    json_t *v = manifest_get(root, path);
    if (json_is_integer(v)) return (int64_t)json_integer_value(v);
    if (json_is_boolean(v)) return json_is_true(v) ? 1 : 0;
    return def;
}

const char *manifest_string(json_t *root, const char *path) { return json_string_value(manifest_get(root, path)); }
