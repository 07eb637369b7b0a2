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
#include "metrics_row.h"
#include "trainer.h"

/* The "files" members of a manifest, one line each. */
static void manifest_files(char *buf, size_t cap, const RunFile *f, int n) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "    \"%s\": {\"bytes\": %" PRIu64 ", \"sha256\": \"%s\"}%s\n",
                                f[i].name, f[i].bytes, f[i].sha256, i + 1 < n ? "," : "");
}

int train_write_config(const Trainer *t, const char *dir, RkError *err) {
    char text[16384], path[RUNDIR_PATH_MAX + 64];
    int n = train_config_write(&t->cfg, text, sizeof text);
    if (n < 0) return rk_error(err, "%s/config.ini: the configuration is over %zu bytes (shorten its paths)", dir, sizeof text);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    return rk_write_file_atomic(path, text, (size_t)n, err);
}

int train_write_generation0(Trainer *t, RkError *err) {
    const char *run = t->cfg.output;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 64], text[16384];
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
    char files[1280], leaves[2 * TRAIN_PATH_MAX], spv[2 * TRAIN_PATH_MAX], model[2 * TRAIN_PATH_MAX];
    manifest_files(files, sizeof files, f, nf);
    snprintf(text, sizeof text,
             "{\n  \"generation\": 0,\n  \"run_seed\": %" PRIu64 ",\n  \"lexicon_sha256\": \"%s\",\n"
             "  \"initial_leaves\": \"%s\",\n"
             "  \"initial_spv\": \"%s\",\n  \"initial_model\": \"%s\",\n  \"files\": {\n%s  }\n}\n",
             t->cfg.seed, t->lexicon_sha256, rk_json_escape(t->cfg.initial_leaves, leaves, sizeof leaves),
             rk_json_escape(t->spv.on ? t->cfg.spv_initial : "none", spv, sizeof spv),
             rk_json_escape(initial_model ? t->cfg.nn_initial : "none", model, sizeof model), files);
    return rundir_commit_generation(run, 0, text, NULL, NULL, err);
}

/* The network's part of the manifest (a JSON member line, or "") and of the
 * metrics row (its columns, added to row); ref_json is nn.reference's
 * member, or "". */
