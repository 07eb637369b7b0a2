/*
 * peg.h - the pre-endgame solver: the best move with 1 or 2 tiles in the
 * bag, by the share of the ways the unseen tiles can lie that it wins.
 *
 * The player on turn sees every tile but the unseen ones: the opponent's
 * rack and the bag. A DEAL says which unseen tiles are in the bag (the rest
 * is the opponent's rack); each deal counts as many WAYS as there are
 * choices of unseen tiles that give it (a deal E with three Es unseen is 3
 * ways), so every way is equally likely.
 *
 * For each candidate move (every placement, and the pass) and each deal:
 *   - a placement of at least as many tiles as the bag holds draws the bag
 *     empty: the rest is an endgame (endgame.h) with the opponent on turn,
 *     and the line's value is the move's spread less the endgame's value;
 *     it is EXACT once the endgame search is;
 *   - a move that leaves tiles in the bag (the pass; a one-tile play with
 *     two in the bag) is an ESTIMATE, never exact: the opponent, as if it
 *     knew the deal, answers with the best of its PEG_REPLIES best-scoring
 *     placements, each followed by the endgame search (one ply less deep),
 *     its pass not considered. A one-tile play draws either of two
 *     different tiles half the time: the line is the mean of both.
 * A line is a WIN when the spread at the end (the current spread plus the
 * line's value) is above 0, a DRAW at 0, a LOSS below.
 *
 * STAGES. Stage 1 values every line one ply deep (the opponent's best
 * reply by score), the candidates in order of static equity
 * (cfg->leave_value). Stage 2 is selective when pruning: the opponent's
 * PEG_REPLIES best replies at the horizon, each answered by the mover's
 * best (endgame_selective_two; a full depth-2 search costs about 20 times
 * as much). Stage s >= 3 searches the endgames s plies deep (endgame.h's
 * depth-limited search, endgame_value; lines already exact are not
 * searched again). After
 * each stage the candidates are ranked by their share of wins (draws count
 * half), then by their mean value, and all but the best are pruned:
 * PEG_FIRST_KEEP after stage 1, half of them after each later stage, never
 * fewer than PEG_MIN_KEEP (cfg->prune false: none is pruned). Pruning is by
 * estimates, so a pruned candidate's figures are not a proof that it is
 * worse; every figure of a candidate marked exact is. The solve ends when
 * every candidate left is exact, at cfg->max_depth, or when stopped
 * (cfg->stop or cfg->deadline): the answer is then the best of the last
 * completed stage, or the best of the candidates the stage under way
 * completed if it completed the last stage's best.
 *
 * No global state; the game is only read.
 */
#ifndef ROOKERY_PEG_H
#define ROOKERY_PEG_H

#include <stdatomic.h>

#include "core/game.h"
#include "core/move.h"
#include "core/movegen.h"

/* Tiles in the bag the solver handles. */
#define PEG_MAX_BAG 2
/* The opponent's replies an estimated line weighs (see above). */
#define PEG_REPLIES 8
#define PEG_FIRST_KEEP 32
#define PEG_MIN_KEEP 4
/* Room for the deals: unordered pairs of letter kinds, 378 for English's 27
 * (an alphabet with more pairs of unseen kinds would not be dealt in full;
 * in play at most 9 tiles are unseen with two in the bag). */
#define PEG_MAX_DEALS 1024

typedef struct PegConfig {
    int table_bits;           /* each endgame search's table (2^bits entries of 16
                               * bytes); 0 = none; at most ENDGAME_MAX_TABLE_BITS */
    int max_depth;            /* the last stage; 0 = until every candidate left is exact */
    bool prune;               /* prune after each stage (false: every candidate searched
                               * to the end: the oracle, `rookery peg --all`) */
    const atomic_bool *stop;  /* NULL, or set by another thread to end the solve */
    double deadline;          /* rk_seconds() at which to stop; 0 = none */
    LeaveValueFn leave_value; /* the order stage 1 takes the candidates in: static
                               * equity with these leaves (NULL: by score), so
                               * that a stop in stage 1 has valued the likeliest */
    const void *leave_ctx;
    int max_candidates;       /* > 0: only the best this many by static equity (with
                               * leave_value) are candidates; 0 = every move */
    const Move *only;         /* only_count > 0: the candidates are these moves (each
                               * one legal here; searchmoves, a study's moves) */
    int only_count;
} PegConfig;

/* table_bits 16, no depth limit, pruning, no stop, no deadline, no leaves,
 * every move a candidate (max_candidates 0, no list). */
void peg_config_defaults(PegConfig *c);

typedef struct PegDeal {
    Rack bag;    /* the tiles in the bag */
    double ways; /* the choices of unseen tiles that give it */
} PegDeal;

typedef struct PegCandidate {
    Move move;
    double win, draw, loss; /* ways of each outcome */
    double mean;            /* the line values' mean over the ways (points) */
    double share;           /* peg_win_share */
    int depth;              /* the stage its figures come from */
    bool exact;             /* every line solved to the end of the game */
    bool empties_bag;       /* it draws every tile in the bag */
    bool pruned;            /* not searched since stage `depth` */
    int32_t *value;         /* [deals] each line's value at `depth` (mover's view) */
    bool *line_exact;       /* [deals] */
} PegCandidate;

typedef struct PegResult {
    PegCandidate *cand;     /* [count], ranked after the last completed stage, best first */
    int count;
    int best;               /* the answer's index in cand */
    PegDeal *deal;          /* [ndeals] */
    int ndeals;
    double ways;            /* sum of the deals' ways */
    int spread;             /* the spread now, mover's view */
    int stage;              /* the last completed stage (0: stage 1 did not complete) */
    int alive;              /* candidates not pruned */
    uint64_t endgames;      /* lines searched (each stage counts again) */
    uint64_t nodes;         /* the endgame searches' positions */
    double seconds;
} PegResult;

void peg_result_init(PegResult *r);
void peg_result_free(PegResult *r);

/* A candidate's share of wins, draws counting half, in [0, 1]. */
double peg_win_share(const PegResult *r, const PegCandidate *c);

/* Called after every completed stage. */
typedef void (*PegStageFn)(void *ctx, const PegResult *r);

/* Solves g for the player on turn (see above). Errors (one line in err,
 * -1): the bag holds 0 or more than PEG_MAX_BAG tiles, the game is over,
 * the player on turn has no tiles, the configuration is out of range, a
 * move of cfg->only is not legal, out of memory. A stop is not an error. */
int peg_solve(const Game *g, const PegConfig *cfg, PegResult *out, PegStageFn on_stage, void *ctx, RkError *err);

#endif
