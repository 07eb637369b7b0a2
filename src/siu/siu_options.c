/* siu_options.c - the options of an SIU session and the tables they name
 * (see siu_session.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "siu_engine.h"
#include "search/peg.h"
#include "search/sim.h"
#include "siu_session.h"

#define DEFAULT_LEXICON "SOWPODS"
#define DEFAULT_PLAYER "sim"

typedef enum { OPT_STRING, OPT_SPIN, OPT_CHECK } OptType;

typedef struct OptionDef {
    const char *name;
    OptType type;
    const char *dflt;
    long long lo, hi;
    const char *doc;
} OptionDef;

/* The options, in the order the handshake lists them. */
static const OptionDef OPTIONS[] = {
    {"DataPath", OPT_STRING, "", 0, 0, "';'-separated folders searched for NAME.kwg and leave files"},
    {"Lexicon", OPT_STRING, DEFAULT_LEXICON, 0, 0,
     "NAME of NAME.kwg in DataPath (or a .kwg path); not found: the default lexicon, said in an info string"},
    {"Leaves", OPT_STRING, "default", 0, 0, "a .klv2 file (in DataPath or a path), zero, or default (beside the lexicon)"},
    {"WinPctTable", OPT_STRING, "default", 0, 0, "the win model of sim's wp: default or MEAN0:MEAN1:VAR0:VAR1"},
    {"Threads", OPT_SPIN, "1", 1, SIM_MAX_THREADS, "threads of a simulation (go sim, and go auto's sim player: 1 leaves its threads=)"},
    {"EndgameHash", OPT_SPIN, "16", 1, 4096, "MB of the endgame solver's table"},
    {"Player", OPT_STRING, DEFAULT_PLAYER, 0, 0, "the player of go auto, a spec as rookery match takes"},
    {"Model", OPT_STRING, "", 0, 0, "a network (.h5) for nn: and mcgs: players that name none"},
    {"AutoEndgame", OPT_CHECK, "true", 0, 0, "go auto searches empty-bag positions with the endgame search"},
    {"AutoPeg", OPT_SPIN, "0", 0, PEG_MAX_BAG,
     "go auto solves positions with 1 to this many tiles in the bag with the pre-endgame solver (0: never)"},
    {"GenCount", OPT_SPIN, "10", 1, 1000, "moves listed by go gen and in a search's final lines"},
    {"SimPlies", OPT_SPIN, "2", 0, 100, "go sim: static plies after each candidate (go ... depth overrides)"},
    {"SimCandidates", OPT_SPIN, "15", 1, 64, "go sim: candidates, the best by static equity"},
    {"InferTau", OPT_SPIN, "5", 0, 1000,
     "go infer: the opponent is modelled as playing within this many points of its best static move"},
    {"Seed", OPT_SPIN, "1", 0, 2147483647, "the seed of the simulations' worlds"},
};
#define NOPTIONS ((int)(sizeof OPTIONS / sizeof OPTIONS[0]))

void siu_engine_print_options(void *file) {
    FILE *f = file;
    for (int i = 0; i < NOPTIONS; i++) {
        const OptionDef *d = &OPTIONS[i];
        fprintf(f, "  %-14s %s, default %s: %s\n", d->name,
                d->type == OPT_STRING ? "string" : d->type == OPT_SPIN ? "spin" : "check",
                d->dflt[0] != '\0' ? d->dflt : "empty", d->doc);
    }
}

