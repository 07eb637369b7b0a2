/*
 * player.h - the players, behind one small interface: open one from a spec,
 * choose a move for the side on turn, close it. The self-play worker, the
 * training loop, the match harness and the commands take any of them and
 * never look inside; each kind is one file (search/player_kind.h has the
 * contract a kind fills in):
 *
 *   static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K][,explore=T]   static_player.c
 *        best static equity (score + leave + the reference engine's
 *        adjustments, + the SPV positional adjustment of eval/spv.h with
 *        spread scale K points, default PLAYER_DEFAULT_SPV_K, if spv is given);
 *        explore=T: a move drawn from the 16 best by softmax(equity / T points)
 *
 *   sim[:plies=P][,candidates=K][,iterations=N][,stop_z=Z][,seed=S]   sim_player.c
 *      [,win_bonus=W][,win_model=terminal|default|M0:M1:V0:V1]
 *      [,leaves=FILE.klv2|zero | ,req=FILE.req[,shrink=K]]
 *        Monte Carlo simulation of the K best static moves (search/sim.h;
 *        defaults: 2 plies, 15 candidates, 100 iterations, z = 2), with
 *        static leaves, or with bag-aware leaves derived at every root from
 *        a rack-equity table (req=); a win worth W points on top of the
 *        spread at each rollout's horizon (eval/winprob.h; default 0).
 *        Deterministic: each decision's seed is S mixed with the game's own
 *        random stream.
 *
 *   nn:greedy|value,model=FILE.h5[,candidates=K][,samples=S][,seed=N]   nn_player.c
 *        the network alone: the most probable move under P, or the best by
 *        V among the K most probable moves
 *
 *   value:model=FILE.h5[,candidates=K]                            value_player.c
 *        the K best static moves (default 16), the one whose afterstate
 *        the afterstate network (nn/afterstate_net.h) gives the highest
 *        chance of winning
 *
 *   mcgs[:visits=N][,candidates=K][,rollout=P][,net=FILE.h5][,...][,leaves=FILE.klv2|zero]
 *        the graph search over information sets (search/mcgs.h; all its
 *        options in search/mcgs_player.h)                        mcgs_player.c
 *
 * leaves= is every kind's option (the static leaves its moves are valued
 * with; none given: the caller's default, player_default_leaves, or the
 * leaves it lends, player_lend_leaves). A player holds scratch space: one
 * thread at a time.
 */
#ifndef ROOKERY_PLAYER_H
#define ROOKERY_PLAYER_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/klv.h"
#include "eval/spv.h"
#include "nn/forward.h"

#define PLAYER_DEFAULT_SPV_K 75.0
/* static:target_worlds=W keeps softmax(simulated value / this many points) over its candidates
 * as each decision's training target; the afterstate trainer reads the values back with it. */
#define PLAYER_TARGET_TEMPERATURE 10.0

typedef struct PlayerKind PlayerKind; /* search/player_kind.h */

typedef struct Player {
    const PlayerKind *kind;
    void *state;     /* the kind's own */
    char spec[512];  /* as given, for reports */
    Klv *leaves;     /* NULL = every leave is worth 0 */
    bool leaves_named;   /* leaves= (even zero) was given */
    bool leaves_lent;    /* leaves is not owned (player_lend_leaves) */
    bool leaves_default; /* leaves came from player_default_leaves */
} Player;

/* Parses a SPEC like "static:leaves=RUN/gen-0003/leaves.klv2" and loads its
 * tables. Errors name the spec or the file; nothing is left open. */
int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err);
/* The static player with lent tables (not owned: player_close leaves them
 * alone): `leaves` (NULL: zero leaves) and, if not NULL, the SPV table
 * `spv` at spread scale spv_k; `name` is its spec in reports. */
int player_open_static(Player *p, const char *name, Klv *leaves, Spv *spv, double spv_k, RkError *err);
/* Checks the player's tables against the board (an SPV table must have
 * dim*dim squares, a network be for side dim). */
int player_check_board(const Player *p, int dim, RkError *err);
void player_close(Player *p);
/* The kind's name ("static", "sim", "nn", "mcgs"). */
const char *player_kind_name(const Player *p);
/* The default leaves: loads path (a .klv2) into a player whose spec named
 * none (no leaves=, not even zero, and no leaves of its kind's own, such
 * as a sim player's req=); does nothing to any other player. Returns -1
 * with a message naming the file if it does not load. */
int player_default_leaves(Player *p, const char *path, const LetterDist *ld, RkError *err);
/* Whether the player uses leaves it got from player_default_leaves. */
bool player_has_default_leaves(const Player *p);
/* Lends the player leave values it does not own (player_close leaves them
 * alone), if its spec chose none (as for player_default_leaves). */
void player_lend_leaves(Player *p, Klv *leaves);
/* The player's move for the side on turn. A player whose own way fails
 * (a simulation or search out of memory) plays the static move instead. */
void player_choose(const Player *p, const Game *g, Move *out);
/* The leave callback for movegen (NULL if the player has no leaves). */
LeaveValueFn player_leave_fn(const Player *p);

/* What a searching player's last decision leaves as training targets:
 * 1 with its candidates (at most cap; *count of them), the P target over
 * them and the search's expected final spread (NAN if it has none); 0 for
 * a decision that leaves no P target (a fast search of playout cap
 * randomization); -1 for players that leave no targets of their own (their
 * moves are recorded as the static player's). */
int player_last_target(const Player *p, PackedMove *moves, float *probs, int cap, int *count, double *spread);

#endif
