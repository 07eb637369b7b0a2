#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textfile.h"
#include "eval/spv_derive.h"
#include "worker/decision_study.h"
#include "worker/rank_share.h"

NnLossOptions train_config_loss_options(const TrainConfig *c) {
    return (NnLossOptions){.search_weight = (float)c->nn_search_weight,
                           .value_weight = (float)c->nn_value_weight,
                           .policy_loss = (NnPolicyLoss)c->nn_policy_loss,
                           .product_candidates = c->nn_product_candidates,
                           .product_temperature = (float)c->nn_product_temperature};
}

static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (!isdigit((unsigned char)v[0])) return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* A finite number in [lo, hi], plain decimal (no hex, inf or nan). */
static int parse_double(const char *v, double lo, double hi, double *out) {
    const char *p = v;
    if (*p == '+') p++;
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) return -1;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return -1;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno != 0 || *end != '\0' || !(x >= lo && x <= hi)) return -1;
    *out = x;
    return 0;
}

/* An SPV shrinkage prior: "auto" (empirical Bayes) or observations >= 0. */
static int parse_prior(const char *v, double *out) {
    if (strcmp(v, "auto") == 0) {
        *out = SPV_PRIOR_AUTO;
        return 0;
    }
    return parse_double(v, 0.0, 1e12, out);
}


static int set_string(char *dst, const char *v) {
    size_t n = strlen(v);
    if (n == 0 || n >= TRAIN_PATH_MAX) return -1;
    memcpy(dst, v, n + 1);
    return 0;
}

static int parse_schedule(TrainConfig *c, const char *v) {
    uint32_t vals[TRAIN_MAX_SCHEDULE];
    int n = 0;
    const char *p = v;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (!isdigit((unsigned char)*p) || n == TRAIN_MAX_SCHEDULE) return -1;
        char *end;
        errno = 0;
        unsigned long x = strtoul(p, &end, 10);
        if (errno != 0 || x > 1000000000UL) return -1;
        vals[n++] = (uint32_t)x;
        p = end;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0') break;
        if (*p != ',') return -1;
        p++;
    }
    memcpy(c->min_rack_count, vals, (size_t)n * sizeof vals[0]);
    c->n_min_rack_count = n;
    return 0;
}

