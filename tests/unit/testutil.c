#define _XOPEN_SOURCE 700 /* nftw */
#include "testutil.h"

#include "worker/samples.h"
#include "worker/selfplay.h"

#include <CUnit/Basic.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* LeakSanitizer (the ROOKERY_SANITIZE build) calls this at start-up for
 * suppressions. HDF5 1.10 loses an object header (456 bytes) when it fails
 * to read a damaged one, and the shard and model tests read damaged files on
 * purpose. The header comes from HDF5's free lists, so its allocation stack
 * is wherever libhdf5 first allocated that block: the whole library is
 * suppressed. Allocations of our own code never pass through libhdf5 and
 * are still checked (HDF5 handles left open are not leaks to LSan either:
 * the library's tables still reach them). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }

static bool file_exists(const char *p) {
    struct stat st;
    return p != NULL && p[0] != '\0' && stat(p, &st) == 0;
}

void tu_skip(const char *test, const char *why) {
    printf("\nSKIPPED: %s: %s\n", test, why);
    fflush(stdout);
    const char *log = getenv("ROOKERY_SKIP_LOG");
    FILE *f = log != NULL && log[0] != '\0' ? fopen(log, "a") : NULL;
    if (f != NULL) {
        fprintf(f, "SKIPPED: %s: %s\n", test, why);
        fclose(f);
    }
}

static bool in_ci(void) {
    const char *ci = getenv("CI");
    return ci != NULL && ci[0] != '\0' && strcmp(ci, "0") != 0;
}

void tu_missing(const char *test, const char *why) {
    if (!in_ci()) {
        tu_skip(test, why);
        return;
    }
    char msg[1024];
    snprintf(msg, sizeof msg, "MISSING (CI is set, so this fails instead of skipping): %s: %s", test, why);
    printf("\n%s\n", msg);
    fflush(stdout);
    CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE); /* CUnit copies msg */
}

const char *tu_shared_path(const char *rel, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", ROOKERY_SHARED_DIR, rel);
    if (!file_exists(buf)) {
        char why[512];
        snprintf(why, sizeof why, "%s not found (../shared missing?)", buf);
        tu_missing(rel, why);
        return NULL;
    }
    return buf;
}

const char *tu_sowpods_kwg(void) {
    const char *p = ROOKERY_SOWPODS_KWG;
    if (!file_exists(p)) {
        tu_missing("SOWPODS", "SOWPODS.kwg was not built (run scripts/fetch-lexicon.sh and configure "
                           "with -DROOKERY_LEXICON_DIR)");
        return NULL;
    }
    return p;
}

/* The directories tu_tmpdir made, removed by tu_run when every test passed
 * (kept, and listed, when one failed). Test-harness state, not the engine's:
 * one test executable, its tests run one after another on the main thread. */
enum { TMPDIRS_MAX = 256 };
static struct {
    int n;
    char path[TMPDIRS_MAX][512];
} tmpdirs;

