/*
 * sim.h - Monte Carlo simulation of candidate moves (Quackle/Macondo style).
 *
 * From a root position, the K best moves by static equity are candidates.
 * A WORLD is consistent with what the player on turn knows: the opponent's
 * rack (as many tiles as the opponent holds) drawn uniformly from the
 * unseen tiles (bag + opponent's rack), the rest forming the bag, and one
 * random stream for the draws. A ROLLOUT plays a candidate in a world
 * (every candidate is played in the same worlds: common random numbers, so
 * the comparison between candidates is not blurred by different luck),
 * followed by `plies` plies of
 * static best-equity play for both sides (or fewer if the game ends). Its
 * value, from the root player's view, in points:
 *
 *   value = (spread at the horizon - spread at the root)
 *           + leave(root player's last kept tiles in the rollout)
 *           - leave(opponent's last kept tiles in the rollout)
 *
 * where each leave term counts only if that move was made with tiles left in
 * the bag (leave values do not apply once it is empty), and is 0 once the
 * game has ended (the final spread says it all). With cfg->finish (the
 * default) and plies > 0 a rollout whose plies leave the bag empty plays on by static
 * moves to the end of the game, so the tiles stuck on the racks count.
 * With plies = 0 the value is score + leave: the static equity without its
 * other adjustments.
 *
 * ALLOCATION. Rollouts run in ROUNDS of about SIM_ROUND_ROLLOUTS, planned
 * from the results so far; a candidate's k-th rollout is always played in
 * world k, so candidates compare on common worlds whatever their counts.
 *   - SIM_ALLOC_TOPTWO (alloc=toptwo, the default): best-arm identification.
 *     Every candidate first gets SIM_WARMUP rollouts. Then each rollout of
 *     a round goes, by a fair coin from the seed's stream, to the LEADER
 *     (the highest mean) or to the CHALLENGER: the candidate j that is the
 *     cheapest to confuse with the leader, min over j of
 *       (mean_L - mean_j)^2 / (2 (var_L/n_L + var_j/n_j)) + ln n_j
 *     (the empirical-Bernstein "top two transportation cost" rule with its
 *     ln n exploration term; variances shrunk toward the pooled one, counts
 *     including the round's earlier picks). Rollouts go to the moves that
 *     can still be best; a wide candidate list costs little.
 *   - SIM_ALLOC_UNIFORM (alloc=uniform): every live candidate, one rollout
 *     each world.
 *
 * STOPPING. With stop_z > 0, once the leader has cfg->min_iterations
 * rollouts: toptwo stops when every other candidate's mean is more than
 * stop_z standard errors of the difference below the leader's; uniform
 * stops playing a candidate whose upper bound mean + z*se is below the
 * leader's lower bound mean - z*se, and ends when one is left. The budget
 * is cfg->iterations x the candidates rollouts (uniform: iterations worlds);
 * cfg->seconds (if > 0) and cfg->stop end it earlier (then the result
 * depends on the machine's speed).
 *
 * THREADS. cfg->threads threads play a round's rollouts; each result is
 * kept at its place in the round and merged in the round's order, and the
 * rounds do not depend on the thread count: for a seed, a budget without a
 * time limit gives the same result on any number of threads.
 *
 * DETERMINISM. World k comes from rng_seed_stream(seed, k, 0), the coin of
 * round t from rng_seed_stream(seed, t, 2): the same seed gives the same
 * table, whatever else runs.
 *
 * The best move is the candidate with the highest mean among those still
 * live (ties: the better static equity). No global state; the root and the
 * tables are only read.
 */
#ifndef ROOKERY_SIM_H
#define ROOKERY_SIM_H

#include <stdatomic.h>

#include "core/game.h"
#include "core/movegen.h"
#include "eval/winprob.h"

#define SIM_MAX_CANDIDATES 64
#define SIM_MAX_THREADS 256
/* Rollouts a round (about: uniform rounds are whole worlds). */
#define SIM_ROUND_ROLLOUTS 32
/* Rollouts every candidate gets before toptwo allocates (fewer if the
 * budget is under SIM_WARMUP a candidate). */
#define SIM_WARMUP 4

typedef enum SimAlloc { SIM_ALLOC_TOPTWO = 0, SIM_ALLOC_UNIFORM = 1 } SimAlloc;

