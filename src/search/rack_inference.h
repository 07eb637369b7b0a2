/*
 * rack_inference.h - inference of the opponent's rack from their last move: the
 * posterior over the tiles they kept.
 *
 * The position `before` is the one before the opponent's move, with the
 * opponent on turn, as the inferring player sees it: the board, their own
 * rack (the player not on turn), the scores; the tiles they cannot see (the
 * bag plus the opponent's rack in `before`, whatever it holds there) are U.
 * The opponent held h = min(7, |U|) tiles. Their move m puts T on the board
 * (a placement), throws T back (an exchange of known tiles) or n unknown
 * tiles (ex.N), or passes. Each candidate rack is R = T + L, L a multiset of
 * h - |T| tiles of U - T (the leave they kept), and
 *
 *   P(L | m) ~ prior(L) * P(m | R)
 *
 * prior(L) = prod_x C(U[x], T[x] + L[x]): how many ways the bag deals the
 * whole rack (not the uniform deal of L from U - T, which counts a leave
 * that repeats a played letter too often: after an E is played, a kept E is
 * half as likely as that deal says);
 * P(m | R): the opponent modelled as a static-equity player (movegen's
 * equity under cfg's leaves): INFER_WINDOW, 1 if m's equity for R is within
 * tau points of R's best move, else 0; INFER_TOPK, 1 if m's equity for R is
 * at least that of R's top_k-th best move (a player that searches among its
 * top_k static candidates, as the simulation player does, chooses one of
 * them), else 0; INFER_SOFTMAX, exp(eq(m)/tau) over the sum of exp(eq/tau) of
 * every legal move of R. For ex.N the move's equity is
 * that of R's best exchange of N tiles. A pass says nothing this model can
 * weigh: its posterior is the prior.
 *
 * EXACT or SAMPLED. The distinct leaves are counted first; up to
 * cfg->max_enumerate of them each is weighed exactly (prior x likelihood);
 * beyond that cfg->samples leaves are drawn uniformly (k tiles of U - T
 * without replacement, seeded) and weighed by their likelihood over
 * prod_x C(T[x] + L[x], T[x]) (importance sampling: the prior's ratio to
 * that proposal), the same leave drawn twice adding up. Either way the
 * result lists the distinct leaves with their probability, most likely
 * first.
 *
 * A legal move the model explains for no rack (far from its choice for
 * every rack weighed) gets the prior, and prior_only says so. A move that
 * keeps nothing (a bingo, an exchange of every tile) has the one empty
 * leave. Errors (one line): the move uses tiles that are not unseen or more
 * tiles than the player held, a placement that is not legal on the board.
 * No global state; `before` is only read.
 */
#ifndef ROOKERY_RACK_INFERENCE_H
#define ROOKERY_RACK_INFERENCE_H

#include "core/game.h"
#include "core/movegen.h"

typedef enum { INFER_WINDOW = 0, INFER_SOFTMAX = 1, INFER_TOPK = 2 } InferModel;

typedef struct InferConfig {
    InferModel model;
    double tau;             /* points: the window's width, or the softmax temperature (> 0) */
    int top_k;              /* INFER_TOPK: how many of the rack's best moves (1..MOVEGEN_TOP_MAX) */
    uint64_t max_enumerate; /* weigh every leave when there are at most this many */
    uint64_t samples;       /* else this many leaves drawn and reweighed to the prior (>= 1) */
    uint64_t seed;
    LeaveValueFn leave_value; /* the modelled player's leaves (NULL: zero) */
    const void *leave_ctx;
} InferConfig;

/* Window of 5 points (top_k 8 for INFER_TOPK), enumerate up to 20,000
 * leaves, else 2,000 samples. */
void infer_config_defaults(InferConfig *c);

/* The settings of a searching player's inference at one decision: the
 * defaults with window tau, a decision's budget (2,000 leaves enumerated,
 * else 500 racks sampled: about 0.1-0.3 s), the decision's seed, and the
 * player's own leaves as the opponent's model. */
void infer_decision_config(InferConfig *c, double tau, uint64_t seed, LeaveValueFn leave_value,
                           const void *leave_ctx);

typedef struct InferLeave {
    Rack leave;
    Rack thrown; /* an exchange's tiles thrown back, kept out of the rack a world deals (the
                  * exchanger drew before returning them): the move's for known tiles, for ex.N
                  * those of the likeliest rack weighed that keeps this leave; else empty */
    double prob;
} InferLeave;

typedef struct InferResult {
    InferLeave *leaves;   /* count of them, most likely first (ties: rack order) */
    int count, cap;
    int leave_size;       /* tiles kept */
    bool exact;           /* every leave weighed (else sampled) */
    uint64_t racks;       /* candidate racks weighed */
    uint64_t consistent;  /* of them with a likelihood above 0 */
    bool prior_only;      /* the model explains the move for no rack: the prior instead */
    double seconds;
} InferResult;

void infer_result_init(InferResult *r);
void infer_result_free(InferResult *r);

/* The posterior of the leave the player on turn in `before` kept when they
 * played m (unknown_tiles: an exchange of m->ntiles tiles not shown).
 * Returns 0, or -1 with err set. */
int infer_run(const Game *before, const Move *m, bool unknown_tiles, const InferConfig *cfg, InferResult *out,
              RkError *err);

/* A leave drawn from the posterior with r (r->leaves must not be empty). */
const InferLeave *infer_draw(const InferResult *r, Rng *rng);

/* A world's hidden rack: w's player not on turn gets a leave drawn from r
 * as the tiles they kept, and the rest of their rack and the bag are dealt
 * from what remains unseen, the leave's thrown tiles held out of the rack
 * (game_deal_hidden_out), all with rng. */
void infer_deal_world(const InferResult *r, Game *w, Rng *rng);

/* What a searching player on turn in g infers of the opponent's last move
 * (g->last), seen from its side (game_before_last; the tiles of an
 * exchange are never seen): 1 with *out the posterior, 0 when there is
 * nothing to infer (no last move, an empty bag, where the racks are known;
 * a pass, whose posterior is the uniform deal) or the inference fails (the
 * caller draws uniformly then). */
int infer_last_move(const Game *g, const InferConfig *cfg, InferResult *out);

/* Whether every leave of r can be the hidden tiles of the player not on
 * turn in root: made of tiles unseen there, no more than that player holds.
 * 0, or -1 with err set (also for a posterior without a leave). */
int infer_check_fits(const Game *root, const InferResult *r, RkError *err);

#endif
