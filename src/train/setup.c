/* setup.c - what every rank loads before the first generation: the engine
 * (lexicon, layout, distribution), the rack table and accumulators, the
 * leaves and SPV table in force, the self-play players, the network; a new
 * run's gen-0000. And the teardown that frees it all. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sha256.h"
#include "nn/blas_core.h"
#include "nn/model_io.h"
#include "trainer.h"

/* --------------------------------------------- self-play threads (run.threads) */

static int helpers_init(Trainer *t) {
    int n = t->cfg.threads - 1;
    if (n <= 0) return 0;
    t->helpers = calloc((size_t)n, sizeof *t->helpers);
    if (t->helpers == NULL) return 1;
    for (int j = 0; j < n; j++) {
        TrainHelper *h = &t->helpers[j];
        shardset_init(&h->samples);
        samples_init(&h->recorder, &h->samples, t->cfg.nn_temperature, t->cfg.nn_top, klv_leave_value, &t->leaves.klv);
    }
    return 0;
}

static void helpers_free(Trainer *t) {
    if (t->helpers == NULL) return;
    for (int j = 0; j < t->cfg.threads - 1; j++) {
        TrainHelper *h = &t->helpers[j];
        if (h->have_player) player_close(&h->player);
        samples_free(&h->recorder);
        shardset_free(&h->samples);
    }
    free(t->helpers);
    t->helpers = NULL;
}

int train_player_open(Trainer *t, Player *p, const char *spec, RkError *err) {
    if (player_open(p, spec, &t->engine.ld, err) != 0) return -1;
    if (player_check_board(p, t->engine.layout.dim, err) != 0) {
        player_close(p);
        return -1;
    }
    player_lend_leaves(p, &t->leaves.klv);
    return 0;
}

int train_open_helper_players(Trainer *t, const char *spec) {
    for (int j = 0; j < t->cfg.threads - 1; j++) {
        TrainHelper *h = &t->helpers[j];
        if (h->have_player) player_close(&h->player);
        RkError err;
        h->have_player = train_player_open(t, &h->player, spec, &err) == 0;
        if (!h->have_player) {
            fprintf(stderr, "rookery: rank %d: player of thread %d: %s\n", t->comm.rank, j + 1, err.msg);
            return 1;
        }
    }
    return 0;
}

/* The SPV table in force: the last complete generation's positional.spv
 * (a zero table if that generation has none: a run from before SPV), or
 * spv.initial. It must have the board's squares, SPV_DEFAULT_BUCKETS buckets
 * and a variance table; its multipliers are kept if it has
 * SPV_DEFAULT_OPENNESS of them (else they start at 1). */
static int load_spv(Trainer *t, int latest, RkError *err) {
    char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    const char *src = NULL;
    if (latest >= 0) {
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/positional.spv", dir);
        if (access(path, F_OK) == 0) src = path;
    } else if (strcmp(t->cfg.spv_initial, "zero") != 0) {
        src = t->cfg.spv_initial;
    }
    uint32_t squares = (uint32_t)(t->engine.layout.dim * t->engine.layout.dim);
    if (spv_init_zero(&t->spv.table, squares, SPV_DEFAULT_BUCKETS, SPV_DEFAULT_OPENNESS, true, err) != 0) return -1;
    if (src == NULL) return 0;
    Spv in;
    if (spv_load(&in, src, err) != 0) return -1;
    int rc = spv_check_board(&in, t->engine.layout.dim, src, err);
    if (rc == 0 && in.num_buckets != SPV_DEFAULT_BUCKETS)
        rc = rk_error(err, "%s: %u buckets; training uses %d (face values 0..10)", src, in.num_buckets,
                      SPV_DEFAULT_BUCKETS);
    if (rc == 0) {
        size_t cells = (size_t)squares * SPV_DEFAULT_BUCKETS;
        memcpy(t->spv.table.mean, in.mean, cells * sizeof(float));
        if (in.var) memcpy(t->spv.table.var, in.var, cells * sizeof(float));
        if (in.num_openness == SPV_DEFAULT_OPENNESS) memcpy(t->spv.table.openness, in.openness, sizeof in.openness);
    }
    spv_free(&in);
    return rc;
}

