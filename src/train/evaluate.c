/* evaluate.c - what a generation of `rookery train` measures of its
 * new tables (held-out residuals, matches) and the network's stage (see
 * trainer.h). Every function here is collective. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/rundir.h"
#include "reducer/totals_sum.h"
#include "trainer.h"

int train_play_match(Trainer *t, const Player *a, const Player *b, uint64_t pairs, uint64_t seed, MatchResult *r) {
    memset(r, 0, sizeof *r);
    if (pairs == 0) return 0;
    MatchTotals m;
    memset(&m, 0, sizeof m);
    for (uint64_t i = (uint64_t)t->comm.rank; i < pairs; i += (uint64_t)t->comm.size)
        match_play_pair(a, b, &t->engine.ld, &t->engine.layout, &t->engine.kwg, seed, i, t->game, &m);
    RkError err;
    if (totals_sum_match(&t->comm, &m, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    match_result(&m, r);
    return 0;
}

/* The new leaves against zero leaves (match.pairs), and with the new SPV
 * table against without it (spv.match_pairs). */
int train_evaluation_matches(Trainer *t, GenReport *rep) {
    Player leaves, zero, with_spv;
    RkError err;
    /* every rank opens the three or none plays (the matches are collective) */
    bool l = player_open_static(&leaves, "new leaves", &t->leaves.klv, NULL, t->cfg.spv_k, &err) == 0;
    bool z = player_open_static(&zero, "zero leaves", NULL, NULL, t->cfg.spv_k, &err) == 0;
    bool w = player_open_static(&with_spv, "new leaves with SPV", &t->leaves.klv, &t->spv.table, t->cfg.spv_k, &err) == 0;
    if (!(l && z && w)) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
    int rc = agree(t, !(l && z && w));
    uint64_t seed = match_deals_seed(t->cfg.seed, MATCH_DEALS_RUN, 0);
    if (rc == 0) rc = train_play_match(t, &leaves, &zero, t->cfg.match_pairs, seed, &rep->match);
    if (rc == 0 && t->spv.on && t->cfg.spv_match_pairs > 0) {
        rep->spv_match_pairs = t->cfg.spv_match_pairs;
        rc = train_play_match(t, &with_spv, &leaves, t->cfg.spv_match_pairs, seed, &rep->spv_match);
    }
    if (l) player_close(&leaves);
    if (z) player_close(&zero);
    if (w) player_close(&with_spv);
    return rc != 0 ? 1 : 0;
}

/* Residual variance on held-out games played with the new tables, without
 * and with the new SPV table's adjustment. */