/* The shortest of %.15g / %.17g that reads back exactly. */
static void format_double(char *buf, size_t cap, double v) {
    snprintf(buf, cap, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.17g", v);
}

static void format_prior(char *buf, size_t cap, double v) {
    if (v == SPV_PRIOR_AUTO) snprintf(buf, cap, "auto");
    else format_double(buf, cap, v);
}


/* ------------------------------------------------------------ the keys */

/* How a key's value is read and written. */
typedef enum {
    KEY_U64,    /* uint64_t in [lo, hi] */
    KEY_INT,    /* int in [lo, hi] (lo >= 0) */
    KEY_I64,    /* int64_t in [lo, hi] (lo >= 0) */
    KEY_DOUBLE, /* double in [lo, hi]; above lo only if lo_open */
    KEY_BOOL,   /* bool: names[0] is false, names[1] true */
    KEY_ENUM,   /* int-sized enum: the index in names */
    KEY_STRING, /* char[TRAIN_PATH_MAX], not empty, at most hi bytes (0: TRAIN_PATH_MAX - 1) */
    KEY_PATH,   /* the same, or "none" for the empty string */
    KEY_CUSTOM  /* parse and format below */
} KeyType;

typedef struct ConfigKey {
    const char *section, *key;
    const char *def; /* the default, as written */
    KeyType type;
    size_t offset;   /* of the field in TrainConfig (not KEY_CUSTOM) */
    double lo, hi;
    bool lo_open;
    const char *const *names; /* KEY_BOOL, KEY_ENUM */
    int (*parse)(TrainConfig *c, const char *v);                   /* KEY_CUSTOM: 0 or -1 */
    void (*format)(const TrainConfig *c, char *buf, size_t cap); /* KEY_CUSTOM */
    bool fixed;      /* cannot change mid-run (the run's identity) */
    const char *doc; /* one line; the full reference is config.h's */
} ConfigKey;

static const char *const YES_NO[] = {"no", "yes", NULL};
static const char *const SCHEDULES[] = {"off", "both", "alternate", NULL};
/* spv.schedule's names, the table's (the manifest writes them too) */
const char *train_config_schedule_name(SpvSchedule s) { return SCHEDULES[s]; }

static const char *const POLICY_LOSSES[] = {"direct", "product", NULL};
static const char *const PRIORS[] = {"score", "equity", NULL};
static const char *const NET_MODES[] = {"none", "auto", NULL};
static const char *const HIDDEN[] = {"uniform", "net", NULL};

/* A player spec the loop can open (static, sim:..., mcgs:...). */
static bool is_spec(const char *v, const char *kind) {
    size_t n = strlen(kind);
    return strncmp(v, kind, n) == 0 && (v[n] == '\0' || v[n] == ':');
}

static int parse_player(TrainConfig *c, const char *v) {
    /* the spec itself is opened (and its files loaded) by rookery train */
    if (!is_spec(v, "static") && !is_spec(v, "sim") && !is_spec(v, "mcgs")) return -1;
    /* the loop gives the net in force (mcgs.net) and the candidates with it (mcgs.candidates_with_net) */
    if (is_spec(v, "mcgs") && (strstr(v, "net=") != NULL || strstr(v, "candidates_by=") != NULL)) return -1;
    return set_string(c->player, v);
}
static void format_player(const TrainConfig *c, char *buf, size_t cap) { snprintf(buf, cap, "%s", c->player); }

static int parse_keep(TrainConfig *c, const char *v) {
    uint64_t x;
    if (strcmp(v, "all") == 0) c->keep = 0;
    else if (parse_u64(v, 1, 100000, &x) != 0) return -1;
    else c->keep = (int)x;
    return 0;
}
static void format_keep(const TrainConfig *c, char *buf, size_t cap) {
    if (c->keep > 0) snprintf(buf, cap, "%d", c->keep);
    else snprintf(buf, cap, "all");
}

static void format_schedule(const TrainConfig *c, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n_min_rack_count && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%" PRIu32, i ? "," : "", c->min_rack_count[i]);
    if (c->n_min_rack_count == 0) snprintf(buf, cap, "0");
}

static int parse_target(TrainConfig *c, const char *v) {
    int t = residual_target_parse(v);
    if (t < 0) return -1;
    c->spv_target = (ResidualTarget)t;
    return 0;
}
static void format_target(const TrainConfig *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", residual_target_name(c->spv_target));
}

static int parse_prior_mean(TrainConfig *c, const char *v) { return parse_prior(v, &c->spv_prior_mean); }
static int parse_prior_var(TrainConfig *c, const char *v) { return parse_prior(v, &c->spv_prior_var); }
static void format_prior_mean(const TrainConfig *c, char *buf, size_t cap) { format_prior(buf, cap, c->spv_prior_mean); }
static void format_prior_var(const TrainConfig *c, char *buf, size_t cap) { format_prior(buf, cap, c->spv_prior_var); }

static int parse_heldout_every(TrainConfig *c, const char *v) {
    uint64_t x;
    if (parse_u64(v, 0, 1000000, &x) != 0 || x == 1) return -1; /* 1 would hold out every game */
    c->nn_heldout_every = (int)x;
    return 0;
}
static void format_heldout_every(const TrainConfig *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%d", c->nn_heldout_every);
}

static int parse_rollout_with_net(TrainConfig *c, const char *v) {
    /* N, or auto (2-ply rollouts) / auto:N (N-ply) until V wins the value check */
    uint64_t x;
    bool automatic = is_spec(v, "auto");
    if (automatic && v[4] == '\0') x = 2;
    else if (parse_u64(automatic ? v + 5 : v, automatic ? 1 : 0, 100, &x) != 0) return -1;
    c->mcgs_rollout_auto = automatic;
    c->mcgs_rollout_with_net = (int)x;
    return 0;
}
static void format_rollout_with_net(const TrainConfig *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s%d", c->mcgs_rollout_auto ? "auto:" : "", c->mcgs_rollout_with_net);
}

static int parse_candidates_with_net(TrainConfig *c, const char *v) {
    if (strcmp(v, "prior") != 0 && strcmp(v, "equity") != 0 && strcmp(v, "mix") != 0) return -1;
    snprintf(c->mcgs_candidates_with_net, sizeof c->mcgs_candidates_with_net, "%s", v);
    return 0;
}
static void format_candidates_with_net(const TrainConfig *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", c->mcgs_candidates_with_net);
}

static int parse_anchor(TrainConfig *c, const char *v) {
    /* the spec itself is opened (and its files loaded) by rookery train */
    bool named = strcmp(v, "search") == 0 || strcmp(v, "static") == 0;
    if (!named && !is_spec(v, "sim") && !is_spec(v, "mcgs")) return -1;
    return set_string(c->mcgs_anchor, v);
}
static void format_anchor(const TrainConfig *c, char *buf, size_t cap) { snprintf(buf, cap, "%s", c->mcgs_anchor); }

#define OFF(f) offsetof(TrainConfig, f)
#define U64(s, k, d, f, lo, hi, doc) {s, k, d, KEY_U64, OFF(f), lo, hi, false, NULL, NULL, NULL, false, doc}
#define INT(s, k, d, f, lo, hi, doc) {s, k, d, KEY_INT, OFF(f), lo, hi, false, NULL, NULL, NULL, false, doc}
#define FIXED_INT(s, k, d, f, lo, hi, doc) {s, k, d, KEY_INT, OFF(f), lo, hi, false, NULL, NULL, NULL, true, doc}
#define DBL(s, k, d, f, lo, hi, doc) {s, k, d, KEY_DOUBLE, OFF(f), lo, hi, false, NULL, NULL, NULL, false, doc}
#define POS(s, k, d, f, hi, doc) {s, k, d, KEY_DOUBLE, OFF(f), 0, hi, true, NULL, NULL, NULL, false, doc}
#define BOOL(s, k, d, f, names, doc) {s, k, d, KEY_BOOL, OFF(f), 0, 0, false, names, NULL, NULL, false, doc}
#define ENUM(s, k, d, f, names, fixed, doc) {s, k, d, KEY_ENUM, OFF(f), 0, 0, false, names, NULL, NULL, fixed, doc}
#define STR(s, k, d, f, fixed, doc) {s, k, d, KEY_STRING, OFF(f), 0, 0, false, NULL, NULL, NULL, fixed, doc}
#define PATH(s, k, d, f, fixed, doc) {s, k, d, KEY_PATH, OFF(f), 0, 0, false, NULL, NULL, NULL, fixed, doc}
#define CUSTOM(s, k, d, p, fixed, doc) {s, k, d, KEY_CUSTOM, 0, 0, 0, false, NULL, parse_##p, format_##p, fixed, doc}

/* Every key, in the order of the written config (and of config.h's
 * reference, which test_train_config checks against this table). */
static const ConfigKey KEYS[] = {
    {"run", "seed", "1", KEY_U64, OFF(seed), 0, (double)UINT64_MAX, false, NULL, NULL, NULL, true,
     "run seed: game i of generation g is seeded from (seed, g, i)"},
    INT("run", "generations", "3", generations, 1, 100000, "generations to reach (a resumed run continues up to this)"),
    U64("run", "games_per_generation", "3000", games_per_generation, 1, 1099511627776.0,
        "self-play games per generation, all ranks together"),
    {"run", "output", "runs/default", KEY_STRING, OFF(output), 0, TRAIN_OUTPUT_MAX, false, NULL, NULL, NULL, false,
     "the run directory"},
    CUSTOM("run", "player", "static", player, true, "who plays the self-play games: static[:...], sim:..., mcgs:..."),
    INT("run", "progress_seconds", "5", progress_seconds, 0, 86400, "seconds between progress lines (0: per generation)"),
    INT("run", "threads", "1", threads, 1, GENERATION_MAX_THREADS, "self-play threads per rank (results do not depend on it)"),
    CUSTOM("run", "keep", "all", keep, false, "all | N: older generations keep only their manifest and metrics row"),
    INT("run", "keep_every", "0", keep_every, 0, 100000, "with run.keep: every generation divisible by this stays whole"),
    STR("lexicon", "kwg", "SOWPODS", lexicon, true, "lexicon name or .kwg path"),
    STR("lexicon", "ld", "english", ld, true, "letter distribution name or .csv path"),
    STR("lexicon", "layout", "standard15", layout, true, "board layout name or .txt path"),
    STR("leaves", "initial", "zero", initial_leaves, true, "zero or the .klv2 generation 1 starts from"),
    {"leaves", "min_rack_count", "0", KEY_CUSTOM, 0, 0, 0, false, NULL, parse_schedule, format_schedule, false,
     "minimum observations per rack, a comma list by generation (the last repeats)"},
    U64("leaves", "max_forced_games", "1000", max_forced_games, 0, 1099511627776.0, "cap on forced-rack games a generation"),
    INT("leaves", "sampled_racks", "0", sampled_racks, 0, GENERATION_MAX_SAMPLED_RACKS,
        "racks valued on each position besides the mover's"),
    DBL("leaves", "shrink", "30", shrink, 0, 1e12, "shrinkage k of the leave derivation, observations"),
    U64("match", "pairs", "200", match_pairs, 0, 4294967296.0, "game pairs a generation: new leaves against zero leaves"),
    ENUM("spv", "schedule", "both", spv_schedule, SCHEDULES, false, "off | both | alternate: which generations derive SPV"),
    CUSTOM("spv", "target", "final", target, false, "the residual the SPV table learns"),
    INT("spv", "start", "1", spv_start, 1, 100000, "first generation that derives an SPV table"),
    BOOL("spv", "use", "no", spv_use, YES_NO, "self-play plays with the SPV table in force"),
    STR("spv", "initial", "zero", spv_initial, true, "zero or the .spv of generation 0"),
    DBL("spv", "k", "75", spv_k, 1e-3, 1e6, "spread scale K of the variance weight, points"),
    CUSTOM("spv", "prior_mean", "auto", prior_mean, false, "shrinkage prior of the mean table, or auto"),
    CUSTOM("spv", "prior_var", "auto", prior_var, false, "shrinkage prior of the variance table, or auto"),
    U64("spv", "heldout_games", "200", spv_heldout_games, 0, 4294967296.0, "held-out games a generation for SPV's residuals"),
    U64("spv", "match_pairs", "200", spv_match_pairs, 0, 4294967296.0, "game pairs a generation: SPV on against off"),
    BOOL("nn", "shards", "yes", nn_shards, YES_NO, "record training samples into HDF5 shards"),
    DBL("nn", "policy_temperature", "1", nn_temperature, 0, 1000, "P target's softmax temperature over static equity, points"),
    INT("nn", "policy_top", "16", nn_top, 1, 64, "moves in that softmax"),
    U64("nn", "shard_samples", "100000", nn_shard_samples, 1, 4294967296.0, "samples per shard file at most"),
    BOOL("nn", "train", "yes", nn_train, YES_NO, "train the network each generation"),
    INT("nn", "window", "4", nn_window, 1, 1000, "generations of shards the trainer samples from"),
    {"nn", "steps", "150", KEY_I64, OFF(nn_steps), 0, 1099511627776.0, false, NULL, NULL, NULL, false,
     "Adam steps a generation"},
    INT("nn", "batch", "128", nn_batch, 1, 65536, "samples a step, all ranks together"),
    INT("nn", "grad_chunks", "8", nn_chunks, 1, 4096, "fixed slices of a batch (weights independent of the ranks)"),
    DBL("nn", "lr", "0.001", nn_lr, 0, 10, "Adam learning rate"),
    DBL("nn", "weight_decay", "0.0001", nn_weight_decay, 0, 10, "AdamW decoupled weight decay"),
    DBL("nn", "value_search_weight", "0", nn_search_weight, 0, 1, "the search's share of V's spread target"),
    POS("nn", "value_weight", "1", nn_value_weight, 100, "V's losses' weight in the training loss"),
    ENUM("nn", "policy_loss", "direct", nn_policy_loss, POLICY_LOSSES, false, "direct | product: P's loss"),
    INT("nn", "product_candidates", "16", nn_product_candidates, 1, NN_PRODUCT_MAX, "the product loss's candidates"),
    POS("nn", "product_temperature", "10", nn_product_temperature, 1000, "the product loss's equity temperature, points"),
    CUSTOM("nn", "heldout_every", "10", heldout_every, true, "game i is held out when i mod N = N - 1 (0: none)"),
    U64("nn", "eval_positions", "1000", nn_eval_positions, 0, 4294967296.0, "held-out positions evaluated a generation"),
    PATH("nn", "reference", "none", nn_reference, false, "none | RUN | RUN:G: another run to score each model on"),
    PATH("nn", "initial", "none", nn_initial, true, "none | FILE: the model a new run starts from"),
    FIXED_INT("nn", "channels", "32", nn_arch.channels, 1, 512, "the trunk's channels"),
    FIXED_INT("nn", "blocks", "3", nn_arch.blocks, 0, 40, "the trunk's residual blocks"),
    FIXED_INT("nn", "embed", "64", nn_arch.embed, 1, 4096, "the move and tile embeddings' width"),
    FIXED_INT("nn", "head_hidden", "64", nn_arch.head_hidden, 1, 4096, "the heads' hidden width"),
    FIXED_INT("nn", "h_tiles", "1", nn_arch.h_tiles, 1, 2, "tiles H predicts a step"),
    FIXED_INT("nn", "feature_version", "2", nn_arch.feature_version, 2, 3,
              "2 | 3: what a new model reads (3: also the opponent's last move; docs/features.md)"),
    ENUM("nn", "prior", "score", nn_arch.prior_equity, PRIORS, true, "score | equity: what P's prior term reads"),
    {"mcgs", "net", "auto", KEY_BOOL, OFF(mcgs_net_auto), 0, 0, false, NET_MODES, NULL, NULL, true,
     "auto | none: the search is guided by the promoted model"},
    CUSTOM("mcgs", "rollout_with_net", "0", rollout_with_net, false, "N | auto[:N]: leaf rollout plies once a net guides"),
    CUSTOM("mcgs", "candidates_with_net", "prior", candidates_with_net, false,
           "prior | equity | mix: a node's candidates once a net guides"),
    BOOL("mcgs", "hidden_with_net", "net", mcgs_hidden_net, HIDDEN, "net | uniform: the opponent's rack once a net guides"),
    U64("mcgs", "gate_pairs", "20", mcgs_gate_pairs, 0, 4294967296.0, "gatekeeper's game pairs (0: promote every model)"),
    DBL("mcgs", "gate_threshold", "50", mcgs_gate_threshold, 0, 101, "win share (%) a new model needs to be promoted"),
    U64("mcgs", "anchor_pairs", "0", mcgs_anchor_pairs, 0, 4294967296.0, "game pairs a generation against the anchor"),
    CUSTOM("mcgs", "anchor", "search", anchor, false, "search | a player spec: the anchor"),
    INT("mcgs", "decisions", "0", mcgs_decisions, 0, DECISION_MAX_POSITIONS, "positions of a decision study a generation"),
    U64("mcgs", "value_check_pairs", "20", mcgs_value_pairs, 1, 4294967296.0, "game pairs of the value check"),
    DBL("mcgs", "value_check_threshold", "50", mcgs_value_threshold, 0, 101, "win share (%) V needs to replace rollouts"),
};
#define NKEYS (sizeof KEYS / sizeof KEYS[0])
/* KEY_ENUM fields are written as ints */
_Static_assert(sizeof(SpvSchedule) == sizeof(int), "SpvSchedule is int-sized");

static const ConfigKey *find_key(const char *section, const char *key) {
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(KEYS[i].section, section) == 0 && strcmp(KEYS[i].key, key) == 0) return &KEYS[i];
    return NULL;
}

