/* OpenBLAS's kernel family: the ranking, and `rookery` restarting itself
 * with the best core this CPU runs (nn/blas_core.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/blas_core.h"
#include "testutil.h"

static void test_ranking(void) {
    CU_ASSERT_TRUE(blas_core_at_least("SkylakeX", "SkylakeX"));
    CU_ASSERT_TRUE(blas_core_at_least("Cooperlake", "SkylakeX"));
    CU_ASSERT_TRUE(blas_core_at_least("skylakex", "Haswell")); /* case does not matter */
    CU_ASSERT_TRUE(blas_core_at_least("Zen", "Haswell"));
    CU_ASSERT_FALSE(blas_core_at_least("Haswell", "SkylakeX"));
    CU_ASSERT_FALSE(blas_core_at_least("Prescott", "Haswell"));
    CU_ASSERT_FALSE(blas_core_at_least("Sandybridge", "Haswell")); /* AVX without FMA */
    CU_ASSERT_FALSE(blas_core_at_least(NULL, "Haswell"));
    CU_ASSERT_TRUE(blas_core_at_least("Prescott", NULL)); /* nothing better to want */
    const char *best = blas_core_best();
    if (best != NULL) {
        CU_ASSERT_TRUE(strcmp(best, "SkylakeX") == 0 || strcmp(best, "Haswell") == 0);
        CU_ASSERT_FALSE(blas_core_at_least("Prescott", best));
    }
    CU_ASSERT_PTR_NOT_NULL(blas_core_name());
}

/* The core `rookery --version` reports with OPENBLAS_CORETYPE set to
 * `coretype`, or unset if NULL; 0 on success. */
static int version_core(const char *coretype, char *core, size_t cap) {
    char cmd[4096];
    if (coretype != NULL)
        snprintf(cmd, sizeof cmd, "OPENBLAS_CORETYPE=%s '%s' --version", coretype, ROOKERY_BINARY);
    else
        snprintf(cmd, sizeof cmd, "env -u OPENBLAS_CORETYPE '%s' --version", ROOKERY_BINARY);
    FILE *p = popen(cmd, "r");
    if (p == NULL) return -1;
    char line[256];
    int found = -1;
    while (fgets(line, sizeof line, p) != NULL) {
        char name[64];
        if (sscanf(line, "OpenBLAS core: %63s", name) == 1) {
            snprintf(core, cap, "%s", name);
            found = 0;
        }
    }
    if (pclose(p) != 0) return -1;
    return found;
}

/* Without OPENBLAS_CORETYPE the program runs the best kernels the CPU has
 * (on the development machine OpenBLAS alone chooses Prescott's); with it,
 * the user's choice stands. */
static void test_restart(void) {
    char core[64] = "";
    CU_ASSERT_EQUAL_FATAL(version_core(NULL, core, sizeof core), 0);
    CU_ASSERT_TRUE(blas_core_at_least(core, blas_core_best()));
    CU_ASSERT_EQUAL_FATAL(version_core("Prescott", core, sizeof core), 0);
    CU_ASSERT_STRING_EQUAL(core, "Prescott");
}

int main(void) {
    CU_TestInfo tests[] = {{"kernel families are ranked", test_ranking},
                           {"rookery restarts with the best core", test_restart},
                           CU_TEST_INFO_NULL};
    return tu_run("blas_core", tests);
}