int train_heldout_residuals(Trainer *t, int gen, ResidualStats *st) {
    memset(st, 0, sizeof *st);
    if (!t->spv.on || t->cfg.spv_heldout_games == 0) return 0;
    SelfplayConfig play = {.ld = &t->engine.ld,
                           .layout = &t->engine.layout,
                           .kwg = &t->engine.kwg,
                           .leave_value = klv_leave_value,
                           .leave_ctx = &t->leaves.klv,
                           .spv = t->cfg.spv_use ? &t->spv.table : NULL,
                           .spv_k = t->cfg.spv_k,
                           .seed = t->cfg.seed,
                           .generation = HELDOUT_GENERATION(gen)};
    for (uint64_t i = (uint64_t)t->comm.rank; i < t->cfg.spv_heldout_games; i += (uint64_t)t->comm.size)
        generation_play_heldout(&play, &t->spv.table, t->cfg.spv_k, t->cfg.spv_target, i, t->game, t->res, st);
    RkError err;
    if (totals_sum_residuals(&t->comm, st, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    return 0;
}

NnStageOptions train_nn_stage_options(const TrainConfig *cfg) {
    return (NnStageOptions){.window = cfg->nn_window,
                            .steps = cfg->nn_steps,
                            .batch = cfg->nn_batch,
                            .chunks = cfg->nn_chunks,
                            .lr = cfg->nn_lr,
                            .weight_decay = cfg->nn_weight_decay,
                            .loss = train_config_loss_options(cfg),
                            .seed = cfg->seed,
                            .heldout_every = cfg->nn_heldout_every,
                            .eval_positions = cfg->nn_eval_positions,
                            .progress_seconds = cfg->progress_seconds};
}

int train_played_leaves(const char *run, int gen, const LetterDist *ld, Klv *k, bool *have, RkError *err) {
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 16];
    *have = false;
    rundir_gen_path(run, gen - 1, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/leaves.klv2", dir);
    if (access(path, F_OK) != 0) return 0;
    if (klv_load(k, path, ld, err) != 0) return -1;
    *have = true;
    return 0;
}

int train_reference_of(const char *spec, char *run, size_t cap, RkError *err) {
    const char *colon = strrchr(spec, ':');
    bool has_gen = colon != NULL && colon[1] != '\0';
    for (const char *c = colon ? colon + 1 : ""; has_gen && *c; c++) has_gen = isdigit((unsigned char)*c) != 0;
    size_t n = has_gen ? (size_t)(colon - spec) : strlen(spec);
    if (n == 0 || n >= cap) return rk_error(err, "nn.reference %s: expected RUN or RUN:G", spec);
    memcpy(run, spec, n);
    run[n] = '\0';
    int latest = rundir_latest(run, err);
    if (latest == -1 || latest == 0) return rk_error(err, "nn.reference %s: no complete generation in %s", spec, run);
    if (latest < 0) return -1;
    if (!has_gen) return latest;
    long g = strtol(colon + 1, NULL, 10);
    if (g < 1 || g > latest) return rk_error(err, "nn.reference %s: %s has generations 1..%d", spec, run, latest);
    return (int)g;
}

/* nn.reference: the new model scored on another run's generation, whose
 * games it never saw (rank 0 scores, every rank agrees on the status). */
static int reference_eval(Trainer *t, int gen) {
    RkError err;
    int status = 0, rgen = 0;
    char run[TRAIN_PATH_MAX] = "";
    NnEvalReport e;
    memset(&e, 0, sizeof e);
    if (t->comm.rank == 0) {
        Klv klv;
        bool have_klv = false;
        NnFeatureContext fc = t->net.fc;
        if ((rgen = train_reference_of(t->cfg.nn_reference, run, sizeof run, &err)) < 0) status = 1;
        if (status == 0 && train_played_leaves(run, rgen, &t->engine.ld, &klv, &have_klv, &err) != 0) status = 1;
        if (have_klv) nn_feature_context_leaves(&fc, klv_leave_value, &klv);
        else if (status == 0) /* checked at start: removed since */
            fprintf(stderr, "rookery: warning: nn.reference: %s/gen-%04d/leaves.klv2 is gone; scored with this run's "
                            "leaves\n", run, rgen - 1);
        if (status == 0 && nn_stage_evaluate(run, rgen, t->cfg.nn_heldout_every, t->cfg.nn_eval_positions, &fc,
                                             &t->net.model, have_klv ? klv_leave_value : NULL, have_klv ? &klv : NULL,
                                             &e, &err) != 0)
            status = 1;
        if (have_klv) klv_free(&klv);
        if (status) fprintf(stderr, "rookery: %s\n", err.msg);
    }
    if (comm_max_i64(&t->comm, status) != 0) return 1;
    t->net.ref_gen = rgen; /* into the manifest and metrics.csv (rank 0 writes them; rgen >= 1 there) */
    t->net.ref_eval = e;
    snprintf(t->net.ref_run, sizeof t->net.ref_run, "%s", run);
    SAY(t,
        "gen %d reference (%s generation %d, %" PRIu64 " positions, %" PRIu64 " with a P target): P top-1 %.1f%% "
        "(static %.1f%%, P x static %.1f%%), P cross-entropy %.3f (static over the top %d %.3f, P x static %.3f), "
        "Brier %.4f (baseline %.4f)",
        gen, run, rgen, e.positions, e.p_positions, 100.0 * e.p_top1, 100.0 * e.static_top1, 100.0 * e.p_static_top1,
        e.p_ce, NN_EVAL_CANDIDATES, e.static_cand_ce, e.p_static_ce, e.v_brier, e.v_brier_base);
    return 0;
}

/* The network's stage: trains the model in force on the window of shards
 * (this generation's included) and writes gen-NNNN.tmp/model.h5. */
int train_nn_generation(Trainer *t, int gen) {
    RkError err;
    char dir[RUNDIR_PATH_MAX], out[RUNDIR_PATH_MAX + 16];
    rundir_gen_path(t->cfg.output, gen, true, dir, sizeof dir);
    snprintf(out, sizeof out, "%s/model.h5", dir);
    NnStageOptions o = train_nn_stage_options(&t->cfg);
    o.leave_value = klv_leave_value; /* this generation's leaves, just derived: P's static baselines */
    o.leave_ctx = &t->leaves.klv;
    int rc = nn_stage_run(&t->comm, t->cfg.output, gen, dir, &o, &t->net.fc, &t->net.model, out, &t->net.rep, &err);
    if (rc != 0) {
        if (rc == -1 || t->comm.rank == 0) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
        return 1;
    }
    t->net.trained = true;
    const NnStageReport *r = &t->net.rep;
    const NnEvalReport *e = &r->eval;
    SAY(t,
        "gen %d nn: %" PRId64 " steps on %" PRIu64 " samples (gens %d-%d), loss %.3f -> %.3f, %.0f samples/s; "
        "held-out %" PRIu64 " positions of %" PRIu64 " games (+/-: standard errors over games): P top-1 %.1f%% +/- %.1f "
        "(static %.1f%%, P x static %.1f%%), P cross-entropy %.3f (static %.3f, static over the top %d %.3f, P x static "
        "%.3f), Brier %.4f (baseline %.4f, difference %+.4f +/- %.4f), spread rmse %.1f (baseline %.1f, difference "
        "%+.2f +/- %.2f), H %.3f nats/tile (uniform %.3f, difference %+.3f +/- %.3f; tilted draw %.3f, difference %+.3f +/- %.3f); load %.1f s, train %.1f s, "
        "eval %.1f s",
        gen, t->cfg.nn_steps, r->train_samples, r->first_gen, r->last_gen, nn_loss_total(&r->train.first),
        nn_loss_total(&r->train.last), r->train.samples_per_second, e->positions, e->games, 100.0 * e->p_top1,
        100.0 * e->p_top1_se, 100.0 * e->static_top1, 100.0 * e->p_static_top1, e->p_ce, e->static_ce, NN_EVAL_CANDIDATES,
        e->static_cand_ce, e->p_static_ce, e->v_brier, e->v_brier_base, e->v_brier - e->v_brier_base, e->v_brier_diff_se,
        e->spread_rmse, e->spread_rmse_base, e->spread_rmse - e->spread_rmse_base, e->spread_rmse_diff_se, e->h_nll,
        e->h_nll_uniform, e->h_nll - e->h_nll_uniform, e->h_nll_diff_se, e->h_nll_tilt, e->h_nll - e->h_nll_tilt,
        e->h_nll_tilt_diff_se, r->load_s, r->train_s, r->eval_s);
    return t->cfg.nn_reference[0] ? reference_eval(t, gen) : 0;
}