static bool known_section(const char *section) {
    for (size_t i = 0; i < NKEYS; i++)
        if (strcmp(KEYS[i].section, section) == 0) return true;
    return false;
}

static int name_index(const char *const *names, const char *v) {
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], v) == 0) return i;
    return -1;
}

/* Returns 0, -1 for a bad value, -2 for an unknown key. */
static int apply(TrainConfig *c, const char *section, const char *key, const char *v) {
    const ConfigKey *k = find_key(section, key);
    if (k == NULL) return -2;
    char *field = (char *)c + k->offset;
    uint64_t x;
    int i;
    switch (k->type) {
    case KEY_U64:
        if (parse_u64(v, (uint64_t)k->lo, k->hi >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)k->hi, &x) != 0)
            return -1;
        memcpy(field, &x, sizeof x);
        return 0;
    case KEY_INT:
    case KEY_I64:
        if (parse_u64(v, (uint64_t)k->lo, (uint64_t)k->hi, &x) != 0) return -1;
        if (k->type == KEY_INT) {
            int n = (int)x;
            memcpy(field, &n, sizeof n);
        } else {
            int64_t n = (int64_t)x;
            memcpy(field, &n, sizeof n);
        }
        return 0;
    case KEY_DOUBLE: {
        double d;
        if (parse_double(v, k->lo, k->hi, &d) != 0 || (k->lo_open && !(d > k->lo))) return -1;
        memcpy(field, &d, sizeof d);
        return 0;
    }
    case KEY_BOOL: {
        if ((i = name_index(k->names, v)) < 0) return -1;
        bool b = i == 1;
        memcpy(field, &b, sizeof b);
        return 0;
    }
    case KEY_ENUM:
        if ((i = name_index(k->names, v)) < 0) return -1;
        memcpy(field, &i, sizeof i);
        return 0;
    case KEY_STRING:
        if (k->hi > 0 && strlen(v) > (size_t)k->hi) return -1;
        return set_string(field, v);
    case KEY_PATH:
        if (strcmp(v, "none") == 0) return field[0] = '\0', 0;
        return set_string(field, v);
    case KEY_CUSTOM:
        return k->parse(c, v);
    }
    return -1;
}

