/*
 * sim.h - Monte Carlo simulation of candidate moves (Quackle/Macondo style).
 *
 * From a root position, the K best moves by static equity are candidates.
 * Each ITERATION samples one world consistent with what the player on turn
 * knows: the opponent's rack (as many tiles as the opponent holds) drawn
 * uniformly from the unseen tiles (bag + opponent's rack), the rest forming
 * the bag, and one random stream for the draws. Every live candidate is
 * played in that same world (common random numbers: the comparison between
 * candidates is not blurred by different luck), followed by `plies` plies of
 * static best-equity play for both sides (or fewer if the game ends). Its
 * value, from the root player's view, in points:
 *
 *   value = (spread at the horizon - spread at the root)
 *           + leave(root player's last kept tiles in the rollout)
 *           - leave(opponent's last kept tiles in the rollout)
 *
 * where each leave term counts only if that move was made with tiles left in
 * the bag (leave values do not apply once it is empty), and is 0 once the
 * game has ended (the final spread says it all). With plies = 0 the value is
 * score + leave: the static equity without its other adjustments.
 *
 * STOPPING. After cfg->min_iterations iterations, a candidate whose upper
 * bound mean + z*se is below the leader's lower bound mean - z*se stops
 * being played (z = cfg->stop_z; 0 = never stop). The run ends after
 * cfg->iterations iterations, when one candidate is left, or when
 * cfg->seconds have passed (if > 0; that makes the result depend on the
 * machine's speed).
 *
 * DETERMINISM. Iteration i's world comes from rng_seed_stream(seed, i, 0):
 * the same seed gives the same table, whatever else runs.
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

struct SimResult;
typedef struct SimConfig {
    int plies;               /* static plies after each candidate, >= 0 */
    int candidates;          /* K, 1..SIM_MAX_CANDIDATES */
    uint64_t iterations;     /* at most this many, >= 1 */
    uint64_t min_iterations; /* before any candidate is stopped */
    double stop_z;           /* z of the stopping rule; 0 = never stop */
    double seconds;          /* wall-clock limit, 0 = none */
    uint64_t seed;
    LeaveValueFn leave_value; /* the static leaves: candidates, rollouts and horizon */
    const void *leave_ctx;
    WinValue win;             /* a win's worth at the horizon (bonus 0: none) */
    /* Optional, for a front end (rookery siu); all NULL/0 by default: */
    const atomic_bool *stop;  /* set by another thread: end after the iteration under way */
    void (*progress)(void *ctx, const struct SimResult *r); /* after every iteration */
    void *progress_ctx;
    const Move *given;        /* the candidates themselves (legal moves with their static
                               * equity, best first), instead of the K best */
    int given_count;          /* 1..SIM_MAX_CANDIDATES when given */
    const struct InferResult *infer; /* the opponent's kept tiles (search/infer.h): each world
                               * deals the opponent a leave drawn from it plus unseen tiles
                               * (NULL: the uniform draw) */
} SimConfig;

/* Defaults: 2 plies, 15 candidates, 100 iterations, stop after 16 at z = 2. */
void sim_config_defaults(SimConfig *c);

typedef struct SimCandidate {
    Move move;               /* with its static equity */
    double mean, m2;         /* of the values (points), Welford's running mean and sum of squared deviations */
    double win_mean, win_m2; /* of the root player's P(win) at each rollout's horizon: 1, 1/2 or 0
                              * once the game is over, else the win model's (cfg->win.model) for
                              * the lead with the leaves last kept */
    uint64_t n;              /* iterations played */
    bool live;
} SimCandidate;

typedef struct SimResult {
    int count;
    SimCandidate cand[SIM_MAX_CANDIDATES];
    uint64_t iterations;
    double seconds;
    int best;                /* index into cand */
} SimResult;

/* Mean value and its standard error (0 with fewer than 2 iterations). */
double sim_mean(const SimCandidate *c);
double sim_stderr(const SimCandidate *c);
/* The same for the win probability (0..1). */
double sim_win_mean(const SimCandidate *c);
double sim_win_stderr(const SimCandidate *c);

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
 * posterior (search/infer.h) and the rest of their rack from the others. */
void sim_sample_world(const Game *root, const struct InferResult *infer, uint64_t seed, uint64_t i, Game *world);

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
