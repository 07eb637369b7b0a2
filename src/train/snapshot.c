/* snapshot.c - writing a generation of `rookery train`: its files,
 * manifest.json and metrics row (rank 0; see trainer.h). */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "eval/req.h"
#include "nn/model_io.h"
#include "train/rundir.h"
#include "gen_log.h"
#include "manifest.h"
#include "trainer.h"

int train_write_config(const Trainer *t, const char *dir, RkError *err) {
    char text[16384], path[RUNDIR_PATH_MAX + 64];
    int n = train_config_write(&t->cfg, text, sizeof text);
    if (n < 0) return rk_error(err, "%s/config.ini: the configuration is over %zu bytes (shorten its paths)", dir, sizeof text);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    return rk_write_file_atomic(path, text, (size_t)n, err);
}

int train_write_generation0(Trainer *t, RkError *err) {
    const char *run = t->cfg.output;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64];
    if (rundir_mkdirs(run, err) != 0) return -1;
    if (train_write_config(t, run, err) != 0) return -1;
    if (rundir_begin_generation(run, 0, err) != 0) return -1;
    rundir_gen_path(run, 0, true, dir, sizeof dir);
    if (train_write_config(t, dir, err) != 0) return -1; /* the configuration on record with its generation */
    snprintf(path, sizeof path, "%s/leaves.klv2", dir);
    if (klv_write(&t->leaves.klv, path, err) != 0) return -1;
    RunFile f[4] = {{.name = "leaves.klv2"}, {.name = "config.ini"}};
    int nf = 2;
    if (t->spv.on) {
        f[nf++] = (RunFile){.name = "positional.spv"};
        snprintf(path, sizeof path, "%s/positional.spv", dir);
        if (spv_write(&t->spv.table, path, err) != 0) return -1;
    }
    bool initial_model = t->net.have_model && t->cfg.nn_initial[0];
    if (initial_model) { /* the network's starting point, as loaded by setup_model */
        f[nf++] = (RunFile){.name = "model.h5"};
        snprintf(path, sizeof path, "%s/model.h5", dir);
        if (nn_model_save(&t->net.model, path, &t->engine.ld, err) != 0) return -1;
    }
    if (rundir_describe_files(run, 0, f, nf, err) != 0) return -1;
    GenRecord r;
    if (gen_record_init(&r, err) != 0) return -1;
    rec_int(&r, "generation", NULL, 0);
    rec_uint(&r, "run_seed", NULL, t->cfg.seed);
    rec_string(&r, "lexicon_sha256", t->lexicon_sha256);
    rec_string(&r, "initial_leaves", t->cfg.initial_leaves);
    rec_string(&r, "initial_spv", t->spv.on ? t->cfg.spv_initial : "none");
    rec_string(&r, "initial_model", initial_model ? t->cfg.nn_initial : "none");
    rec_files(&r, f, nf);
    char *manifest = gen_record_finish(&r, err);
    int rc = manifest != NULL ? rundir_commit_generation(run, 0, manifest, NULL, NULL, err) : -1;
    free(manifest);
    gen_record_free(&r);
    return rc;
}

/* The network's figures: metrics columns always (zeros when it did not
 * train), the manifest's "nn" only when it trained. */
