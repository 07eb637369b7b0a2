#include "cli_common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cgp.h"
#include "train/rundir.h"

int cli_player_open(Player *p, const char *spec, const Engine *e, RkError *err) {
    if (player_open(p, spec, &e->ld, err) != 0) return -1;
    char path[sizeof e->lexicon_path + 8];
    int have = engine_default_leaves(e, path, sizeof path, err);
    if (have < 0 || (have == 1 && player_default_leaves(p, path, &e->ld, err) != 0)) {
        player_close(p);
        return -1;
    }
    return 0;
}

void cli_print_player(const char *label, const char *spec, const Player *p, const Engine *e) {
    char dflt[sizeof e->lexicon_path + 8];
    RkError err;
    if (player_has_default_leaves(p) && engine_default_leaves(e, dflt, sizeof dflt, &err) == 1)
        printf("%s: %s (default leaves %s)\n", label, spec, dflt);
    else
        printf("%s: %s\n", label, spec);
}


int cli_parse_u64(const char *opt, const char *value, uint64_t max, uint64_t *out) {
    if (value == NULL) {
        fprintf(stderr, "rookery: %s needs a value\n", opt);
        return -1;
    }
    char *end;
    errno = 0;
    if (value[0] == '-' || value[0] == '\0') goto bad;
    unsigned long long v = strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "rookery: %s: bad value '%s' (expected an integer 0..%llu)\n", opt, value,
            (unsigned long long)max);
    return -1;
}

int cli_parse_int(const char *opt, const char *value, int lo, int hi, int *out) {
    if (value == NULL) {
        fprintf(stderr, "rookery: %s needs a value\n", opt);
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno != 0 || value[0] == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "rookery: %s: bad value '%s' (expected an integer %d..%d)\n", opt, value, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int cli_parse_double(const char *opt, const char *value, double lo, double hi, double *out) {
    if (value == NULL) {
        fprintf(stderr, "rookery: %s needs a value\n", opt);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr, "rookery: %s: bad value '%s' (expected a number in [%g, %g])\n", opt, value, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_is_help(const char *s) { return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0; }

double cli_now(void) { return rk_seconds(); }

int cli_start_comm_engine(Comm *comm, const char *lexicon, Engine **engine) {
    *engine = NULL;
    RkError err;
    if (comm_init(comm, NULL, NULL, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return -1;
    }
    Engine *e = malloc(sizeof *e);
    if (e == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        return 1;
    }
    if (cli_engine_open(e, NULL, NULL, lexicon, NULL) != 0) {
        free(e);
        return 2;
    }
    *engine = e;
    return 0;
}

void cli_engine_free(Engine *e) {
    if (e == NULL) return;
    engine_close(e);
    free(e);
}

uint64_t cli_share_count(uint64_t n, int rank, int size) {
    uint64_t r = (uint64_t)rank, s = (uint64_t)size;
    return n > r ? (n - r + s - 1) / s : 0;
}

int cli_engine_for_cgp(Engine *e, const char *cgp, const char *ld_name, const char *layout_name, const char *lexicon) {
    RkError err;
    CgpOps ops;
    if (cgp_read_ops(cgp, &ops, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return -1;
    }
    const char *ld = ld_name;
    if (ld == NULL && ops.ld[0] != '\0') {
        if (strcmp(ops.ld, "english") != 0) {
            fprintf(stderr,
                    "rookery: CGP ld '%s': not a letter distribution rookery has built in (english); give --ld "
                    "FILE.csv for another one\n",
                    ops.ld);
            return -1;
        }
        ld = ops.ld;
    }
    return cli_engine_open(e, ld, layout_name, lexicon, ops.lex);
}

int cli_engine_open(Engine *e, const char *ld_name, const char *layout_name, const char *lexicon_path,
                    const char *lexicon_name) {
    RkError err;
    if (engine_open(e, ld_name, layout_name, lexicon_path, lexicon_name, &err) == 0) return 0;
    fprintf(stderr, "rookery: %s\n", err.msg);
    return -1;
}

int cli_run_config(const char *run, const char *const *sets, int nsets, TrainConfig *cfg, RkError *err) {
    train_config_defaults(cfg);
    char path[RUNDIR_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/config.ini", run);
    if (train_config_load(cfg, path, err) != 0) return -1;
    for (int i = 0; i < nsets; i++)
        if (train_config_assign(cfg, sets[i], err) != 0) return -1;
    return 0;
}

int cli_run_engine_open(Engine *e, const TrainConfig *cfg) {
    return cli_engine_open(e, cfg->ld, cfg->layout, train_config_lexicon_path(cfg), cfg->lexicon);
}
