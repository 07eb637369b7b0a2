/* The training loop as a library, in process (train/train.h), on one rank
 * (MPI as a singleton, initialised here so that several runs share it): a
 * new run, a resume that gives the same bytes as the run played straight
 * through, the caller's stop flag (exit 3, nothing half-written), and a
 * resume that would change the seed (exit 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "train/train.h"

static char lexicon_set[600];

/* train_run on `run` with the small settings below and `extra` --sets. */
static int train(const char *run, const char *const *extra, int nextra, volatile sig_atomic_t *stop) {
    const char *sets[16] = {"run.games_per_generation=40", "run.progress_seconds=0", "nn.shards=no",
                            "nn.train=no", "spv.heldout_games=0", "spv.match_pairs=0", "match.pairs=4",
                            lexicon_set};
    int n = 8;
    for (int i = 0; i < nextra && n < 16; i++) sets[n++] = extra[i];
    TrainRequest req = {.run_dir = run, .sets = sets, .nsets = n, .stop = stop};
    return train_run(&req);
}

static char *latest(const char *run) {
    char path[512];
    snprintf(path, sizeof path, "%s/LATEST", run);
    unsigned char *text = NULL;
    if (tu_read_bytes(path, &text) <= 0) return NULL;
    return (char *)text;
}

static void test_run_resume_stop(void) {
    const char *kwg = tu_sowpods_kwg();
    if (kwg == NULL) return; /* tu_sowpods_kwg said why (a failure under CI) */
    snprintf(lexicon_set, sizeof lexicon_set, "lexicon.kwg=%s", kwg);
    char dir[256], a[300], b[300];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    /* a: one generation, then resumed to two; b: two straight */
    const char *one[] = {"run.generations=1"}, *two[] = {"run.generations=2"};
    CU_ASSERT_EQUAL_FATAL(train(a, one, 1, NULL), 0);
    char *l = latest(a);
    CU_ASSERT(l != NULL && strncmp(l, "gen-0001", 8) == 0);
    free(l);
    CU_ASSERT_EQUAL_FATAL(train(a, two, 1, NULL), 0);
    CU_ASSERT_EQUAL_FATAL(train(b, two, 1, NULL), 0);
    l = latest(a);
    CU_ASSERT(l != NULL && strncmp(l, "gen-0002", 8) == 0);
    free(l);
    const char *files[] = {"leaves.klv2", "racks.req", "positional.spv"};
    for (int i = 0; i < 3; i++) {
        char pa[400], pb[400];
        snprintf(pa, sizeof pa, "%s/gen-0002/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/gen-0002/%s", b, files[i]);
        unsigned char *xa = NULL, *xb = NULL;
        long na = tu_read_bytes(pa, &xa), nb = tu_read_bytes(pb, &xb);
        CU_ASSERT(na > 0 && na == nb && memcmp(xa, xb, (size_t)na) == 0); /* resumed = straight through */
        free(xa);
        free(xb);
    }
    /* the stop flag up: exit 3, the generation in flight discarded, LATEST kept */
    volatile sig_atomic_t stop = 1;
    const char *three[] = {"run.generations=3"};
    CU_ASSERT_EQUAL(train(a, three, 1, &stop), TRAIN_EXIT_STOPPED);
    l = latest(a);
    CU_ASSERT(l != NULL && strncmp(l, "gen-0002", 8) == 0);
    free(l);
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s/gen-0003.tmp", a);
    CU_ASSERT(access(tmp, F_OK) != 0);
    snprintf(tmp, sizeof tmp, "%s/gen-0003", a);
    CU_ASSERT(access(tmp, F_OK) != 0);
    /* a resume that would change the run's seed: refused (2), nothing played */
    const char *seed[] = {"run.generations=3", "run.seed=99"};
    CU_ASSERT_EQUAL(train(a, seed, 2, NULL), 2);
    CU_ASSERT(access(tmp, F_OK) != 0);
}

int main(void) {
    MPI_Init(NULL, NULL);
    CU_TestInfo tests[] = {{"a run, its resume, the stop flag, a refused change", test_run_resume_stop},
                           CU_TEST_INFO_NULL};
    int rc = tu_run("train_run", tests);
    MPI_Finalize();
    return rc;
}