static void nn_record(const Trainer *t, GenRecord *r) {
    const NnStageReport *rep = &t->net.rep;
    const NnLossSums *mean = &rep->train.mean;
    double n = mean->samples > 0 ? mean->samples : 1.0;
    const NnEvalReport *e = &rep->eval;
    int64_t steps = t->net.trained ? t->cfg.nn_steps : 0;
    r->to_manifest = t->net.trained;
    int window[2] = {rep->first_gen, rep->last_gen};
    rec_ints(r, "nn.window", window, 2);
    rec_bool(r, NULL, "nn_trained", t->net.trained);
    rec_int(r, "nn.steps", "nn_steps", steps);
    rec_int(r, "nn.train_step", NULL, t->net.model.train_step);
    rec_uint(r, "nn.train_samples", "nn_train_samples", rep->train_samples);
    rec_real(r, "nn.samples_per_s", "nn_samples_per_s", 1, rep->train.samples_per_second);
    rec_real(r, "nn.loss_first", "nn_loss_first", 5, nn_loss_total(&rep->train.first));
    rec_real(r, "nn.loss_last", "nn_loss_last", 5, nn_loss_total(&rep->train.last));
    rec_real(r, "nn.value_loss", "nn_value_loss", 5, (mean->wdl + mean->spread) / n);
    rec_real(r, "nn.policy_loss", "nn_policy_loss", 5, nn_loss_policy(mean));
    rec_real(r, "nn.hidden_loss", "nn_hidden_loss", 5, mean->hidden / n);
    rec_uint(r, "nn.heldout.positions", "nn_heldout_positions", e->positions);
    rec_real(r, "nn.heldout.p_top1", "nn_p_top1", 4, e->p_top1);
    rec_real(r, "nn.heldout.brier", "nn_brier", 5, e->v_brier);
    rec_real(r, "nn.heldout.brier_base", "nn_brier_base", 5, e->v_brier_base);
    rec_real(r, "nn.heldout.spread_rmse", "nn_spread_rmse", 2, e->spread_rmse);
    rec_real(r, "nn.heldout.spread_rmse_base", "nn_spread_rmse_base", 2, e->spread_rmse_base);
    rec_real(r, "nn.heldout.h_nll_per_tile", "nn_h_nll", 4, e->h_nll);
    rec_real(r, "nn.heldout.h_nll_uniform", "nn_h_nll_uniform", 4, e->h_nll_uniform);
    rec_uint(r, "nn.heldout.games", "nn_heldout_games", e->games);
    rec_real(r, "nn.heldout.se.p_top1", "nn_p_top1_se", 4, e->p_top1_se);
    rec_real(r, "nn.heldout.se.brier_diff", "nn_brier_diff_se", 5, e->v_brier_diff_se);
    rec_real(r, "nn.heldout.se.spread_rmse_diff", "nn_spread_rmse_diff_se", 2, e->spread_rmse_diff_se);
    rec_real(r, "nn.heldout.se.h_nll", "nn_h_nll_se", 4, e->h_nll_se);
    rec_real(r, "nn.heldout.se.h_nll_diff", "nn_h_nll_diff_se", 4, e->h_nll_diff_se);
    /* the manifest's alone */
    rec_real(r, "nn.heldout.static_top1", NULL, 4, e->static_top1);
    rec_real(r, "nn.heldout.p_static_top1", NULL, 4, e->p_static_top1);
    rec_real(r, "nn.heldout.p_ce", NULL, 4, e->p_ce);
    rec_real(r, "nn.heldout.static_ce", NULL, 4, e->static_ce);
    rec_real(r, "nn.heldout.static_cand_ce", NULL, 4, e->static_cand_ce);
    rec_real(r, "nn.heldout.p_static_ce", NULL, 4, e->p_static_ce);
    rec_real(r, "nn.heldout.h_nll_tilt", NULL, 4, e->h_nll_tilt);
    rec_real(r, "nn.heldout.se.p_ce", NULL, 4, e->p_ce_se);
    rec_real(r, "nn.heldout.se.brier", NULL, 5, e->v_brier_se);
    rec_real(r, "nn.heldout.se.spread_rmse", NULL, 2, e->spread_rmse_se);
    rec_real(r, "nn.heldout.se.h_nll_tilt_diff", NULL, 4, e->h_nll_tilt_diff_se);
    r->to_manifest = true;
}

/* nn.reference's figures: metrics columns always (zeros when not scored),
 * "nn.reference" in the manifest when scored by a trained network. */
static void reference_record(const Trainer *t, GenRecord *r) {
    const NnEvalReport *e = &t->net.ref_eval;
    r->to_manifest = t->net.trained && t->net.ref_gen > 0;
    rec_string(r, "nn.reference.run", t->net.ref_run);
    rec_int(r, "nn.reference.generation", "ref_generation", t->net.ref_gen);
    rec_uint(r, "nn.reference.positions", "ref_positions", e->positions);
    rec_uint(r, "nn.reference.p_positions", "ref_p_positions", e->p_positions);
    rec_real(r, "nn.reference.p_top1", "ref_p_top1", 4, e->p_top1);
    rec_real(r, "nn.reference.static_top1", "ref_static_top1", 4, e->static_top1);
    rec_real(r, "nn.reference.p_static_top1", "ref_p_static_top1", 4, e->p_static_top1);
    rec_real(r, "nn.reference.p_ce", "ref_p_ce", 4, e->p_ce);
    rec_real(r, "nn.reference.static_cand_ce", "ref_static_cand_ce", 4, e->static_cand_ce);
    rec_real(r, "nn.reference.p_static_ce", "ref_p_static_ce", 4, e->p_static_ce);
    rec_real(r, "nn.reference.brier", "ref_brier", 5, e->v_brier);
    rec_real(r, "nn.reference.brier_base", "ref_brier_base", 5, e->v_brier_base);
    r->to_manifest = true;
}

