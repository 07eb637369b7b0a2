#include "player.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAYER_USAGE "static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K]"

static int open_option(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld,
                       RkError *err) {
    if (strcmp(key, "leaves") == 0) {
        if (p->leaves != NULL) return rk_error(err, "player '%s': leaves given twice", spec);
        if (strcmp(val, "zero") == 0) return 0;
        p->leaves = malloc(sizeof *p->leaves);
        if (p->leaves == NULL) return rk_error(err, "out of memory");
        if (klv_load(p->leaves, val, ld, err) != 0) {
            free(p->leaves);
            p->leaves = NULL;
            return -1;
        }
        return 0;
    }
    if (strcmp(key, "spv") == 0) {
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
    if (strcmp(key, "spv_k") == 0) {
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

int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    memset(p, 0, sizeof *p);
    p->spv_k = PLAYER_DEFAULT_SPV_K;
    if (strlen(spec) >= sizeof p->spec) return rk_error(err, "player spec too long: '%.40s...'", spec);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (kind_len != 6 || strncmp(spec, "static", 6) != 0)
        return rk_error(err, "player '%s': unknown kind (expected %s)", spec, PLAYER_USAGE);
    p->kind = PLAYER_STATIC;
    if (colon == NULL) return 0;
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
    return 0;
}

int player_check_board(const Player *p, int dim, RkError *err) {
    if (p->spv == NULL) return 0;
    char what[600];
    snprintf(what, sizeof what, "player '%s'", p->spec);
    return spv_check_board(p->spv, dim, what, err);
}

void player_close(Player *p) {
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
}

LeaveValueFn player_leave_fn(const Player *p) { return p->leaves ? klv_leave_value : NULL; }

void player_choose(const Player *p, const Game *g, Move *out) {
    MoveGenRequest req;
    PositionalValues pv;
    movegen_request_for_game(&req, g);
    req.leave_value = player_leave_fn(p);
    req.leave_ctx = p->leaves;
    req.positional = spv_prepare_for_game(p->spv, p->spv_k, g, &pv);
    movegen_best(&req, out, NULL);
}
