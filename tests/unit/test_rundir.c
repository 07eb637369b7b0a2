/* The run directory: atomic writes, generation commit, LATEST, manifest
 * verification, metrics rebuilt from the generations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/textfile.h"
#include "reducer/rundir.h"
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
    /* a full disk: /dev/full fails every write */
    if (access("/dev/full", W_OK) == 0) {
        char base[256], link[512];
        CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
        /* the temporary file is created fresh, so emulate with a path whose
         * .tmp is /dev/full via a symlink */
        snprintf(link, sizeof link, "%s/f.tmp", base);
        CU_ASSERT_EQUAL_FATAL(symlink("/dev/full", link), 0);
        char target[512];
        snprintf(target, sizeof target, "%s/f", base);
        char big[8192];
        memset(big, 'x', sizeof big);
        CU_ASSERT_EQUAL(rk_write_file_atomic(target, big, sizeof big, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "f.tmp"));
        CU_ASSERT_EQUAL(access(target, F_OK), -1); /* nothing half-written under the real name */
    } else {
        tu_skip("full disk", "/dev/full not writable");
    }
}

int main(void) {
    CU_TestInfo tests[] = {
        {"generations, LATEST, metrics, verification", test_generations},
        {"write errors (missing dir, full disk)", test_write_errors},
        CU_TEST_INFO_NULL,
    };
    return tu_run("rundir", tests);
}
