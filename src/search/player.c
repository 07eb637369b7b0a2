/* player.c - a player from its spec, and the calls every kind shares (see
 * player.h); the kinds themselves are static_player.c, sim_player.c,
 * nn_player.c and mcgs_player.c (player_kind.h). */
#include "player.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/klv.h"
#include "search/player_kind.h"

static const PlayerKind *const KINDS[] = {&PLAYER_KIND_STATIC, &PLAYER_KIND_SIM, &PLAYER_KIND_NN, &PLAYER_KIND_MCGS,
                                            &PLAYER_KIND_VALUE};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

/* Options that experiments added and took out again (docs/research.md): a
 * spec from an older run gets told so instead of "unknown option". */
static const char *const REMOVED[][2] = {
    {"static", "exposure"}, {"static", "neighbour"}, {"static", "neighbour_scale"}, {"mcgs", "root"},
    {"mcgs", "resample"},   {"mcgs", "prior_mix"},  {"mcgs", "p_weight"},          {"mcgs", "rollout_worlds"},
};

/* Every kind's syntax, for an error about an unknown kind. */
static void usage_text(char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NKINDS && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? " or " : "", KINDS[i]->usage);
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
    int rc = p->kind->option(p, spec, key, val, ld, err);
    if (rc != -2) return rc;
    if (val != NULL && strcmp(key, "leaves") == 0) {
        if (p->leaves_named) return rk_error(err, "player '%s': leaves given twice", spec);
        p->leaves_named = true;
        return strcmp(val, "zero") == 0 ? 0 : load_leaves(p, val, ld, err);
    }
    if (val == NULL) return rk_error(err, "player '%s': option '%s' is not key=value", spec, key);
    for (size_t i = 0; i < sizeof REMOVED / sizeof REMOVED[0]; i++)
        if (strcmp(p->kind->name, REMOVED[i][0]) == 0 && strcmp(key, REMOVED[i][1]) == 0)
            return rk_error(err, "player '%s': option '%s' was taken out after it measured no gain (docs/research.md)",
                            spec, key);
    return rk_error(err, "player '%s': unknown option '%s' (expected %s)", spec, key, p->kind->usage);
}

/* The options after the colon: key=value, comma-separated (a bare word is
 * passed to the kind with no value). */
static int open_options(Player *p, const char *spec, const char *opts_text, const LetterDist *ld, RkError *err) {
    char opts[512];
    snprintf(opts, sizeof opts, "%s", opts_text);
    char *save = NULL;
    for (char *opt = strtok_r(opts, ",", &save); opt != NULL; opt = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(opt, '=');
        if (eq != NULL) *eq = '\0';
        if (open_option(p, spec, opt, eq != NULL ? eq + 1 : NULL, ld, err) != 0) return -1;
    }
    return 0;
}

int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err) {
    memset(p, 0, sizeof *p);
    /* errors quote the spec: it must be one printable line */
    for (size_t i = 0; spec[i] != '\0'; i++)
        if ((unsigned char)spec[i] < 0x20 || spec[i] == 0x7f)
            return rk_error(err, "player spec: control character 0x%02x at byte %zu", (unsigned char)spec[i], i);
    if (strlen(spec) >= sizeof p->spec) return rk_error(err, "player spec too long: '%.40s...'", spec);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    for (size_t i = 0; i < NKINDS && p->kind == NULL; i++)
        if (strlen(KINDS[i]->name) == kind_len && strncmp(spec, KINDS[i]->name, kind_len) == 0) p->kind = KINDS[i];
    if (p->kind == NULL) {
        char usage[1024];
        usage_text(usage, sizeof usage);
        return rk_error(err, "player '%s': unknown kind (expected %s)", spec, usage);
    }
    if (p->kind->init(p, err) != 0) {
        p->kind = NULL;
        return -1;
    }
    int rc = colon != NULL ? open_options(p, spec, colon + 1, ld, err) : 0;
    if (rc == 0 && p->kind->finish != NULL) rc = p->kind->finish(p, spec, ld, err);
    if (rc != 0) player_close(p);
    return rc;
}

int player_check_board(const Player *p, int dim, RkError *err) {
    return p->kind->check_board != NULL ? p->kind->check_board(p, dim, err) : 0;
}

const char *player_kind_name(const Player *p) { return p->kind->name; }

/* No leaves were chosen for it: neither leaves= nor leaves of its own. */
static bool takes_leaves(const Player *p) {
    return p->leaves == NULL && !p->leaves_named && (p->kind->own_leaves == NULL || !p->kind->own_leaves(p));
}

int player_default_leaves(Player *p, const char *path, const LetterDist *ld, RkError *err) {
    if (!takes_leaves(p)) return 0;
    if (load_leaves(p, path, ld, err) != 0) return -1;
    p->leaves_default = true;
    return 0;
}

bool player_has_default_leaves(const Player *p) { return p->leaves_default; }

void player_lend_leaves(Player *p, Klv *leaves) {
    if (!takes_leaves(p)) return;
    p->leaves = leaves;
    p->leaves_lent = true;
}

void player_close(Player *p) {
    if (p->kind != NULL) p->kind->close(p);
    p->state = NULL;
    if (p->leaves_lent) {
        p->leaves = NULL;
        p->leaves_lent = false;
    }
    if (p->leaves != NULL) {
        klv_free(p->leaves);
        free(p->leaves);
        p->leaves = NULL;
    }
    p->kind = NULL;
}

LeaveValueFn player_leave_fn(const Player *p) { return p->leaves ? klv_leave_value : NULL; }

void player_static_choice(const Player *p, const Spv *spv, double spv_k, const Game *g, Move *out) {
    MoveGenRequest req;
    PositionalValues pv;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, player_leave_fn(p), p->leaves);
    req.positional = spv_prepare_for_game(spv, spv_k, g, &pv);
    movegen_best(&req, out, NULL);
}

void player_choose(const Player *p, const Game *g, Move *out) {
    if (p->kind->choose(p, g, out) == 0) return;
    player_static_choice(p, NULL, PLAYER_DEFAULT_SPV_K, g, out);
}

int player_last_target(const Player *p, PackedMove *moves, float *probs, int cap, int *count, double *spread) {
    *count = 0;
    *spread = NAN;
    if (p->kind->last_target == NULL) return -1;
    return p->kind->last_target(p, moves, probs, cap, count, spread);
}
