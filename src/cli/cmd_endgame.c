/* rookery endgame: one empty-bag position searched (--cgp: the deepening
 * search of search/endgame.h), or a player's moves in many against the exact
 * solver (the study, worker/endgame_study.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/cgp.h"
#include "worker/endgame_study.h"

#define PROGRESS_SECONDS 10.0

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery endgame --cgp '<CGP>' [--movetime MS] [--depth D] [--threads T] [--table-bits B]\n"
            "       rookery endgame --player SPEC [--positions N] [--max-tiles T] [--seed S]\n"
            "                       [--max-nodes N] [--table-bits B] [--show]\n"
            "       (both: [--lexicon FILE.kwg] [--ld english|FILE.csv] [--layout standard15|FILE.txt])\n"
            "\n"
            "--cgp: searches the position (its bag must be empty: the CGP's board and racks hold every\n"
            "tile) by iterative deepening, 1, 2, 3... plies, until it is solved exactly, MS milliseconds\n"
            "(default 10000) have passed, or depth D. One line a depth: the value (the final spread\n"
            "change from now, for the player on turn, under best play to that depth), the positions\n"
            "searched and the line; then the answer, and whether it is exact (docs/endgame.md).\n"
            "--threads T (default 1): the search on T threads, each with its own table (the same\n"
            "answer for the same T when no movetime cuts it).\n"
            "\n"
            "Endgame study: N positions (default 100) made from the seed (default 1), each from one\n"
            "static game (best score) played until the bag is empty and then on until both racks hold\n"
            "at most T tiles (default 3; games that end first are skipped). The same seed and T give the\n"
            "same positions for every player. Each position is solved exactly (every move's value:\n"
            "final spread change under optimal play by both sides) and the player chooses its move.\n"
            "Prints the share of positions where the player's move is best, the mean points lost\n"
            "against the best move, and the solver's nodes and time; progress on stderr every %.0f s.\n"
            "  --player SPEC   static[:leaves=F.klv2|zero], sim:..., nn:... (see rookery match --help)\n"
            "  --max-nodes N   the solver's budget of positions per solve (default %llu); a position\n"
            "                  over it is counted as unsolved and left out\n"
            "  --table-bits B  transposition table of 2^B entries of 16 bytes (default %d; 0 = none)\n"
            "  --show          one line a position: game, CGP, the player's move, the best, the loss\n",
            PROGRESS_SECONDS, (unsigned long long)ENDGAME_DEFAULT_MAX_NODES, ENDGAME_DEFAULT_TABLE_BITS);
}

typedef struct EndgameJob {
    const char *spec, *lexicon, *ld_name, *layout_name, *cgp;
    int movetime, depth, threads;
    EndgameStudyConfig cfg;
    bool show;
    double t0, last;
    const EndgameStudyResult *running; /* the totals so far, for progress */
} EndgameJob;

