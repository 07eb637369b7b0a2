/* The training configuration parser. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "eval/spv_derive.h"
#include "train/config.h"

static void test_defaults(void) {
    TrainConfig c;
    train_config_defaults(&c);
    CU_ASSERT_EQUAL(c.seed, 1);
    CU_ASSERT_EQUAL(c.generations, 3);
    CU_ASSERT_EQUAL(c.games_per_generation, 3000);
    CU_ASSERT_STRING_EQUAL(c.output, "runs/default");
    CU_ASSERT_STRING_EQUAL(c.lexicon, "SOWPODS");
    CU_ASSERT_STRING_EQUAL(c.initial_leaves, "zero");
    CU_ASSERT_EQUAL(train_config_min_count(&c, 1), 0);
    CU_ASSERT_EQUAL(c.shrink, 30.0);
    CU_ASSERT_EQUAL(c.match_pairs, 200);
    CU_ASSERT_EQUAL(c.sampled_racks, 0);
    RkError err;
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.sampled_racks", "16", &err), 0);
    CU_ASSERT_EQUAL(c.sampled_racks, 16);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.sampled_racks", "256", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.sampled_racks", "257", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "leaves.sampled_racks"));
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.sampled_racks", "-1", &err), -1);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.sampled_racks", "4x", &err), -1);
    CU_ASSERT_EQUAL(c.sampled_racks, 256);
    char written[8192];
    CU_ASSERT_FATAL(train_config_write(&c, written, sizeof written) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(written, "\nsampled_racks = 256\n"));
    TrainConfig back;
    train_config_defaults(&back);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&back, written, "written.ini", &err), 0);
    CU_ASSERT_EQUAL(back.sampled_racks, 256);
    c.sampled_racks = 0;
    CU_ASSERT_EQUAL(train_config_set(&c, "match.pairs", "0", &err), 0);
    CU_ASSERT_EQUAL(c.match_pairs, 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "match.pairs", "-1", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "match.pairs"));
}

static void test_parse_and_override(void) {
    TrainConfig c;
    RkError err;
    train_config_defaults(&c);
    const char *text = "# comment\n[run]\nseed = 42\n  generations=7 \n; other comment\n[leaves]\n"
                       "min_rack_count = 100, 200,500\n";
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&c, text, "t.ini", &err), 0);
    CU_ASSERT_EQUAL(c.seed, 42);
    CU_ASSERT_EQUAL(c.generations, 7);
    CU_ASSERT_EQUAL(train_config_min_count(&c, 1), 100);
    CU_ASSERT_EQUAL(train_config_min_count(&c, 2), 200);
    CU_ASSERT_EQUAL(train_config_min_count(&c, 3), 500);
    CU_ASSERT_EQUAL(train_config_min_count(&c, 9), 500);
    CU_ASSERT_EQUAL(train_config_set(&c, "run.games_per_generation", "123", &err), 0);
    CU_ASSERT_EQUAL(c.games_per_generation, 123);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&c, "[leaves]\nshrink = 12.5\n", "s.ini", &err), 0);
    CU_ASSERT_EQUAL(c.shrink, 12.5);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.shrink", "0", &err), 0);
    CU_ASSERT_EQUAL(c.shrink, 0.0);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.shrink", "1e2", &err), 0);
    CU_ASSERT_EQUAL(c.shrink, 100.0);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.shrink", "0.1", &err), 0);
    CU_ASSERT_EQUAL(c.threads, 1);
    CU_ASSERT_EQUAL(train_config_set(&c, "run.threads", "8", &err), 0);
    CU_ASSERT_EQUAL(c.keep, 0); /* all */
    CU_ASSERT_EQUAL(c.keep_every, 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "run.keep", "3", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "run.keep_every", "10", &err), 0);
    CU_ASSERT_EQUAL(c.nn_search_weight, 0.0);
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.value_search_weight", "0.25", &err), 0);
    CU_ASSERT_EQUAL(c.nn_policy_loss, NN_POLICY_LOSS_DIRECT);
    CU_ASSERT_EQUAL(c.nn_product_candidates, 16);
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.policy_loss", "product", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.product_candidates", "12", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.product_temperature", "7.5", &err), 0);
    CU_ASSERT_STRING_EQUAL(c.nn_reference, ""); /* none */
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.reference", "/runs/strong:3", &err), 0);
    CU_ASSERT_STRING_EQUAL(c.nn_initial, ""); /* none */
    CU_ASSERT_EQUAL(train_config_set(&c, "nn.initial", "/models/static80k.h5", &err), 0);
    /* the written form parses back to the same values */
    char buf[8192];
    CU_ASSERT_FATAL(train_config_write(&c, buf, sizeof buf) > 0);
    TrainConfig d;
    train_config_defaults(&d);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&d, buf, "written", &err), 0);
    CU_ASSERT_EQUAL(d.seed, 42);
    CU_ASSERT_EQUAL(d.generations, 7);
    CU_ASSERT_EQUAL(d.games_per_generation, 123);
    CU_ASSERT_EQUAL(d.n_min_rack_count, 3);
    CU_ASSERT_EQUAL(d.min_rack_count[2], 500);
    CU_ASSERT_STRING_EQUAL(d.output, c.output);
    CU_ASSERT_EQUAL(d.shrink, 0.1); /* bit for bit */
    CU_ASSERT_EQUAL(d.threads, 8);
    CU_ASSERT_EQUAL(d.keep, 3);
    CU_ASSERT_EQUAL(d.keep_every, 10);
    CU_ASSERT_EQUAL(train_config_set(&d, "run.keep", "all", &err), 0);
    CU_ASSERT_EQUAL(d.keep, 0);
    CU_ASSERT_EQUAL(d.nn_search_weight, 0.25);
    NnLossOptions lo = train_config_loss_options(&d);
    CU_ASSERT_EQUAL(lo.policy_loss, NN_POLICY_LOSS_PRODUCT);
    CU_ASSERT_EQUAL(lo.product_candidates, 12);
    CU_ASSERT_EQUAL(lo.product_temperature, 7.5f);
    CU_ASSERT_EQUAL(lo.search_weight, 0.25f);
    CU_ASSERT_STRING_EQUAL(d.nn_reference, "/runs/strong:3");
    CU_ASSERT_EQUAL(train_config_set(&d, "nn.reference", "none", &err), 0);
    CU_ASSERT_STRING_EQUAL(d.nn_reference, "");
    CU_ASSERT_STRING_EQUAL(d.nn_initial, "/models/static80k.h5");
    CU_ASSERT_EQUAL(train_config_set(&d, "nn.initial", "none", &err), 0);
    CU_ASSERT_STRING_EQUAL(d.nn_initial, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "shrink = 0.1\n"));
    /* the embedded default text says what train_config_defaults holds */
    char deftext[16384];
    CU_ASSERT_FATAL(train_config_default_text(deftext, sizeof deftext) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(deftext, "shrink = 30\n"));
}

