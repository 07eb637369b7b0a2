/*
 * residuals.h - the equity residuals of one game's moves: what the SPV table
 * (eval/spv_derive.h) is trained on, and how well an SPV table explains them.
 *
 * For each placement played while the bag is not empty, from the mover's
 * point of view, in millipoints:
 *   residual = 1000 * (final spread - spread before the move) - (1000*score + leave)
 * where spread = mover's score minus the opponent's and leave = the value of
 * the tiles the move keeps (the leave callback the game was played with).
 * The final spread is only known when the game ends, so a game's moves are
 * recorded as they are played (residuals_record) and turned into residuals
 * at the end (residuals_finish). Exchanges and passes have no fresh tiles:
 * they are not recorded.
 *
 * TARGETS. That is RESIDUAL_FINAL. RESIDUAL_EXPOSURE is what the design
 * defines the mean penalty by, the opponent's benefit:
 *   residual = -1000 * (the score of the opponent's next move)
 * (0 if the game ends first). The SPV derivation compares it with the
 * average tile of the same stratum and bucket, so the table holds how much
 * more or less the opponent scores next after a tile on that square. It is
 * far less noisy than the spread to the end of the game (docs/spv.md).
 *
 * ResidualStats sums, over recorded moves, r and r^2 and the same for
 * r - adjust (adjust = an SPV table's adjustment of the move, given at record
 * time): the residual variance without and with SPV. All sums are int64
 * (squares split in two words like spv_derive.h), so they add up exactly
 * over ranks.
 */
#ifndef ROOKERY_RESIDUALS_H
#define ROOKERY_RESIDUALS_H

#include "core/game.h"
#include "eval/spv_derive.h"

#define RESIDUAL_MAX_MOVES 1024

typedef struct ResidualMove {
    int8_t mover;
    uint8_t openness;      /* openness bucket of the board before the move */
    uint8_t phase;         /* game-phase bucket (tiles in the bag before the move) */
    uint8_t ntiles;        /* fresh tiles */
    int32_t spread_before; /* points, mover's view */
    int32_t predicted;     /* 1000*score + leave, millipoints */
    int32_t adjust;        /* SPV adjustment of the move, millipoints (0: none) */
    int32_t reply;         /* the opponent's next move's score, points (0 until seen) */
    uint16_t square[RK_RACK_SIZE]; /* canonical squares of the fresh tiles */
    uint8_t bucket[RK_RACK_SIZE];  /* their tile buckets */
} ResidualMove;

typedef enum { RESIDUAL_FINAL, RESIDUAL_EXPOSURE } ResidualTarget;

typedef struct GameResiduals {
    int num_openness, num_phases, num_buckets;
    ResidualTarget target;
    int n;
    int pending; /* the recorded move waiting for the opponent's reply, or -1 */
    ResidualMove moves[RESIDUAL_MAX_MOVES];
} GameResiduals;

typedef struct ResidualStats {
    int64_t moves;
    int64_t sum, sq_hi, sq_lo;             /* r */
    int64_t sum_adj, sq_adj_hi, sq_adj_lo; /* r - adjust */
} ResidualStats;
#define RESIDUAL_STATS_FIELDS 7

/* Starts a game: residuals of the given target; tiles are bucketed for a
 * table of num_buckets buckets, num_openness openness buckets (0: one) and
 * num_phases phase buckets (spv_derive.h). */
void residuals_begin(GameResiduals *r, ResidualTarget target, int num_openness, int num_phases, int num_buckets);
/* To be called with every move m of the game, about to be played from
 * position g: records a placement played while the bag is not empty, whose
 * kept tiles are worth leave_mp and whose SPV adjustment is adjust_mp (both
 * only read for such moves), and notes any move as the reply to the
 * opponent's recorded move before it. */
void residuals_record(GameResiduals *r, const Game *g, const Move *m, int32_t leave_mp, int32_t adjust_mp);
/* The game in `final` has ended: adds every recorded move's residual to acc
 * (one observation per fresh tile; acc may be NULL) and to st (may be NULL). */
void residuals_finish(const GameResiduals *r, const Game *final, SpvAccum *acc, ResidualStats *st);

/* The residual of recorded move k (millipoints, clamped to
 * +-SPV_RESIDUAL_MAX) once the game has ended in `final`. */
int64_t residuals_value(const GameResiduals *r, int k, const Game *final);

/* "final" / "exposure"; and back (-1 if neither). */
const char *residual_target_name(ResidualTarget t);
int residual_target_parse(const char *s);


void residual_stats_pack(const ResidualStats *s, int64_t out[RESIDUAL_STATS_FIELDS]);
void residual_stats_unpack(const int64_t in[RESIDUAL_STATS_FIELDS], ResidualStats *s);
/* Population variance of r (adjusted = false) or r - adjust, in points^2. */
double residual_stats_variance(const ResidualStats *s, bool adjusted);

#endif