const char *tu_tmpdir(char *buf, size_t cap) {
    const char *base = getenv("TMPDIR");
    snprintf(buf, cap, "%s/rookery-test-XXXXXX", base ? base : "/tmp");
    const char *dir = mkdtemp(buf);
    if (dir != NULL && tmpdirs.n < TMPDIRS_MAX) snprintf(tmpdirs.path[tmpdirs.n++], sizeof tmpdirs.path[0], "%s", dir);
    return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void tmpdirs_cleanup(bool keep) {
    for (int i = 0; i < tmpdirs.n; i++) {
        if (keep) printf("kept for inspection: %s\n", tmpdirs.path[i]);
        else if (nftw(tmpdirs.path[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            printf("warning: could not remove %s\n", tmpdirs.path[i]);
    }
    tmpdirs.n = 0;
}

int tu_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

/* Each test's wall-clock time, printed before CUnit's "passed" when it took a second or more,
 * so that the heavy tests of a suite show in ctest's log (docs/performance.md, the CI time).
 * Harness state, as tmpdirs. */
static double test_started;

static void test_setup(void) { test_started = rk_seconds(); }

static void test_teardown(void) {
    double s = rk_seconds() - test_started;
    if (s >= 1.0) printf("[%.1f s] ", s);
}

int tu_run(const char *suite, CU_TestInfo *tests) {
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    /* ROOKERY_TEST_ONLY=TEXT: only the tests whose names hold TEXT (while working on them) */
    const char *only = getenv("ROOKERY_TEST_ONLY");
    if (only != NULL && only[0] != '\0') {
        int kept = 0;
        for (int i = 0; tests[i].pName != NULL; i++)
            if (strstr(tests[i].pName, only) != NULL) tests[kept++] = tests[i];
        tests[kept] = (CU_TestInfo)CU_TEST_INFO_NULL;
    }
    CU_SuiteInfo suites[] = {{suite, NULL, NULL, test_setup, test_teardown, tests}, CU_SUITE_INFO_NULL};
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    tmpdirs_cleanup(failed != 0);
    if (ran == 0) return 3;
    return failed == 0 ? 0 : 1;
}

int tu_split_tabs(char *line, char **fields, int cap) {
    int n = 0;
    char *p = line;
    while (n < cap) {
        fields[n++] = p;
        char *t = strchr(p, '\t');
        if (t == NULL) break;
        *t = '\0';
        p = t + 1;
    }
    char *nl = strpbrk(fields[n - 1], "\r\n");
    if (nl) *nl = '\0';
    return n;
}

void tu_build_lex(Kwg *k, const LetterDist *ld, const char *const *words, size_t n) {
    uint8_t(*ml)[32] = calloc(n, sizeof *ml);
    const uint8_t **ptrs = calloc(n, sizeof *ptrs);
    int *lens = calloc(n, sizeof *lens);
    CU_ASSERT_FATAL(ml != NULL && ptrs != NULL && lens != NULL);
    for (size_t i = 0; i < n; i++) {
        lens[i] = ld_parse_tiles(ld, words[i], ml[i], 32, false);
        CU_ASSERT_FATAL(lens[i] > 0);
        ptrs[i] = ml[i];
    }
    KwgWords w = {ptrs, lens, n};
    RkError err;
    int rc = kwg_build(k, &w, true, &err);
    if (rc != 0) printf("kwg_build: %s\n", err.msg);
    CU_ASSERT_FATAL(rc == 0);
    free(ml);
    free(ptrs);
    free(lens);
}

void tu_expect_conserved(const Game *g) {
    int seen[RK_MAX_LETTERS] = {0};
    int dim = g->board.dim, total = 0;
    for (int i = 0; i < dim * dim; i++) {
        uint8_t t = g->board.sq[0][i];
        if (t) {
            seen[RK_IS_BLANKED(t) ? 0 : RK_LETTER(t)]++;
            total++;
        }
    }
    for (int p = 0; p < 2; p++) {
        int sum = 0;
        for (int ml = 0; ml < g->ld->size; ml++) {
            seen[ml] += g->racks[p].count[ml];
            sum += g->racks[p].count[ml];
        }
        CU_ASSERT_EQUAL(sum, g->racks[p].total);
        CU_ASSERT(g->racks[p].total <= RK_RACK_SIZE);
        total += sum;
    }
    for (int i = 0; i < g->bag.count; i++) seen[g->bag.tiles[i]]++;
    total += g->bag.count;
    CU_ASSERT_EQUAL(total, g->ld->total_tiles);
    for (int ml = 0; ml < g->ld->size; ml++) CU_ASSERT_EQUAL(seen[ml], g->ld->count[ml]);
}

void tu_tiny_ld(LetterDist *ld) {
    static const char csv[] = "?,?,2,0,0\n"
                              "A,a,4,1,1\n"
                              "B,b,2,3,0\n"
                              "C,c,3,3,0\n"
                              "D,d,1,2,0\n"
                              "E,e,5,1,1\n";
    RkError err;
    CU_ASSERT_FATAL(ld_parse(ld, csv, "tiny", &err) == 0);
}

/* Words over A-E for the tiny distribution (? A B C D E). */
static const char *const TINY_WORDS[] = {
    "AA", "AB", "AD", "AE", "BA", "BE", "DA", "DE", "ED", "EE", "ABA", "ACE", "ACED", "ADD", "BAA",
    "BAD", "BADE", "BED", "BEAD", "BEE", "CAB", "CAD", "CADE", "DAB", "DACE", "DEB", "DEE", "DEED",
    "EBB", "ABBE", "ACCEDE", "BABE", "CEDE", "DECADE", "ABED", "BEADED", "DEBE", "ECAD",
};

void tu_open_tiny(LetterDist *ld, Layout *lay, Kwg *k) {
    tu_tiny_ld(ld);
    layout_standard15(lay);
    tu_build_lex(k, ld, TINY_WORDS, sizeof TINY_WORDS / sizeof TINY_WORDS[0]);
}

bool tu_load_sowpods(Kwg *k, const LetterDist *ld) {
    const char *path = tu_sowpods_kwg();
    if (path == NULL) return false;
    RkError err;
    CU_ASSERT_FATAL(kwg_load(k, path, (uint32_t)ld->size, &err) == 0);
    return true;
}

long tu_read_bytes(const char *path, unsigned char **out) {
    FILE *f = fopen(path, "rb");
    *out = NULL;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc((size_t)n + 1);
    if (*out == NULL || fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

void tu_write_bytes(const char *path, const unsigned char *b, long n) {
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(fwrite(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
}

typedef struct TuRecorder {
    SampleRecorder *r;
} TuRecorder;

static void tu_record(const Game *g, const Move *m, void *vctx) { samples_record(((TuRecorder *)vctx)->r, g, m); }

void tu_selfplay_samples(ShardSet *set, const LetterDist *ld, const Layout *lay, const Kwg *kwg, uint64_t seed,
                         int games, double temperature, int top, bool shared) {
    SelfplayConfig cfg = {.ld = ld, .layout = lay, .kwg = kwg, .seed = seed, .generation = 1};
    SampleRecorder r;
    samples_init(&r, set, temperature, top, NULL, NULL);
    if (shared) cfg.top_list = samples_shared_top(&r, &cfg.top_k);
    TuRecorder rec = {&r};
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    for (int i = 0; i < games; i++) {
        samples_begin_game(&r, (uint64_t)i, 1);
        selfplay_game(&cfg, (uint64_t)i, g, NULL, tu_record, &rec);
        samples_finish_game(&r, g);
    }
    free(g);
    samples_free(&r);
}

bool tu_env_open(TuEnv *e) {
    ld_english(&e->ld);
    if (!tu_load_sowpods(&e->kwg, &e->ld)) return false;
    layout_standard15(&e->lay);
    e->g = malloc(sizeof *e->g);
    CU_ASSERT_FATAL(e->g != NULL);
    return true;
}

void tu_env_close(TuEnv *e) {
    free(e->g);
    kwg_free(&e->kwg);
}

void tu_env_position(TuEnv *e, uint64_t seed, uint64_t index, int bag, int32_t (*leave_value)(const void *, const Rack *)) {
    game_new(e->g, &e->ld, &e->lay, &e->kwg, seed, 0, index);
    while (!game_over(e->g) && e->g->bag.count > bag) {
        MoveGenRequest req;
        movegen_request_for_game(&req, e->g);
        req.leave_value = leave_value;
        Move m;
        movegen_best(&req, &m, NULL);
        game_play(e->g, &m);
    }
}

int tu_size(int full, int quick) {
    const char *q = getenv("ROOKERY_TEST_QUICK");
    return q != NULL && q[0] != '\0' && strcmp(q, "0") != 0 ? quick : full;
}
