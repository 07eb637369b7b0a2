/*
 * player.h - the players, behind one interface: given a game and its state,
 * choose a move. The self-play worker and the match harness take any of
 * them. Kinds so far:
 *
 *   static[:leaves=FILE.klv2|zero][,spv=FILE.spv][,spv_k=K]
 *        best static equity (score + leave + the reference engine's
 *        adjustments, + the SPV positional adjustment of eval/spv.h with
 *        spread scale K points, default PLAYER_DEFAULT_SPV_K, if spv is given)
 *
 *   sim[:plies=P][,candidates=K][,iterations=N][,stop_z=Z][,seed=S]
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
 *   nn:greedy|value,model=FILE.h5[,candidates=K][,samples=S][,seed=N]
 *        the network alone (search/nn_player.h): the most probable move
 *        under P, or the best by V among the K most probable moves
 *
 *   mcgs[:visits=N][,candidates=K][,rollout=P][,net=FILE.h5][,...][,leaves=FILE.klv2|zero]
 *        the graph search over information sets (search/mcgs.h; all its
 *        options in search/mcgs_player.h)
 */
#ifndef ROOKERY_PLAYER_H
#define ROOKERY_PLAYER_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/klv.h"
#include "eval/dynleaves.h"
#include "eval/spv.h"
#include "search/mcgs_player.h"
#include "search/nn_player.h"
#include "search/sim.h"

#define PLAYER_DEFAULT_SPV_K 75.0

typedef enum { PLAYER_STATIC = 0, PLAYER_SIM = 1, PLAYER_NN = 2, PLAYER_MCGS = 3 } PlayerKind;

typedef struct Player {
    PlayerKind kind;
    char spec[512];  /* as given, for reports */
    Klv *leaves;     /* owned; NULL = every leave is worth 0 */
    Spv *spv;        /* owned; NULL = no positional adjustment */
    double spv_k;
    SimConfig sim;   /* PLAYER_SIM (its leave callback is set per decision) */
    DynLeaves *dyn;  /* owned; PLAYER_SIM with req=: bag-aware leaves (one thread) */
    double dyn_shrink;
    NnPlayer *nn;    /* owned; PLAYER_NN (scratch inside: one thread) */
    McgsPlayer *mcgs;/* owned; PLAYER_MCGS (scratch inside: one thread) */
    bool leaves_named, shrink_named; /* leaves= (even zero) and shrink= were given */
    bool leaves_lent;   /* leaves is not owned (player_lend_leaves) */
    bool leaves_default; /* leaves came from player_default_leaves */
} Player;

/* Parses a SPEC like "static:leaves=RUN/gen-0003/leaves.klv2" and loads its
 * tables. Errors name the spec or the file. */
int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err);
/* Checks the player's tables against the board (an SPV table must have
 * dim*dim squares, a network be for side dim). */
int player_check_board(const Player *p, int dim, RkError *err);
void player_close(Player *p);
/* The default leaves: loads path (a .klv2) into a player whose spec named
 * none (no leaves=, not even zero, and no req=); does nothing to any other
 * player. Returns -1 with a message naming the file if it does not load. */
int player_default_leaves(Player *p, const char *path, const LetterDist *ld, RkError *err);
/* Whether the player uses leaves it got from player_default_leaves. */
bool player_has_default_leaves(const Player *p);
/* Lends the player leave values it does not own (player_close leaves them
 * alone), if its spec chose none: no leaves= (not even zero) and no req=. */
void player_lend_leaves(Player *p, Klv *leaves);
/* The player's move for the side on turn. A sim player falls back to the
 * static choice if its simulation fails (it cannot for a game in progress). */
void player_choose(const Player *p, const Game *g, Move *out);
/* The leave callback for movegen (NULL if the player has no leaves). */
LeaveValueFn player_leave_fn(const Player *p);

#endif
