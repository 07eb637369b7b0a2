/* rookery decisions: players' middle-game moves against a long reference
 * simulation (worker/decision_study.h), under MPI. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/cgp.h"
#include "reducer/comm.h"
#include "reducer/totals_sum.h"
#include "worker/decision_study.h"

#define PROGRESS_SECONDS 10.0

static void usage(FILE *out) {
    fprintf(out,
            "usage: [mpirun -np N] rookery decisions --player SPEC [--player SPEC ...] [--positions N] [--seed S]\n"
            "                       [--leaves FILE.klv2|zero] [--candidates R] [--plies P] [--iterations I]\n"
            "                       [--win-bonus W] [--max-bag B] [--show] [--lexicon FILE.kwg]\n"
            "\n"
            "Decision study: how good are players' moves in the middle of the game? N positions (default\n"
            "100) with tiles in the bag, position i taken at a random move (the first to the last with\n"
            "tiles in the bag) of the static game i of the seed (default 1). In each, every player\n"
            "chooses its move; the reference then simulates the R best static moves (default %d) and\n"
            "the players' moves, each in the same I dealt worlds (default %d) followed by P static\n"
            "plies (default %d), and a player's loss is the best reference value minus its move's.\n"
            "Prints for each player the share of positions where it chose the reference's best, its\n"
            "mean loss in points with a standard error over positions, and, for the second player on,\n"
            "the mean difference of its loss from the first player's (paired on the same positions:\n"
            "far finer than a match). The same seed and options give the same positions and figures\n"
            "for any number of ranks. Progress on stderr every %.0f s.\n"
            "  --player SPEC   static:..., sim:..., nn:..., mcgs:... (see rookery match --help); up to %d;\n"
            "                  a player that names no leaves= plays with the study's leaves\n"
            "  --leaves F      leave values of the positions' games and the reference's rollouts\n"
            "                  (default: zero, every leave worth 0)\n"
            "  --win-bonus W   a win's worth in the reference's values (points, 0..%g, default 0: spread only)\n"
            "  --max-bag B     late positions only: a random move of those with 1..B tiles in the bag\n"
            "  --show          one line a position: CGP, each player's move and loss, the best move\n"
            "                  (with several ranks the lines come in the order the ranks finish them)\n"
            "The reference is a rollout estimate: a player that simulates like it is judged by its own\n"
            "standard, and the best of noisy means is biased up (every player's loss alike). The\n"
            "'reference se' column is the reference's own standard error of the losses (per position,\n"
            "0 where the player chose the best; averaged over the positions).\n",
            DECISION_DEFAULT_CANDIDATES, DECISION_DEFAULT_ITERATIONS, DECISION_DEFAULT_PLIES, PROGRESS_SECONDS,
            DECISION_MAX_PLAYERS, DECISION_MAX_WIN_BONUS);
}

typedef struct DecisionsJob {
    const char *specs[DECISION_MAX_PLAYERS];
    int n_players;
    const char *lexicon, *leaves;
    DecisionStudyConfig cfg;
    bool show;
} DecisionsJob;

static int parse_args(DecisionsJob *j, int argc, char **argv) {
    char too_many[64];
    snprintf(too_many, sizeof too_many, "at most %d players", DECISION_MAX_PLAYERS);
    CliStrings players = {j->specs, 0, DECISION_MAX_PLAYERS, too_many};
    const CliOption opts[] = {{"--show", CLI_FLAG, &j->show, 0, 0, NULL},
                              {"--player", CLI_STRINGS, &players, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &j->lexicon, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &j->leaves, 0, 0, NULL},
                              {"--positions", CLI_INT, &j->cfg.positions, 1, DECISION_MAX_POSITIONS, NULL},
                              {"--seed", CLI_U64, &j->cfg.seed, 0, 18446744073709551615.0, NULL},
                              {"--candidates", CLI_INT, &j->cfg.candidates, 1, SIM_MAX_CANDIDATES - 1, NULL},
                              {"--plies", CLI_INT, &j->cfg.plies, 0, 100, NULL},
                              {"--iterations", CLI_INT, &j->cfg.iterations, 2, DECISION_MAX_ITERATIONS, NULL},
                              {"--win-bonus", CLI_DOUBLE, &j->cfg.win.bonus, 0, DECISION_MAX_WIN_BONUS, NULL},
                              {"--max-bag", CLI_INT, &j->cfg.max_bag, 1, 100, NULL}};
    int parsed = cli_options_parse("decisions", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    j->n_players = players.n;
    if (parsed != 0) return parsed;
    if (j->n_players == 0) {
        fprintf(stderr, "rookery decisions: at least one --player is required (see --help)\n");
        return -1;
    }
    return 0;
}

static void show_item(const DecisionItem *it, const DecisionStudyConfig *c) {
    char cgp[1024], text[128];
    cgp_write(it->game, NULL, cgp, sizeof cgp);
    printf("position %" PRIu64 ": %s |", it->index, cgp);
    for (int k = 0; k < it->players; k++) {
        move_to_string(&it->chosen[k], &it->game->board, c->ld, text, sizeof text);
        printf(" player %d %s loss %.2f (se %.2f) |", k + 1, text, it->loss[k], it->loss_se[k]);
    }
    move_to_string(&it->best, &it->game->board, c->ld, text, sizeof text);
    printf(" best %s %+.2f of %d candidates\n", text, it->best_value, it->candidates);
    fflush(stdout);
}

/* Rank 0's report of the reduced totals. */
static void print_report(const DecisionsJob *j, const DecisionTotals *t, int ranks, double seconds) {
    const DecisionStudyConfig *c = &j->cfg;
    char late[48] = "";
    if (c->max_bag > 0) snprintf(late, sizeof late, ", 1..%d tiles in the bag", c->max_bag);
    printf("decisions: %" PRId64 " positions (seed %" PRIu64 ", leaves %s%s); reference: %d best static moves and the "
           "players' (%.1f a position), %d worlds, %d plies, win bonus %g\n",
           t->positions, c->seed, j->leaves != NULL ? j->leaves : "zero", late, c->candidates,
           (double)t->candidates / (double)t->positions, c->iterations, c->plies, c->win.bonus);
    printf("%-3s %8s %22s %14s %22s %10s  %s\n", "", "best %", "mean loss (points)", "reference se",
           "vs player 1", "ms a move", "player");
    for (int k = 0; k < j->n_players; k++) {
        DecisionSummary s;
        decision_summary(t, k, &s);
        char vs[64] = "";
        if (k > 0) snprintf(vs, sizeof vs, "%+.3f +/- %.3f", s.diff, s.diff_se);
        printf("%-3d %8.1f %13.3f +/- %5.3f %14.3f %22s %10.2f  %s\n", k + 1, s.best_pct, s.mean_loss, s.loss_se,
               s.reference_se, vs, s.ms_per_move, j->specs[k]);
    }
    printf("(+/- : one standard error over positions; a negative 'vs player 1' is better than player 1)\n");
    printf("the reference's best move by its static rank:");
    for (int b = 0; b < DECISION_RANK_BINS; b++)
        if (t->best_rank[b] > 0 || b < DECISION_RANK_BINS - 1)
            printf(" %s %.1f%%%s", DECISION_RANK_BIN_NAMES[b], 100.0 * (double)t->best_rank[b] / (double)t->positions,
                   b < DECISION_RANK_BINS - 1 ? "," : "");
    printf("\n");
    printf("reference: %.2f s a position; %.1f s in all on %d rank(s)\n",
           (double)t->reference_us / 1e6 / (double)t->positions, seconds, ranks);
}

