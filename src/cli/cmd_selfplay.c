/* rookery selfplay: static games of the engine against itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "commands.h"
#include "eval/klv.h"
#include "worker/exposure_study.h"
#include "worker/neighbour_study.h"
#include "worker/selfplay.h"
#include "worker/winprob_study.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery selfplay [--games N] [--seed S] [--show] [--lexicon FILE.kwg]\n"
            "                        [--ld english|FILE.csv] [--layout standard15|FILE.txt]\n"
            "                        [--leaves FILE.klv2] [--exposure-study OUT.txt]\n"
            "                        [--neighbour-study OUT.nbv [--neighbour-target final|exposure]]\n"
            "                        [--winprob-study]\n"
            "\n"
            "Plays N games (default 10) in which both players make the best-scoring move (with\n"
            "--leaves: the best move by static equity with those leave values), and\n"
            "prints games, turns, mean score per player, bingos per game and games/s.\n"
            "Game i is seeded from (S, 0, i), so the same seed replays the same games.\n"
            "  --show   print every move with the rack it was played from and the score\n"
            "  --exposure-study OUT.txt   fit the cross-word exposure coefficients (eval/exposure.h)\n"
            "           on the N games: least squares of -(the opponent's next score) on what each\n"
            "           move opens next to its tiles; print them with the variance they explain on\n"
            "           N/2 held-out games, and write them to OUT.txt (for static:exposure=OUT.txt)\n"
            "  --neighbour-study OUT.nbv   fit the neighbour-aware SPV table (eval/neighbour.h): a value\n"
            "           per (square, neighbour state, tile value) from the residuals of the N games' moves\n"
            "           while the bag is not empty, with the SPV derivation's empirical-Bayes shrinkage;\n"
            "           print its summary with the variance it (and the plain table, as a control)\n"
            "           explains on N/2 held-out games, and write it to OUT.nbv (for\n"
            "           static:neighbour=OUT.nbv)\n"
            "  --neighbour-target final|exposure   the residual (docs/spv.md): final = spread to the\n"
            "           end of the game minus score + leave; exposure = -(the opponent's next score)\n"
            "           (default exposure)\n"
            "  --winprob-study   fit the win model of the search's rollouts (eval/winprob.h) on the N\n"
            "           games: the mean and variance of what the rest of the game adds to the lead of\n"
            "           the player on turn, as lines in the tiles not on the board; print them, the\n"
            "           data by tile count and the held-out Brier score on N/2 other games (for\n"
            "           mcgs:win_model=MEAN0:MEAN1:VAR0:VAR1 and sim:win_model=...)\n");
}

typedef struct ShowCtx {
    uint64_t game;
} ShowCtx;

static void show_move(const Game *g, const Move *m, void *vctx) {
    const ShowCtx *ctx = vctx;
    char mv[128], rack[32];
    move_to_string(m, &g->board, g->ld, mv, sizeof mv);
    rack_to_string(&g->racks[g->on_turn], g->ld, rack, sizeof rack);
    printf("game %llu turn %2d  p%d %-8s %-24s %4d  (%d-%d, bag %d)\n", (unsigned long long)ctx->game,
           g->turn + 1, g->on_turn + 1, rack, mv, m->score,
           g->scores[0] + (g->on_turn == 0 ? m->score : 0), g->scores[1] + (g->on_turn == 1 ? m->score : 0),
           g->bag.count);
}

/* --exposure-study: fit, report, write. */
static int exposure_study(const SelfplayConfig *cfg, uint64_t games, const char *out) {
    ExposureStudy st;
    RkError err;
    double t0 = cli_now();
    if (exposure_study_run(cfg, games, games / 2 > 0 ? games / 2 : 1, &st, &err) != 0) {
        fprintf(stderr, "rookery selfplay: %s\n", err.msg);
        return 1;
    }
    printf("exposure study: fitted on %llu moves of %llu games, tested on %llu moves of %llu held-out games "
           "(%.1f s)\n",
           (unsigned long long)st.train_moves, (unsigned long long)games, (unsigned long long)st.test_moves,
           (unsigned long long)(games / 2 > 0 ? games / 2 : 1), cli_now() - t0);
    printf("  y = -(opponent's next score); intercept %.3f points\n", st.intercept);
    printf("  %-10s %12s %14s\n", "feature", "coefficient", "mean per move");
    for (int i = 0; i < EXPOSURE_FEATURES; i++)
        printf("  %-10s %12.4f %14.4f\n", exposure_feature_name(i), st.fit.beta[i], st.feature_mean[i]);
    double explained = st.test_var_mean > 0 ? 1.0 - st.test_var_fit / st.test_var_mean : 0.0;
    printf("  held-out variance of y: %.2f around the mean, %.2f around the fit: %.2f%% explained\n",
           st.test_var_mean, st.test_var_fit, 100.0 * explained);
    if (exposure_write(&st.fit, out, &err) != 0) {
        fprintf(stderr, "rookery selfplay: %s\n", err.msg);
        return 1;
    }
    printf("wrote %s\n", out);
    return 0;
}

