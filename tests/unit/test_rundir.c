/* The run directory: atomic writes, generation commit, LATEST, manifest
 * verification, metrics rebuilt from the generations. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/textfile.h"
#include "train/rundir.h"
#include "testutil.h"

static char *slurp(const char *path) {
    RkError err;
    return rk_read_file(path, 1 << 20, NULL, &err);
}

static void commit_gen(const char *run, int gen, const char *payload) {
    RkError err;
    char dir[1024], path[1200], json[4096];
    CU_ASSERT_EQUAL_FATAL(rundir_begin_generation(run, gen, &err), 0);
    rundir_gen_path(run, gen, true, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/data.bin", dir);
    CU_ASSERT_EQUAL_FATAL(rk_write_file_atomic(path, payload, strlen(payload), &err), 0);
    RunFile f = {.name = "data.bin"};
    CU_ASSERT_EQUAL_FATAL(rundir_describe_files(run, gen, &f, 1, &err), 0);
    CU_ASSERT_EQUAL(f.bytes, strlen(payload));
    snprintf(json, sizeof json, "{\"generation\": %d, \"files\": {\"%s\": {\"bytes\": %llu, \"sha256\": \"%s\"}}}\n",
             gen, f.name, (unsigned long long)f.bytes, f.sha256);
    char row[64];
    snprintf(row, sizeof row, "%d,%s\n", gen, payload);
    CU_ASSERT_EQUAL_FATAL(rundir_commit_generation(run, gen, json, "generation,payload", row, &err), 0);
}

static void test_generations(void) {
    char base[256], run[512], path[1200];
    RkError err;
    CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
    snprintf(run, sizeof run, "%s/a/b/run", base);
    CU_ASSERT_EQUAL_FATAL(rundir_mkdirs(run, &err), 0);
    CU_ASSERT_EQUAL(rundir_latest(run, &err), -1);
    commit_gen(run, 1, "one");
    CU_ASSERT_EQUAL(rundir_latest(run, &err), 1);
    commit_gen(run, 2, "two");
    CU_ASSERT_EQUAL(rundir_latest(run, &err), 2);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 2, &err), 0);
    /* a file the manifest does not list (a shard copied in would be trained on) */
    snprintf(path, sizeof path, "%s/gen-0001/shard-00001.h5", run);
    CU_ASSERT_EQUAL(tu_write_file(path, "extra"), 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "shard-00001.h5: not listed in"));
    unlink(path);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), 0);
    snprintf(path, sizeof path, "%s/metrics.csv", run);
    char *m = slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(m, "generation,payload\n1,one\n2,two\n");
    free(m);
    /* a stale .tmp of an interrupted generation is replaced */
    snprintf(path, sizeof path, "%s/gen-0003.tmp", run);
    CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/gen-0003.tmp/junk", run);
    CU_ASSERT_EQUAL(tu_write_file(path, "junk"), 0);
    commit_gen(run, 3, "three");
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/gen-0003.tmp", run);
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    /* corruption is caught, naming the file */
    snprintf(path, sizeof path, "%s/gen-0002/data.bin", run);
    CU_ASSERT_EQUAL(tu_write_file(path, "twx"), 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "data.bin"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sha256"));
    CU_ASSERT_EQUAL(tu_write_file(path, "tw"), 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bytes"));
    unlink(path);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 2, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing"));
    /* once LATEST has moved the generation is committed: a metrics.csv that cannot be
     * rebuilt (here a directory in its place) is a warning, and the next commit rebuilds it */
    snprintf(path, sizeof path, "%s/metrics.csv", run);
    CU_ASSERT_EQUAL(unlink(path), 0);
    CU_ASSERT_EQUAL(mkdir(path, 0777), 0);
    commit_gen(run, 4, "four"); /* asserts the commit returns 0 */
    CU_ASSERT_EQUAL(rundir_latest(run, &err), 4);
    CU_ASSERT_EQUAL(rmdir(path), 0);
    commit_gen(run, 5, "five");
    m = slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_STRING_EQUAL(m, "generation,payload\n1,one\n2,two\n3,three\n4,four\n5,five\n");
    free(m);
    /* a malformed LATEST is an error, not a new run */
    snprintf(path, sizeof path, "%s/LATEST", run);
    CU_ASSERT_EQUAL(tu_write_file(path, "garbage"), 0);
    CU_ASSERT_EQUAL(rundir_latest(run, &err), -2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "LATEST"));
}

static void test_write_errors(void) {
    RkError err;
    CU_ASSERT_EQUAL(rk_write_file_atomic("/nonexistent-dir/x", "a", 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent-dir/x"));
    /* a full disk: a file size limit makes the writes fail past 4 KB (EFBIG, as ENOSPC would) */
    char base[256], target[512];
    CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
    snprintf(target, sizeof target, "%s/f", base);
    char big[8192];
    memset(big, 'x', sizeof big);
    struct rlimit old, small = {4096, 4096};
    CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    small.rlim_max = old.rlim_max;
    CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &small) == 0);
    int rc = rk_write_file_atomic(target, big, sizeof big, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, was);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "f.tmp"));
    CU_ASSERT_EQUAL(access(target, F_OK), -1); /* nothing half-written under the real name */
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", target);
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1); /* nor left behind */
}

