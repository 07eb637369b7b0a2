/* blas_core.c - OpenBLAS's kernel choice checked against the CPU (blas_core.h). */
#include "blas_core.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A kernel family's rank: 2 for AVX-512, 1 for AVX2 + FMA, 0 for the rest
 * (SSE only, or AVX without FMA). */
static int core_rank(const char *core) {
    static const char *const avx512[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
    static const char *const avx2[] = {"Haswell", "Zen"};
    if (core == NULL) return 0;
    for (size_t i = 0; i < sizeof avx512 / sizeof avx512[0]; i++)
        if (strcasecmp(core, avx512[i]) == 0) return 2;
    for (size_t i = 0; i < sizeof avx2 / sizeof avx2[0]; i++)
        if (strcasecmp(core, avx2[i]) == 0) return 1;
    return 0;
}

const char *blas_core_name(void) {
    const char *name = openblas_get_corename();
    return name != NULL ? name : "unknown";
}

const char *blas_core_best(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
    return NULL;
}

int blas_core_at_least(const char *core, const char *best) { return best == NULL || core_rank(core) >= core_rank(best); }

void blas_core_fix(char **argv) {
    if (getenv("OPENBLAS_CORETYPE") != NULL) return;
    const char *best = blas_core_best(), *core = blas_core_name();
    if (blas_core_at_least(core, best)) return;
    if (setenv("OPENBLAS_CORETYPE", best, 1) != 0) return;
    /* rookery runs one BLAS thread a process (main.c): the restarted
     * library need not start a pool of threads that would only wait */
    if (getenv("OPENBLAS_NUM_THREADS") == NULL) setenv("OPENBLAS_NUM_THREADS", "1", 1);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "rookery: warning: OpenBLAS uses its %s kernels on a CPU that runs %s's; could not restart with "
                    "OPENBLAS_CORETYPE=%s (set it yourself: the network runs 2-3x faster)\n",
            core, best, best);
    unsetenv("OPENBLAS_CORETYPE");
}