/* Key k's value in c, as written. */
static void format_key(const TrainConfig *c, const ConfigKey *k, char *buf, size_t cap) {
    const char *field = (const char *)c + k->offset;
    uint64_t u;
    int n;
    int64_t l;
    double d;
    bool b;
    switch (k->type) {
    case KEY_U64:
        memcpy(&u, field, sizeof u);
        snprintf(buf, cap, "%" PRIu64, u);
        return;
    case KEY_INT:
        memcpy(&n, field, sizeof n);
        snprintf(buf, cap, "%d", n);
        return;
    case KEY_I64:
        memcpy(&l, field, sizeof l);
        snprintf(buf, cap, "%" PRId64, l);
        return;
    case KEY_DOUBLE:
        memcpy(&d, field, sizeof d);
        format_double(buf, cap, d);
        return;
    case KEY_BOOL:
        memcpy(&b, field, sizeof b);
        snprintf(buf, cap, "%s", k->names[b ? 1 : 0]);
        return;
    case KEY_ENUM:
        memcpy(&n, field, sizeof n);
        snprintf(buf, cap, "%s", k->names[n]);
        return;
    case KEY_STRING:
        snprintf(buf, cap, "%s", field);
        return;
    case KEY_PATH:
        snprintf(buf, cap, "%s", field[0] ? field : "none");
        return;
    case KEY_CUSTOM:
        k->format(c, buf, cap);
        return;
    }
}