static void nn_report_text(const Trainer *t, const char *ref_json, char *json, size_t jcap, MetricsRow *row) {
    const NnStageReport *r = &t->net.rep;
    const NnLossSums *mean = &r->train.mean;
    double n = mean->samples > 0 ? mean->samples : 1.0;
    double value = (mean->wdl + mean->spread) / n, policy = nn_loss_policy(mean), hidden = mean->hidden / n;
    const NnEvalReport *e = &r->eval;
    int64_t steps = t->net.trained ? t->cfg.nn_steps : 0;
    metrics_row_int(row, "nn_trained", t->net.trained);
    metrics_row_int(row, "nn_steps", steps);
    metrics_row_uint(row, "nn_train_samples", r->train_samples);
    metrics_row_real(row, "nn_samples_per_s", 1, r->train.samples_per_second);
    metrics_row_real(row, "nn_loss_first", 5, nn_loss_total(&r->train.first));
    metrics_row_real(row, "nn_loss_last", 5, nn_loss_total(&r->train.last));
    metrics_row_real(row, "nn_value_loss", 5, value);
    metrics_row_real(row, "nn_policy_loss", 5, policy);
    metrics_row_real(row, "nn_hidden_loss", 5, hidden);
    metrics_row_uint(row, "nn_heldout_positions", e->positions);
    metrics_row_real(row, "nn_p_top1", 4, e->p_top1);
    metrics_row_real(row, "nn_brier", 5, e->v_brier);
    metrics_row_real(row, "nn_brier_base", 5, e->v_brier_base);
    metrics_row_real(row, "nn_spread_rmse", 2, e->spread_rmse);
    metrics_row_real(row, "nn_spread_rmse_base", 2, e->spread_rmse_base);
    metrics_row_real(row, "nn_h_nll", 4, e->h_nll);
    metrics_row_real(row, "nn_h_nll_uniform", 4, e->h_nll_uniform);
    metrics_row_uint(row, "nn_heldout_games", e->games);
    metrics_row_real(row, "nn_p_top1_se", 4, e->p_top1_se);
    metrics_row_real(row, "nn_brier_diff_se", 5, e->v_brier_diff_se);
    metrics_row_real(row, "nn_spread_rmse_diff_se", 2, e->spread_rmse_diff_se);
    metrics_row_real(row, "nn_h_nll_se", 4, e->h_nll_se);
    metrics_row_real(row, "nn_h_nll_diff_se", 4, e->h_nll_diff_se);
    if (!t->net.trained) return;
    snprintf(json, jcap,
             "  \"nn\": {\"window\": [%d, %d], \"train_samples\": %" PRIu64 ", \"steps\": %" PRId64
             ", \"train_step\": %" PRId64 ", \"samples_per_s\": %.1f, \"loss_first\": %.5f, \"loss_last\": %.5f, "
             "\"value_loss\": %.5f, \"policy_loss\": %.5f, \"hidden_loss\": %.5f,\n"
             "         \"heldout\": {\"positions\": %" PRIu64 ", \"p_top1\": %.4f, \"static_top1\": %.4f, \"p_static_top1\": %.4f, \"p_ce\": %.4f, "
             "\"static_ce\": %.4f, \"static_cand_ce\": %.4f, \"p_static_ce\": %.4f, \"brier\": %.5f, "
             "\"brier_base\": %.5f, \"spread_rmse\": %.2f, \"spread_rmse_base\": %.2f, \"h_nll_per_tile\": %.4f, "
             "\"h_nll_uniform\": %.4f, \"h_nll_tilt\": %.4f, \"games\": %" PRIu64 ", \"se\": {\"p_top1\": %.4f, \"p_ce\": %.4f, "
             "\"brier\": %.5f, \"brier_diff\": %.5f, \"spread_rmse\": %.2f, \"spread_rmse_diff\": %.2f, "
             "\"h_nll\": %.4f, \"h_nll_diff\": %.4f, \"h_nll_tilt_diff\": %.4f}}%s%s},\n",
             r->first_gen, r->last_gen, r->train_samples, steps, t->net.model.train_step, r->train.samples_per_second,
             nn_loss_total(&r->train.first), nn_loss_total(&r->train.last), value, policy, hidden, e->positions,
             e->p_top1, e->static_top1, e->p_static_top1, e->p_ce, e->static_ce, e->static_cand_ce, e->p_static_ce, e->v_brier, e->v_brier_base,
             e->spread_rmse, e->spread_rmse_base, e->h_nll, e->h_nll_uniform, e->h_nll_tilt, e->games, e->p_top1_se,
             e->p_ce_se, e->v_brier_se, e->v_brier_diff_se, e->spread_rmse_se, e->spread_rmse_diff_se, e->h_nll_se,
             e->h_nll_diff_se, e->h_nll_tilt_diff_se,
             ref_json[0] ? ",\n" : "", ref_json);
}

/* nn.reference's part of the manifest: the "reference" member inside "nn"
 * (or ""). */
static void reference_json(const Trainer *t, char *json, size_t jcap) {
    const NnEvalReport *e = &t->net.ref_eval;
    bool on = t->net.ref_gen > 0;
    json[0] = '\0';
    if (!on) return;
    char run[2 * TRAIN_PATH_MAX];
    snprintf(json, jcap,
             "         \"reference\": {\"run\": \"%s\", \"generation\": %d, \"positions\": %" PRIu64
             ", \"p_positions\": %" PRIu64 ", \"p_top1\": %.4f, \"static_top1\": %.4f, \"p_static_top1\": %.4f, "
             "\"p_ce\": %.4f, \"static_cand_ce\": %.4f, \"p_static_ce\": %.4f, \"brier\": %.5f, \"brier_base\": %.5f}",
             rk_json_escape(t->net.ref_run, run, sizeof run), t->net.ref_gen, e->positions, e->p_positions, e->p_top1,
             e->static_top1, e->p_static_top1, e->p_ce, e->static_cand_ce, e->p_static_ce, e->v_brier, e->v_brier_base);
}

