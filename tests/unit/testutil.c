#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool file_exists(const char *p) {
    struct stat st;
    return p != NULL && p[0] != '\0' && stat(p, &st) == 0;
}

void tu_skip(const char *test, const char *why) {
    printf("\nSKIPPED: %s: %s\n", test, why);
    fflush(stdout);
}

const char *tu_shared_path(const char *rel, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s", ROOKERY_SHARED_DIR, rel);
    if (!file_exists(buf)) {
        char why[512];
        snprintf(why, sizeof why, "%s not found (../shared missing?)", buf);
        tu_skip(rel, why);
        return NULL;
    }
    return buf;
}

const char *tu_sowpods_kwg(void) {
    const char *p = ROOKERY_SOWPODS_KWG;
    if (!file_exists(p)) {
        tu_skip("SOWPODS", "SOWPODS.kwg was not built (run scripts/fetch-lexicon.sh and configure "
                           "with -DROOKERY_LEXICON_DIR)");
        return NULL;
    }
    return p;
}

const char *tu_tmpdir(char *buf, size_t cap) {
    const char *base = getenv("TMPDIR");
    snprintf(buf, cap, "%s/rookery-test-XXXXXX", base ? base : "/tmp");
    return mkdtemp(buf);
}

int tu_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0) rc = -1;
    return rc;
}

int tu_run(const char *suite, CU_TestInfo *tests) {
    if (CU_initialize_registry() != CUE_SUCCESS) return 2;
    CU_SuiteInfo suites[] = {{suite, NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0) return 3;
    return failed == 0 ? 0 : 1;
}