/* Copies src into dst, cut to fit. */
static void copy(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Stores value v of option i (already checked). */
static void store(SiuOptions *o, int i, const char *v) {
    const char *n = OPTIONS[i].name;
    long long x = strtoll(v, NULL, 10);
    if (strcmp(n, "DataPath") == 0) copy(o->data_path, sizeof o->data_path, v);
    else if (strcmp(n, "Lexicon") == 0) copy(o->lexicon, sizeof o->lexicon, v);
    else if (strcmp(n, "Leaves") == 0) copy(o->leaves, sizeof o->leaves, v);
    else if (strcmp(n, "WinPctTable") == 0) copy(o->win_table, sizeof o->win_table, v);
    else if (strcmp(n, "Threads") == 0) o->threads = (int)x;
    else if (strcmp(n, "EndgameHash") == 0) o->endgame_hash_mb = (int)x;
    else if (strcmp(n, "Player") == 0) copy(o->player, sizeof o->player, v);
    else if (strcmp(n, "Model") == 0) copy(o->model, sizeof o->model, v);
    else if (strcmp(n, "AutoEndgame") == 0) o->auto_endgame = strcasecmp(v, "true") == 0;
    else if (strcmp(n, "AutoPeg") == 0) o->auto_peg = (int)x;
    else if (strcmp(n, "GenCount") == 0) o->gen_count = (int)x;
    else if (strcmp(n, "SimPlies") == 0) o->sim_plies = (int)x;
    else if (strcmp(n, "SimCandidates") == 0) o->sim_candidates = (int)x;
    else if (strcmp(n, "InferTau") == 0) o->infer_tau = (int)x;
    else if (strcmp(n, "Seed") == 0) o->seed = x;
}

void siu_options_defaults(SiuOptions *o) {
    memset(o, 0, sizeof *o);
    for (int i = 0; i < NOPTIONS; i++) store(o, i, OPTIONS[i].dflt);
}

void siu_options_announce(SiuSession *s) {
    for (int i = 0; i < NOPTIONS; i++) {
        const OptionDef *d = &OPTIONS[i];
        if (d->type == OPT_SPIN)
            siu_say(s, "option name %s type spin default %s min %lld max %lld", d->name, d->dflt, d->lo, d->hi);
        else if (d->type == OPT_CHECK)
            siu_say(s, "option name %s type check default %s", d->name, d->dflt);
        else
            siu_say(s, "option name %s type string default %s", d->name, d->dflt[0] != '\0' ? d->dflt : "<empty>");
    }
}

/* Checks value v for option d: NULL if good, else why not (in buf). */
static const char *check_value(const OptionDef *d, const char *v, char *buf, size_t cap) {
    if (d->type == OPT_CHECK) {
        if (strcasecmp(v, "true") != 0 && strcasecmp(v, "false") != 0) return "expected true or false";
        return NULL;
    }
    if (d->type == OPT_SPIN) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (*v == '\0' || *end != '\0' || x < d->lo || x > d->hi) {
            snprintf(buf, cap, "expected an integer %lld..%lld", d->lo, d->hi);
            return buf;
        }
        return NULL;
    }
    if (strlen(v) >= 512 && strcmp(d->name, "DataPath") != 0 && strcmp(d->name, "Leaves") != 0 &&
        strcmp(d->name, "Model") != 0)
        return "too long";
    if (strcmp(d->name, "WinPctTable") == 0) {
        WinValue w;
        RkError err;
        win_value_defaults(&w);
        if (win_value_parse_model(&w, v, &err) != 0) {
            snprintf(buf, cap, "%s", err.msg);
            return buf;
        }
    }
    if (strcmp(d->name, "Player") == 0) { /* the spec's syntax and files, now rather than at the next go */
        LetterDist ld;
        ld_english(&ld);
        Player p;
        RkError err;
        if (player_open(&p, v, &ld, &err) != 0) {
            snprintf(buf, cap, "%s", err.msg);
            return buf;
        }
        player_close(&p);
    }
    return NULL;
}

/* Finds "word" (case-insensitive, whole token) in a token list. */
static int find_word(char **tok, int n, int from, const char *word) {
    for (int i = from; i < n; i++)
        if (strcasecmp(tok[i], word) == 0) return i;
    return -1;
}

/* Joins tokens [a, b) with single spaces. */
static void join(char **tok, int a, int b, char *out, size_t cap) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = a; i < b; i++) {
        int w = snprintf(out + len, cap - len, "%s%s", i > a ? " " : "", tok[i]);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
}

/* Sets option `name` to `value`: 0, or -1 with why (a whole message). */
static int assign(SiuOptions *o, const char *name, const char *value, char *why, size_t cap) {
    for (int i = 0; i < NOPTIONS; i++) {
        if (strcasecmp(name, OPTIONS[i].name) != 0) continue;
        char reason[600];
        const char *bad = check_value(&OPTIONS[i], value, reason, sizeof reason);
        if (bad != NULL) {
            snprintf(why, cap, "option %s: bad value '%s': %s", OPTIONS[i].name, value, bad);
            return -1;
        }
        store(o, i, value);
        return 0;
    }
    snprintf(why, cap, "no option named '%s'", name);
    return -1;
}