/* Loads the study's leaves (NULL path or "zero": none). */
static int open_leaves(const char *path, const LetterDist *ld, Klv **out, RkError *err) {
    *out = NULL;
    if (path == NULL || strcmp(path, "zero") == 0) return 0;
    Klv *k = malloc(sizeof *k);
    if (k == NULL) return rk_error(err, "out of memory");
    if (klv_load(k, path, ld, err) != 0) {
        free(k);
        return -1;
    }
    *out = k;
    return 0;
}

/* Progress and listings of this rank's share. */
typedef struct ShareWatch {
    const DecisionsJob *job;
    int rank;
    uint64_t mine;
    double t0, last;
} ShareWatch;

static void observe(const DecisionItem *item, const DecisionTotals *so_far, void *ctx) {
    ShareWatch *w = ctx;
    if (w->job->show) show_item(item, &w->job->cfg);
    double now = cli_now();
    if (w->rank == 0 && now - w->last >= PROGRESS_SECONDS) {
        w->last = now;
        DecisionSummary sum;
        decision_summary(so_far, 0, &sum);
        fprintf(stderr, "decisions: rank 0 has scored %" PRId64 " of its %" PRIu64
                        " positions, player 1's mean loss so far %.2f (%.0f s)\n",
                so_far->positions, w->mine, sum.mean_loss, now - w->t0);
    }
}

