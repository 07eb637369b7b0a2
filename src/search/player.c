#include "player.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "search/spec_option.h"
#include "eval/klv.h"

#define PLAYER_USAGE                                                                                          \
    "static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K] or "                                              \
    "sim[:plies=P][,candidates=K][,iterations=N][,stop_z=Z][,seed=S][,win_bonus=W][,win_model=M][,leaves=FILE.klv2|zero|,req=FILE.req] or "  \
    "nn:greedy|value,model=FILE.h5[,candidates=K][,samples=S][,seed=N][,leaves=FILE.klv2] or "                                       \
    "mcgs[:visits=N][,candidates=K][,cpuct=C][,rollout=P][,net=FILE.h5][,hidden=uniform|net][,...]"

static int sim_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                      RkError *err) {
    double x;
    if (strcmp(key, "plies") == 0) {
        if (spec_number(spec, key, val, 0, 100, true, &x, err) != 0) return -1;
        p->sim.plies = (int)x;
    } else if (strcmp(key, "candidates") == 0) {
        if (spec_number(spec, key, val, 1, SIM_MAX_CANDIDATES, true, &x, err) != 0) return -1;
        p->sim.candidates = (int)x;
    } else if (strcmp(key, "iterations") == 0) {
        if (spec_number(spec, key, val, 1, 1e9, true, &x, err) != 0) return -1;
        p->sim.iterations = (uint64_t)x;
    } else if (strcmp(key, "stop_z") == 0) {
        if (spec_number(spec, key, val, 0, 100, false, &p->sim.stop_z, err) != 0) return -1;
    } else if (strcmp(key, "seed") == 0) {
        if (spec_number(spec, key, val, 0, 9e15, true, &x, err) != 0) return -1;
        p->sim.seed = (uint64_t)x;
    } else if (strcmp(key, "win_bonus") == 0) {
        if (spec_number(spec, key, val, 0, 1e6, false, &p->sim.win.bonus, err) != 0) return -1;
    } else if (strcmp(key, "win_model") == 0) {
        if (win_value_parse_model(&p->sim.win, val, err) != 0) return -1;
    } else if (strcmp(key, "shrink") == 0) {
        if (spec_number(spec, key, val, 0, 1e12, false, &p->dyn_shrink, err) != 0) return -1;
        p->shrink_named = true;
    } else if (strcmp(key, "req") == 0) {
        if (p->dyn != NULL || p->leaves_named) return rk_error(err, "player '%s': give leaves= or req=, once", spec);
        p->dyn = malloc(sizeof *p->dyn);
        if (p->dyn == NULL) return rk_error(err, "out of memory");
        if (dynleaves_open(p->dyn, ld, val, err) != 0) {
            free(p->dyn);
            p->dyn = NULL;
            return -1;
        }
    } else if (strcmp(key, "leaves") == 0) {
        if (p->dyn != NULL) return rk_error(err, "player '%s': give leaves= or req=, once", spec);
        return -2; /* the common option */
    } else {
        return rk_error(err, "player '%s': unknown option '%s' (expected %s)", spec, key, PLAYER_USAGE);
    }
    return 0;
}

/* An option of an nn player (the model is loaded after all of them). */
static int nn_option(Player *p, const char *spec, const char *key, const char *val, RkError *err) {
    double x;
    if (strcmp(key, "candidates") == 0) {
        if (spec_number(spec, key, val, 1, NN_PLAYER_MAX_CANDIDATES, true, &x, err) != 0) return -1;
        p->nn->candidates = (int)x;
    } else if (strcmp(key, "samples") == 0) {
        if (spec_number(spec, key, val, 1, NN_PLAYER_MAX_SAMPLES, true, &x, err) != 0) return -1;
        p->nn->samples = (int)x;
    } else if (strcmp(key, "seed") == 0) {
        if (spec_number(spec, key, val, 0, 9e15, true, &x, err) != 0) return -1;
        p->nn->seed = (uint64_t)x;
    } else {
        return rk_error(err, "player '%s': unknown option '%s' (expected %s)", spec, key, PLAYER_USAGE);
    }
    return 0;
}

/* Loads path into p->leaves (owned). */
static int load_leaves(Player *p, const char *path, const LetterDist *ld, RkError *err) {
    Klv *k = malloc(sizeof *k);
    if (k == NULL) return rk_error(err, "out of memory");
    if (klv_load(k, path, ld, err) != 0) {
        free(k);
        return -1;
    }
    p->leaves = k;
    return 0;
}