/* The model the trainer continues: the last complete generation's model.h5
 * (gen-0000's is nn.initial's copy), else nn.initial's for a new run, else a
 * new one of the configured architecture (seeded from the run seed). A loaded
 * model keeps its own architecture. */
static int setup_model(Trainer *t, int latest, RkError *err) {
    if (!t->cfg.nn_shards) return rk_error(err, "nn.train = yes needs nn.shards = yes (the trainer learns from shards)");
    nn_feature_context(&t->net.fc, &t->engine.ld, &t->engine.layout, &t->engine.kwg);
    nn_feature_context_leaves(&t->net.fc, klv_leave_value, &t->leaves.klv); /* the leaves in force, for nn.prior = equity */
    char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
    path[0] = 0;
    if (latest >= 0) {
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/model.h5", dir);
        if (access(path, F_OK) != 0) path[0] = 0;
    }
    bool initial = latest < 0 && t->cfg.nn_initial[0];
    if (initial) snprintf(path, sizeof path, "%s", t->cfg.nn_initial);
    int rc = path[0] ? nn_model_load(&t->net.model, path, &t->engine.ld, t->engine.layout.dim, err)
                     : nn_model_init(&t->net.model, &t->cfg.nn_arch, &t->engine.ld, t->engine.layout.dim,
                                     t->cfg.seed ^ UINT64_C(0x6d6f64656c), err);
    if (rc != 0) return -1;
    t->net.have_model = true;
    NnLossOptions lo = train_config_loss_options(&t->cfg);
    if (nn_loss_options_check(&lo, &t->net.model, err) != 0) return -1; /* before any game is played */
    char ref_run[TRAIN_PATH_MAX];
    int ref_gen = t->cfg.nn_reference[0] ? train_reference_of(t->cfg.nn_reference, ref_run, sizeof ref_run, err) : 0;
    if (ref_gen < 0) return -1;
    if (ref_gen > 0) { /* the leaves its games were played with, which its scores need */
        char ref_dir[RUNDIR_PATH_MAX], leaves[RUNDIR_PATH_MAX + 16];
        rundir_gen_path(ref_run, ref_gen - 1, false, ref_dir, sizeof ref_dir);
        snprintf(leaves, sizeof leaves, "%s/leaves.klv2", ref_dir);
        if (access(leaves, R_OK) != 0)
            return rk_error(err, "nn.reference %s: %s, the leaves its games were played with, is missing (pruned by "
                                 "run.keep?)", t->cfg.nn_reference, leaves);
    }
    if (initial)
        SAY(t, "model: starts from nn.initial = %s (step %" PRId64 ", %d channels x %d blocks, prior %s, %zu "
               "parameters; it guides the search once a model trained from it wins its gate)",
            path, t->net.model.train_step, t->net.model.arch.channels, t->net.model.arch.blocks,
            t->net.model.arch.prior_equity ? "equity" : "score", t->net.model.params.total);
    else if (path[0])
        SAY(t, "model: %s (step %" PRId64 ", %zu parameters)%s", path, t->net.model.train_step, t->net.model.params.total,
            t->cfg.nn_initial[0] ? "; nn.initial applies to a new run only" : "");
    else
        SAY(t, "model: new, %d channels x %d blocks, embed %d, heads %d, H %d tile(s) a step (%zu parameters)%s",
            t->net.model.arch.channels, t->net.model.arch.blocks, t->net.model.arch.embed, t->net.model.arch.head_hidden,
            t->net.model.arch.h_tiles, t->net.model.params.total,
            t->cfg.nn_initial[0] ? "; nn.initial applies to a new run only" : "");
    return 0;
}

/* The set-up each rank does alone, before any collective: the engine, the
 * rack table and the accumulators. Returns 0 or an exit code. */