static int parse_args(EndgameJob *j, int argc, char **argv) {
    const CliOption opts[] = {{"--show", CLI_FLAG, &j->show, 0, 0, NULL},
                              {"--cgp", CLI_STRING, &j->cgp, 0, 0, NULL},
                              {"--movetime", CLI_INT, &j->movetime, 1, 86400000, NULL},
                              {"--depth", CLI_INT, &j->depth, 1, ENDGAME_MAX_DEPTH, NULL},
                              {"--threads", CLI_INT, &j->threads, 1, ENDGAME_MAX_THREADS, NULL},
                              {"--player", CLI_STRING, &j->spec, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &j->lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &j->ld_name, 0, 0, NULL},
                              {"--layout", CLI_STRING, &j->layout_name, 0, 0, NULL},
                              {"--positions", CLI_INT, &j->cfg.positions, 1, 10000000, NULL},
                              {"--max-tiles", CLI_INT, &j->cfg.max_tiles, 1, RK_RACK_SIZE, NULL},
                              {"--seed", CLI_U64, &j->cfg.seed, 0, 18446744073709551615.0, NULL},
                              {"--max-nodes", CLI_U64, &j->cfg.solver.max_nodes, 0, 18446744073709551615.0, NULL},
                              {"--table-bits", CLI_INT, &j->cfg.solver.table_bits, 0, ENDGAME_MAX_TABLE_BITS, NULL}};
    int parsed = cli_options_parse("endgame", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed;
    if (j->cfg.solver.max_nodes == 0) {
        fprintf(stderr, "rookery endgame: --max-nodes must be at least 1\n");
        return -1;
    }
    if (j->cgp != NULL && j->spec != NULL) {
        fprintf(stderr, "rookery endgame: --cgp searches one position, --player studies many: give one\n");
        return -1;
    }
    if (j->spec != NULL && j->threads > 0) {
        fprintf(stderr, "rookery endgame: --threads goes with --cgp (the study solves one position at a time)\n");
        return -1;
    }
    if (j->spec == NULL && j->cgp == NULL) {
        fprintf(stderr, "rookery endgame: give --cgp '<CGP>' or --player SPEC (see --help)\n");
        return -1;
    }
    return 0;
}

static void observe(const EndgameStudyItem *it, void *ctx) {
    EndgameJob *j = ctx;
    if (j->show) {
        char cgp[1024], chosen[128], best[128];
        cgp_write(it->game, NULL, cgp, sizeof cgp);
        move_to_string(&it->chosen, &it->game->board, it->game->ld, chosen, sizeof chosen);
        if (it->solved != NULL) {
            const EndgameResult *s = it->solved;
            move_to_string(&s->moves[s->best], &it->game->board, it->game->ld, best, sizeof best);
            printf("position %d (game %llu): %s | player %s (%+d) | best %s (%+d) | loss %d | %llu nodes\n",
                   it->index, (unsigned long long)it->game_index, cgp, chosen, s->values[it->chosen_index], best,
                   s->best_value, it->loss, (unsigned long long)s->nodes);
        } else {
            printf("position %d (game %llu): %s | player %s | unsolved (node budget)\n", it->index,
                   (unsigned long long)it->game_index, cgp, chosen);
        }
        fflush(stdout);
    }
    double now = cli_now();
    if (now - j->last >= PROGRESS_SECONDS) {
        j->last = now;
        const EndgameStudyResult *r = j->running;
        fprintf(stderr, "endgame: %d of %d positions, %.1f%% best so far (%.0f s)\n", it->index + 1,
                j->cfg.positions, endgame_study_best_pct(r), now - j->t0);
    }
}

/* One line a completed depth. */
static void print_depth(void *ctx, const EndgameSearchResult *r) {
    const Game *root = ctx;
    Game *g = malloc(sizeof *g);
    if (g == NULL) return;
    *g = *root;
    printf("depth %2d  value %+4d  %10llu positions  %7.3f s  pv", r->depth, (int)r->value,
           (unsigned long long)r->nodes, r->seconds);
    for (int i = 0; i < r->pv_len; i++) {
        char mt[128];
        move_to_string(&r->pv[i], &g->board, g->ld, mt, sizeof mt);
        printf(" %s", mt);
        game_play(g, &r->pv[i]);
    }
    printf("\n");
    fflush(stdout);
    free(g);
}

/* rookery endgame --cgp: the deepening search of one position. */
static int search_position(const EndgameJob *j) {
    RkError err;
    Engine *e = malloc(sizeof *e);
    Game *g = malloc(sizeof *g);
    int rc = 2;
    if (e == NULL || g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        free(e);
        free(g);
        return 1;
    }
    if (cli_engine_for_cgp(e, j->cgp, j->ld_name, j->layout_name, j->lexicon) != 0) {
        free(e);
        free(g);
        return 2;
    }
    EndgameConfig cfg = j->cfg.solver;
    cfg.max_nodes = UINT64_MAX;
    cfg.max_depth = j->depth;
    cfg.threads = j->threads > 0 ? j->threads : 1;
    cfg.deadline = cli_now() + (double)(j->movetime > 0 ? j->movetime : 10000) / 1000.0;
    EndgameSearchResult r;
    if (cgp_parse(g, j->cgp, &e->ld, &e->layout, &e->kwg, 0, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
    } else if (endgame_search(g, &cfg, &r, print_depth, g, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
    } else {
        char mt[128];
        move_to_string(&r.best, &g->board, g->ld, mt, sizeof mt);
        printf("best %s  value %+d  %s at depth %d  (%d moves, %llu positions, %.3f s)\n", mt, (int)r.value,
               r.exact ? "exact" : "not proved", r.depth, r.root_moves, (unsigned long long)r.nodes, r.seconds);
        rc = 0;
    }
    engine_close(e);
    free(e);
    free(g);
    return rc;
}

int cmd_endgame(int argc, char **argv) {
    EndgameJob j;
    memset(&j, 0, sizeof j);
    endgame_study_config_defaults(&j.cfg);
    int a = parse_args(&j, argc, argv);
    if (a != 0) return a > 0 ? 0 : 2;
    if (j.cgp != NULL) return search_position(&j);
    Engine *e = malloc(sizeof *e);
    if (e == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        return 1;
    }
    if (cli_engine_open(e, j.ld_name, j.layout_name, j.lexicon, NULL) != 0) {
        free(e);
        return 2;
    }
    RkError err;
    Player p;
    memset(&p, 0, sizeof p);
    int rc = 0;
    if (cli_player_open(&p, j.spec, e, &err) != 0 || player_check_board(&p, e->layout.dim, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        rc = 2;
    } else {
        j.cfg.ld = &e->ld;
        j.cfg.layout = &e->layout;
        j.cfg.kwg = &e->kwg;
        EndgameStudyResult r;
        j.running = &r;
        j.t0 = j.last = cli_now();
        if (endgame_study_run(&j.cfg, &p, &r, observe, &j, &err) != 0) {
            fprintf(stderr, "rookery: %s\n", err.msg);
            rc = 1;
        } else {
            double dt = cli_now() - j.t0;
            int n = r.positions > 0 ? r.positions : 1;
            printf("endgame: player %s; %d positions (racks of at most %d tiles, seed %llu, from %llu games), "
                   "%d unsolved\n",
                   j.spec, r.positions, j.cfg.max_tiles, (unsigned long long)j.cfg.seed,
                   (unsigned long long)r.games, r.unsolved);
            printf("best move %.1f%% (%d of %d), mean loss %.3f points, max loss %d\n", endgame_study_best_pct(&r),
                   r.best, r.positions, endgame_study_mean_loss(&r), r.max_loss);
            int asked = r.positions + r.unsolved > 0 ? r.positions + r.unsolved : 1;
            printf("solver: %.0f nodes a position (max %llu), %.2f ms a position (max %.1f ms); player %.2f ms a "
                   "position; %.1f s in all\n",
                   (double)r.nodes_sum / n, (unsigned long long)r.nodes_max, 1000.0 * r.solve_seconds / n,
                   1000.0 * r.solve_seconds_max, 1000.0 * r.player_seconds / asked, dt);
        }
    }
    player_close(&p);
    engine_close(e);
    free(e);
    return rc;
}
