/*
 * decision_study.h - how good are a player's moves in the middle of the
 * game? Its move in positions with tiles in the bag, against a long
 * reference simulation: a finer measure than a match, whose result is
 * mostly the luck of the draw.
 *
 * POSITIONS. Position i (i = 0, 1, 2, ...) comes from the static game
 * (seed, 0, i) (game_new's stream): both sides play the best static equity
 * under the games' leaves (game_leave_value). Of the M moves of that game
 * made with tiles in the bag, the position is the one before move k, k
 * drawn uniformly from 0..M-1 by a stream of (seed, i) of its own (k = 0 is
 * the opening: positions run from the first move to the last with tiles in
 * the bag). Every game gives a position (its first move is made with a full
 * bag), so position i depends only on i, the seed, the games' leaves, the
 * lexicon, the distribution and the layout, never on the players studied or
 * on the number of ranks.
 *
 * THE REFERENCE. The candidates of position i are the R best moves by
 * static equity under the study's leaves, and every studied player's move
 * (each move once). Every candidate is simulated in the same N worlds
 * (search/sim.h: sim_deal_world with the position's reference seed,
 * then sim_static_rollout of the candidate and `plies` static plies under
 * the reference's leaves (leave_value), with the win value `win`): common random numbers, so
 * the differences between candidates are far more precise than their
 * values. A candidate's reference value is its mean over the N worlds, in
 * points from the mover's view. The reference's best move is the
 * candidate with the highest value.
 *
 * SCORING. A player's loss in a position is the best reference value minus
 * that of its move (>= 0; 0 when it chose the reference's best). Losses are
 * summed in fixed point (DECISION_UNIT per point), so totals are exact
 * and the same for any split of the positions over ranks. The limits on
 * positions, iterations and the win bonus keep the sums of squares within
 * int64 (a loss is at most a few times the win bonus plus a few hundred
 * points of spread).
 *
 * BIASES to keep in mind when reading a result: the reference is itself a
 * rollout estimate (a player that simulates like it is judged by its own
 * standard), and the best of noisy means is biased upwards (every player's
 * loss is too high by about the same amount, so differences between players
 * stay fair). The per-position standard error of each loss (from the
 * paired per-world differences; 0 where the player chose the best) says how
 * noisy the reference is.
 *
 * No global state; a study's scratch serves one thread.
 */
#ifndef ROOKERY_DECISION_STUDY_H
#define ROOKERY_DECISION_STUDY_H

#include "core/game.h"
#include "eval/winprob.h"
#include "search/player.h"
#include "search/sim.h"

#define DECISION_MAX_PLAYERS 16
#define DECISION_DEFAULT_CANDIDATES 12
#define DECISION_DEFAULT_PLIES 2
#define DECISION_DEFAULT_ITERATIONS 300
#define DECISION_MAX_POSITIONS 1000000
#define DECISION_MAX_ITERATIONS 1000000
#define DECISION_MAX_WIN_BONUS 1000.0
/* Fixed point of the totals: 1/1000 point. */
#define DECISION_UNIT 1000.0

typedef struct DecisionStudyConfig {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    LeaveValueFn game_leave_value; /* the leaves of the games the positions come from; NULL = zero */
    const void *game_leave_ctx;
    LeaveValueFn leave_value; /* the reference's leaves (its candidates and rollouts); NULL = zero */
    const void *leave_ctx;
    uint64_t seed;
    int positions;            /* 1..DECISION_MAX_POSITIONS */
    int candidates;           /* R, 1..SIM_MAX_CANDIDATES - players */
    int plies;                /* after each candidate, 0..100 */
    int iterations;           /* N worlds, 2..DECISION_MAX_ITERATIONS */
    WinValue win;             /* a win's worth at the horizon (bonus 0: none; at most DECISION_MAX_WIN_BONUS) */
    int max_bag;              /* > 0: positions with 1..max_bag tiles in the bag only (the late game);
                               * 0: any position with tiles in the bag */
} DecisionStudyConfig;

void decision_study_config_defaults(DecisionStudyConfig *c);
/* One line naming a bad value; 0 if the config can be run with n players. */
int decision_study_check(const DecisionStudyConfig *c, int n_players, RkError *err);

/* Plays game i of c into g (caller's storage) up to its position. */
void decision_study_position(const DecisionStudyConfig *c, uint64_t i, Game *g);