/* The config as text: sections in order, "key = value" lines, with each
 * key's doc line above it if `docs`. The length, or -1 if cap is short. */
static int write_text(const TrainConfig *c, bool docs, char *buf, size_t cap) {
    size_t off = 0;
    char value[TRAIN_PATH_MAX + 16];
    for (size_t i = 0; i < NKEYS; i++) {
        const ConfigKey *k = &KEYS[i];
        int n = 0;
        if (i == 0 || strcmp(k->section, KEYS[i - 1].section) != 0)
            n = snprintf(buf + off, cap - off, "%s[%s]\n", i ? "\n" : "", k->section);
        if (n < 0 || (size_t)n >= cap - off) return -1;
        off += (size_t)n;
        if (docs) {
            n = snprintf(buf + off, cap - off, "# %s\n", k->doc);
            if (n < 0 || (size_t)n >= cap - off) return -1;
            off += (size_t)n;
        }
        format_key(c, k, value, sizeof value);
        n = snprintf(buf + off, cap - off, "%s = %s\n", k->key, value);
        if (n < 0 || (size_t)n >= cap - off) return -1;
        off += (size_t)n;
    }
    return (int)off;
}

void train_config_defaults(TrainConfig *c) {
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NKEYS; i++)
        if (apply(c, KEYS[i].section, KEYS[i].key, KEYS[i].def) != 0) abort(); /* the table is constant */
    /* not a key: every new model's H starts from the uniform draw (nn/model.h) */
    c->nn_arch.h_pool_prior = 1;
}

