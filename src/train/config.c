#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textfile.h"
#include "eval/spv_derive.h"
#include "worker/decision_study.h"
#include "worker/generation.h"

const char TRAIN_DEFAULT_CONFIG[] =
    "# rookery training run: the embedded default (a short but real run)\n"
    "[run]\n"
    "seed = 1\n"
    "generations = 3\n"
    "games_per_generation = 3000\n"
    "output = runs/default\n"
    "player = static\n"
    "progress_seconds = 5\n"
    "threads = 1\n"
    "keep = all\n"
    "keep_every = 0\n"
    "\n"
    "[lexicon]\n"
    "kwg = SOWPODS\n"
    "ld = english\n"
    "layout = standard15\n"
    "\n"
    "[leaves]\n"
    "initial = zero\n"
    "min_rack_count = 0\n"
    "max_forced_games = 1000\n"
    "sampled_racks = 0\n"
    "shrink = 30\n"
    "\n"
    "[match]\n"
    "pairs = 200\n"
    "\n"
    "[spv]\n"
    "schedule = both\n"
    "target = final\n"
    "start = 1\n"
    "use = no\n"
    "initial = zero\n"
    "k = 75\n"
    "prior_mean = auto\n"
    "prior_var = auto\n"
    "heldout_games = 200\n"
    "match_pairs = 200\n"
    "\n"
    "[nn]\n"
    "shards = yes\n"
    "policy_temperature = 1\n"
    "policy_top = 16\n"
    "shard_samples = 100000\n"
    "train = yes\n"
    "window = 4\n"
    "steps = 150\n"
    "batch = 128\n"
    "grad_chunks = 8\n"
    "lr = 0.001\n"
    "weight_decay = 0.0001\n"
    "value_search_weight = 0\n"
    "value_weight = 1\n"
    "policy_loss = direct\n"
    "product_candidates = 16\n"
    "product_temperature = 10\n"
    "heldout_every = 10\n"
    "eval_positions = 1000\n"
    "reference = none\n"
    "initial = none\n"
    "channels = 32\n"
    "blocks = 3\n"
    "embed = 64\n"
    "head_hidden = 64\n"
    "h_tiles = 1\n"
    "prior = score\n"
    "\n"
    "[mcgs]\n"
    "net = auto\n"
    "rollout_with_net = 0\n"
    "candidates_with_net = prior\n"
    "hidden_with_net = net\n"
    "gate_pairs = 20\n"
    "gate_threshold = 50\n"
    "anchor_pairs = 0\n"
    "anchor = search\n"
    "decisions = 0\n"
    "value_check_pairs = 20\n"
    "value_check_threshold = 50\n";

void train_config_defaults(TrainConfig *c) {
    memset(c, 0, sizeof *c);
    RkError err;
    if (train_config_parse(c, TRAIN_DEFAULT_CONFIG, "default config", &err) != 0) abort(); /* constant */
    /* not a key: every new model's H starts from the uniform draw (nn/model.h) */
    c->nn_arch.h_pool_prior = 1;
}

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


