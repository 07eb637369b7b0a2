/* A generation's record (train/manifest.h): one call a figure gives the
 * manifest's member and the metrics column; manifests read back whatever
 * their layout, those written before jansson included (a run directory of
 * the previous format still verifies and resumes). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "train/manifest.h"
#include "train/rundir.h"
#include "testutil.h"

/* Writes text to dir/name; the path into out. */
static void write_in(const char *dir, const char *name, const char *text, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", dir, name);
    CU_ASSERT_FATAL(tu_write_file(out, text) == 0);
}

static void test_record_both_places(void) {
    GenRecord r;
    RkError err;
    CU_ASSERT_FATAL(gen_record_init(&r, &err) == 0);
    rec_int(&r, "generation", "generation", 7);
    rec_uint(&r, "games", "games", 1234);
    rec_real(&r, "timings_s.play", "play_s", 3, 1.23456);
    rec_real(&r, NULL, "games_per_s", 2, 99.999);       /* the row's alone */
    rec_string(&r, "lexicon_sha256", "ab\"c\\d");       /* escaped */
    rec_bool(&r, "leaves_trained", "leaves_trained", true);
    rec_string(&r, "initial_leaves", "runs/caf\xe9/a.klv2"); /* not UTF-8: the stray byte as U+00E9 */
    rec_string(&r, "initial_spv", "\xc3\xa9t\xe9"); /* a well-formed character kept beside a stray byte */
    r.to_manifest = false;                              /* a part the manifest leaves out */
    rec_real(&r, "nn.loss_last", "nn_loss_last", 5, 0.5);
    r.to_manifest = true;
    rec_real(&r, "timings_s.wall", "wall_s", 3, 2.0);   /* into the existing object */
    rec_real(&r, "nan", NULL, 2, NAN);            /* JSON has no NaN: null */
    int window[2] = {3, 4};
    rec_ints(&r, "nn2.window", window, 2);
    const char *players[2] = {"a", "b,c"};
    rec_strings(&r, "search.gate.players", players, 2);
    RunFile f[2] = {{.name = "leaves.klv2", .bytes = 10}, {.name = "shard-00000.h5", .bytes = 20}};
    memset(f[0].sha256, 'a', 64);
    memset(f[1].sha256, 'b', 64);
    rec_files(&r, f, 2);
    char *text = gen_record_finish(&r, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(r.row.header, "generation,games,play_s,games_per_s,leaves_trained,nn_loss_last,wall_s");
    CU_ASSERT_STRING_EQUAL(r.row.row, "7,1234,1.235,100.00,1,0.50000,2.000\n");
    /* one top-level member a line, nested objects inline, reals rounded to their decimals */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  \"timings_s\": {\"play\": 1.235, \"wall\": 2.0},\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n  \"generation\": 7,\n"));
    CU_ASSERT_PTR_NULL(strstr(text, "nn.loss_last"));
    CU_ASSERT_PTR_NULL(strstr(text, "\"loss_last\""));
    CU_ASSERT_EQUAL(text[strlen(text) - 1], '\n');
    /* and it reads back */
    char dir[256], path[512];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    write_in(dir, "manifest.json", text, path, sizeof path);
    json_t *m = manifest_load(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(manifest_int(m, "generation", -1), 7);
    CU_ASSERT_EQUAL(manifest_int(m, "games", -1), 1234);
    CU_ASSERT_EQUAL(manifest_int(m, "leaves_trained", -1), 1);
    CU_ASSERT_EQUAL(manifest_int(m, "absent", -5), -5);
    CU_ASSERT_EQUAL(manifest_int(m, "lexicon_sha256", -5), -5); /* a string is not an int */
    CU_ASSERT_STRING_EQUAL(manifest_string(m, "lexicon_sha256"), "ab\"c\\d");
    CU_ASSERT_STRING_EQUAL(manifest_string(m, "initial_leaves"), "runs/caf\xc3\xa9/a.klv2");
    CU_ASSERT_STRING_EQUAL(manifest_string(m, "initial_spv"), "\xc3\xa9t\xc3\xa9");
    CU_ASSERT_DOUBLE_EQUAL(json_real_value(manifest_get(m, "timings_s.play")), 1.235, 1e-12);
    CU_ASSERT(json_is_null(manifest_get(m, "nan")));
    CU_ASSERT_EQUAL(json_array_size(manifest_get(m, "nn2.window")), 2);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(manifest_get(m, "search.gate.players"), 1)), "b,c");
    CU_ASSERT_EQUAL(manifest_int(m, "files.shard-00000.h5.bytes", -1), -1); /* a dot in a key is not a path */
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(manifest_get(m, "files"), "shard-00000.h5"), "bytes")), 20);
    CU_ASSERT_PTR_NULL(manifest_get(m, "nn"));
    json_decref(m);
    free(text);
    gen_record_free(&r);
}

/* A path through a member that is not an object fails the record, not
 * the process. */
static void test_record_errors(void) {
    GenRecord r;
    RkError err;
    CU_ASSERT_FATAL(gen_record_init(&r, &err) == 0);
    rec_int(&r, "games", "games", 1);
    rec_int(&r, "games.per_rank", NULL, 2);
    CU_ASSERT(r.failed);
    CU_ASSERT_PTR_NULL(gen_record_finish(&r, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "record"));
    gen_record_free(&r);
}