/* nn.reference's columns of the metrics row (zeros when not scored). */
static void reference_columns(const Trainer *t, MetricsRow *row) {
    const NnEvalReport *e = &t->net.ref_eval;
    metrics_row_int(row, "ref_generation", t->net.ref_gen);
    metrics_row_uint(row, "ref_positions", e->positions);
    metrics_row_uint(row, "ref_p_positions", e->p_positions);
    metrics_row_real(row, "ref_p_top1", 4, e->p_top1);
    metrics_row_real(row, "ref_static_top1", 4, e->static_top1);
    metrics_row_real(row, "ref_p_static_top1", 4, e->p_static_top1);
    metrics_row_real(row, "ref_p_ce", 4, e->p_ce);
    metrics_row_real(row, "ref_static_cand_ce", 4, e->static_cand_ce);
    metrics_row_real(row, "ref_p_static_ce", 4, e->p_static_ce);
    metrics_row_real(row, "ref_brier", 5, e->v_brier);
    metrics_row_real(row, "ref_brier_base", 5, e->v_brier_base);
}

int train_write_generation(Trainer *t, int gen, const GenReport *rep, GenTimes *tm, RkError *err) {
    const GenerationTotals *tot = &rep->tot;
    const DeriveInfo *info = &rep->info;
    const MatchResult *match = &rep->match;
    double change_rms = rep->change_rms;
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
    char files_json[160 * (5 + SHARD_GATHER_MAX_FILES)];
    manifest_files(files_json, sizeof files_json, files, nfiles);
    double var0 = residual_stats_variance(&rep->heldout, false), var1 = residual_stats_variance(&rep->heldout, true);
    tm->write = rk_seconds() - t0; /* the data files; the manifest follows */
    tm->wall += tm->write;
    double games = (double)tot->games;
    double mean_eq = tot->observations ? (double)tot->equity_sum / 1000.0 / (double)tot->observations : 0.0;
    char manifest[131072], nn_json[2048 + 3 * TRAIN_PATH_MAX] = "", ref_json[1024 + 2 * TRAIN_PATH_MAX];
    char search_json[2 * (2 * TRAIN_PATH_MAX + 3 * TRAIN_SPEC_MAX) + 2048] = "";
    static_assert(sizeof files_json + sizeof nn_json + sizeof search_json < sizeof manifest - 4096, "manifest buffer");
    reference_json(t, ref_json, sizeof ref_json);
    uint64_t gate_pairs = rep->gate_played ? t->cfg.mcgs_gate_pairs : 0;
    uint64_t anchor_pairs = rep->anchor_played ? t->cfg.mcgs_anchor_pairs : 0;
    uint64_t value_pairs = rep->value_played ? t->cfg.mcgs_value_pairs : 0;
    /* the decision study: player 1 the search with the model in force, player 2 the anchor;
     * the gain is the anchor's mean loss minus the search's (points a move, > 0: the net helps) */
    DecisionSummary dec_cur, dec_anchor;
    decision_summary(&rep->decisions, 0, &dec_cur);
    decision_summary(&rep->decisions, 1, &dec_anchor);
    int64_t dec_positions = rep->decisions_played ? rep->decisions.positions : 0;
    char self_play[TRAIN_SPEC_MAX], gate_a[TRAIN_SPEC_MAX] = "", gate_b[TRAIN_SPEC_MAX] = "";
    if (t->search.loop) {
        char e_player[2 * TRAIN_SPEC_MAX], e_self[2 * TRAIN_SPEC_MAX], e_a[2 * TRAIN_SPEC_MAX], e_b[2 * TRAIN_SPEC_MAX];
        char e_anchor[2 * TRAIN_SPEC_MAX];
        train_search_describe(t, rep->model_at_start, rep->rollout_at_start, false, self_play, sizeof self_play);
        if (rep->gate_played) { /* the new model (gen) against the one in force before it */
            train_search_describe(t, gen, rep->rollout_at_start, true, gate_a, sizeof gate_a);
            train_search_describe(t, rep->model_at_start, rep->rollout_at_start, true, gate_b, sizeof gate_b);
        }
        snprintf(search_json, sizeof search_json,
                 "  \"search\": {\"player\": \"%s\", \"self_play\": \"%s\", \"model_in_force\": %d, "
                 "\"leaf_rollout\": %d, \"value_won\": %s, \"value_checked_model\": %d,\n"
                 "             \"gate\": {\"pairs\": %" PRIu64
                 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f, \"threshold_pct\": %.2f, \"promoted\": %s,\n"
                 "                      \"players\": [\"%s\", \"%s\"]},\n"
                 "             \"value_check\": {\"pairs\": %" PRIu64
                 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f, \"threshold_pct\": %.2f},\n"
                 "             \"anchor\": {\"player\": \"%s\", \"pairs\": %" PRIu64
                 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f},\n"
                 "             \"decisions\": {\"positions\": %" PRId64 ", \"loss\": %.4f, \"loss_se\": %.4f, "
                 "\"anchor_loss\": %.4f, \"anchor_loss_se\": %.4f, \"gain\": %.4f, \"gain_se\": %.4f}},\n",
                 rk_json_escape(t->cfg.player, e_player, sizeof e_player),
                 rk_json_escape(self_play, e_self, sizeof e_self), rep->model_in_force, rep->rollout_in_force,
                 t->search.value_won ? "true" : "false", t->search.value_checked, gate_pairs, rep->gate.win_pct,
                 rep->gate.ci95_pct, t->cfg.mcgs_gate_threshold, rep->promoted ? "true" : "false",
                 rk_json_escape(gate_a, e_a, sizeof e_a), rk_json_escape(gate_b, e_b, sizeof e_b), value_pairs,
                 rep->value.win_pct, rep->value.ci95_pct, t->cfg.mcgs_value_threshold,
                 rk_json_escape(t->cfg.mcgs_anchor, e_anchor, sizeof e_anchor),
                 anchor_pairs, rep->anchor.win_pct, rep->anchor.ci95_pct, dec_positions, dec_cur.mean_loss,
                 dec_cur.loss_se, dec_anchor.mean_loss, dec_anchor.loss_se, dec_anchor.diff, dec_anchor.diff_se);
    }
    MetricsRow *m = malloc(sizeof *m);
    if (m == NULL) return rk_error(err, "out of memory for the metrics row");
    metrics_row_init(m);
    metrics_row_int(m, "generation", gen);
    metrics_row_int(m, "games", tot->games);
    metrics_row_int(m, "turns", tot->turns);
    metrics_row_int(m, "ranks", t->comm.size);
    metrics_row_real(m, "games_per_s", 2, tm->play > 0 ? games / tm->play : 0.0);
    metrics_row_real(m, "wall_s", 3, tm->wall);
    metrics_row_real(m, "play_s", 3, tm->play);
    metrics_row_real(m, "reduce_s", 3, tm->reduce);
    metrics_row_real(m, "derive_s", 3, tm->derive);
    metrics_row_real(m, "write_s", 3, tm->write);
    metrics_row_real(m, "mean_best_equity", 4, mean_eq);
    metrics_row_real(m, "mean_final_score", 2, games > 0 ? (double)tot->score_sum / (2.0 * games) : 0.0);
    metrics_row_real(m, "bingos_per_game", 3, games > 0 ? (double)tot->bingos / games : 0.0);
    metrics_row_uint(m, "racks_observed", info->racks_observed);
    metrics_row_real(m, "baseline", 4, info->baseline);
    metrics_row_real(m, "leave_change_rms", 5, change_rms);
    metrics_row_int(m, "forced_games", tot->forced_games);
    metrics_row_int(m, "forced_observations", tot->forced_observations);
    metrics_row_uint(m, "match_pairs", t->cfg.match_pairs);
    metrics_row_real(m, "match_win_pct", 2, match->win_pct);
    metrics_row_real(m, "match_ci95_pct", 2, match->ci95_pct);
    metrics_row_int(m, "leaves_trained", rep->leaves_trained);
    metrics_row_int(m, "spv_trained", rep->spv_trained);
    metrics_row_uint(m, "spv_cells_observed", rep->spv_info.cells_observed);
    metrics_row_real(m, "spv_mean_abs", 5, rep->spv_info.mean_abs);
    metrics_row_int(m, "heldout_moves", rep->heldout.moves);
    metrics_row_real(m, "resid_var", 4, var0);
    metrics_row_real(m, "resid_var_spv", 4, var1);
    metrics_row_uint(m, "spv_match_pairs", rep->spv_match_pairs);
    metrics_row_real(m, "spv_match_win_pct", 2, rep->spv_match.win_pct);
    metrics_row_real(m, "spv_match_ci95_pct", 2, rep->spv_match.ci95_pct);
    metrics_row_uint(m, "samples", t->shard_files.samples);
    nn_report_text(t, ref_json, nn_json, sizeof nn_json, m);
    metrics_row_uint(m, "gate_pairs", gate_pairs);
    metrics_row_real(m, "gate_win_pct", 2, rep->gate.win_pct);
    metrics_row_real(m, "gate_ci95_pct", 2, rep->gate.ci95_pct);
    metrics_row_int(m, "promoted", rep->promoted);
    metrics_row_int(m, "model_in_force", rep->model_in_force);
    metrics_row_uint(m, "anchor_pairs", anchor_pairs);
    metrics_row_real(m, "anchor_win_pct", 2, rep->anchor.win_pct);
    metrics_row_real(m, "anchor_ci95_pct", 2, rep->anchor.ci95_pct);
    metrics_row_uint(m, "value_check_pairs", value_pairs);
    metrics_row_real(m, "value_check_win_pct", 2, rep->value.win_pct);
    metrics_row_real(m, "value_check_ci95_pct", 2, rep->value.ci95_pct);
    metrics_row_int(m, "leaf_rollout", rep->rollout_in_force);
    reference_columns(t, m);
    metrics_row_int(m, "decisions_positions", dec_positions);
    metrics_row_real(m, "decisions_loss", 4, dec_cur.mean_loss);
    metrics_row_real(m, "decisions_anchor_loss", 4, dec_anchor.mean_loss);
    metrics_row_real(m, "decisions_gain", 4, dec_anchor.diff);
    metrics_row_real(m, "decisions_gain_se", 4, dec_anchor.diff_se);
    snprintf(manifest, sizeof manifest,
             "{\n  \"generation\": %d,\n  \"run_seed\": %" PRIu64 ",\n  \"lexicon_sha256\": \"%s\",\n"
             "  \"game_seed\": \"game i of this generation is seeded from (run_seed, %d, i)\",\n"
             "  \"ranks\": %d,\n  \"games\": %" PRId64 ",\n  \"turns\": %" PRId64 ",\n"
             "  \"observations\": %" PRId64 ",\n  \"forced_games\": %" PRId64 ",\n"
             "  \"forced_observations\": %" PRId64 ",\n  \"sampled_observations\": %" PRId64 ",\n"
             "  \"racks_observed\": %" PRIu64 ",\n"
             "  \"baseline\": %.6f,\n  \"mean_best_equity\": %.6f,\n"
             "  \"match_vs_zero_leaves\": {\"pairs\": %" PRIu64 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f},\n"
             "  \"leaves_trained\": %s,\n  \"spv_trained\": %s,\n"
             "  \"spv\": {\"schedule\": \"%s\", \"use\": %s, \"k\": %.17g, \"cells_observed\": %u, "
             "\"tile_observations\": %" PRIu64 ", \"mean_abs\": %.6f},\n"
             "  \"heldout\": {\"moves\": %" PRId64 ", \"resid_var\": %.4f, \"resid_var_spv\": %.4f},\n"
             "  \"match_spv_on_vs_off\": {\"pairs\": %" PRIu64 ", \"win_pct\": %.2f, \"ci95_pct\": %.2f},\n"
             "  \"samples\": %" PRIu64 ",\n"
             "%s%s"
             "  \"timings_s\": {\"play\": %.3f, \"reduce\": %.3f, \"derive\": %.3f, \"write\": %.3f, "
             "\"wall\": %.3f},\n"
             "  \"files\": {\n%s  }\n}\n",
             gen, t->cfg.seed, t->lexicon_sha256, gen, t->comm.size, tot->games, tot->turns, tot->observations, tot->forced_games,
             tot->forced_observations, tot->sampled_observations, info->racks_observed,
             info->baseline, mean_eq, t->cfg.match_pairs, match->win_pct, match->ci95_pct,
             rep->leaves_trained ? "true" : "false", rep->spv_trained ? "true" : "false",
             train_config_schedule_name(t->cfg.spv_schedule), t->cfg.spv_use ? "true" : "false", t->cfg.spv_k,
             rep->spv_info.cells_observed, rep->spv_info.observations, rep->spv_info.mean_abs, rep->heldout.moves,
             var0, var1, rep->spv_match_pairs, rep->spv_match.win_pct, rep->spv_match.ci95_pct,
             t->shard_files.samples, nn_json, search_json, tm->play, tm->reduce,
             tm->derive, tm->write, tm->wall, files_json);
    int rc = metrics_row_finish(m) != 0 ? rk_error(err, "the metrics row does not fit its buffer")
                                         : rundir_commit_generation(run, gen, manifest, m->header, m->row, err);
    free(m);
    return rc;
}