static int parse_bool(const char *v, bool *out) {
    if (strcmp(v, "yes") == 0) *out = true;
    else if (strcmp(v, "no") == 0) *out = false;
    else return -1;
    return 0;
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

/* Returns 0, -1 for a bad value, -2 for an unknown key. */
static int apply(TrainConfig *c, const char *section, const char *key, const char *v) {
    uint64_t x;
#define IS(s, k) (strcmp(section, s) == 0 && strcmp(key, k) == 0)
    if (IS("run", "seed")) {
        if (parse_u64(v, 0, UINT64_MAX, &x) != 0) return -1;
        c->seed = x;
    } else if (IS("run", "generations")) {
        if (parse_u64(v, 1, 100000, &x) != 0) return -1;
        c->generations = (int)x;
    } else if (IS("run", "games_per_generation")) {
        if (parse_u64(v, 1, UINT64_C(1) << 40, &x) != 0) return -1;
        c->games_per_generation = x;
    } else if (IS("run", "output")) {
        if (strlen(v) > TRAIN_OUTPUT_MAX) return -1;
        return set_string(c->output, v);
    } else if (IS("run", "player")) {
        /* the spec itself is opened (and its files loaded) by rookery train */
        bool sim = strncmp(v, "sim", 3) == 0 && (v[3] == '\0' || v[3] == ':');
        bool mcgs = strncmp(v, "mcgs", 4) == 0 && (v[4] == '\0' || v[4] == ':');
        if (strcmp(v, "static") != 0 && !sim && !mcgs) return -1;
        /* the loop gives the net in force (mcgs.net) and the candidates with it (mcgs.candidates_with_net) */
        if (mcgs && (strstr(v, "net=") != NULL || strstr(v, "candidates_by=") != NULL)) return -1;
        return set_string(c->player, v);
    } else if (IS("run", "progress_seconds")) {
        if (parse_u64(v, 0, 86400, &x) != 0) return -1;
        c->progress_seconds = (int)x;
    } else if (IS("run", "threads")) {
        if (parse_u64(v, 1, GENERATION_MAX_THREADS, &x) != 0) return -1;
        c->threads = (int)x;
    } else if (IS("run", "keep")) {
        if (strcmp(v, "all") == 0) c->keep = 0;
        else if (parse_u64(v, 1, 100000, &x) != 0) return -1;
        else c->keep = (int)x;
    } else if (IS("run", "keep_every")) {
        if (parse_u64(v, 0, 100000, &x) != 0) return -1;
        c->keep_every = (int)x;
    } else if (IS("lexicon", "kwg")) {
        return set_string(c->lexicon, v);
    } else if (IS("lexicon", "ld")) {
        return set_string(c->ld, v);
    } else if (IS("lexicon", "layout")) {
        return set_string(c->layout, v);
    } else if (IS("leaves", "initial")) {
        return set_string(c->initial_leaves, v);
    } else if (IS("leaves", "min_rack_count")) {
        return parse_schedule(c, v);
    } else if (IS("leaves", "max_forced_games")) {
        if (parse_u64(v, 0, UINT64_C(1) << 40, &x) != 0) return -1;
        c->max_forced_games = x;
    } else if (IS("leaves", "sampled_racks")) {
        if (parse_u64(v, 0, GENERATION_MAX_SAMPLED_RACKS, &x) != 0) return -1;
        c->sampled_racks = (int)x;
    } else if (IS("leaves", "shrink")) {
        double k;
        if (parse_double(v, 0.0, 1e12, &k) != 0) return -1;
        c->shrink = k;
    } else if (IS("spv", "schedule")) {
        if (strcmp(v, "off") == 0) c->spv_schedule = SPV_SCHEDULE_OFF;
        else if (strcmp(v, "both") == 0) c->spv_schedule = SPV_SCHEDULE_BOTH;
        else if (strcmp(v, "alternate") == 0) c->spv_schedule = SPV_SCHEDULE_ALTERNATE;
        else return -1;
    } else if (IS("spv", "target")) {
        int t = residual_target_parse(v);
        if (t < 0) return -1;
        c->spv_target = (ResidualTarget)t;
    } else if (IS("spv", "start")) {
        if (parse_u64(v, 1, 100000, &x) != 0) return -1;
        c->spv_start = (int)x;
    } else if (IS("spv", "use")) {
        return parse_bool(v, &c->spv_use);
    } else if (IS("spv", "initial")) {
        return set_string(c->spv_initial, v);
    } else if (IS("spv", "k")) {
        if (parse_double(v, 1e-3, 1e6, &c->spv_k) != 0) return -1;
    } else if (IS("spv", "prior_mean")) {
        return parse_prior(v, &c->spv_prior_mean);
    } else if (IS("spv", "prior_var")) {
        return parse_prior(v, &c->spv_prior_var);
    } else if (IS("spv", "heldout_games")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->spv_heldout_games = x;
    } else if (IS("spv", "match_pairs")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->spv_match_pairs = x;
    } else if (IS("nn", "shards")) {
        return parse_bool(v, &c->nn_shards);
    } else if (IS("nn", "train")) {
        return parse_bool(v, &c->nn_train);
    } else if (IS("nn", "policy_temperature")) {
        return parse_double(v, 0.0, 1000.0, &c->nn_temperature);
    } else if (IS("nn", "policy_top")) {
        if (parse_u64(v, 1, 64, &x) != 0) return -1;
        c->nn_top = (int)x;
    } else if (IS("nn", "shard_samples")) {
        if (parse_u64(v, 1, UINT64_C(1) << 32, &x) != 0) return -1;
        c->nn_shard_samples = x;
    } else if (IS("nn", "window")) {
        if (parse_u64(v, 1, 1000, &x) != 0) return -1;
        c->nn_window = (int)x;
    } else if (IS("nn", "steps")) {
        if (parse_u64(v, 0, UINT64_C(1) << 40, &x) != 0) return -1;
        c->nn_steps = (int64_t)x;
    } else if (IS("nn", "batch")) {
        if (parse_u64(v, 1, 65536, &x) != 0) return -1;
        c->nn_batch = (int)x;
    } else if (IS("nn", "grad_chunks")) {
        if (parse_u64(v, 1, 4096, &x) != 0) return -1;
        c->nn_chunks = (int)x;
    } else if (IS("nn", "lr")) {
        return parse_double(v, 0.0, 10.0, &c->nn_lr);
    } else if (IS("nn", "weight_decay")) {
        return parse_double(v, 0.0, 10.0, &c->nn_weight_decay);
    } else if (IS("nn", "value_search_weight")) {
        return parse_double(v, 0.0, 1.0, &c->nn_search_weight);
    } else if (IS("nn", "value_weight")) {
        if (parse_double(v, 0.0, 100.0, &c->nn_value_weight) != 0 || !(c->nn_value_weight > 0.0)) return -1;
        return 0;
    } else if (IS("nn", "policy_loss")) {
        if (strcmp(v, "direct") == 0) c->nn_policy_loss = NN_POLICY_LOSS_DIRECT;
        else if (strcmp(v, "product") == 0) c->nn_policy_loss = NN_POLICY_LOSS_PRODUCT;
        else return -1;
    } else if (IS("nn", "product_candidates")) {
        if (parse_u64(v, 1, NN_PRODUCT_MAX, &x) != 0) return -1;
        c->nn_product_candidates = (int)x;
    } else if (IS("nn", "product_temperature")) {
        if (parse_double(v, 0.0, 1000.0, &c->nn_product_temperature) != 0 || !(c->nn_product_temperature > 0.0)) return -1;
    } else if (IS("nn", "heldout_every")) {
        if (parse_u64(v, 0, 1000000, &x) != 0 || x == 1) return -1;
        c->nn_heldout_every = (int)x;
    } else if (IS("nn", "eval_positions")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->nn_eval_positions = x;
    } else if (IS("nn", "channels")) {
        if (parse_u64(v, 1, 512, &x) != 0) return -1;
        c->nn_arch.channels = (int)x;
    } else if (IS("nn", "blocks")) {
        if (parse_u64(v, 0, 40, &x) != 0) return -1;
        c->nn_arch.blocks = (int)x;
    } else if (IS("nn", "embed")) {
        if (parse_u64(v, 1, 4096, &x) != 0) return -1;
        c->nn_arch.embed = (int)x;
    } else if (IS("nn", "head_hidden")) {
        if (parse_u64(v, 1, 4096, &x) != 0) return -1;
        c->nn_arch.head_hidden = (int)x;
    } else if (IS("nn", "h_tiles")) {
        if (parse_u64(v, 1, 2, &x) != 0) return -1;
        c->nn_arch.h_tiles = (int)x;
    } else if (IS("nn", "reference")) {
        if (strcmp(v, "none") == 0) return c->nn_reference[0] = '\0', 0;
        return set_string(c->nn_reference, v);
    } else if (IS("nn", "initial")) {
        if (strcmp(v, "none") == 0) return c->nn_initial[0] = '\0', 0;
        return set_string(c->nn_initial, v);
    } else if (IS("nn", "prior")) { /* what the policy's score prior values a move by */
        if (strcmp(v, "score") == 0) c->nn_arch.prior_equity = 0;
        else if (strcmp(v, "equity") == 0) c->nn_arch.prior_equity = 1;
        else return -1;
    } else if (IS("mcgs", "net")) {
        if (strcmp(v, "auto") == 0) c->mcgs_net_auto = true;
        else if (strcmp(v, "none") == 0) c->mcgs_net_auto = false;
        else return -1;
    } else if (IS("mcgs", "rollout_with_net")) {
        /* N, or auto (2-ply rollouts) / auto:N (N-ply) until V wins the value check */
        bool automatic = strncmp(v, "auto", 4) == 0 && (v[4] == '\0' || v[4] == ':');
        if (automatic && v[4] == '\0') x = 2;
        else if (parse_u64(automatic ? v + 5 : v, automatic ? 1 : 0, 100, &x) != 0) return -1;
        c->mcgs_rollout_auto = automatic;
        c->mcgs_rollout_with_net = (int)x;
    } else if (IS("mcgs", "candidates_with_net")) {
        if (strcmp(v, "prior") != 0 && strcmp(v, "equity") != 0 && strcmp(v, "mix") != 0) return -1;
        snprintf(c->mcgs_candidates_with_net, sizeof c->mcgs_candidates_with_net, "%s", v);
    } else if (IS("mcgs", "hidden_with_net")) {
        if (strcmp(v, "net") == 0) c->mcgs_hidden_net = true;
        else if (strcmp(v, "uniform") == 0) c->mcgs_hidden_net = false;
        else return -1;
    } else if (IS("mcgs", "gate_pairs")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->mcgs_gate_pairs = x;
    } else if (IS("mcgs", "gate_threshold")) {
        if (parse_double(v, 0.0, 101.0, &c->mcgs_gate_threshold) != 0) return -1;
    } else if (IS("mcgs", "anchor_pairs")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->mcgs_anchor_pairs = x;
    } else if (IS("mcgs", "decisions")) {
        if (parse_u64(v, 0, DECISION_MAX_POSITIONS, &x) != 0) return -1;
        c->mcgs_decisions = (int)x;
    } else if (IS("mcgs", "value_check_pairs")) {
        if (parse_u64(v, 1, UINT64_C(1) << 32, &x) != 0) return -1;
        c->mcgs_value_pairs = x;
    } else if (IS("mcgs", "value_check_threshold")) {
        if (parse_double(v, 0.0, 101.0, &c->mcgs_value_threshold) != 0) return -1;
    } else if (IS("mcgs", "anchor")) {
        /* the spec itself is opened (and its files loaded) by rookery train */
        bool named = strcmp(v, "search") == 0 || strcmp(v, "static") == 0;
        bool sim = strncmp(v, "sim", 3) == 0 && (v[3] == '\0' || v[3] == ':');
        bool mcgs = strncmp(v, "mcgs", 4) == 0 && (v[4] == '\0' || v[4] == ':');
        if (!named && !sim && !mcgs) return -1;
        return set_string(c->mcgs_anchor, v);
    } else if (IS("match", "pairs")) {
        if (parse_u64(v, 0, UINT64_C(1) << 32, &x) != 0) return -1;
        c->match_pairs = x;
    } else {
        return -2;
    }
#undef IS
    return 0;
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
            if (strcmp(section, "run") != 0 && strcmp(section, "lexicon") != 0 && strcmp(section, "leaves") != 0 &&
                strcmp(section, "match") != 0 && strcmp(section, "spv") != 0 && strcmp(section, "nn") != 0 &&
                strcmp(section, "mcgs") != 0) {
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

/* The shortest of %.15g / %.17g that reads back exactly. */
static void format_double(char *buf, size_t cap, double v) {
    snprintf(buf, cap, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.17g", v);
}

static void format_prior(char *buf, size_t cap, double v) {
    if (v == SPV_PRIOR_AUTO) snprintf(buf, cap, "auto");
    else format_double(buf, cap, v);
}

const char *train_config_schedule_name(SpvSchedule s) {
    return s == SPV_SCHEDULE_OFF ? "off" : s == SPV_SCHEDULE_BOTH ? "both" : "alternate";
}

int train_config_write(const TrainConfig *c, char *buf, size_t cap) {
    char keep[24] = "all";
    if (c->keep > 0) snprintf(keep, sizeof keep, "%d", c->keep);
    char shrink[40], k[40], pm[40], pv[40];
    format_double(shrink, sizeof shrink, c->shrink);
    format_double(k, sizeof k, c->spv_k);
    format_prior(pm, sizeof pm, c->spv_prior_mean);
    format_prior(pv, sizeof pv, c->spv_prior_var);
    char temp[40], lr[40], wd[40], gate[40], sw[40], vw[40], ptemp[40];
    format_double(gate, sizeof gate, c->mcgs_gate_threshold);
    char value_thr[32], rollout[32];
    format_double(value_thr, sizeof value_thr, c->mcgs_value_threshold);
    snprintf(rollout, sizeof rollout, "%s%d", c->mcgs_rollout_auto ? "auto:" : "", c->mcgs_rollout_with_net);
    format_double(temp, sizeof temp, c->nn_temperature);
    format_double(lr, sizeof lr, c->nn_lr);
    format_double(wd, sizeof wd, c->nn_weight_decay);
    format_double(sw, sizeof sw, c->nn_search_weight);
    format_double(vw, sizeof vw, c->nn_value_weight);
    format_double(ptemp, sizeof ptemp, c->nn_product_temperature);
    char sched[TRAIN_MAX_SCHEDULE * 12] = "";
    size_t off = 0;
    for (int i = 0; i < c->n_min_rack_count; i++)
        off += (size_t)snprintf(sched + off, sizeof sched - off, "%s%" PRIu32, i ? "," : "", c->min_rack_count[i]);
    if (c->n_min_rack_count == 0) snprintf(sched, sizeof sched, "0");
    int n = snprintf(buf, cap,
                     "[run]\nseed = %" PRIu64 "\ngenerations = %d\ngames_per_generation = %" PRIu64
                     "\noutput = %s\nplayer = %s\nprogress_seconds = %d\nthreads = %d\nkeep = %s\nkeep_every = %d\n\n"
                     "[lexicon]\nkwg = %s\nld = %s\nlayout = %s\n\n"
                     "[leaves]\ninitial = %s\nmin_rack_count = %s\nmax_forced_games = %" PRIu64
                     "\nsampled_racks = %d\nshrink = %s\n\n"
                     "[match]\npairs = %" PRIu64 "\n\n"
                     "[spv]\nschedule = %s\ntarget = %s\nstart = %d\nuse = %s\ninitial = %s\nk = %s\nprior_mean = %s\n"
                     "prior_var = %s\nheldout_games = %" PRIu64 "\nmatch_pairs = %" PRIu64 "\n\n"
                     "[nn]\nshards = %s\npolicy_temperature = %s\npolicy_top = %d\nshard_samples = %" PRIu64
                     "\ntrain = %s\nwindow = %d\nsteps = %" PRId64 "\nbatch = %d\ngrad_chunks = %d\nlr = %s\n"
                     "weight_decay = %s\nvalue_search_weight = %s\nvalue_weight = %s\npolicy_loss = %s\nproduct_candidates = %d\nproduct_temperature = %s\nheldout_every = %d\neval_positions = %" PRIu64 "\nreference = %s\ninitial = %s\nchannels = %d\nblocks = %d\nembed = %d\nhead_hidden = %d\nh_tiles = %d\nprior = %s\n\n"
                     "[mcgs]\nnet = %s\nrollout_with_net = %s\ncandidates_with_net = %s\nhidden_with_net = %s\ngate_pairs = %" PRIu64
                     "\ngate_threshold = %s\nanchor_pairs = %" PRIu64 "\nanchor = %s\ndecisions = %d\nvalue_check_pairs = %" PRIu64
                     "\nvalue_check_threshold = %s\n",
                     c->seed, c->generations, c->games_per_generation, c->output, c->player, c->progress_seconds, c->threads,
                     keep, c->keep_every,
                     c->lexicon,
                     c->ld, c->layout, c->initial_leaves, sched, c->max_forced_games, c->sampled_racks, shrink, c->match_pairs,
                     train_config_schedule_name(c->spv_schedule), residual_target_name(c->spv_target), c->spv_start, c->spv_use ? "yes" : "no",
                     c->spv_initial, k, pm, pv, c->spv_heldout_games, c->spv_match_pairs,
                     c->nn_shards ? "yes" : "no", temp, c->nn_top, c->nn_shard_samples, c->nn_train ? "yes" : "no",
                     c->nn_window, c->nn_steps, c->nn_batch, c->nn_chunks, lr, wd, sw, vw,
                     c->nn_policy_loss == NN_POLICY_LOSS_PRODUCT ? "product" : "direct", c->nn_product_candidates, ptemp,
                     c->nn_heldout_every,
                     c->nn_eval_positions, c->nn_reference[0] ? c->nn_reference : "none",
                     c->nn_initial[0] ? c->nn_initial : "none", c->nn_arch.channels,
                     c->nn_arch.blocks, c->nn_arch.embed, c->nn_arch.head_hidden, c->nn_arch.h_tiles,
                     c->nn_arch.prior_equity ? "equity" : "score",
                     c->mcgs_net_auto ? "auto" : "none", rollout, c->mcgs_candidates_with_net,
                     c->mcgs_hidden_net ? "net" : "uniform", c->mcgs_gate_pairs, gate,
                     c->mcgs_anchor_pairs, c->mcgs_anchor, c->mcgs_decisions, c->mcgs_value_pairs, value_thr);
    return n > 0 && (size_t)n < cap ? n : -1;
}

static bool may_change(const char *key) {
    static const char *const fixed[] = {
        "run.seed",      "run.player",        "lexicon.kwg",    "lexicon.ld",     "lexicon.layout",
        "leaves.initial", "spv.initial",      "nn.initial",     "nn.channels",    "nn.blocks",
        "nn.embed",      "nn.head_hidden",    "nn.h_tiles",     "nn.prior",       "nn.heldout_every",
        "mcgs.net"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(key, fixed[i]) == 0) return false;
    return true;
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