/* The search loop's figures (the gate, the value check, the anchor, the
 * decision study): metrics columns always, "search" in the manifest when
 * the loop runs. */
static void search_record(const Trainer *t, int gen, const GenReport *rep, GenRecord *r) {
    uint64_t gate_pairs = rep->gate_played ? t->cfg.mcgs_gate_pairs : 0;
    uint64_t anchor_pairs = rep->anchor_played ? t->cfg.mcgs_anchor_pairs : 0;
    uint64_t value_pairs = rep->value_played ? t->cfg.mcgs_value_pairs : 0;
    r->to_manifest = t->search.loop;
    if (t->search.loop) {
        char self_play[TRAIN_SPEC_MAX], gate_a[TRAIN_SPEC_MAX] = "", gate_b[TRAIN_SPEC_MAX] = "";
        train_search_describe(t, rep->model_at_start, rep->rollout_at_start, false, self_play, sizeof self_play);
        if (rep->gate_played) { /* the new model (gen) against the one in force before it */
            train_search_describe(t, gen, rep->rollout_at_start, true, gate_a, sizeof gate_a);
            train_search_describe(t, rep->model_at_start, rep->rollout_at_start, true, gate_b, sizeof gate_b);
        }
        rec_string(r, "search.player", t->cfg.player);
        rec_string(r, "search.self_play", self_play);
        rec_bool(r, "search.value_won", NULL, t->search.value_won);
        rec_int(r, "search.value_checked_model", NULL, t->search.value_checked);
        const char *players[2] = {gate_a, gate_b};
        rec_strings(r, "search.gate.players", players, 2);
        rec_real(r, "search.gate.threshold_pct", NULL, 2, t->cfg.mcgs_gate_threshold);
        rec_real(r, "search.value_check.threshold_pct", NULL, 2, t->cfg.mcgs_value_threshold);
        rec_string(r, "search.anchor.player", t->cfg.mcgs_anchor);
    }
    rec_uint(r, "search.gate.pairs", "gate_pairs", gate_pairs);
    rec_real(r, "search.gate.win_pct", "gate_win_pct", 2, rep->gate.win_pct);
    rec_real(r, "search.gate.ci95_pct", "gate_ci95_pct", 2, rep->gate.ci95_pct);
    rec_bool(r, "search.gate.promoted", "promoted", rep->promoted);
    rec_int(r, "search.model_in_force", "model_in_force", rep->model_in_force);
    rec_uint(r, "search.anchor.pairs", "anchor_pairs", anchor_pairs);
    rec_real(r, "search.anchor.win_pct", "anchor_win_pct", 2, rep->anchor.win_pct);
    rec_real(r, "search.anchor.ci95_pct", "anchor_ci95_pct", 2, rep->anchor.ci95_pct);
    rec_uint(r, "search.value_check.pairs", "value_check_pairs", value_pairs);
    rec_real(r, "search.value_check.win_pct", "value_check_win_pct", 2, rep->value.win_pct);
    rec_real(r, "search.value_check.ci95_pct", "value_check_ci95_pct", 2, rep->value.ci95_pct);
    rec_int(r, "search.leaf_rollout", "leaf_rollout", rep->rollout_in_force);
    r->to_manifest = true;
}

/* The decision study: player 1 the search with the model in force, player
 * 2 the anchor; the gain is the anchor's mean loss minus the search's
 * (points a move, > 0: the net helps). */
