/*
 * player.h - the players, behind one interface: given a game and its state,
 * choose a move. The self-play worker and the match harness take any of
 * them. Kinds so far:
 *
 *   static[:leaves=FILE.klv2|zero]   best static equity (score + leave +
 *                                    the reference engine's adjustments)
 *
 * Simulation and graph search players join with later issues.
 */
#ifndef ROOKERY_PLAYER_H
#define ROOKERY_PLAYER_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/klv.h"

typedef enum { PLAYER_STATIC = 0 } PlayerKind;

typedef struct Player {
    PlayerKind kind;
    char spec[512];  /* as given, for reports */
    Klv *leaves;     /* owned; NULL = every leave is worth 0 */
} Player;

/* Parses a SPEC like "static:leaves=RUN/gen-0003/leaves.klv2" and loads its
 * tables. Errors name the spec or the file. */
int player_open(Player *p, const char *spec, const LetterDist *ld, RkError *err);
void player_close(Player *p);
/* The player's move for the side on turn. */
void player_choose(const Player *p, const Game *g, Move *out);
/* The leave callback for movegen (NULL if the player has no leaves). */
LeaveValueFn player_leave_fn(const Player *p);

#endif
