#include "player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    memset(p, 0, sizeof *p);
    if (strlen(spec) >= sizeof p->spec) return rk_error(err, "player spec too long: '%.40s...'", spec);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (kind_len != 6 || strncmp(spec, "static", 6) != 0)
        return rk_error(err, "player '%s': unknown kind (expected static[:leaves=FILE.klv2|zero])", spec);
    p->kind = PLAYER_STATIC;
    if (colon == NULL) return 0;
    /* options: key=value, comma-separated */
    char opts[512];
    snprintf(opts, sizeof opts, "%s", colon + 1);
    char *save = NULL;
    for (char *opt = strtok_r(opts, ",", &save); opt != NULL; opt = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(opt, '=');
        if (eq == NULL) return rk_error(err, "player '%s': option '%s' is not key=value", spec, opt);
        *eq = '\0';
        const char *key = opt, *val = eq + 1;
        if (strcmp(key, "leaves") != 0) return rk_error(err, "player '%s': unknown option '%s'", spec, key);
        if (p->leaves != NULL) return rk_error(err, "player '%s': leaves given twice", spec);
        if (strcmp(val, "zero") == 0) continue;
        p->leaves = malloc(sizeof *p->leaves);
        if (p->leaves == NULL) return rk_error(err, "out of memory");
        if (klv_load(p->leaves, val, ld, err) != 0) {
            free(p->leaves);
            p->leaves = NULL;
            return -1;
        }
    }
    return 0;
}

void player_close(Player *p) {
    if (p->leaves != NULL) {
        klv_free(p->leaves);
        free(p->leaves);
        p->leaves = NULL;
    }
}

LeaveValueFn player_leave_fn(const Player *p) { return p->leaves ? klv_leave_value : NULL; }

void player_choose(const Player *p, const Game *g, Move *out) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    req.leave_value = player_leave_fn(p);
    req.leave_ctx = p->leaves;
    movegen_best(&req, out, NULL);
}