/* --winprob-study: fit and report. */
static int winprob_study(const SelfplayConfig *cfg, uint64_t games) {
    WinprobStudy st;
    RkError err;
    double t0 = cli_now();
    uint64_t test = games / 2 > 0 ? games / 2 : 1;
    if (winprob_study_run(cfg, games, test, &st, &err) != 0) {
        fprintf(stderr, "rookery selfplay: %s\n", err.msg);
        return 1;
    }
    const WinModel *f = &st.fit;
    printf("win model study: fitted on %llu decisions of %llu games, tested on %llu decisions of %llu held-out "
           "games (%.1f s)\n",
           (unsigned long long)st.train_positions, (unsigned long long)games,
           (unsigned long long)st.test_positions, (unsigned long long)test, cli_now() - t0);
    printf("  D = final lead - lead (player on turn; the lead counts the last leaves kept), t = tiles not on the board\n");
    printf("  mean(t) = %.3f + %.4f t points, var(t) = %.1f + %.2f t points^2\n", f->mean0, f->mean_per_tile,
           f->var0, f->var_per_tile);
    printf("  %-8s %9s %11s %11s %9s %9s\n", "t", "decisions", "mean D", "fit mean", "sd D", "fit sd");
    for (int b = 0; b < WINPROB_STUDY_BUCKETS; b++) {
        const WinprobBucket *k = &st.bucket[b];
        if (k->n == 0) continue;
        int mid = 7 * b + 4;
        printf("  %3d-%-4d %9llu %11.2f %11.2f %9.2f %9.2f\n", 7 * b + 1, 7 * b + 7, (unsigned long long)k->n,
               k->mean, winprob_mean(f, mid), k->sd, winprob_sd(f, mid));
    }
    printf("  held-out Brier score of P(win): %.4f (the sign of the lead: %.4f)\n", st.test_brier,
           st.test_brier_sign);
    printf("  as an option: win_model=%.6g:%.6g:%.6g:%.6g\n", f->mean0, f->mean_per_tile, f->var0, f->var_per_tile);
    return 0;
}

static void print_heldout(const char *name, const NeighbourHeldout *h) {
    double explained = h->var > 0 ? 1.0 - h->var_adj / h->var : 0.0;
    printf("  %-16s %10.2f -> %10.2f  %+7.3f%% explained; least-squares scale %.3f, explaining %.3f%%\n", name,
           h->var, h->var_adj, 100.0 * explained, h->scale, 100.0 * h->explained_best);
}

/* --neighbour-study: fit, report, write. */
static int neighbour_study(const SelfplayConfig *cfg, uint64_t games, ResidualTarget target, const char *out) {
    NeighbourStudy st;
    RkError err;
    double t0 = cli_now();
    uint64_t test = games / 2 > 0 ? games / 2 : 1;
    if (neighbour_study_run(cfg, target, games, test, &st, &err) != 0) {
        fprintf(stderr, "rookery selfplay: %s\n", err.msg);
        return 1;
    }
    printf("neighbour study (target %s): fitted on %llu moves (%llu tile observations, %u of %u cells) of %llu "
           "games, tested on %llu moves of %llu held-out games (%.1f s)\n",
           residual_target_name(target), (unsigned long long)st.train_moves,
           (unsigned long long)st.info.observations, st.info.cells_observed,
           st.table.dim * st.table.dim * NEIGHBOUR_STATES * st.table.num_buckets, (unsigned long long)games,
           (unsigned long long)st.test_moves, (unsigned long long)test, cli_now() - t0);
    printf("  values: largest |value| %.3f points, mean |value| per tile observation %.3f (plain table %.3f)\n",
           st.max_abs, st.info.mean_abs, st.plain_info.mean_abs);
    printf("  %-6s %12s %8s %18s %22s\n", "state", "tile obs", "share", "mean value, pts", "value of tiles >= 4");
    uint64_t total = st.state_obs[0] + st.state_obs[1] + st.state_obs[2];
    for (int s = 0; s < NEIGHBOUR_STATES; s++)
        printf("  %-6d %12llu %7.1f%% %18.3f %22.3f\n", s, (unsigned long long)st.state_obs[s],
               total ? 100.0 * (double)st.state_obs[s] / (double)total : 0.0, st.state_mean[s],
               st.state_mean_high[s]);
    printf("  %-6s %12s %12s %14s %16s\n", "bucket", "base sd", "prior", "plain prior", "base mean");
    for (uint32_t b = 0; b < st.table.num_buckets; b++)
        printf("  %-6u %12.2f %12.0f %14.0f %16.3f\n", b, st.info.base_sd[b], st.info.prior_mean[b],
               st.plain_info.prior_mean[b], st.info.base_mean[b]);
    printf("  openness multipliers of the derivation (not used):");
    for (uint32_t o = 0; o < st.num_openness; o++) printf(" %.2f", st.openness[o]);
    printf("\n  held-out residual variance (points^2), without -> with the table:\n");
    print_heldout("neighbour table", &st.test);
    print_heldout("plain table", &st.test_plain);
    int rc = 0;
    if (neighbour_write(&st.table, out, &err) != 0) {
        fprintf(stderr, "rookery selfplay: %s\n", err.msg);
        rc = 1;
    } else {
        printf("wrote %s\n", out);
    }
    neighbour_study_free(&st);
    return rc;
}

