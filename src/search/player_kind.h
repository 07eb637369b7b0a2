/*
 * player_kind.h - what a player kind provides to player.c (internal to the
 * players: the rest of rookery uses search/player.h). A new kind is one
 * file that defines a PlayerKind and one line in player.c's list of kinds.
 *
 * player_open parses "KIND[:OPTIONS]": init, then each option in turn
 * (leaves= is handled by player.c unless the kind claims it first), then
 * finish. Every function gets the Player, whose `state` the kind owns.
 */
#ifndef ROOKERY_PLAYER_KIND_H
#define ROOKERY_PLAYER_KIND_H

#include "search/player.h"

struct PlayerKind {
    const char *name;
    const char *usage; /* the spec's syntax, for errors */
    /* Allocates and defaults p->state. 0, or -1 with err set. */
    int (*init)(Player *p, RkError *err);
    /* One option: key=val, or a bare word (val NULL). 0 done, -1 error
     * (err set), -2 not the kind's (player.c then tries leaves=). */
    int (*option)(Player *p, const char *spec, const char *key, const char *val, const LetterDist *ld, RkError *err);
    /* After the options (loads what they named, checks combinations).
     * NULL: nothing to do. 0 or -1. */
    int (*finish)(Player *p, const char *spec, const LetterDist *ld, RkError *err);
    /* Its tables against a board of side dim (NULL: nothing to check). */
    int (*check_board)(const Player *p, int dim, RkError *err);
    /* Whether it values moves with leaves of its own (then the default and
     * lent leaves are not given to it). NULL: never. */
    bool (*own_leaves)(const Player *p);
    /* The move for the side on turn: 0, or -1 (the static move is played
     * instead). */
    int (*choose)(const Player *p, const Game *g, Move *out);
    /* The last decision's training targets (player_last_target); NULL: none. */
    int (*last_target)(const Player *p, PackedMove *moves, float *probs, int cap, int *count, double *spread);
    /* Frees p->state (whatever init and the options got to). */
    void (*close)(Player *p);
};

extern const PlayerKind PLAYER_KIND_STATIC, PLAYER_KIND_SIM, PLAYER_KIND_NN, PLAYER_KIND_MCGS, PLAYER_KIND_VALUE;

/* The static player's choice with the player's leaves and, if not NULL,
 * an SPV table (what every kind falls back to). */
void player_static_choice(const Player *p, const Spv *spv, double spv_k, const Game *g, Move *out);

#endif
