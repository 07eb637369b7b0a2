/*
 * fuzz_manifest.c - libFuzzer target for reading a generation's manifest
 * (train/manifest.h) and verifying a generation against it
 * (rundir_verify_generation), as a resume does with whatever a damaged or
 * edited run directory holds.
 *
 * Each input is written as gen-0001/manifest.json of a run directory made
 * once in /tmp, beside one data file (a.bin, 3 bytes). manifest_load must
 * give an object or an error naming the file; the readers by path must
 * return their defaults on any shape; the verification must return 0 or -1
 * with a message, never crash or leak.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "train/manifest.h"
#include "train/rundir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
    fprintf(stderr, "manifest: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char run[64] = ""; /* made once: acceptable in a fuzz harness */
    static char path[128];
    RkError err;
    if (run[0] == '\0') {
        snprintf(run, sizeof run, "/tmp/fuzz_manifest_XXXXXX");
        if (mkdtemp(run) == NULL || rundir_begin_generation(run, 1, &err) != 0) fail("no scratch run directory");
        char dir[RUNDIR_PATH_MAX], file[RUNDIR_PATH_MAX + 16];
        rundir_gen_path(run, 1, true, dir, sizeof dir);
        snprintf(file, sizeof file, "%s/a.bin", dir);
        if (rk_write_file_atomic(file, "abc", 3, &err) != 0) fail(err.msg);
        const char *empty = "{\"files\": {}}\n";
        if (rundir_commit_generation(run, 1, empty, NULL, NULL, &err) != 0) fail(err.msg);
        snprintf(path, sizeof path, "%s/gen-0001/manifest.json", run);
    }
    if (rk_write_file_atomic(path, (const char *)data, size, &err) != 0) fail(err.msg);
    json_t *m = manifest_load(path, &err);
    if (m == NULL) {
        if (strstr(err.msg, "manifest.json") == NULL) fail("an error that does not name the file");
    } else {
        (void)manifest_int(m, "search.model_in_force", 0);
        (void)manifest_int(m, "search.value_won", 0);
        (void)manifest_string(m, "lexicon_sha256");
        (void)manifest_get(m, "files.a.bin");
        json_decref(m);
    }
    err.msg[0] = '\0';
    int rc = rundir_verify_generation(run, 1, &err);
    if (rc != 0 && (rc != -1 || err.msg[0] == '\0')) fail("a failed verification without a message");
    return 0;
}