static void test_load_errors(void) {
    char dir[256], path[512];
    RkError err;
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    write_in(dir, "bad.json", "{\n  \"generation\": 1,\n  \"games\": \n}\n", path, sizeof path);
    CU_ASSERT_PTR_NULL(manifest_load(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 4"));
    write_in(dir, "array.json", "[1, 2]\n", path, sizeof path);
    CU_ASSERT_PTR_NULL(manifest_load(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a JSON object"));
    write_in(dir, "twice.json", "{\"games\": 1, \"games\": 2}\n", path, sizeof path);
    CU_ASSERT_PTR_NULL(manifest_load(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "games"));
    /* a huge file is refused before it is read */
    snprintf(path, sizeof path, "%s/huge.json", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(fseek(f, 17L << 20, SEEK_SET) == 0 && fputc('}', f) != EOF);
    fclose(f);
    CU_ASSERT_PTR_NULL(manifest_load(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than any manifest"));
    snprintf(path, sizeof path, "%s/absent.json", dir);
    CU_ASSERT_PTR_NULL(manifest_load(path, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "absent.json"));
}

/* A manifest as rookery wrote it before jansson (snprintf, the search loop's
 * members on lines of their own): what resume reads comes out the same. */
static void test_previous_format(void) {
    RkError err;
    json_t *m = manifest_load(ROOKERY_SOURCE_DIR "/tests/data/manifest-before-jansson.json", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(manifest_int(m, "generation", -1), 2);
    CU_ASSERT_EQUAL(manifest_int(m, "search.model_in_force", -1), 2);
    CU_ASSERT_EQUAL(manifest_int(m, "search.value_won", -1), 0);
    CU_ASSERT_EQUAL(manifest_int(m, "search.value_checked_model", -1), 0);
    CU_ASSERT_STRING_EQUAL(manifest_string(m, "lexicon_sha256"),
                           "7c8b22dd31aa9dfc445ea7b4f396b4407306aa9fcfb98e4ceb7ebc9e9444e4b2");
    CU_ASSERT_EQUAL(json_object_size(manifest_get(m, "files")), 6);
    json_decref(m);
}

/* A generation committed with a manifest in the previous layout (files one
 * a line) verifies, and its damage is still found. */
static void test_previous_format_verifies(void) {
    char base[256], run[512], dir[600], path[800];
    RkError err;
    CU_ASSERT_FATAL(tu_tmpdir(base, sizeof base) != NULL);
    snprintf(run, sizeof run, "%s/run", base);
    CU_ASSERT_FATAL(rundir_mkdirs(run, &err) == 0);
    CU_ASSERT_FATAL(rundir_begin_generation(run, 1, &err) == 0);
    rundir_gen_path(run, 1, true, dir, sizeof dir);
    write_in(dir, "leaves.klv2", "leaves", path, sizeof path);
    write_in(dir, "config.ini", "[run]\n", path, sizeof path);
    RunFile f[2] = {{.name = "leaves.klv2"}, {.name = "config.ini"}};
    CU_ASSERT_FATAL(rundir_describe_files(run, 1, f, 2, &err) == 0);
    char json[2048];
    snprintf(json, sizeof json,
             "{\n  \"generation\": 1,\n  \"baseline\": 41.089550,\n  \"timings_s\": {\"play\": 2.104, \"wall\": 6.655},\n"
             "  \"files\": {\n    \"%s\": {\"bytes\": %llu, \"sha256\": \"%s\"},\n"
             "    \"%s\": {\"bytes\": %llu, \"sha256\": \"%s\"}\n  }\n}\n",
             f[0].name, (unsigned long long)f[0].bytes, f[0].sha256, f[1].name, (unsigned long long)f[1].bytes,
             f[1].sha256);
    CU_ASSERT_FATAL(rundir_commit_generation(run, 1, json, "generation", "1\n", &err) == 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), 0);
    rundir_gen_path(run, 1, false, dir, sizeof dir);
    write_in(dir, "config.ini", "[rum]\n", path, sizeof path);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "config.ini: sha256 mismatch"));
    /* an entry without its checksum, and a manifest with no files */
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    CU_ASSERT_FATAL(tu_write_file(path, "{\"files\": {\"config.ini\": {\"bytes\": 6}}}\n") == 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "config.ini has no sha256"));
    CU_ASSERT_FATAL(tu_write_file(path, "{\"generation\": 1}\n") == 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "lists no files"));
    CU_ASSERT_FATAL(tu_write_file(path, "{\"files\": [\"config.ini\"]}\n") == 0);
    CU_ASSERT_EQUAL(rundir_verify_generation(run, 1, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not an object"));
}

int main(void) {
    CU_TestInfo tests[] = {{"a figure goes to the manifest and the row in one call", test_record_both_places},
                           {"a bad path fails the record", test_record_errors},
                           {"malformed manifests are errors naming the file", test_load_errors},
                           {"manifests written before jansson read the same", test_previous_format},
                           {"a generation of the previous layout verifies", test_previous_format_verifies},
                           CU_TEST_INFO_NULL};
    return tu_run("manifest", tests);
}
