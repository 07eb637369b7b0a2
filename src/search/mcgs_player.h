/*
 * mcgs_player.h - the graph search as a player (search/player.h):
 *
 *   mcgs[:visits=N][,candidates=K][,cpuct=C][,floor=F][,fpu=U][,rollout=P]
 *       [,value_mix=M]
 *       [,prior=uniform|equity][,prior_temperature=T][,net=FILE.h5]
 *       [,hidden=uniform|net][,infer=yes[,infer_tau=T]][,win_bonus=W]
 *       [,win_model=terminal|default|M0:M1:V0:V1]
 *       [,worlds=W][,crn=no|yes][,expand=auto|first|second]
 *       [,batch=B][,vloss=V][,temperature=T][,temperature_moves=M][,seed=S]
 *       [,full_share=F,fast_visits=N][,target=visits|q][,target_scale=S]
 *       [,target_span=D]
 *
 * (McgsConfig of search/mcgs.h; leaves= is the players' common option and
 * values the static moves of candidates and rollouts). infer=yes: each
 * decision infers the opponent's kept tiles from their last move
 * (search/rack_inference.h, a window of infer_tau points, default 5, with the
 * player's leaves) and every world deals them from that posterior (not
 * with hidden=net). Each decision's seed
 * is S mixed with the game's own random stream, so a game replays exactly.
 *
 * PLAYOUT CAP RANDOMIZATION (KataGo's, for self-play): with full_share F < 1,
 * each decision is a full search (visits=) with probability F and a fast
 * one (fast_visits=, fewer) otherwise, drawn from the decision's seed. Games
 * cost less, so a generation's budget buys more games and more final
 * results for V; only the full searches leave P targets (the worker
 * records fast decisions with V and H targets only). Matches should play
 * F = 1 (the loop's gate and anchor append full_share=1).
 * target= chooses what a full search leaves as the P target: its visit
 * counts or the completed-Q improved policy (search/policy_target.h); it
 * changes no decision.
 * The last search's result stays readable (visits and values for training
 * targets, statistics for benchmarks). One thread at a time.
 */
#ifndef ROOKERY_MCGS_PLAYER_H
#define ROOKERY_MCGS_PLAYER_H
#include "search/rack_inference.h"
#include "search/mcgs.h"
#include "search/policy_target.h"

typedef struct McgsPlayer {
    McgsConfig cfg;
    NnModel model;          /* with net= */
    bool has_net, ready;
    bool crn_given;         /* crn= in the spec (else worlds=W turns the default crn off) */
    bool batch_given;       /* batch= in the spec (else threads=T sets it to 4 T) */
    McgsSearch search;
    bool infer;             /* infer=yes */
    double infer_tau;
    InferResult inference;  /* of the last decision */
    McgsResult last;        /* the last decision's search */
    double last_spread;     /* its expected final spread for the mover: the spread then + the
                             * root value, points; NaN with a win bonus (values not in points) */
    double full_share;      /* probability of a full search (1: always) */
    uint32_t fast_visits;   /* the other decisions' visits (used when full_share < 1) */
    PolicyTarget target;    /* the P target a full search leaves (self-play) */
    bool last_full;         /* the last decision was a full search (false after a failed one:
                             * its sample then gets no P target) */
    uint64_t failures;      /* decisions whose search failed (out of memory, a game already
                             * over): the caller plays another move; last_spread is NaN */
    uint64_t full_decisions; /* of decisions */
    uint64_t decisions;     /* totals over decisions, for benchmarks */
    uint64_t playouts, net_positions, batches, evaluations, collisions;
    uint64_t opponent_choices, opponent_informed; /* mcgs.h: the leak's reach */
    double seconds;
    size_t max_bytes;
    uint64_t max_nodes;
} McgsPlayer;

void mcgs_player_defaults(McgsPlayer *mp);
/* One key=value option (the spec names the player in errors). Returns 0,
 * -1 with err set, or 1 if the key is not an mcgs option. */
int mcgs_player_option(McgsPlayer *mp, const char *spec, const char *key, const char *val, const LetterDist *ld,
                       RkError *err);
/* After the options: checks the combination and allocates. */
int mcgs_player_finish(McgsPlayer *mp, const char *spec, RkError *err);
/* The model's board side, or 0 without a net. */
int mcgs_player_dim(const McgsPlayer *mp);
/* The move for the side on turn, with the static leaves given; -1 on
 * failure (out of memory), err set. */
int mcgs_player_choose(McgsPlayer *mp, const Game *g, LeaveValueFn leave_value, const void *leave_ctx, Move *out,
                       RkError *err);
void mcgs_player_close(McgsPlayer *mp);

/* The graph search inside a player opened from an mcgs: spec (for its
 * statistics: `rookery bench mcgs`, tests), or NULL for another kind. */
struct Player;
McgsPlayer *mcgs_player_of(const struct Player *p);

#endif