/* A symlink planted at a writer's temporary name (f.tmp -> victim) is
 * removed, not written through: the victim keeps its bytes and f is a new
 * regular file. Also for a dangling link, and for HDF5's writer. */
static void test_symlink_at_temporary(void) {
    RkError err;
    char base[256], target[512], tmp[600], victim[512];
    CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
    snprintf(target, sizeof target, "%s/f", base);
    snprintf(tmp, sizeof tmp, "%s/f.tmp", base);
    snprintf(victim, sizeof victim, "%s/victim", base);
    CU_ASSERT_FATAL(tu_write_file(victim, "precious") == 0);
    CU_ASSERT_FATAL(symlink(victim, tmp) == 0);
    CU_ASSERT_EQUAL(rk_write_file_atomic(target, "new", 3, &err), 0);
    unsigned char *got = NULL;
    CU_ASSERT_EQUAL(tu_read_bytes(victim, &got), 8);
    CU_ASSERT(got != NULL && memcmp(got, "precious", 8) == 0);
    free(got);
    struct stat st;
    CU_ASSERT(lstat(target, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 3);
    CU_ASSERT(lstat(tmp, &st) != 0);
    /* a dangling link: nothing is created at its target */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/nowhere", base);
    CU_ASSERT_FATAL(symlink(nowhere, tmp) == 0);
    CU_ASSERT_EQUAL(rk_write_file_atomic(target, "again", 5, &err), 0);
    CU_ASSERT(access(nowhere, F_OK) != 0);
    /* LATEST through rundir_commit_generation: LATEST.tmp -> victim */
    char run[512], latest_tmp[600], latest[600];
    snprintf(run, sizeof run, "%s/run", base);
    CU_ASSERT_FATAL(rundir_mkdirs(run, &err) == 0);
    CU_ASSERT_FATAL(rundir_begin_generation(run, 1, &err) == 0);
    snprintf(latest_tmp, sizeof latest_tmp, "%s/LATEST.tmp", run);
    CU_ASSERT_FATAL(symlink(victim, latest_tmp) == 0);
    CU_ASSERT_EQUAL(rundir_commit_generation(run, 1, "{\"files\": {}}\n", NULL, NULL, &err), 0);
    CU_ASSERT_EQUAL(tu_read_bytes(victim, &got), 8);
    CU_ASSERT(got != NULL && memcmp(got, "precious", 8) == 0);
    free(got);
    snprintf(latest, sizeof latest, "%s/LATEST", run);
    CU_ASSERT(lstat(latest, &st) == 0 && S_ISREG(st.st_mode));
    CU_ASSERT_EQUAL(rundir_latest(run, &err), 1);
}

/* A symlink at a generation's name is never followed when removing or
 * pruning: gen-0002.tmp -> a directory of someone else's files (a resume
 * removes the stale temporary), and a symlinked gen-0001 under run.keep. */
static void test_symlink_generation_dirs(void) {
    RkError err;
    char base[256], run[512], other[512], f[700], link[700];
    CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
    snprintf(run, sizeof run, "%s/run", base);
    snprintf(other, sizeof other, "%s/other", base);
    CU_ASSERT_FATAL(rundir_mkdirs(run, &err) == 0);
    CU_ASSERT_FATAL(rundir_mkdirs(other, &err) == 0);
    static const char *names[] = {"leaves.klv2", "racks.req", "model.h5", "shard-00000.h5", "notes.txt"};
    for (int i = 0; i < 5; i++) {
        snprintf(f, sizeof f, "%s/%s", other, names[i]);
        CU_ASSERT_FATAL(tu_write_file(f, "keep me") == 0);
    }
    snprintf(link, sizeof link, "%s/gen-0002.tmp", run);
    CU_ASSERT_FATAL(symlink(other, link) == 0);
    CU_ASSERT_EQUAL(rundir_begin_generation(run, 2, &err), 0);
    struct stat st;
    CU_ASSERT(lstat(link, &st) == 0 && S_ISDIR(st.st_mode)); /* a real directory now */
    for (int i = 0; i < 5; i++) {
        snprintf(f, sizeof f, "%s/%s", other, names[i]);
        CU_ASSERT(access(f, F_OK) == 0);
    }
    /* pruning through a symlinked generation */
    snprintf(link, sizeof link, "%s/gen-0001", run);
    CU_ASSERT_FATAL(symlink(other, link) == 0);
    RunKeep keep = {.newest = 1, .every = 0, .shards_from = 99, .model_gen = 0};
    int files = 0;
    uint64_t bytes = 0;
    CU_ASSERT_EQUAL(rundir_prune(run, 3, &keep, &files, &bytes, &err), 0);
    CU_ASSERT_EQUAL(files, 0);
    for (int i = 0; i < 5; i++) {
        snprintf(f, sizeof f, "%s/%s", other, names[i]);
        CU_ASSERT(access(f, F_OK) == 0);
    }
    /* a manifest naming a file outside its generation is refused, and says so */
    char dir[600], manifest[700];
    rundir_gen_path(run, 3, false, dir, sizeof dir);
    CU_ASSERT_FATAL(rundir_mkdirs(dir, &err) == 0);
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    CU_ASSERT_FATAL(tu_write_file(manifest, "{\"files\": {\"../../other/notes.txt\": {\"bytes\": 7, \"sha256\": "
                                            "\"0000000000000000000000000000000000000000000000000000000000000000\"}}}\n") == 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 3, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a plain file name"));
}

static bool present(const char *run, int gen, const char *name) {
    char path[1200];
    snprintf(path, sizeof path, "%s/gen-%04d/%s", run, gen, name);
    return access(path, F_OK) == 0;
}

/* Retention: what rundir_prune removes and what it keeps. */
static void test_prune(void) {
    static const char *const names[] = {"leaves.klv2", "racks.req",      "positional.spv", "model.h5",
                                        "shard-00000.h5", "shard-00001.h5", "manifest.json",  "metrics-row.csv",
                                        "notes.txt",      "shard-x.txt"};
    enum { NAMES = sizeof names / sizeof names[0], PRUNABLE = 6 };
    char run[256], path[1200];
    RkError err;
    CU_ASSERT_FATAL(tu_tmpdir(run, sizeof run) != NULL);
    for (int g = 0; g <= 6; g++) {
        if (g == 2) continue; /* a missing generation is skipped */
        snprintf(path, sizeof path, "%s/gen-%04d", run, g);
        CU_ASSERT_EQUAL_FATAL(mkdir(path, 0777), 0);
        for (int i = 0; i < NAMES; i++) {
            snprintf(path, sizeof path, "%s/gen-%04d/%s", run, g, names[i]);
            CU_ASSERT_EQUAL_FATAL(tu_write_file(path, "12345"), 0); /* 5 bytes each */
        }
    }
    RunKeep bad = {.newest = 0};
    CU_ASSERT_EQUAL(rundir_prune(run, 6, &bad, NULL, NULL, &err), -1);
    CU_ASSERT_TRUE(present(run, 6, "racks.req"));
    /* keep 6 and 5 whole, and 3 (every 3); the shards of 4 and later; gen 1's model */
    RunKeep keep = {.newest = 2, .every = 3, .shards_from = 4, .model_gen = 1};
    int files = 0;
    uint64_t bytes = 0;
    CU_ASSERT_EQUAL_FATAL(rundir_prune(run, 6, &keep, &files, &bytes, &err), 0);
    for (int g = 0; g <= 6; g++) {
        if (g == 2) continue;
        bool whole = g >= 5 || g == 3;
        for (int i = 0; i < NAMES; i++) {
            bool keeps = whole || i >= PRUNABLE || (i == 3 && g == 1) || (i >= 4 && i <= 5 && g >= 4);
            if (present(run, g, names[i]) != keeps) printf("gen %d %s: present %d\n", g, names[i], !keeps);
            CU_ASSERT_EQUAL(present(run, g, names[i]), keeps);
        }
    }
    /* removed: gens 0 and 1 (6 and 5 files, gen 1's model stays) and gen 4 (4, its shards stay) */
    CU_ASSERT_EQUAL(files, 6 + 5 + 4);
    CU_ASSERT_EQUAL(bytes, (uint64_t)(6 + 5 + 4) * 5);
    /* a second pass finds nothing more to remove */
    files = 0;
    CU_ASSERT_EQUAL(rundir_prune(run, 6, &keep, &files, NULL, &err), 0);
    CU_ASSERT_EQUAL(files, 0);
    /* a file that cannot be removed is an error naming it (a directory of a
     * prunable name: unlink fails even for root) */
    snprintf(path, sizeof path, "%s/gen-0005/racks.req", run);
    CU_ASSERT_EQUAL_FATAL(unlink(path), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(path, 0777), 0);
    RunKeep one = {.newest = 1, .shards_from = 99};
    CU_ASSERT_EQUAL(rundir_prune(run, 6, &one, NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gen-0005/racks.req"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.keep"));
}

int main(void) {
    CU_TestInfo tests[] = {
        {"generations, LATEST, metrics, verification", test_generations},
        {"write errors (missing dir, full disk)", test_write_errors},
        {"a symlink at a temporary name is not written through", test_symlink_at_temporary},
        {"symlinked generation directories are not emptied", test_symlink_generation_dirs},
        {"retention (run.keep)", test_prune},
        CU_TEST_INFO_NULL,
    };
    return tu_run("rundir", tests);
}