int train_config_default_text(char *buf, size_t cap) {
    static const char head[] = "# rookery training run: the embedded default (a short but real run; every key,\n"
                               "# its default and one line on it; the full reference: src/train/config.h)\n";
    TrainConfig c;
    train_config_defaults(&c);
    if (cap <= sizeof head) return -1;
    memcpy(buf, head, sizeof head);
    int n = write_text(&c, true, buf + sizeof head - 1, cap - (sizeof head - 1));
    return n < 0 ? -1 : n + (int)sizeof head - 1;
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* The keys a config text has set, to refuse a second assignment of one. */
#define SEEN_MAX 256
typedef struct SeenKeys {
    int n;
    char key[SEEN_MAX][64 + 64];
    int line[SEEN_MAX];
} SeenKeys;

/* The line where section.key was first set in this text, 0 if not yet (then it is recorded). */
static int seen_before(SeenKeys *k, const char *section, const char *key, int line_no) {
    char full[64 + 64];
    snprintf(full, sizeof full, "%s.%s", section, key);
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->key[i], full) == 0) return k->line[i];
    if (k->n < SEEN_MAX) {
        snprintf(k->key[k->n], sizeof k->key[k->n], "%s", full);
        k->line[k->n++] = line_no;
    }
    return 0;
}

int train_config_parse(TrainConfig *c, const char *text, const char *source, RkError *err) {
    char section[64] = "";
    int line_no = 0;
    const char *p = text;
    SeenKeys *seen = calloc(1, sizeof *seen);
    if (seen == NULL) return rk_error(err, "%s: out of memory", source);
    char sections_seen[8][64];
    int section_line[8], n_sections = 0, rc = 0;
    while (*p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        line_no++;
        char line[2048];
        if (n >= sizeof line) {
            rc = rk_error(err, "%s:%d: line too long", source, line_no);
            break;
        }
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (eol ? 1 : 0);
        char *s = trim(line);
        if (*s == '\0' || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (close == NULL || close[1] != '\0' || close - s - 1 <= 0 || close - s - 1 >= (long)sizeof section) {
                rc = rk_error(err, "%s:%d: bad section header '%s'", source, line_no, s);
                break;
            }
            *close = '\0';
            snprintf(section, sizeof section, "%s", trim(s + 1));
            if (!known_section(section)) {
                rc = rk_error(err, "%s:%d: unknown section [%s]", source, line_no, section);
                break;
            }
            for (int i = 0; i < n_sections && rc == 0; i++)
                if (strcmp(sections_seen[i], section) == 0)
                    rc = rk_error(err, "%s:%d: section [%s] again (first at line %d): one place for each setting",
                                  source, line_no, section, section_line[i]);
            if (rc != 0) break;
            snprintf(sections_seen[n_sections], sizeof sections_seen[n_sections], "%s", section);
            section_line[n_sections++] = line_no;
            continue;
        }
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            rc = rk_error(err, "%s:%d: expected 'key = value', got '%s'", source, line_no, s);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (section[0] == '\0') {
            rc = rk_error(err, "%s:%d: '%s' outside a [section]", source, line_no, key);
            break;
        }
        int applied = apply(c, section, key, val);
        if (applied == -2) {
            rc = rk_error(err, "%s:%d: unknown key %s.%s", source, line_no, section, key);
            break;
        }
        if (applied != 0) {
            rc = rk_error(err, "%s:%d: bad value for %s.%s: '%s'", source, line_no, section, key, val);
            break;
        }
        int first = seen_before(seen, section, key, line_no);
        if (first > 0) {
            rc = rk_error(err, "%s:%d: %s.%s set again (first at line %d): one place for each setting", source,
                          line_no, section, key, first);
            break;
        }
    }
    free(seen);
    return rc;
}