int cmd_selfplay(int argc, char **argv) {
    uint64_t games = 10, seed = 1;
    int show = 0;
    const char *lexicon = NULL, *ld_name = NULL, *layout_name = NULL, *leaves = NULL, *study = NULL,
               *nb_study = NULL;
    bool wp_study = false;
    ResidualTarget nb_target = RESIDUAL_EXPOSURE;
    bool nb_target_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--games") == 0) {
            if (cli_parse_u64(a, v, 1000000000ULL, &games) != 0) return 2;
            i++;
        } else if (strcmp(a, "--seed") == 0) {
            if (cli_parse_u64(a, v, UINT64_MAX, &seed) != 0) return 2;
            i++;
        } else if (strcmp(a, "--show") == 0) {
            show = 1;
        } else if (strcmp(a, "--lexicon") == 0 && v) {
            lexicon = argv[++i];
        } else if (strcmp(a, "--ld") == 0 && v) {
            ld_name = argv[++i];
        } else if (strcmp(a, "--layout") == 0 && v) {
            layout_name = argv[++i];
        } else if (strcmp(a, "--leaves") == 0 && v) {
            leaves = argv[++i];
        } else if (strcmp(a, "--exposure-study") == 0 && v) {
            study = argv[++i];
        } else if (strcmp(a, "--neighbour-study") == 0 && v) {
            nb_study = argv[++i];
        } else if (strcmp(a, "--winprob-study") == 0) {
            wp_study = true;
        } else if (strcmp(a, "--neighbour-target") == 0 && v) {
            int t = residual_target_parse(v);
            if (t < 0) {
                fprintf(stderr, "rookery selfplay: --neighbour-target '%s' is not final or exposure\n", v);
                return 2;
            }
            nb_target = (ResidualTarget)t;
            nb_target_given = true;
            i++;
        } else {
            fprintf(stderr, "rookery selfplay: unknown or incomplete option '%s' (see --help)\n", a);
            return 2;
        }
    }
    if ((study != NULL) + (nb_study != NULL) + wp_study > 1) {
        fprintf(stderr, "rookery selfplay: give one of --exposure-study, --neighbour-study, --winprob-study\n");
        return 2;
    }
    if (nb_target_given && nb_study == NULL) {
        fprintf(stderr, "rookery selfplay: --neighbour-target goes with --neighbour-study\n");
        return 2;
    }
    Engine e;
    if (engine_open(&e, ld_name, layout_name, lexicon, NULL) != 0) return 2;
    Klv klv;
    memset(&klv, 0, sizeof klv);
    RkError err;
    if (leaves != NULL && klv_load(&klv, leaves, &e.ld, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        engine_close(&e);
        return 2;
    }
    SelfplayConfig cfg = {.ld = &e.ld, .layout = &e.layout, .kwg = &e.kwg, .seed = seed};
    if (leaves != NULL) {
        cfg.leave_value = klv_leave_value;
        cfg.leave_ctx = &klv;
    }
    if (study != NULL || nb_study != NULL || wp_study) {
        int rc = study != NULL      ? exposure_study(&cfg, games, study)
                 : nb_study != NULL ? neighbour_study(&cfg, games, nb_target, nb_study)
                                    : winprob_study(&cfg, games);
        klv_free(&klv);
        engine_close(&e);
        return rc;
    }
    SelfplayStats st;
    memset(&st, 0, sizeof st);
    Game *g = malloc(sizeof *g);
    if (g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        klv_free(&klv);
        engine_close(&e);
        return 1;
    }
    double t0 = cli_now();
    for (uint64_t i = 0; i < games; i++) {
        ShowCtx ctx = {.game = i};
        selfplay_game(&cfg, i, g, &st, show ? show_move : NULL, &ctx);
        if (show)
            printf("game %llu final %d-%d (%s)\n\n", (unsigned long long)i, g->scores[0], g->scores[1],
                   g->end == GAME_WENT_OUT ? "went out" : "six scoreless turns");
    }
    double dt = cli_now() - t0;
    printf("games %llu  turns %llu  mean score %.1f - %.1f  wins %llu-%llu-%llu  bingos/game %.2f  "
           "%.1f games/s  %.0f turns/s\n",
           (unsigned long long)st.games, (unsigned long long)st.turns, (double)st.score_sum[0] / (double)games,
           (double)st.score_sum[1] / (double)games, (unsigned long long)st.wins[0], (unsigned long long)st.wins[1],
           (unsigned long long)st.draws, (double)st.bingos / (double)games, (double)games / dt,
           (double)st.turns / dt);
    free(g);
    klv_free(&klv);
    engine_close(&e);
    return 0;
}
