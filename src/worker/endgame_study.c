/*
 * endgame_study.c - endgame positions from static games, and a player's
 * moves in them scored against the exact solver (see endgame_study.h).
 */
#include "endgame_study.h"

#include <stdlib.h>
#include <string.h>

#include "core/movegen.h"

void endgame_study_config_defaults(EndgameStudyConfig *c) {
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->positions = 100;
    c->max_tiles = ENDGAME_STUDY_DEFAULT_MAX_TILES;
    endgame_config_defaults(&c->solver);
}

static void play_static(Game *g) {
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    Move m;
    movegen_best(&req, &m, NULL);
    game_play(g, &m);
}

bool endgame_study_position(const EndgameStudyConfig *c, uint64_t game_index, Game *g) {
    game_new(g, c->ld, c->layout, c->kwg, c->seed, 0, game_index);
    while (!game_over(g) && g->bag.count > 0) play_static(g);
    while (!game_over(g) && (g->racks[0].total > c->max_tiles || g->racks[1].total > c->max_tiles))
        play_static(g);
    return !game_over(g);
}

bool endgame_study_peg_position(const EndgameStudyConfig *c, uint64_t game_index, int bag, Game *g) {
    game_new(g, c->ld, c->layout, c->kwg, c->seed, 0, game_index);
    while (!game_over(g) && g->bag.count > bag) play_static(g);
    return !game_over(g) && g->bag.count == bag;
}

double endgame_study_best_pct(const EndgameStudyResult *r) {
    return r->positions > 0 ? 100.0 * r->best / r->positions : 0.0;
}

double endgame_study_mean_loss(const EndgameStudyResult *r) {
    return r->positions > 0 ? (double)r->loss_sum / r->positions : 0.0;
}

/* Scores p's move in g, solved into *solved (NULL: over the budget), into
 * r and *item. */
static int score_move(const Player *p, const Game *g, const EndgameResult *solved, EndgameStudyResult *r,
                      EndgameStudyItem *item, RkError *err) {
    double t0 = rk_seconds();
    player_choose(p, g, &item->chosen);
    item->player_seconds = rk_seconds() - t0;
    r->player_seconds += item->player_seconds;
    item->solved = NULL;
    item->chosen_index = -1;
    item->loss = 0;
    if (solved == NULL) {
        r->unsolved++;
        return 0;
    }
    item->solved = solved;
    item->chosen_index = endgame_result_find(solved, &item->chosen);
    if (item->chosen_index < 0) {
        char text[128];
        move_to_string(&item->chosen, &g->board, g->ld, text, sizeof text);
        return rk_error(err, "endgame study: the player chose '%s', which is not a legal move", text);
    }
    item->loss = solved->best_value - solved->values[item->chosen_index];
    r->positions++;
    r->best += item->loss == 0;
    r->loss_sum += item->loss;
    if (item->loss > r->max_loss) r->max_loss = item->loss;
    return 0;
}

/* The solver's figures of one solve, into every player's result. */
static void count_solve(const EndgameResult *solved, EndgameStudyResult *r, int n) {
    for (int k = 0; k < n; k++) {
        r[k].nodes_sum += solved->nodes;
        if (solved->nodes > r[k].nodes_max) r[k].nodes_max = solved->nodes;
        r[k].solve_seconds += solved->seconds;
        if (solved->seconds > r[k].solve_seconds_max) r[k].solve_seconds_max = solved->seconds;
    }
}

int endgame_study_run(const EndgameStudyConfig *c, const Player *p, EndgameStudyResult *r,
                      EndgameStudyObserver observe, void *ctx, RkError *err) {
    return endgame_study_run_many(c, &p, 1, r, observe, ctx, err);
}

int endgame_study_run_many(const EndgameStudyConfig *c, const Player *const *players, int n, EndgameStudyResult *r,
                           EndgameStudyObserver observe, void *ctx, RkError *err) {
    if (n < 1) return rk_error(err, "endgame study: no player to study");
    memset(r, 0, (size_t)n * sizeof *r);
    if (c->positions < 1) return rk_error(err, "endgame study: positions must be at least 1");
    if (c->max_tiles < 1 || c->max_tiles > RK_RACK_SIZE)
        return rk_error(err, "endgame study: max tiles %d out of range 1..%d", c->max_tiles, RK_RACK_SIZE);
    Game *g = malloc(sizeof *g);
    if (g == NULL) return rk_error(err, "endgame study: out of memory");
    EndgameResult solved;
    endgame_result_init(&solved);
    uint64_t max_games = (uint64_t)c->positions * ENDGAME_STUDY_GAMES_PER_POSITION + ENDGAME_STUDY_SPARE_GAMES;
    int found = 0, rc = 0;
    for (uint64_t gi = 0; found < c->positions && rc == 0; gi++) {
        if (gi >= max_games) {
            rc = rk_error(err, "endgame study: only %d of %d positions in %llu games (racks of at most %d tiles)",
                          found, c->positions, (unsigned long long)max_games, c->max_tiles);
            break;
        }
        for (int k = 0; k < n; k++) r[k].games++;
        if (!endgame_study_position(c, gi, g)) continue;
        int index = found++;
        int solve = endgame_solve(g, &c->solver, &solved, err);
        if (solve != 0 && solve != ENDGAME_OVER_BUDGET) {
            rc = -1;
            break;
        }
        if (solve == 0) count_solve(&solved, r, n);
        for (int k = 0; k < n && rc == 0; k++) {
            EndgameStudyItem item;
            memset(&item, 0, sizeof item);
            item.index = index;
            item.player = k;
            item.game_index = gi;
            item.game = g;
            rc = score_move(players[k], g, solve == 0 ? &solved : NULL, &r[k], &item, err);
            if (rc == 0 && observe != NULL) observe(&item, ctx);
        }
    }
    endgame_result_free(&solved);
    free(g);
    return rc;
}