int train_config_load(TrainConfig *c, const char *path, RkError *err) {
    size_t len = 0;
    char *text = rk_read_file(path, 1 << 20, &len, err);
    if (text == NULL) return -1;
    size_t nul = strlen(text);
    if (nul != len) { /* the parser would stop there and drop the rest silently */
        int line = 1;
        for (size_t i = 0; i < nul; i++) line += text[i] == '\n';
        free(text);
        return rk_error(err, "%s:%d: a NUL byte (offset %zu): not a text file", path, line, nul);
    }
    int rc = train_config_parse(c, text, path, err);
    free(text);
    return rc;
}

int train_config_assign(TrainConfig *c, const char *assignment, RkError *err) {
    char key[256];
    const char *eq = strchr(assignment, '=');
    if (eq == NULL || (size_t)(eq - assignment) >= sizeof key)
        return rk_error(err, "--set %s: expected section.key=value", assignment);
    memcpy(key, assignment, (size_t)(eq - assignment));
    key[eq - assignment] = '\0';
    return train_config_set(c, key, eq + 1, err);
}

int train_config_set(TrainConfig *c, const char *dotted_key, const char *value, RkError *err) {
    const char *dot = strchr(dotted_key, '.');
    if (dot == NULL || dot == dotted_key || (size_t)(dot - dotted_key) >= 64)
        return rk_error(err, "--set %s: expected section.key=value", dotted_key);
    char section[64];
    memcpy(section, dotted_key, (size_t)(dot - dotted_key));
    section[dot - dotted_key] = '\0';
    int rc = apply(c, section, dot + 1, value);
    if (rc == -2) return rk_error(err, "--set: unknown key %s", dotted_key);
    if (rc != 0) return rk_error(err, "--set: bad value for %s: '%s'", dotted_key, value);
    return 0;
}

bool train_config_spv_trains(const TrainConfig *c, int generation) {
    if (c->spv_schedule == SPV_SCHEDULE_OFF || generation < c->spv_start) return false;
    return c->spv_schedule == SPV_SCHEDULE_BOTH || (generation - c->spv_start) % 2 == 0;
}

bool train_config_leaves_train(const TrainConfig *c, int generation) {
    if (c->spv_schedule != SPV_SCHEDULE_ALTERNATE || generation < c->spv_start) return true;
    return (generation - c->spv_start) % 2 == 1;
}