static int open_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                       RkError *err) {
    if (p->kind == PLAYER_NN && strcmp(key, "leaves") != 0) return nn_option(p, spec, key, val, err);
    if (p->kind == PLAYER_MCGS) {
        int rc = mcgs_player_option(p->mcgs, spec, key, val, ld, err);
        if (rc <= 0) return rc;
    }
    if (p->kind == PLAYER_SIM) {
        int rc = sim_option(p, spec, key, val, ld, err);
        if (rc != -2) return rc;
    }
    if (strcmp(key, "leaves") == 0) {
        if (p->leaves_named) return rk_error(err, "player '%s': leaves given twice", spec);
        p->leaves_named = true;
        return strcmp(val, "zero") == 0 ? 0 : load_leaves(p, val, ld, err);
    }
    if (strcmp(key, "spv") == 0 && p->kind == PLAYER_STATIC) {
        if (p->spv != NULL) return rk_error(err, "player '%s': spv given twice", spec);
        p->spv = malloc(sizeof *p->spv);
        if (p->spv == NULL) return rk_error(err, "out of memory");
        if (spv_load(p->spv, val, err) != 0) {
            free(p->spv);
            p->spv = NULL;
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "spv_k") == 0 && p->kind == PLAYER_STATIC) {
        char *end;
        errno = 0;
        double k = strtod(val, &end);
        if (errno != 0 || *end != '\0' || end == val || !isfinite(k) || k <= 0 || k > 1e6)
            return rk_error(err, "player '%s': spv_k '%s' is not a number in (0, 1e6]", spec, val);
        p->spv_k = k;
        return 0;
    }
    return rk_error(err, "player '%s': unknown option '%s' (expected %s)", spec, key, PLAYER_USAGE);
}

/* nn:MODE,model=FILE[,options]: the mode word first, then key=value. */
static int open_nn(Player *p, const char *spec, const char *colon, const LetterDist *ld, RkError *err) {
    p->kind = PLAYER_NN;
    if (colon == NULL) return rk_error(err, "player '%s': give nn:greedy or nn:value, and model=FILE.h5", spec);
    p->nn = malloc(sizeof *p->nn);
    if (p->nn == NULL) return rk_error(err, "out of memory");
    char opts[512], model[512] = "";
    snprintf(opts, sizeof opts, "%s", colon + 1);
    char *save = NULL, *mode = strtok_r(opts, ",", &save);
    if (mode != NULL && strcmp(mode, "greedy") == 0) nn_player_defaults(p->nn, NN_PLAYER_GREEDY);
    else if (mode != NULL && strcmp(mode, "value") == 0) nn_player_defaults(p->nn, NN_PLAYER_VALUE);
    else {
        free(p->nn);
        p->nn = NULL;
        return rk_error(err, "player '%s': the mode is greedy or value (nn:greedy,model=FILE.h5)", spec);
    }
    int rc = 0;
    for (char *opt = strtok_r(NULL, ",", &save); opt != NULL && rc == 0; opt = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(opt, '=');
        if (eq == NULL) {
            rc = rk_error(err, "player '%s': option '%s' is not key=value", spec, opt);
            break;
        }
        *eq = '\0';
        if (strcmp(opt, "model") == 0) snprintf(model, sizeof model, "%s", eq + 1);
        else rc = open_option(p, spec, opt, eq + 1, ld, err); /* leaves=, or the nn options */
    }
    if (rc == 0 && model[0] == '\0') rc = rk_error(err, "player '%s': give model=FILE.h5", spec);
    if (rc == 0 && p->nn->mode == NN_PLAYER_GREEDY && (strstr(spec, "candidates=") || strstr(spec, "samples=")))
        rc = rk_error(err, "player '%s': candidates= and samples= are options of nn:value", spec);
    if (rc == 0) rc = nn_player_load(p->nn, model, ld, err);
    if (rc != 0) player_close(p);
    return rc;
}

/* After the options: a graph search player checks its combination and
 * allocates its search. */
static int finish_open(Player *p, const char *spec, RkError *err) {
    if (p->kind != PLAYER_MCGS) return 0;
    if (mcgs_player_finish(p->mcgs, spec, err) != 0) {
        player_close(p);
        return -1;
    }
    return 0;
}

int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    memset(p, 0, sizeof *p);
    p->spv_k = PLAYER_DEFAULT_SPV_K;
    /* errors quote the spec: it must be one printable line */
    for (size_t i = 0; spec[i] != '\0'; i++)
        if ((unsigned char)spec[i] < 0x20 || spec[i] == 0x7f)
            return rk_error(err, "player spec: control character 0x%02x at byte %zu", (unsigned char)spec[i], i);
    if (strlen(spec) >= sizeof p->spec) return rk_error(err, "player spec too long: '%.40s...'", spec);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (kind_len == 6 && strncmp(spec, "static", 6) == 0) {
        p->kind = PLAYER_STATIC;
    } else if (kind_len == 3 && strncmp(spec, "sim", 3) == 0) {
        p->kind = PLAYER_SIM;
        sim_config_defaults(&p->sim);
        p->dyn_shrink = 30.0;
    } else if (kind_len == 2 && strncmp(spec, "nn", 2) == 0) {
        return open_nn(p, spec, colon, ld, err);
    } else if (kind_len == 4 && strncmp(spec, "mcgs", 4) == 0) {
        p->kind = PLAYER_MCGS;
        p->mcgs = malloc(sizeof *p->mcgs);
        if (p->mcgs == NULL) return rk_error(err, "out of memory");
        mcgs_player_defaults(p->mcgs);
    } else {
        return rk_error(err, "player '%s': unknown kind (expected %s)", spec, PLAYER_USAGE);
    }
    if (colon == NULL) return finish_open(p, spec, err);
    /* options: key=value, comma-separated */
    char opts[512];
    snprintf(opts, sizeof opts, "%s", colon + 1);
    char *save = NULL;
    for (char *opt = strtok_r(opts, ",", &save); opt != NULL; opt = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(opt, '=');
        if (eq == NULL) {
            player_close(p);
            return rk_error(err, "player '%s': option '%s' is not key=value", spec, opt);
        }
        *eq = '\0';
        if (open_option(p, spec, opt, eq + 1, ld, err) != 0) {
            player_close(p);
            return -1;
        }
    }
    if (p->shrink_named && p->dyn == NULL) {
        player_close(p);
        return rk_error(err, "player '%s': shrink= goes with req=", spec);
    }
    return finish_open(p, spec, err);
}

