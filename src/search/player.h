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
 * Simulation and graph search players join with later issues.
 */
#ifndef ROOKERY_PLAYER_H
#define ROOKERY_PLAYER_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/klv.h"
#include "eval/spv.h"

#define PLAYER_DEFAULT_SPV_K 75.0

typedef enum { PLAYER_STATIC = 0 } PlayerKind;

typedef struct Player {
    PlayerKind kind;
    char spec[512];  /* as given, for reports */
    Klv *leaves;     /* owned; NULL = every leave is worth 0 */
    Spv *spv;        /* owned; NULL = no positional adjustment */
    double spv_k;
} Player;

/* Parses a SPEC like "static:leaves=RUN/gen-0003/leaves.klv2" and loads its
 * tables. Errors name the spec or the file. */
int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err);
/* Checks the player's tables against the board (an SPV table must have
 * dim*dim squares). */
int player_check_board(const Player *p, int dim, RkError *err);
void player_close(Player *p);
/* The player's move for the side on turn. */
void player_choose(const Player *p, const Game *g, Move *out);
/* The leave callback for movegen (NULL if the player has no leaves). */
LeaveValueFn player_leave_fn(const Player *p);

#endif