uint32_t train_config_min_count(const TrainConfig *c, int generation) {
    if (c->n_min_rack_count == 0 || generation < 1) return 0;
    int i = generation - 1 < c->n_min_rack_count ? generation - 1 : c->n_min_rack_count - 1;
    return c->min_rack_count[i];
}

int train_config_write(const TrainConfig *c, char *buf, size_t cap) { return write_text(c, false, buf, cap); }

static bool may_change(const char *dotted) {
    for (size_t i = 0; i < NKEYS; i++) {
        size_t n = strlen(KEYS[i].section);
        if (strncmp(dotted, KEYS[i].section, n) == 0 && dotted[n] == '.' && strcmp(dotted + n + 1, KEYS[i].key) == 0)
            return !KEYS[i].fixed;
    }
    return true;
}

int train_config_key_count(void) { return (int)NKEYS; }

void train_config_key(int i, const char **section, const char **key, const char **def) {
    *section = KEYS[i].section;
    *key = KEYS[i].key;
    *def = KEYS[i].def;
}

/* The next "key = value" line of a written config from *p (sections
 * tracked in section): 1 with key (section.key) and value, 0 at the end. */
static int next_assignment(const char **p, char *section, size_t scap, char *key, size_t kcap, const char **value,
                           size_t *vlen) {
    while (**p != '\0') {
        const char *line = *p, *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        *p = line + n + (eol ? 1 : 0);
        if (n > 2 && line[0] == '[' && line[n - 1] == ']') {
            snprintf(section, scap, "%.*s", (int)(n - 2), line + 1);
            continue;
        }
        const char *eq = memchr(line, '=', n);
        if (eq == NULL || eq < line + 2) continue;
        snprintf(key, kcap, "%s.%.*s", section, (int)(eq - 1 - line), line);
        *value = eq + 2 <= line + n ? eq + 2 : line + n;
        *vlen = (size_t)(line + n - *value);
        return 1;
    }
    return 0;
}

int train_config_differences(const TrainConfig *a, const TrainConfig *b, TrainConfigDiff *out, int cap) {
    enum { CAP = 65536 };
    char *ta = malloc(CAP), *tb = malloc(CAP);
    int count = -1;
    if (ta != NULL && tb != NULL && train_config_write(a, ta, CAP) >= 0 && train_config_write(b, tb, CAP) >= 0) {
        count = 0;
        /* both texts list the same keys in the same order (one writer) */
        const char *pa = ta, *pb = tb, *va, *vb;
        char sa[64] = "", sb[64] = "", ka[128], kb[128];
        size_t la, lb;
        while (next_assignment(&pa, sa, sizeof sa, ka, sizeof ka, &va, &la) &&
               next_assignment(&pb, sb, sizeof sb, kb, sizeof kb, &vb, &lb)) {
            if (la == lb && memcmp(va, vb, la) == 0) continue;
            if (count < cap) {
                TrainConfigDiff *d = &out[count];
                snprintf(d->key, sizeof d->key, "%s", ka);
                snprintf(d->from, sizeof d->from, "%.*s", (int)la, va);
                snprintf(d->to, sizeof d->to, "%.*s", (int)lb, vb);
                d->may_change = may_change(ka);
            }
            count++;
        }
    }
    free(ta);
    free(tb);
    return count;
}

int train_config_check(const TrainConfig *c, RkError *err) {
    bool search_loop = strncmp(c->player, "mcgs", 4) == 0;
    if (c->keep_every > 0 && c->keep == 0)
        return rk_error(err, "run.keep_every = %d needs run.keep = N (with keep = all every file stays)", c->keep_every);
    if (c->mcgs_anchor_pairs > 0 && !search_loop)
        return rk_error(err, "mcgs.anchor_pairs = %" PRIu64 " needs the search's loop (run.player = mcgs:...)",
                        c->mcgs_anchor_pairs);
    if (c->mcgs_decisions > 0 && !search_loop)
        return rk_error(err, "mcgs.decisions = %d needs the search's loop (run.player = mcgs:...); "
                             "`rookery decisions` studies any players",
                        c->mcgs_decisions);
    if (c->nn_initial[0] && !c->nn_train)
        return rk_error(err, "nn.initial = %s needs nn.train = yes (it is where the training starts)", c->nn_initial);
    return 0;
}

const char *train_config_lexicon_path(const TrainConfig *c) {
    return strchr(c->lexicon, '/') || strstr(c->lexicon, ".kwg") ? c->lexicon : NULL;
}