int cmd_decisions(int argc, char **argv) {
    DecisionsJob j;
    memset(&j, 0, sizeof j);
    decision_study_config_defaults(&j.cfg);
    int a = parse_args(&j, argc, argv);
    if (a != 0) return a > 0 ? 0 : 2;
    RkError err;
    if (decision_study_check(&j.cfg, j.n_players, &err) != 0) {
        fprintf(stderr, "rookery decisions: %s\n", err.msg);
        return 2;
    }
    Comm comm;
    Engine *e;
    int rc = cli_start_comm_engine(&comm, j.lexicon, &e);
    if (rc < 0) return 2;
    Player *players = calloc(DECISION_MAX_PLAYERS, sizeof *players);
    const Player *order[DECISION_MAX_PLAYERS];
    Klv *leaves = NULL;
    if (rc == 0 && players == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        rc = 1;
    } else if (rc == 0) {
        if (open_leaves(j.leaves, &e->ld, &leaves, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 2;
        }
        for (int k = 0; k < j.n_players && rc == 0; k++) {
            order[k] = &players[k];
            if (player_open(&players[k], j.specs[k], &e->ld, &err) != 0 ||
                player_check_board(&players[k], e->layout.dim, &err) != 0) {
                fprintf(stderr, "rookery: %s\n", err.msg);
                rc = 2;
            } else if (leaves != NULL) {
                player_lend_leaves(&players[k], leaves);
            }
        }
    }
    if (comm_max_i64(&comm, rc) == 0) {
        j.cfg.ld = &e->ld;
        j.cfg.layout = &e->layout;
        j.cfg.kwg = &e->kwg;
        j.cfg.leave_value = j.cfg.game_leave_value = leaves != NULL ? klv_leave_value : NULL;
        j.cfg.leave_ctx = j.cfg.game_leave_ctx = leaves;
        DecisionTotals t;
        memset(&t, 0, sizeof t);
        double t0 = cli_now();
        ShareWatch w = {&j, comm.rank, cli_share_count((uint64_t)j.cfg.positions, comm.rank, comm.size), t0, t0};
        if (decision_study_run_share(&j.cfg, order, j.n_players, comm.rank, comm.size, &t, observe, &w, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
        }
        if (comm_max_i64(&comm, rc) != 0) {
            rc = rc ? rc : 1;
        } else if (totals_sum_decisions(&comm, &t, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
        } else if (comm.rank == 0) {
            print_report(&j, &t, comm.size, cli_now() - t0);
        }
    } else if (rc == 0) {
        rc = 2; /* another rank failed to open its players */
    }
    if (players != NULL)
        for (int k = 0; k < j.n_players; k++) player_close(&players[k]);
    if (leaves != NULL) {
        klv_free(leaves);
        free(leaves);
    }
    cli_engine_free(e);
    free(players);
    comm_finalize(&comm);
    return rc;
}