static void decisions_record(const Trainer *t, const GenReport *rep, GenRecord *r) {
    DecisionSummary cur, anchor;
    decision_summary(&rep->decisions, 0, &cur);
    decision_summary(&rep->decisions, 1, &anchor);
    r->to_manifest = t->search.loop;
    rec_int(r, "search.decisions.positions", "decisions_positions", rep->decisions_played ? rep->decisions.positions : 0);
    rec_real(r, "search.decisions.loss", "decisions_loss", 4, cur.mean_loss);
    rec_real(r, "search.decisions.loss_se", NULL, 4, cur.loss_se);
    rec_real(r, "search.decisions.anchor_loss", "decisions_anchor_loss", 4, anchor.mean_loss);
    rec_real(r, "search.decisions.anchor_loss_se", NULL, 4, anchor.loss_se);
    rec_real(r, "search.decisions.gain", "decisions_gain", 4, anchor.diff);
    rec_real(r, "search.decisions.gain_se", "decisions_gain_se", 4, anchor.diff_se);
    r->to_manifest = true;
}

/* The generation's own figures: play, leaves, SPV, the held-out
 * residuals, the matches. */
static void play_record(const Trainer *t, int gen, const GenReport *rep, const GenTimes *tm, GenRecord *r) {
    const GenerationTotals *tot = &rep->tot;
    double games = (double)tot->games;
    rec_int(r, "generation", "generation", gen);
    rec_uint(r, "run_seed", NULL, t->cfg.seed);
    rec_string(r, "lexicon_sha256", t->lexicon_sha256);
    char game_seed[96];
    snprintf(game_seed, sizeof game_seed, "game i of this generation is seeded from (run_seed, %d, i)", gen);
    rec_string(r, "game_seed", game_seed);
    rec_int(r, "games", "games", tot->games);
    rec_int(r, "turns", "turns", tot->turns);
    rec_int(r, "ranks", "ranks", t->comm.size);
    rec_real(r, "games_per_s", "games_per_s", 2, tm->play > 0 ? games / tm->play : 0.0);
    rec_real(r, "timings_s.wall", "wall_s", 3, tm->wall);
    rec_real(r, "timings_s.play", "play_s", 3, tm->play);
    rec_real(r, "timings_s.reduce", "reduce_s", 3, tm->reduce);
    rec_real(r, "timings_s.derive", "derive_s", 3, tm->derive);
    rec_real(r, "timings_s.write", "write_s", 3, tm->write);
    rec_real(r, "timings_s.evaluate", NULL, 3, tm->evaluate);
    double mean_eq = tot->observations ? (double)tot->equity_sum / 1000.0 / (double)tot->observations : 0.0;
    rec_real(r, "mean_best_equity", "mean_best_equity", 4, mean_eq);
    rec_real(r, NULL, "mean_final_score", 2, games > 0 ? (double)tot->score_sum / (2.0 * games) : 0.0);
    rec_real(r, NULL, "bingos_per_game", 3, games > 0 ? (double)tot->bingos / games : 0.0);
    rec_uint(r, "racks_observed", "racks_observed", rep->info.racks_observed);
    rec_real(r, "baseline", "baseline", 4, rep->info.baseline);
    rec_real(r, "leave_change_rms", "leave_change_rms", 5, rep->change_rms);
    rec_int(r, "forced_games", "forced_games", tot->forced_games);
    rec_int(r, "forced_observations", "forced_observations", tot->forced_observations);
    rec_int(r, "observations", NULL, tot->observations);
    rec_int(r, "sampled_observations", NULL, tot->sampled_observations);
    rec_uint(r, "match_vs_zero_leaves.pairs", "match_pairs", t->cfg.match_pairs);
    rec_real(r, "match_vs_zero_leaves.win_pct", "match_win_pct", 2, rep->match.win_pct);
    rec_real(r, "match_vs_zero_leaves.ci95_pct", "match_ci95_pct", 2, rep->match.ci95_pct);
    rec_bool(r, "leaves_trained", "leaves_trained", rep->leaves_trained);
    rec_bool(r, "spv_trained", "spv_trained", rep->spv_trained);
    rec_string(r, "spv.schedule", train_config_schedule_name(t->cfg.spv_schedule));
    rec_bool(r, "spv.use", NULL, t->cfg.spv_use);
    rec_real(r, "spv.k", NULL, 6, t->cfg.spv_k);
    rec_uint(r, "spv.cells_observed", "spv_cells_observed", rep->spv_info.cells_observed);
    rec_uint(r, "spv.tile_observations", NULL, rep->spv_info.observations);
    rec_real(r, "spv.mean_abs", "spv_mean_abs", 5, rep->spv_info.mean_abs);
    rec_real(r, "spv.prior_mean_1", NULL, 5, rep->spv_info.prior_mean[1]);
    rec_real(r, "spv.prior_var_1", NULL, 5, rep->spv_info.prior_var[1]);
    char mult[SPV_MAX_OPENNESS * 8 + 1] = "";
    for (uint32_t o = 0, off = 0; o < t->spv.derived.num_openness; o++)
        off += (uint32_t)snprintf(mult + off, sizeof mult - off, "%s%.2f", o ? " " : "", t->spv.derived.openness[o]);
    rec_string(r, "spv.openness_multipliers", mult);
    rec_int(r, "heldout.moves", "heldout_moves", rep->heldout.moves);
    rec_real(r, "heldout.resid_var", "resid_var", 4, residual_stats_variance(&rep->heldout, false));
    rec_real(r, "heldout.resid_var_spv", "resid_var_spv", 4, residual_stats_variance(&rep->heldout, true));
    rec_uint(r, "match_spv_on_vs_off.pairs", "spv_match_pairs", rep->spv_match_pairs);
    rec_real(r, "match_spv_on_vs_off.win_pct", "spv_match_win_pct", 2, rep->spv_match.win_pct);
    rec_real(r, "match_spv_on_vs_off.ci95_pct", "spv_match_ci95_pct", 2, rep->spv_match.ci95_pct);
    rec_uint(r, "samples", "samples", t->shard_files.samples);
}

