/* The training loop's rules that need no MPI (src/train/): the checks
 * across config keys, and what a resume may change of the configuration on
 * record (train_run_config), on run directories made by hand. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "train/trainer.h"

static void test_config_check(void) {
    TrainConfig c;
    RkError err;
    train_config_defaults(&c);
    CU_ASSERT_EQUAL(train_config_check(&c, &err), 0);

    c.keep_every = 10; /* needs run.keep */
    CU_ASSERT_NOT_EQUAL(train_config_check(&c, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.keep_every"));
    c.keep = 4;
    CU_ASSERT_EQUAL(train_config_check(&c, &err), 0);

    c.mcgs_anchor_pairs = 100; /* needs the search's loop */
    CU_ASSERT_NOT_EQUAL(train_config_check(&c, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mcgs.anchor_pairs"));
    snprintf(c.player, sizeof c.player, "mcgs:visits=16");
    CU_ASSERT_EQUAL(train_config_check(&c, &err), 0);

    snprintf(c.player, sizeof c.player, "static");
    c.mcgs_anchor_pairs = 0;
    c.mcgs_decisions = 50;
    CU_ASSERT_NOT_EQUAL(train_config_check(&c, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "mcgs.decisions"));
    c.mcgs_decisions = 0;

    snprintf(c.nn_initial, sizeof c.nn_initial, "models/x.h5");
    c.nn_train = false;
    CU_ASSERT_NOT_EQUAL(train_config_check(&c, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nn.initial"));
}

/* A run directory with LATEST = gen-0000 and RUN/config.ini (and, with
 * gen_ini, gen-0000/config.ini) written from c. */
static void make_run(const char *run, const TrainConfig *c, bool gen_ini) {
    char path[512], text[16384];
    CU_ASSERT_FATAL(mkdir(run, 0755) == 0);
    CU_ASSERT_FATAL(train_config_write(c, text, sizeof text) > 0);
    snprintf(path, sizeof path, "%s/config.ini", run);
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    snprintf(path, sizeof path, "%s/gen-0000", run);
    CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
    if (gen_ini) {
        snprintf(path, sizeof path, "%s/gen-0000/config.ini", run);
        CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    }
    snprintf(path, sizeof path, "%s/LATEST", run);
    CU_ASSERT_FATAL(tu_write_file(path, "gen-0000\n") == 0);
}

/* A Trainer as train_run has it before train_run_config: defaults, and
 * run.output set. */
static Trainer *trainer_for(const char *run) {
    Trainer *t = calloc(1, sizeof *t);
    CU_ASSERT_FATAL(t != NULL);
    train_config_defaults(&t->cfg);
    snprintf(t->cfg.output, sizeof t->cfg.output, "%s", run);
    return t;
}

static void test_new_run_takes_sets(void) {
    char dir[256], run[300];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(run, sizeof run, "%s/new", dir);
    Trainer *t = trainer_for(run);
    const char *sets[] = {"run.seed=42", "run.generations=7"};
    RkError err;
    CU_ASSERT_EQUAL(train_run_config(t, NULL, sets, 2, &err), 0);
    CU_ASSERT_EQUAL(t->cfg.seed, 42);
    CU_ASSERT_EQUAL(t->cfg.generations, 7);
    CU_ASSERT_FALSE(t->config_changed); /* nothing on record to change */
    free(t);
}

static void test_resume_rules(void) {
    char dir[256], run[300];
    CU_ASSERT_FATAL(tu_tmpdir(dir, sizeof dir) != NULL);
    snprintf(run, sizeof run, "%s/run", dir);
    TrainConfig rec;
    train_config_defaults(&rec);
    rec.seed = 5;
    snprintf(rec.output, sizeof rec.output, "%s", run);
    make_run(run, &rec, true);
    RkError err;

    /* a key that cannot change mid-run: refused, naming the key and --set */
    Trainer *t = trainer_for(run);
    const char *seed[] = {"run.seed=6"};
    CU_ASSERT_EQUAL(train_run_config(t, NULL, seed, 1, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.seed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--set"));
    free(t);

    /* a key that may change: applied and listed for the record */
    t = trainer_for(run);
    const char *gens[] = {"run.generations=9"};
    CU_ASSERT_EQUAL(train_run_config(t, NULL, gens, 1, &err), 0);
    CU_ASSERT_EQUAL(t->cfg.generations, 9);
    CU_ASSERT_EQUAL(t->cfg.seed, 5); /* the run's own, not the defaults' */
    CU_ASSERT_TRUE(t->config_changed);
    CU_ASSERT_PTR_NOT_NULL(strstr(t->config_changes, "run.generations"));
    free(t);

    /* nothing changed: nothing to record */
    t = trainer_for(run);
    CU_ASSERT_EQUAL(train_run_config(t, NULL, NULL, 0, &err), 0);
    CU_ASSERT_FALSE(t->config_changed);
    free(t);

    /* RUN/config.ini edited against the generation's record: refused */
    TrainConfig edited = rec;
    edited.seed = 11;
    char text[16384], path[512];
    CU_ASSERT_FATAL(train_config_write(&edited, text, sizeof text) > 0);
    snprintf(path, sizeof path, "%s/config.ini", run);
    CU_ASSERT_FATAL(tu_write_file(path, text) == 0);
    t = trainer_for(run);
    CU_ASSERT_EQUAL(train_run_config(t, NULL, NULL, 0, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "run.seed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "edited"));
    free(t);

    /* no config.ini: a run resumes only with its configuration on record */
    CU_ASSERT_FATAL(unlink(path) == 0);
    t = trainer_for(run);
    CU_ASSERT_EQUAL(train_run_config(t, NULL, NULL, 0, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no config.ini"));
    free(t);
}

int main(void) {
    CU_TestInfo tests[] = {{"config_check", test_config_check},
                           {"new_run_takes_sets", test_new_run_takes_sets},
                           {"resume_rules", test_resume_rules},
                           CU_TEST_INFO_NULL};
    return tu_run("train_resume", tests);
}