int siu_options_preset(SiuOptions *o, const char *name_value, char *why, size_t cap) {
    const char *eq = strchr(name_value, '=');
    if (eq == NULL) {
        snprintf(why, cap, "'%s': expected NAME=VALUE", name_value);
        return -1;
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(eq - name_value), name_value);
    return assign(o, name, eq + 1, why, cap);
}

int siu_options_set(SiuSession *s, const char *args) {
    char buf[8192], *tok[512], *save = NULL;
    int n = 0;
    copy(buf, sizeof buf, args);
    for (char *t = strtok_r(buf, " \t\r\n", &save); t != NULL && n < 512; t = strtok_r(NULL, " \t\r\n", &save))
        tok[n++] = t;
    int at_name = find_word(tok, n, 0, "name");
    if (at_name < 0) {
        siu_say(s, "info string setoption needs 'name <Name> [value <v>]'");
        return -1;
    }
    int at_value = find_word(tok, n, at_name + 1, "value");
    char name[256], value[4096];
    join(tok, at_name + 1, at_value < 0 ? n : at_value, name, sizeof name);
    join(tok, at_value < 0 ? n : at_value + 1, n, value, sizeof value);
    if (strcmp(value, "<empty>") == 0) value[0] = '\0';
    char why[1024];
    if (assign(&s->opt, name, value, why, sizeof why) != 0) {
        siu_say(s, "info string setoption: %s", why);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ tables */

void siu_tables_free(SiuTables *t) {
    if (t->player_open) player_close(&t->player);
    if (t->leaves != NULL) {
        klv_free(t->leaves);
        free(t->leaves);
    }
    if (t->engine != NULL) {
        engine_close(t->engine);
        free(t->engine);
    }
    memset(t, 0, sizeof *t);
}

/* dir/NAME.kwg (or dir/NAME) for the first dir of DataPath that has it. */
static bool find_in_data_path(const SiuOptions *o, const char *name, const char *ext, char *out, size_t cap) {
    char dirs[4096];
    copy(dirs, sizeof dirs, o->data_path);
    char *save = NULL;
    for (char *d = strtok_r(dirs, ";", &save); d != NULL; d = strtok_r(NULL, ";", &save)) {
        while (isspace((unsigned char)*d)) d++;
        if (*d == '\0') continue;
        int w = snprintf(out, cap, "%s/%s%s", d, name, ext);
        if (w > 0 && (size_t)w < cap && access(out, R_OK) == 0) return true;
    }
    return false;
}

/* Opens the lexicon `name`: a .kwg path; NAME.kwg in DataPath; NAME where
 * rookery finds lexica (core/engine.h). The code it is known by into code. */
static int try_lexicon(const SiuOptions *o, const char *name, Engine *e, char *code, size_t code_cap, RkError *err) {
    char path[4096];
    const char *base = strrchr(name, '/');
    base = base != NULL ? base + 1 : name;
    size_t blen = strlen(base);
    bool ext = blen > 4 && strcmp(base + blen - 4, ".kwg") == 0;
    int rc = rk_error(err, "no lexicon named");
    if (strchr(name, '/') != NULL || ext) rc = engine_open(e, NULL, NULL, name, NULL, err);
    else if (find_in_data_path(o, name, ".kwg", path, sizeof path)) rc = engine_open(e, NULL, NULL, path, NULL, err);
    else if (name[0] != '\0') rc = engine_open(e, NULL, NULL, NULL, name, err);
    if (rc == 0) snprintf(code, code_cap, "%.*s", (int)(ext ? blen - 4 : blen), base);
    return rc;
}

/* Opens the lexicon named `want`, else the default lexicon, said in an info
 * string. */
static int open_lexicon(SiuSession *s, const char *want, Engine *e, char *code, size_t code_cap) {
    RkError err;
    if (try_lexicon(&s->opt, want, e, code, code_cap, &err) == 0) return 0;
    if (strcasecmp(want, DEFAULT_LEXICON) != 0) {
        siu_say(s, "info string lexicon %s not loaded: %s; playing with %s", want, err.msg, DEFAULT_LEXICON);
        if (try_lexicon(&s->opt, DEFAULT_LEXICON, e, code, code_cap, &err) == 0) return 0;
    }
    siu_say(s, "info string the default lexicon %s does not load: %s; put SOWPODS.kwg in DataPath, or see "
               "docs/commands.md on lexica", DEFAULT_LEXICON, err.msg);
    return -1;
}

/* The leaves the options name, into t (NULL for zero). */
static int open_leaves(SiuSession *s, SiuTables *t) {
    const char *want = s->opt.leaves;
    char path[4096];
    RkError err;
    if (strcasecmp(want, "zero") == 0) {
        copy(t->leaves_id, sizeof t->leaves_id, "zero");
        return 0;
    }
    if (want[0] == '\0' || strcasecmp(want, "default") == 0) {
        int have = engine_default_leaves(t->engine, path, sizeof path, &err);
        if (have < 0) return siu_say(s, "info string Leaves: %s", err.msg), -1;
        if (have == 0) {
            copy(t->leaves_id, sizeof t->leaves_id, "zero");
            return 0;
        }
    } else if (!find_in_data_path(&s->opt, want, "", path, sizeof path)) {
        copy(path, sizeof path, want);
    }
    t->leaves = malloc(sizeof *t->leaves);
    if (t->leaves == NULL || klv_load(t->leaves, path, &t->engine->ld, &err) != 0) {
        if (t->leaves != NULL) siu_say(s, "info string Leaves: %s", err.msg);
        free(t->leaves);
        t->leaves = NULL;
        return -1;
    }
    const char *base = strrchr(path, '/');
    copy(t->leaves_id, sizeof t->leaves_id, base != NULL ? base + 1 : path);
    return 0;
}

/* The Player option's spec, with the Model option added to an nn: or mcgs:
 * spec that names no network. */
static void player_spec(const SiuOptions *o, char *out, size_t cap) {
    const char *p = o->player;
    bool nn = strncmp(p, "nn:", 3) == 0, mcgs = strncmp(p, "mcgs", 4) == 0 && (p[4] == '\0' || p[4] == ':');
    if (o->model[0] != '\0' && nn && strstr(p, "model=") == NULL) snprintf(out, cap, "%s,model=%s", p, o->model);
    else if (o->model[0] != '\0' && mcgs && strstr(p, "net=") == NULL)
        snprintf(out, cap, "%s%snet=%s", p, p[4] == '\0' ? ":" : ",", o->model);
    else copy(out, cap, p);
}

int siu_tables_load(SiuSession *s, const char *lex, bool *reloaded) {
    const SiuOptions *o = &s->opt;
    const char *want = lex[0] != '\0' ? lex : o->lexicon;
    char key[sizeof s->tables.key];
    snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%s", o->data_path, want, o->leaves, o->win_table, o->player, o->model);
    *reloaded = false;
    if (s->tables.loaded && strcmp(key, s->tables.key) == 0) return 0;
    *reloaded = true;
    siu_tables_free(&s->tables);
    SiuTables *t = &s->tables;
    RkError err;
    t->engine = malloc(sizeof *t->engine);
    if (t->engine == NULL) return siu_say(s, "info string out of memory"), -1;
    if (open_lexicon(s, want, t->engine, t->lexicon_code, sizeof t->lexicon_code) != 0) {
        free(t->engine);
        t->engine = NULL;
        return -1;
    }
    if (open_leaves(s, t) != 0) goto fail;
    win_value_defaults(&t->win);
    if (win_value_parse_model(&t->win, o->win_table, &err) != 0) {
        siu_say(s, "info string WinPctTable: %s", err.msg);
        goto fail;
    }
    copy(t->win_id, sizeof t->win_id, strcasecmp(o->win_table, "default") == 0 ? "rookery-normal" : o->win_table);
    char spec[sizeof o->player + sizeof o->model + 16];
    player_spec(o, spec, sizeof spec);
    if (player_open(&t->player, spec, &t->engine->ld, &err) != 0) {
        siu_say(s, "info string Player: %s", err.msg);
        goto fail;
    }
    t->player_open = true;
    if (player_check_board(&t->player, t->engine->layout.dim, &err) != 0) {
        siu_say(s, "info string Player: %s", err.msg);
        goto fail;
    }
    player_lend_leaves(&t->player, t->leaves);
    copy(t->key, sizeof t->key, key);
    t->loaded = true;
    return 0;
fail:
    siu_tables_free(t);
    return -1;
}