struct SimResult;
typedef struct SimConfig {
    int plies;               /* static plies after each candidate, >= 0 */
    int candidates;          /* K, 1..SIM_MAX_CANDIDATES */
    uint64_t iterations;     /* at most this many x the candidates rollouts, >= 1 */
    uint64_t min_iterations; /* the leader's rollouts before the run can stop */
    double stop_z;           /* z of the stopping rule; 0 = never stop */
    double seconds;          /* wall-clock limit, 0 = none */
    uint64_t seed;
    SimAlloc alloc;          /* how rollouts are allocated (ALLOCATION above) */
    int threads;             /* 1..SIM_MAX_THREADS */
    LeaveValueFn leave_value; /* the static leaves: candidates, rollouts and horizon */
    const void *leave_ctx;
    WinValue win;             /* a win's worth at the horizon (bonus 0: none) */
    bool finish;              /* a rollout whose horizon finds the bag empty plays on to the
                               * end of the game (static best moves), so the tiles left on
                               * the racks count; else it stops there and they count nothing
                               * (late positions, 1..12 in the bag: 0.60 +/- 0.15 points a move
                               * better at equal rollouts, docs/results.md) */
    /* Optional, for a front end (rookery siu); all NULL/0 by default: */
    const atomic_bool *stop;  /* set by another thread: end now (every candidate keeps its
                               * first rollout, in world 0, which a stop does not cut) */
    void (*progress)(void *ctx, const struct SimResult *r); /* after every round */
    void *progress_ctx;
    const Move *given;        /* the candidates themselves (legal moves with their static
                               * equity, best first), instead of the K best */
    int given_count;          /* 1..SIM_MAX_CANDIDATES when given */
    const struct InferResult *infer; /* the opponent's kept tiles (search/rack_inference.h): each world
                               * deals the opponent a leave drawn from it plus unseen tiles
                               * (NULL: the uniform draw) */
} SimConfig;

/* Defaults: 2 plies, 15 candidates, 100 iterations, stop after 16 at z = 2,
 * toptwo, one thread, finish on. */
void sim_config_defaults(SimConfig *c);

typedef struct SimCandidate {
    Move move;               /* with its static equity */
    double mean, m2;         /* of the values (points), Welford's running mean and sum of squared deviations */
    double win_mean, win_m2; /* of the root player's P(win) at each rollout's horizon: 1, 1/2 or 0
                              * once the game is over, else the win model's (cfg->win.model) for
                              * the lead with the leaves last kept */
    uint64_t n;              /* rollouts played (in worlds 0..n-1) */
    bool live;               /* uniform: still played; toptwo: always */
} SimCandidate;

typedef struct SimResult {
    int count;
    SimCandidate cand[SIM_MAX_CANDIDATES];
    uint64_t iterations;     /* uniform: worlds played; toptwo: rollouts / count */
    uint64_t rollouts;       /* in all */
    uint64_t rounds;
    double seconds;
    int best;                /* index into cand */
} SimResult;

/* Mean value and its standard error (0 with fewer than 2 iterations). */
double sim_mean(const SimCandidate *c);
double sim_stderr(const SimCandidate *c);
/* The same for the win probability (0..1). */
double sim_win_mean(const SimCandidate *c);
double sim_win_stderr(const SimCandidate *c);
/* r's candidates in the order a table lists them: live first, then by
 * mean (best first), then by static equity; into order[0..r->count). */
void sim_table_order(const SimResult *r, const SimCandidate **order);

/* The rollout of an iteration, also the graph search's leaf value
 * (search/mcgs.h): in g (modified), `moves` moves (fewer if the game ends),
 * the first `first` if not NULL, the others the best static equity under
 * leave_value. Its value for the player on turn at the start, in points:
 * the spread change, plus, while the game goes on, the leaves last kept by
 * each side (counted for moves made with tiles in the bag) and the tempo:
 * the win model's mean(t) (eval/winprob.h, ~19 points: what moving next
 * adds to the final lead) for the player on turn where the rollout stops,
 * so that a rollout estimates the final spread change whatever its parity
 * (win NULL: no tempo); plus the win value (win NULL: none): once the game
 * is over +bonus for a win and -bonus for a loss; while it goes on bonus x
 * (2 P(win) - 1) of the lead with those leaves, unless
 * win->terminal_only. */
double sim_static_rollout(Game *g, int moves, const Move *first, LeaveValueFn leave_value, const void *leave_ctx,
                          const WinValue *win);

/* The world of iteration i under seed: the opponent's rack and the bag,
 * from the unseen tiles of the player on turn at root (in letter order, so
 * the worlds do not depend on the bag's order) in a random order, and the
 * stream for the draws; into world (a copy of root otherwise). With infer
 * (not NULL), the opponent's kept tiles are a leave drawn from that
 * posterior (search/rack_inference.h) and the rest of their rack from the others. */
void sim_deal_world(const Game *root, const struct InferResult *infer, uint64_t seed, uint64_t i, Game *world);

/* Simulates the root position (which must not be over). Returns 0, or -1
 * with err set on a bad config or when the position has no move. */
int sim_run(const Game *root, const SimConfig *cfg, SimResult *out, RkError *err);

/* The configuration of a player opened from a sim: spec, or NULL for
 * another kind (for checks of what a spec parsed to). */
struct Player;
const SimConfig *sim_player_config(const struct Player *p);
/* The configuration a sim: player simulates g with: its own, with the
 * leaves of this root (derived here with req=) and the seed of this
 * decision. sim_run(g, cfg) then chooses what player_choose would. The
 * leaves it points at belong to the player: valid until its next decision.
 * -1 with err set for another kind of player or a failed derivation. */
int sim_player_prepare(const struct Player *p, const Game *g, SimConfig *cfg, RkError *err);

#endif
