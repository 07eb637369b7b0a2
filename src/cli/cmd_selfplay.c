/* rookery selfplay: static games of the engine against itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "eval/klv.h"
#include "worker/selfplay.h"
#include "worker/winprob_study.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery selfplay [--games N] [--seed S] [--show] [--lexicon FILE.kwg]\n"
            "                        [--ld english|FILE.csv] [--layout standard15|FILE.txt]\n"
            "                        [--leaves FILE.klv2] [--winprob-study]\n"
            "\n"
            "Plays N games (default 10) in which both players make the best-scoring move (with\n"
            "--leaves: the best move by static equity with those leave values), and\n"
            "prints games, turns, mean score per player, bingos per game and games/s.\n"
            "Game i is seeded from (S, 0, i), so the same seed replays the same games.\n"
            "  --show   print every move with the rack it was played from and the score\n"
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

int cmd_selfplay(int argc, char **argv) {
    uint64_t games = 10, seed = 1;
    bool show = false, wp_study = false;
    const char *lexicon = NULL, *ld_name = NULL, *layout_name = NULL, *leaves = NULL;
    const CliOption opts[] = {{"--games", CLI_U64, &games, 0, 1e9, NULL},
                              {"--seed", CLI_U64, &seed, 0, 18446744073709551615.0, NULL},
                              {"--show", CLI_FLAG, &show, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &ld_name, 0, 0, NULL},
                              {"--layout", CLI_STRING, &layout_name, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &leaves, 0, 0, NULL},
                              {"--winprob-study", CLI_FLAG, &wp_study, 0, 0, NULL}};
    int parsed = cli_options_parse("selfplay", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    Engine e;
    if (cli_engine_open(&e, ld_name, layout_name, lexicon, NULL) != 0) return 2;
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
    if (wp_study) {
        int rc = winprob_study(&cfg, games);
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
