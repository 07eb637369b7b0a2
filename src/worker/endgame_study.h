/*
 * endgame_study.h - how well does a player play endgames? Its move in
 * positions with an empty bag, against the exact values of
 * search/endgame.h.
 *
 * POSITIONS. Game i (i = 0, 1, 2, ...) is a static game of (seed, 0, i)
 * (game_new's stream): both sides play movegen_best by score alone (no
 * leaves; leave values do not apply once the bag is empty anyway) until the
 * bag is empty, then on, with the same static moves, until both racks hold
 * at most max_tiles tiles. That position is the game's endgame; a game that
 * ends first gives none and is skipped. The positions depend only on the
 * seed, the lexicon, the distribution, the layout and max_tiles, never on
 * the player studied, so two players can be compared on the same ones.
 *
 * SCORING. Each position is solved (every root move's exact value), the
 * player chooses its move (player_choose), and its loss is the best value
 * minus the value of that move (0 when the player's move is one of the
 * best). A position the solver cannot finish within its node budget is
 * counted as unsolved and left out of the figures.
 *
 * No global state; one study runs on one thread (a player's scratch is not
 * shared).
 */
#ifndef ROOKERY_ENDGAME_STUDY_H
#define ROOKERY_ENDGAME_STUDY_H

#include "core/game.h"
#include "search/endgame.h"
#include "search/player.h"

#define ENDGAME_STUDY_DEFAULT_MAX_TILES 3
/* Games tried per position wanted (plus ENDGAME_STUDY_SPARE_GAMES) before a
 * study gives up finding positions. */
#define ENDGAME_STUDY_GAMES_PER_POSITION 20
#define ENDGAME_STUDY_SPARE_GAMES 100

typedef struct EndgameStudyConfig {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    uint64_t seed;
    int positions;         /* wanted, >= 1 */
    int max_tiles;         /* T: both racks at most this many tiles, 1..RK_RACK_SIZE */
    EndgameConfig solver;
} EndgameStudyConfig;

/* One scored position, for observers (progress, listings). */
typedef struct EndgameStudyItem {
    int index;                   /* 0-based among the positions */
    int player;                  /* which of the players studied (endgame_study_run_many) */
    uint64_t game_index;         /* the game it came from */
    const Game *game;            /* the position */
    const EndgameResult *solved; /* NULL if unsolved (over the budget) */
    Move chosen;                 /* the player's move */
    int chosen_index;            /* in solved->moves; -1 if unsolved */
    int32_t loss;                /* best value - chosen value; 0 if unsolved */
    double player_seconds;
} EndgameStudyItem;

typedef void (*EndgameStudyObserver)(const EndgameStudyItem *item, void *ctx);

typedef struct EndgameStudyResult {
    int positions;            /* solved and scored */
    int unsolved;             /* over the node budget (not in the figures below) */
    uint64_t games;           /* games played to find the positions */
    int best;                 /* the player's move had the best exact value */
    int64_t loss_sum;         /* points, over the solved positions */
    int32_t max_loss;
    uint64_t nodes_sum, nodes_max;
    double solve_seconds, solve_seconds_max, player_seconds;
} EndgameStudyResult;

void endgame_study_config_defaults(EndgameStudyConfig *c);

/* Plays game `game_index` of c into g (caller's storage) up to its endgame
 * position; false if the game ended first. */
bool endgame_study_position(const EndgameStudyConfig *c, uint64_t game_index, Game *g);
/* The same game's pre-endgame: played (the same static moves) until the bag
 * holds at most `bag` tiles; false unless it then holds exactly `bag` and
 * the game goes on (rookery bench peg, the pre-endgame tests). */
bool endgame_study_peg_position(const EndgameStudyConfig *c, uint64_t game_index, int bag, Game *g);

/* Runs the study of player p: c->positions positions, each solved and
 * scored, in order; observe (may be NULL) is called after each. Errors: a
 * bad configuration, too few positions in the games allowed, a player move
 * that is not legal, out of memory (one line, -1 returned). */
int endgame_study_run(const EndgameStudyConfig *c, const Player *p, EndgameStudyResult *r,
                      EndgameStudyObserver observe, void *ctx, RkError *err);
/* The same for players[0..n) on the same positions, each solved once (the
 * solver is most of a study's time): r[k] is player k's result, the same as
 * endgame_study_run would give it; observe is called for each player of
 * each position in turn (item->player). */
int endgame_study_run_many(const EndgameStudyConfig *c, const Player *const *players, int n, EndgameStudyResult *r,
                           EndgameStudyObserver observe, void *ctx, RkError *err);

/* The share of positions where the player's move was best (percent) and the
 * mean loss (points); 0 with no positions. */
double endgame_study_best_pct(const EndgameStudyResult *r);
double endgame_study_mean_loss(const EndgameStudyResult *r);

#endif