static int setup_alone(Trainer *t) {
    RkError err;
    if (engine_open(&t->engine, t->cfg.ld, t->cfg.layout, train_config_lexicon_path(&t->cfg), t->cfg.lexicon, &err) !=
        0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    if (racktable_build(&t->leaves.racks, &t->engine.ld, RK_RACK_SIZE, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    t->spv.on = t->cfg.spv_schedule != SPV_SCHEDULE_OFF;
    int dim = t->engine.layout.dim;
    uint32_t squares = (uint32_t)(dim * dim);
    size_t racks_words = 2 * (size_t)t->leaves.racks.num_racks;
    size_t spv_words =
        t->spv.on ? spv_accum_words(SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, squares, SPV_DEFAULT_BUCKETS) : 0;
    t->reduce_words = racks_words + spv_words + GENERATION_TOTALS_FIELDS;
    t->reduce_buf = calloc(t->reduce_words, sizeof t->reduce_buf[0]);
    t->res = malloc(sizeof *t->res);
    if (t->reduce_buf == NULL || t->res == NULL) {
        fprintf(stderr, "rookery: out of memory for the accumulators (%zu words)\n", t->reduce_words);
        return 1;
    }
    rack_accum_init_in(&t->leaves.acc, t->leaves.racks.num_racks, t->reduce_buf);
    if (t->spv.on &&
        (spv_accum_init(&t->spv.acc, SPV_DEFAULT_OPENNESS, SPV_DEFAULT_PHASES, squares, SPV_DEFAULT_BUCKETS,
                        t->reduce_buf + racks_words, &err) != 0 ||
         spv_init_zero(&t->spv.derived, squares, SPV_DEFAULT_BUCKETS, SPV_DEFAULT_OPENNESS, true, &err) != 0)) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* The last complete generation (-1: none, a new run), found and verified by rank 0 (which
 * also hashes the lexicon) and broadcast; 0, or an exit code after a one-line error. */
static int find_latest(Trainer *t, int *latest) {
    RkError err;
    *latest = -1;
    if (t->comm.rank == 0) {
        *latest = rundir_latest(t->cfg.output, &err);
        if (*latest == -2) {
            fprintf(stderr, "rookery: %s\n", err.msg);
        } else if (sha256_file(t->engine.lexicon_path, t->lexicon_sha256, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            *latest = -2;
        } else if (*latest >= 0 && train_verify_resume(t, *latest, &err) != 0) {
            fprintf(stderr, "rookery: cannot resume: %s\n", err.msg);
            *latest = -2;
        }
    }
    if (comm_bcast(&t->comm, latest, sizeof *latest, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    if (*latest == -2) return 2;
    return 0;
}

/* Loads the leaves in force: generation latest's when resuming, else leaves.initial;
 * 0, or an exit code (every rank's) after a one-line error. */
static int load_leaves(Trainer *t, int latest) {
    RkError err;
    int rc = 0;
    if (latest >= 0) {
        char path[RUNDIR_PATH_MAX + 64], dir[RUNDIR_PATH_MAX];
        rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
        snprintf(path, sizeof path, "%s/leaves.klv2", dir);
        rc = klv_load(&t->leaves.klv, path, &t->engine.ld, &err);
        SAY(t, "resuming %s from gen-%04d (verified)", t->cfg.output, latest);
    } else if (strcmp(t->cfg.initial_leaves, "zero") == 0) {
        rc = klv_init_zero(&t->leaves.klv, &t->engine.ld, &err);
    } else {
        rc = klv_load(&t->leaves.klv, t->cfg.initial_leaves, &t->engine.ld, &err);
    }
    if (agree(t, rc != 0) != 0) {
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* Opens run.player's self-play players (the search's for mcgs, none for static); 0, or an
 * exit code (every rank's). */
static int setup_players(Trainer *t, int latest) {
    RkError err;
    int rc;
    if (strncmp(t->cfg.player, "mcgs", 4) == 0) {
        rc = train_search_setup(t, latest);
        if (rc != 0) return rc;
    } else if (strcmp(t->cfg.player, "static") != 0) {
        rc = train_player_open(t, &t->player, t->cfg.player, &err);
        if (rc != 0) fprintf(stderr, "rookery: run.player: %s\n", err.msg);
        t->have_player = rc == 0; /* closed at exit even if another rank failed */
        if (rc == 0) rc = train_open_helper_players(t, t->cfg.player);
        if (agree(t, rc != 0) != 0) return 2;
    }
    return 0;
}

/* Where the run starts: with --check, rank 0 checks the room it needs and a new run is only
 * announced; else a new run (latest < 0) gets its gen-0000 written and *latest becomes 0.
 * 0, or an exit code (every rank's). */
static int prepare_start(Trainer *t, int *latest) {
    RkError err;
    if (t->check_only) {
        int bad = 0;
        if (t->comm.rank == 0 && train_check_room(t, *latest, &err) != 0) {
            fprintf(stderr, "rookery: check: %s\n", err.msg);
            bad = 2;
        }
        if (agree(t, bad) != 0) return 2;
    }
    if (*latest < 0 && t->check_only) {
        SAY(t, "check: a new run %s would start from %s leaves", t->cfg.output, t->cfg.initial_leaves);
    } else if (*latest < 0) {
        int status = 0;
        if (t->comm.rank == 0 && train_write_generation0(t, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            status = 1;
        }
        if (agree(t, status) != 0) return 1;
        *latest = 0;
        SAY(t, "new run %s: gen-0000 written (%s leaves)", t->cfg.output, t->cfg.initial_leaves);
    }
    return 0;
}

/* Loads everything every rank needs; returns 0 or an exit code. A failure
 * on one rank (a file it cannot read, memory) stops every rank. */
int train_setup(Trainer *t, int *start_gen) {
    double t0 = rk_seconds();
    int alone = setup_alone(t), worst = agree(t, alone);
    if (worst != 0) {
        if (alone == 0 && t->comm.rank == 0)
            fprintf(stderr, "rookery: another rank failed to set up (its own error is in the log)\n");
        return alone != 0 ? alone : worst;
    }
    RkError err;
    /* the generation to resume from, then the leaves in force: its, or the initial ones */
    int latest;
    int rc = find_latest(t, &latest);
    if (rc != 0) return rc;
    rc = load_leaves(t, latest);
    if (rc != 0) return rc;
    if (t->spv.on) {
        rc = load_spv(t, latest, &err);
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        if (agree(t, rc != 0) != 0) return 2;
    }
    rc = leave_deriver_init(&t->leaves.deriver, &t->leaves.racks, &t->leaves.klv.kwg, &err);
    if (rc != 0) fprintf(stderr, "rookery: leaves: %s\n", err.msg);
    if (agree(t, rc != 0) != 0) return 2;
    int no_helpers = helpers_init(t) != 0;
    if (no_helpers) fprintf(stderr, "rookery: rank %d: out of memory for %d self-play threads\n", t->comm.rank, t->cfg.threads);
    if (agree(t, no_helpers) != 0) return 1;
    rc = setup_players(t, latest);
    if (rc != 0) return rc;
    if (t->cfg.nn_train) {
        rc = setup_model(t, latest, &err);
        if (rc != 0) fprintf(stderr, "rookery: %s\n", err.msg);
        if (agree(t, rc != 0) != 0) return 2;
    }
    shardset_init(&t->samples);
    samples_init(&t->recorder, &t->samples, t->cfg.nn_temperature, t->cfg.nn_top, klv_leave_value, &t->leaves.klv);
    t->leaves.new_values = malloc(t->leaves.klv.count * sizeof(float));
    t->game = malloc(sizeof *t->game);
    bool no_memory = !t->leaves.new_values || !t->game;
    if (no_memory) fprintf(stderr, "rookery: rank %d: out of memory\n", t->comm.rank);
    if (agree(t, no_memory) != 0) return 1;
    rc = prepare_start(t, &latest);
    if (rc != 0) return rc;
    SAY(t, "%d rank(s); %" PRIu64 " racks, %u leaves; OpenBLAS core %s; setup %.2f s", t->comm.size,
        t->leaves.racks.num_racks, t->leaves.klv.count, blas_core_name(), rk_seconds() - t0);
    *start_gen = (latest < 0 ? 0 : latest) + 1;
    return 0;
}


void train_teardown(Trainer *t) {
    helpers_free(t);
    free(t->game);
    samples_free(&t->recorder);
    shardset_free(&t->samples);
    if (t->net.have_model) nn_model_free(&t->net.model);
    free(t->leaves.new_values);
    leave_deriver_free(&t->leaves.deriver);
    rack_accum_free(&t->leaves.acc);
    if (t->have_player) player_close(&t->player);
    spv_accum_free(&t->spv.acc);
    spv_free(&t->spv.table);
    spv_free(&t->spv.derived);
    free(t->reduce_buf);
    free(t->res);
    if (t->leaves.delta.n) rack_accum_free(&t->leaves.delta);
    klv_free(&t->leaves.klv);
    racktable_free(&t->leaves.racks);
    engine_close(&t->engine);
}