int train_write_generation(Trainer *t, int gen, const GenReport *rep, GenTimes *tm, RkError *err) {
    double t0 = rk_seconds();
    const char *run = t->cfg.output;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64];
    if (!t->gen_begun && rundir_begin_generation(run, gen, err) != 0) return -1;
    rundir_gen_path(run, gen, true, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/leaves.klv2", dir);
    if (klv_write(&t->leaves.klv, path, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/racks.req", dir);
    if (req_write_accum(path, &t->leaves.racks, &t->leaves.acc, err) != 0) return -1;
    snprintf(path, sizeof path, "%s/positional.spv", dir);
    if (t->spv.on && spv_write(&t->spv.table, path, err) != 0) return -1;
    if (train_write_config(t, dir, err) != 0) return -1; /* the configuration this generation was made with */
    RunFile files[5 + SHARD_GATHER_MAX_FILES] = {{.name = "leaves.klv2"}, {.name = "racks.req"}, {.name = "config.ini"}};
    int nfiles = 3;
    if (t->spv.on) snprintf(files[nfiles++].name, sizeof files[0].name, "positional.spv");
    for (int i = 0; i < t->shard_files.count; i++)
        snprintf(files[nfiles++].name, sizeof files[0].name, "%s", t->shard_files.name[i]);
    if (t->net.trained) snprintf(files[nfiles++].name, sizeof files[0].name, "model.h5");
    if (rundir_describe_files(run, gen, files, nfiles, err) != 0) return -1;
    tm->write = rk_seconds() - t0; /* the data files; the manifest follows */
    tm->wall += tm->write;
    /* the record: metrics.csv's columns in their order (see manifest.h) */
    GenRecord *r = malloc(sizeof *r);
    if (r == NULL) return rk_error(err, "out of memory for a generation's record");
    if (gen_record_init(r, err) != 0) {
        free(r);
        return -1;
    }
    play_record(t, gen, rep, tm, r);
    nn_record(t, r);
    search_record(t, gen, rep, r);
    reference_record(t, r);
    decisions_record(t, rep, r);
    rec_files(r, files, nfiles);
    char *manifest = gen_record_finish(r, err);
    int rc = manifest != NULL ? rundir_commit_generation(run, gen, manifest, r->row.header, r->row.row, err) : -1;
    if (rc == 0) { /* the log's summary of the generation, from the same record */
        char line[1024];
        gen_log_done(r->root, line, sizeof line);
        SAY(t, "%s", line);
        if (t->spv.on) {
            gen_log_spv(r->root, line, sizeof line);
            SAY(t, "%s", line);
        }
    }
    free(manifest);
    gen_record_free(r);
    free(r);
    return rc;
}