static void test_errors(void) {
    TrainConfig c;
    RkError err;
    struct {
        const char *text, *needle;
    } bad[] = {
        {"[run]\nseed = -1\n", "run.seed"},
        {"[run]\ngenerations = 0\n", "run.generations"},
        {"[run]\ngames_per_generation = 10x\n", "games_per_generation"},
        {"[run]\nsede = 1\n", "unknown key run.sede"},
        {"[rum]\n", "unknown section"},
        {"seed = 1\n", "outside"},
        {"[run]\nseed\n", "key = value"},
        {"[leaves]\nmin_rack_count = 1,,2\n", "min_rack_count"},
        {"[run\n", "section header"},
        {"[leaves]\nshrink = -1\n", "leaves.shrink"},
        {"[leaves]\n\nshrink = 3x\n", "bad.ini:3: bad value for leaves.shrink: '3x'"},
        {"[leaves]\nshrink = nan\n", "leaves.shrink"},
        {"[leaves]\nshrink = inf\n", "leaves.shrink"},
        {"[leaves]\nshrink = 0x10\n", "leaves.shrink"},
        {"[leaves]\nshrink =\n", "leaves.shrink"},
        {"[leaves]\nshrink = 1e300\n", "leaves.shrink"},
        {"[leaves]\nshrink = -0\n", "leaves.shrink"},
        {"[run]\nthreads = 0\n", "run.threads"},
        {"[run]\nkeep = 0\n", "run.keep"},
        {"[run]\nkeep = none\n", "run.keep"},
        {"[run]\nkeep_every = -1\n", "run.keep_every"},
        {"[nn]\nvalue_search_weight = 1.5\n", "nn.value_search_weight"},
        {"[nn]\nvalue_search_weight = -0.1\n", "nn.value_search_weight"},
        {"[nn]\npolicy_loss = visits\n", "nn.policy_loss"},
        {"[nn]\nproduct_candidates = 0\n", "nn.product_candidates"},
        {"[nn]\nproduct_candidates = 257\n", "nn.product_candidates"},
        {"[nn]\nproduct_temperature = 0\n", "nn.product_temperature"},
        {"[nn]\nproduct_temperature = -3\n", "nn.product_temperature"},
        {"[run]\nthreads = 257\n", "run.threads"},
        {"[mcgs]\nanchor = nn\n", "mcgs.anchor"},
        {"[mcgs]\nanchor = statics\n", "mcgs.anchor"},
        {"[mcgs]\nanchor_pairs = -2\n", "mcgs.anchor_pairs"},
        {"[mcgs]\ndecisions = -1\n", "mcgs.decisions"},
        {"[mcgs]\ndecisions = 1000001\n", "mcgs.decisions"},
        {"[mcgs]\ndecisions = many\n", "mcgs.decisions"},
        {"[mcgs]\ncandidates_with_net = best\n", "mcgs.candidates_with_net"},
        {"[run]\nplayer = mcgs:visits=9,candidates_by=mix\n", "run.player"},
        {"[nn]\nvalue_weight = 0\n", "nn.value_weight"},
        /* one place for each setting: a key or a section given twice is refused (it used to keep the last) */
        {"[run]\nseed = 1\ngenerations = 2\nseed = 3\n", "bad.ini:4: run.seed set again (first at line 2)"},
        {"[run]\nseed = 1\n[nn]\nsteps = 5\n[run]\ngenerations = 2\n", "bad.ini:5: section [run] again (first at line 1)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        train_config_defaults(&c);
        err.msg[0] = '\0';
        CU_ASSERT_EQUAL(train_config_parse(&c, bad[i].text, "bad.ini", &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.ini:"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].needle));
        if (strstr(err.msg, bad[i].needle) == NULL) printf("\nmessage: %s\n", err.msg);
    }
    CU_ASSERT_EQUAL(train_config_set(&c, "seed", "1", &err), -1);
    CU_ASSERT_EQUAL(train_config_set(&c, "run.nothing", "1", &err), -1);
    CU_ASSERT_EQUAL(train_config_set(&c, "leaves.shrink", "-5", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "leaves.shrink"));
    CU_ASSERT_EQUAL(train_config_load(&c, "/nonexistent.ini", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent.ini"));
    /* a NUL byte: the parser would have stopped there and dropped the rest */
    char dir[256], path[300];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/nul.ini", dir);
    static const char nul_text[] = "[run]\nseed = 5\n\0[nn]\nsteps = 7\n";
    tu_write_bytes(path, (const unsigned char *)nul_text, (long)sizeof nul_text - 1);
    train_config_defaults(&c);
    CU_ASSERT_EQUAL(train_config_load(&c, path, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nul.ini:3: a NUL byte"));
    /* a run directory whose file paths would not fit is refused when it is set */
    char longdir[TRAIN_OUTPUT_MAX + 2];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[TRAIN_OUTPUT_MAX] = '\0';
    CU_ASSERT_EQUAL(train_config_set(&c, "run.output", longdir, &err), 0);
    longdir[TRAIN_OUTPUT_MAX] = 'd';
    longdir[TRAIN_OUTPUT_MAX + 1] = '\0';
    CU_ASSERT_EQUAL(train_config_set(&c, "run.output", longdir, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.output"));
}

/* The search loop's anchor, decision study and candidates with a net: the defaults, the
 * values accepted, and the keys survive the written form. */
static void test_anchor(void) {
    TrainConfig c, d;
    RkError err;
    char buf[8192];
    train_config_defaults(&c);
    CU_ASSERT_STRING_EQUAL(c.mcgs_anchor, "search");
    CU_ASSERT_EQUAL(c.mcgs_anchor_pairs, 0);
    CU_ASSERT_EQUAL(c.mcgs_decisions, 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.decisions", "250", &err), 0);
    const char *ok[] = {"static", "sim:candidates=10", "mcgs:visits=50", "mcgs", "search"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.anchor", ok[i], &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.anchor", "sim:iterations=9", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.anchor_pairs", "150", &err), 0);
    CU_ASSERT_STRING_EQUAL(c.mcgs_candidates_with_net, "prior");
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.candidates_with_net", "mix", &err), 0);
    CU_ASSERT_TRUE(train_config_write(&c, buf, sizeof buf) > 0);
    train_config_defaults(&d);
    CU_ASSERT_EQUAL(train_config_parse(&d, buf, "written", &err), 0);
    CU_ASSERT_STRING_EQUAL(d.mcgs_anchor, "sim:iterations=9");
    CU_ASSERT_EQUAL(d.mcgs_anchor_pairs, 150);
    CU_ASSERT_EQUAL(d.mcgs_decisions, 250);
    CU_ASSERT_STRING_EQUAL(d.mcgs_candidates_with_net, "mix");
}

/* SPV priors: "auto" (empirical Bayes) by default, or a number; both
 * survive the written form. */
static void test_spv_priors(void) {
    TrainConfig c, d;
    RkError err;
    char buf[8192];
    train_config_defaults(&c);
    CU_ASSERT_EQUAL(c.spv_prior_mean, SPV_PRIOR_AUTO);
    CU_ASSERT_EQUAL(c.spv_prior_var, SPV_PRIOR_AUTO);
    char text[16384];
    CU_ASSERT_FATAL(train_config_default_text(text, sizeof text) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "prior_mean = auto\n"));
    CU_ASSERT_EQUAL(train_config_set(&c, "spv.prior_mean", "250", &err), 0);
    CU_ASSERT_EQUAL(c.spv_prior_mean, 250.0);
    CU_ASSERT_FATAL(train_config_write(&c, buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "prior_mean = 250\nprior_var = auto\n"));
    train_config_defaults(&d);
    CU_ASSERT_EQUAL(train_config_set(&d, "spv.prior_var", "7", &err), 0);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&d, buf, "written", &err), 0);
    CU_ASSERT_EQUAL(d.spv_prior_mean, 250.0);
    CU_ASSERT_EQUAL(d.spv_prior_var, SPV_PRIOR_AUTO);
    CU_ASSERT_EQUAL(train_config_set(&d, "spv.prior_var", "-1", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "spv.prior_var"));
    CU_ASSERT_EQUAL(train_config_set(&d, "spv.prior_mean", "automatic", &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "spv.prior_mean"));
}

/* mcgs.rollout_with_net: a number, auto (2 plies until V wins its value
 * check) or auto:N; the value check's size and threshold; all written back. */
static void test_rollout_auto(void) {
    TrainConfig c, d;
    RkError err;
    char buf[8192];
    train_config_defaults(&c);
    CU_ASSERT_FALSE(c.mcgs_rollout_auto);
    CU_ASSERT_EQUAL(c.mcgs_rollout_with_net, 0);
    CU_ASSERT_EQUAL(c.mcgs_value_pairs, 20);
    CU_ASSERT_EQUAL(c.mcgs_value_threshold, 50.0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.rollout_with_net", "auto", &err), 0);
    CU_ASSERT_TRUE(c.mcgs_rollout_auto);
    CU_ASSERT_EQUAL(c.mcgs_rollout_with_net, 2);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.rollout_with_net", "3", &err), 0);
    CU_ASSERT_FALSE(c.mcgs_rollout_auto);
    CU_ASSERT_EQUAL(c.mcgs_rollout_with_net, 3);
    const char *bad[] = {"auto:0", "auto:", "autox", "auto:101", "auto:-1", "-2", "x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.rollout_with_net", bad[i], &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mcgs.rollout_with_net"));
    }
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.value_check_pairs", "0", &err), -1);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.value_check_threshold", "102", &err), -1);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.rollout_with_net", "auto:4", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.value_check_pairs", "77", &err), 0);
    CU_ASSERT_EQUAL(train_config_set(&c, "mcgs.value_check_threshold", "52.5", &err), 0);
    CU_ASSERT_FATAL(train_config_write(&c, buf, sizeof buf) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "rollout_with_net = auto:4\n"));
    train_config_defaults(&d);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&d, buf, "written", &err), 0);
    CU_ASSERT_TRUE(d.mcgs_rollout_auto);
    CU_ASSERT_EQUAL(d.mcgs_rollout_with_net, 4);
    CU_ASSERT_EQUAL(d.mcgs_value_pairs, 77);
    CU_ASSERT_EQUAL(d.mcgs_value_threshold, 52.5);
}

/* Cuts s at its first " / " and returns what follows (NULL if none). */
static char *next_item(char *s) {
    if (s == NULL) return NULL;
    char *sep = strstr(s, " / ");
    if (sep == NULL) return NULL;
    *sep = '\0';
    return sep + 3;
}

/* The key reference in src/train/config.h lists exactly the table's keys,
 * each with the table's default ("nn.channels / blocks / ..." lists several
 * keys of one section with their defaults "32 / 3 / ..."): neither can
 * drift from the other. */
static void test_reference_matches_table(void) {
    unsigned char *text = NULL;
    long n = tu_read_bytes(ROOKERY_SOURCE_DIR "/src/train/config.h", &text);
    CU_ASSERT_FATAL(n > 0);
    int nk = train_config_key_count();
    CU_ASSERT_FATAL(nk > 0 && nk < 256);
    int listed[256] = {0}, found = 0, unknown = 0;
    char *save = NULL;
    for (char *line = strtok_r((char *)text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        /* " *   section.key[ / key...]   default[ / default...]   doc" */
        if (strncmp(line, " *   ", 5) != 0 || line[5] == ' ') continue;
        char names[256], defs[256];
        const char *p = line + 5;
        if (strchr(p, '.') == NULL || strchr(p, '.') > strchr(p, ' ')) continue; /* not a key line */
        /* the names: up to the first run of two spaces */
        const char *gap = strstr(p, "  ");
        if (gap == NULL || (size_t)(gap - p) >= sizeof names) continue;
        snprintf(names, sizeof names, "%.*s", (int)(gap - p), p);
        while (*gap == ' ') gap++;
        const char *end = strstr(gap, "  ");
        size_t dl = end != NULL ? (size_t)(end - gap) : strlen(gap);
        if (dl >= sizeof defs) continue;
        snprintf(defs, sizeof defs, "%.*s", (int)dl, gap);
        char section[64];
        const char *dot = strchr(names, '.');
        snprintf(section, sizeof section, "%.*s", (int)(dot - names), names);
        /* several keys: "a / b / c" and "1 / 2 / 3" */
        char *name = names + (dot - names) + 1, *def = defs;
        for (char *rest_n, *rest_d; name != NULL; name = rest_n, def = rest_d) {
            rest_n = next_item(name);
            rest_d = next_item(def);
            int k = -1;
            for (int i = 0; i < nk; i++) {
                const char *s2, *k2, *d2;
                train_config_key(i, &s2, &k2, &d2);
                if (strcmp(s2, section) == 0 && strcmp(k2, name) == 0) k = i;
            }
            if (k < 0) {
                printf("\nconfig.h lists %s.%s, which the table does not have\n", section, name);
                unknown++;
                continue;
            }
            const char *s2, *k2, *d2;
            train_config_key(k, &s2, &k2, &d2);
            CU_ASSERT_PTR_NOT_NULL(def);
            if (def != NULL && strcmp(def, d2) != 0) {
                printf("\nconfig.h says %s.%s defaults to %s, the table %s\n", section, name, def, d2);
                CU_FAIL("a default differs");
            }
            listed[k]++;
            found++;
        }
    }
    CU_ASSERT_EQUAL(unknown, 0);
    for (int i = 0; i < nk; i++) {
        const char *s2, *k2, *d2;
        train_config_key(i, &s2, &k2, &d2);
        if (listed[i] != 1) printf("\n%s.%s is listed %d times in config.h\n", s2, k2, listed[i]);
        CU_ASSERT_EQUAL(listed[i], 1);
    }
    CU_ASSERT_EQUAL(found, nk);
    free(text);
}

/* The printed default text (with its doc lines) reads back as the defaults,
 * and names every key once. */
static void test_default_text(void) {
    char text[16384], a[16384], b[16384];
    RkError err;
    CU_ASSERT_FATAL(train_config_default_text(text, sizeof text) > 0);
    CU_ASSERT(train_config_default_text(text, 100) < 0); /* too small: refused, not cut */
    CU_ASSERT_FATAL(train_config_default_text(text, sizeof text) > 0);
    TrainConfig d, p;
    train_config_defaults(&d);
    memset(&p, 0, sizeof p);
    CU_ASSERT_EQUAL_FATAL(train_config_parse(&p, text, "default text", &err), 0);
    p.nn_arch.h_pool_prior = d.nn_arch.h_pool_prior; /* not a key */
    CU_ASSERT_FATAL(train_config_write(&d, a, sizeof a) > 0);
    CU_ASSERT_FATAL(train_config_write(&p, b, sizeof b) > 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    for (int i = 0; i < train_config_key_count(); i++) {
        const char *s2, *k2, *d2;
        train_config_key(i, &s2, &k2, &d2);
        char want[256];
        snprintf(want, sizeof want, "\n%s = %s\n", k2, d2);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
        CU_ASSERT_PTR_NOT_NULL(strstr(a, want));
    }
}

int main(void) {
    CU_TestInfo tests[] = {
        {"mcgs.rollout_with_net auto, the value check: values, written back", test_rollout_auto},
        {"defaults", test_defaults},
        {"config.h's key reference is the table's keys and defaults", test_reference_matches_table},
        {"the default text: every key, reads back as the defaults", test_default_text},
        {"parse, override, write", test_parse_and_override},
        {"errors name file, line and key", test_errors},
        {"spv priors: auto or a number, written back", test_spv_priors},
        {"mcgs anchor, candidates_with_net: defaults, values, written back", test_anchor},
        CU_TEST_INFO_NULL,
    };
    return tu_run("train_config", tests);
}
