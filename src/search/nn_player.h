/*
 * nn_player.h - players that move with the network alone (no search):
 *
 *   nn:greedy,model=FILE.h5
 *        the legal move of highest probability under P (every legal move's
 *        log-probability, nn/forward.h nn_policy_all)
 *   nn:value,model=FILE.h5[,candidates=K][,samples=S][,seed=N]
 *        the K most probable moves under P (default 8), each played in S
 *        dealt worlds (default 4: the opponent's rack and the bag drawn
 *        uniformly from the unseen tiles); the move whose resulting
 *        positions V values best for the mover (1 - the opponent's win
 *        probability; a finished game counts its result) is played
 *
 * Deterministic: each decision's worlds come from S mixed with the game's
 * own random stream. A player holds scratch space: one thread at a time.
 */
#ifndef ROOKERY_NN_PLAYER_H
#define ROOKERY_NN_PLAYER_H
#include "core/game.h"
#include "nn/forward.h"

typedef enum { NN_PLAYER_GREEDY = 0, NN_PLAYER_VALUE = 1 } NnPlayerMode;

#define NN_PLAYER_MAX_CANDIDATES 64
#define NN_PLAYER_MAX_SAMPLES 64

typedef struct NnPlayer {
    NnPlayerMode mode;
    int candidates, samples;
    uint64_t seed;
    NnModel model;
    bool loaded;
    /* scratch, set up at the first decision (the game gives layout and lexicon) */
    NnFeatureContext fc;
    LeaveValueFn leave_value; /* the player's leaves, for a model whose prior values moves by equity */
    const void *leave_ctx;
    NnBatch batch;
    bool ready, warned;
    double *logp;
    int logp_cap;
    /* while its spec is read (player_kind.h) */
    bool mode_given, sizes_given;
    char model_path[512];
} NnPlayer;

void nn_player_defaults(NnPlayer *np, NnPlayerMode mode);
/* Loads the model (after the options are set). */
int nn_player_load(NnPlayer *np, const char *path, const LetterDist *ld, RkError *err);
/* The model's board side (for player_check_board). */
static inline int nn_player_dim(const NnPlayer *np) { return np->model.fs.dim; }
/* The move for the side on turn; -1 on out-of-memory. */
int nn_player_choose(NnPlayer *np, const Game *g, LeaveValueFn leave_value, const void *leave_ctx, Move *out);
void nn_player_close(NnPlayer *np);

#endif