/* One position's scores. */
typedef struct DecisionItem {
    uint64_t index;
    const Game *game;
    int players;
    Move chosen[DECISION_MAX_PLAYERS];
    double loss[DECISION_MAX_PLAYERS];    /* points, >= 0 */
    double loss_se[DECISION_MAX_PLAYERS]; /* the reference's standard error of that loss (0 if best) */
    bool best_chosen[DECISION_MAX_PLAYERS]; /* the player chose the reference's best */
    double player_seconds[DECISION_MAX_PLAYERS];
    Move best;                             /* the reference's best */
    double best_value;
    int best_static_rank;                  /* its rank by static equity, 1..R, or 0: a player's move
                                            * outside the R best */
    int candidates;                        /* simulated */
    double reference_seconds;
} DecisionItem;

/* The bins of the reference best's static rank: 1, 2-5, 6-10, 11-15,
 * 16-30, above 30, and outside the R best (a player's move). */
#define DECISION_RANK_BINS 7
int decision_rank_bin(int static_rank);
extern const char *const DECISION_RANK_BIN_NAMES[DECISION_RANK_BINS];

/* Totals over positions, in fixed point: exact sums, the same over any
 * split of the positions. Pack/unpack for a reduction over ranks. */
typedef struct DecisionTotals {
    int64_t positions;
    int64_t best[DECISION_MAX_PLAYERS];      /* positions where the player chose the reference's best */
    int64_t loss[DECISION_MAX_PLAYERS];      /* sum of losses, in DECISION_UNIT */
    int64_t loss_sq[DECISION_MAX_PLAYERS];   /* sum of squared losses, in DECISION_UNIT^2 */
    int64_t diff_sq[DECISION_MAX_PLAYERS];   /* sum of (loss_k - loss_0)^2, in DECISION_UNIT^2 */
    int64_t loss_se[DECISION_MAX_PLAYERS];   /* sum of the reference's standard errors, in DECISION_UNIT */
    int64_t player_us[DECISION_MAX_PLAYERS]; /* the players' time, microseconds */
    int64_t reference_us;
    int64_t candidates;                      /* simulated, summed */
    int64_t best_rank[DECISION_RANK_BINS];   /* positions whose reference best has static rank in
                                              * bin b (decision_rank_bin) */
} DecisionTotals;
#define DECISION_TOTALS_FIELDS (2 + 6 * DECISION_MAX_PLAYERS + 1 + DECISION_RANK_BINS)


void decision_totals_pack(const DecisionTotals *t, int64_t out[DECISION_TOTALS_FIELDS]);
void decision_totals_unpack(const int64_t in[DECISION_TOTALS_FIELDS], DecisionTotals *t);
/* Adds one scored position. */
void decision_totals_add(DecisionTotals *t, const DecisionItem *item);

/* Player k's figures: best share (percent), mean loss and its standard
 * error over positions; for k > 0 also the mean of loss_k - loss_0 and its
 * standard error (the paired comparison with player 0; 0 for k = 0). */
typedef struct DecisionSummary {
    double best_pct, mean_loss, loss_se, diff, diff_se, reference_se, ms_per_move;
} DecisionSummary;
void decision_summary(const DecisionTotals *t, int k, DecisionSummary *s);

/* The scratch of a study: its candidates and the per-world values. */
typedef struct DecisionStudy DecisionStudy;
DecisionStudy *decision_study_new(const DecisionStudyConfig *c, int n_players, RkError *err);
void decision_study_free(DecisionStudy *s);
/* Position i: each of players[0..n) chooses its move, the reference
 * values the candidates, into *item (item->game points into the study's
 * scratch until the next call). Errors: a player's move that is not legal
 * (one line, -1). */
int decision_study_score(DecisionStudy *s, const Player *const *players, uint64_t i, DecisionItem *item,
                         RkError *err);

/* Called after each position a share scores (progress, listings). */
typedef void (*DecisionObserver)(const DecisionItem *item, const DecisionTotals *so_far, void *ctx);

/* One rank's share of c->positions: positions rank, rank + ranks, ...,
 * each scored with players[0..n) and added to *t (zeroed first); observe
 * (may be NULL) after each. The sum of the shares over ranks = 0..ranks-1
 * is the same for any number of ranks. 0, or -1 with err set. */
int decision_study_run_share(const DecisionStudyConfig *c, const Player *const *players, int n, int rank, int ranks,
                             DecisionTotals *t, DecisionObserver observe, void *ctx, RkError *err);

#endif
