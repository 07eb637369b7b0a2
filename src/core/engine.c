#include "engine.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int exe_dir(char *buf, size_t cap) {
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash == NULL) return -1;
    *slash = '\0';
    return 0;
}

static int file_exists(const char *p) { return access(p, R_OK) == 0; }

static int resolve_lexicon(char *out, size_t cap, const char *explicit_path, const char *name, RkError *err) {
    if (explicit_path != NULL && explicit_path[0] != '\0') {
        snprintf(out, cap, "%s", explicit_path);
        return 0;
    }
    const char *env = getenv("ROOKERY_LEXICON");
    if (env != NULL && env[0] != '\0') {
        snprintf(out, cap, "%s", env);
        return 0;
    }
    if (name == NULL || name[0] == '\0') name = "SOWPODS";
    const char *dir = getenv("ROOKERY_LEXICA");
    if (dir != NULL && dir[0] != '\0') {
        int n = snprintf(out, cap, "%s/%s.kwg", dir, name);
        if (n > 0 && (size_t)n < cap && file_exists(out)) return 0;
    }
    char ed[PATH_MAX];
    if (exe_dir(ed, sizeof ed) == 0) {
        int n = snprintf(out, cap, "%s/lexica/%s.kwg", ed, name);
        if (n > 0 && (size_t)n < cap && file_exists(out)) return 0;
    }
    return rk_error(err, "lexicon %s.kwg not found (give --lexicon FILE.kwg, or set ROOKERY_LEXICON or ROOKERY_LEXICA)",
                    name);
}

/* ROOKERY_WORDMAP: unset, empty or "on" loads the word map beside the
 * lexicon, "off" skips it; anything else is an error. */
static int wordmap_wanted(bool *want, RkError *err) {
    const char *v = getenv("ROOKERY_WORDMAP");
    *want = true;
    if (v == NULL || v[0] == '\0' || strcmp(v, "on") == 0) return 0;
    if (strcmp(v, "off") == 0) {
        *want = false;
        return 0;
    }
    char q[64];
    rk_quote_text(q, sizeof q, v, strlen(v));
    return rk_error(err, "ROOKERY_WORDMAP: bad value '%s' (expected on or off)", q);
}

int engine_open(Engine *e, const char *ld_name, const char *layout_name, const char *lexicon_path,
                const char *lexicon_name, RkError *err) {
    memset(e, 0, sizeof *e);
    if (ld_open(&e->ld, ld_name, err) != 0 || layout_open(&e->layout, layout_name, err) != 0) return -1;
    bool want_map;
    if (wordmap_wanted(&want_map, err) != 0) return -1;
    if (resolve_lexicon(e->lexicon_path, sizeof e->lexicon_path, lexicon_path, lexicon_name, err) != 0) return -1;
    if (kwg_load(&e->kwg, e->lexicon_path, (uint32_t)e->ld.size, err) != 0) return -1;
    if (!want_map) return 0;
    char wmp[sizeof e->lexicon_path + 8];
    if (wordmap_path_beside(e->lexicon_path, wmp, sizeof wmp) != 0) {
        kwg_free(&e->kwg);
        return rk_error(err, "%s: path too long for its word map", e->lexicon_path);
    }
    /* No map beside the lexicon (a foreign .kwg): the graph alone. Anything
     * else that is there (unreadable, not a regular file) is an error from
     * the loader. */
    struct stat st;
    if (stat(wmp, &st) != 0 && errno == ENOENT) return 0;
    if (wordmap_load(&e->wordmap, wmp, &e->kwg, e->ld.size, err) != 0) {
        kwg_free(&e->kwg);
        return -1;
    }
    e->kwg.wordmap = &e->wordmap;
    return 0;
}

int engine_default_leaves(const Engine *e, char *out, size_t cap, RkError *err) {
    const char *env = getenv("ROOKERY_LEAVES");
    if (env != NULL && env[0] != '\0') {
        if (strcmp(env, "zero") == 0) return 0;
        if ((size_t)snprintf(out, cap, "%s", env) >= cap) return rk_error(err, "ROOKERY_LEAVES: path too long");
        return 1;
    }
    const char *path = e->lexicon_path;
    size_t n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".kwg") == 0) n -= 4;
    if (n + 6 > cap) return rk_error(err, "%s: path too long for its leaves", path);
    memcpy(out, path, n);
    memcpy(out + n, ".klv2", 6);
    struct stat st;
    if (stat(out, &st) != 0 && errno == ENOENT) return 0; /* none: players without leaves= play by score */
    return 1;
}

void engine_close(Engine *e) {
    kwg_free(&e->kwg);
    wordmap_free(&e->wordmap);
}