int player_check_board(const Player *p, int dim, RkError *err) {
    if (p->nn != NULL && nn_player_dim(p->nn) != dim)
        return rk_error(err, "player '%s': the model is for a %dx%d board, the game's is %dx%d", p->spec,
                        nn_player_dim(p->nn), nn_player_dim(p->nn), dim, dim);
    if (p->mcgs != NULL && mcgs_player_dim(p->mcgs) != 0 && mcgs_player_dim(p->mcgs) != dim)
        return rk_error(err, "player '%s': the net is for a %dx%d board, the game's is %dx%d", p->spec,
                        mcgs_player_dim(p->mcgs), mcgs_player_dim(p->mcgs), dim, dim);
    char what[600];
    snprintf(what, sizeof what, "player '%s'", p->spec);
    if (p->spv == NULL) return 0;
    return spv_check_board(p->spv, dim, what, err);
}

int player_default_leaves(Player *p, const char *path, const LetterDist *ld, RkError *err) {
    if (p->leaves != NULL || p->dyn != NULL || p->leaves_named) return 0;
    if (load_leaves(p, path, ld, err) != 0) return -1;
    p->leaves_default = true;
    return 0;
}

bool player_has_default_leaves(const Player *p) { return p->leaves_default; }

void player_lend_leaves(Player *p, Klv *leaves) {
    if (p->leaves != NULL || p->dyn != NULL || p->leaves_named) return;
    p->leaves = leaves;
    p->leaves_lent = true;
}

void player_close(Player *p) {
    if (p->leaves_lent) {
        p->leaves = NULL;
        p->leaves_lent = false;
    }
    if (p->leaves != NULL) {
        klv_free(p->leaves);
        free(p->leaves);
        p->leaves = NULL;
    }
    if (p->spv != NULL) {
        spv_free(p->spv);
        free(p->spv);
        p->spv = NULL;
    }
    if (p->dyn != NULL) {
        dynleaves_close(p->dyn);
        free(p->dyn);
        p->dyn = NULL;
    }
    if (p->nn != NULL) {
        nn_player_close(p->nn);
        free(p->nn);
        p->nn = NULL;
    }
    if (p->mcgs != NULL) {
        mcgs_player_close(p->mcgs);
        free(p->mcgs);
        p->mcgs = NULL;
    }
}

LeaveValueFn player_leave_fn(const Player *p) { return p->leaves ? klv_leave_value : NULL; }

/* The sim player's decision; -1 if the simulation failed. */
static int sim_choose(const Player *p, const Game *g, Move *out) {
    SimConfig cfg = p->sim;
    RkError err;
    if (p->dyn != NULL) {
        if (dynleaves_for_game(p->dyn, g, p->dyn_shrink, NULL, &err) != 0) return -1;
        cfg.leave_value = klv_leave_value;
        cfg.leave_ctx = &p->dyn->klv;
    } else {
        cfg.leave_value = player_leave_fn(p);
        cfg.leave_ctx = p->leaves;
    }
    Rng r = g->rng; /* the game's own stream: the same game gives the same decisions */
    cfg.seed = p->sim.seed ^ rng_next(&r) ^ ((uint64_t)g->turn << 48);
    SimResult *res = malloc(sizeof *res);
    if (res == NULL || sim_run(g, &cfg, res, &err) != 0) {
        free(res);
        return -1;
    }
    *out = res->cand[res->best].move;
    free(res);
    return 0;
}

void player_choose(const Player *p, const Game *g, Move *out) {
    if (p->kind == PLAYER_SIM && sim_choose(p, g, out) == 0) return;
    if (p->kind == PLAYER_NN && nn_player_choose(p->nn, g, player_leave_fn(p), p->leaves, out) == 0) return;
    RkError err;
    if (p->kind == PLAYER_MCGS) {
        if (mcgs_player_choose(p->mcgs, g, player_leave_fn(p), p->leaves, out, &err) == 0) return;
        if (p->mcgs->failures == 1) /* said once a player; the static move is played below */
            fprintf(stderr, "rookery: warning: search failed (%s); playing the static move instead\n", err.msg);
    }
    MoveGenRequest req;
    PositionalValues pv;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, player_leave_fn(p), p->leaves);
    req.positional = spv_prepare_for_game(p->spv, p->spv_k, g, &pv);
    movegen_best(&req, out, NULL);
}
