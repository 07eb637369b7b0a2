/*
 * mcgs.h - Monte Carlo graph search over information sets (MT-ISMCTS with
 * AlphaZero mechanics), guided by the network's P, V and H heads or, without
 * a net, by static equity and rollouts. docs/mcgs.md has the design and the
 * decisions; ../shared/alphazero-plan.md and ../shared/mcgs-design.md are
 * what it adapts.
 *
 * NODES are information sets (search/infoset.h): what the player on turn
 * knows. Their 128-bit keys make transpositions share a node, and one graph
 * holds both players' views. Values are points of spread, from the view of
 * the player on turn (search/mcgs_graph.h has the formulas).
 *
 * A PLAYOUT deals a world consistent with the root player's information:
 * the opponent's rack (its leave from H, t tiles a step, masked by the
 * unseen pool, the rest of the rack uniform; or all uniform from the unseen
 * tiles) and the bag's draws (a random stream per playout). It descends by
 * PUCT, plays each move in that world, and stops at the first node not yet
 * evaluated (a leaf) or at the end of the game. With an empty bag the world
 * is the true position (the unseen tiles are the opponent's rack).
 *
 * LEAF NODES are evaluated once, when first reached: their candidate moves
 * (the K most probable under P, or the K best by static equity) with
 * priors, and their value u: the net's V (below), or a rollout of `rollout`
 * static plies (spread change + the rack leaves kept, as search/sim.h; + the win
 * value: +-win_bonus if the game ended, else win_bonus x (2 P(win) - 1) by
 * the win model of eval/winprob.h unless win_model=terminal; to the end of
 * the game once the bag is empty). With value_mix = m > 0 (AlphaGo's
 * lambda) a leaf's value is (1 - m) x its rollout + m x V while tiles are in
 * the bag: V's estimate lowers the rollout's noise, the rollout corrects
 * V's bias.
 *
 * VALUE AFTER THE REPLY: V values a position for the player on turn, who
 * sees their own rack and only the unseen pool of the other's. At a leaf
 * below the root the player on turn is the one who did NOT just move, so
 * V there would see the mover's kept tiles only blended into the pool and
 * value a move's leave at a fraction of its worth. So V is asked one ply
 * later: in the leaf's world, the player on turn plays their best static
 * move, and V values the position after it, where the player who moved into
 * the leaf is on turn with their kept tiles in hand (mcgs_value_after_reply).
 * u = the reply's spread change - V's expected spread change (+ win_bonus x
 * (1 - 2 P(win))), or the reply's final value if it ends the game. The root
 * is valued by V at the root (its player sees their own rack). V's network
 * pass is the reply's position, so it brings no P for the leaf: leaf nodes are
 * expanded lazily (their own pass at their second visit) unless
 * expand=first.
 *
 * With prior = equity and a net (candidates by equity), the prior is static
 * equity corrected by P: P(a) exp((eq(a) - eq_best) / T), so the net
 * starts from the static ranking instead of replacing it.
 *
 * SELECTION: PUCT, Q(a) + cpuct P(a) sqrt(N) / D(a) with D(a) = 1 + N(a), or
 * max(puct_floor, N(a)) when puct_floor > 0 (the plan's variant); Q(a) =
 * r(a) + c(a) for visited edges, the node's q - fpu for the others.
 *
 * BATCHING: up to `batch` playouts descend before their leaf nodes are
 * evaluated together (one network pass); in-flight edges count as visits
 * worth `vloss` points less, and a playout that reaches a leaf already
 * waiting is dropped (a collision).
 *
 * LEAKS: below the root, the opponent's nodes only see worlds where the root
 * player's rack is the real one. The real rack reaches an opponent's choice
 * only through its node's statistics (prior, V and static rollouts read the
 * opponent's information alone); McgsResult counts those choices
 * (docs/mcgs.md: none in the middle game with a fresh world a visit, most
 * with a world pool). Dealing again the root player's rack at the opponent's
 * nodes was tried and measured no gain (docs/research.md).
 *
 * RESULT: the root's visit distribution. The move played is the most
 * visited (ties: higher value, then higher prior), or, while the game's
 * turn < temperature_moves, drawn with probability ~ visits^(1/temperature).
 *
 * WORLD POOL: with worlds = W > 0, playout i plays in world i mod W: every
 * root move is tried in the same W worlds (common random numbers), and the
 * opponent's nodes of a world repeat, so the graph grows deeper.
 * COMMON RANDOM NUMBERS: with crn, the world is chosen after the root's
 * move: the k-th visit of every root move plays in world k, as the
 * simulation player's iterations do, so root moves are compared on the
 * same racks and draws without limiting how many worlds are seen.
 *
 * LAZY EXPANSION (expand = second, the default): a node is valued at its
 * first visit (rollout, or V after the reply) and gets its candidate moves
 * (a full move generation, and with a net a network pass for P) only when a
 * playout comes back to it. Most nodes below the root are visited once, so
 * this saves the move generation (and the network pass) of nearly every
 * leaf. The rollout's first move (movegen_best) is the best static
 * candidate, and a node's P depends on its position only, not on the world
 * that reached it, so the search's result is the same bits as with
 * expand=first.
 *
 * THREADS: with threads = T > 1, the rollouts that value a round's leaf nodes
 * (at most `batch` of them) run on T threads; descents, expansions, the
 * network and backups stay on the caller's. A leaf's rollout depends only
 * on its own world, so the result is the same bits for any T: threads pay
 * when batch >= T (the player's threads= sets batch to 4 T unless batch=
 * is given).
 *
 * DETERMINISM: world k comes from (seed, k), k being the root move's visit
 * number with crn, the playout's number otherwise; the same root, seed and
 * config give the same result, whatever the threads. A search is driven by
 * one thread at a time; the model and tables are only read.
 */
#ifndef ROOKERY_MCGS_H
#define ROOKERY_MCGS_H
#include "core/game.h"
#include "core/movegen.h"
#include "eval/winprob.h"
#include "nn/forward.h"
#include "search/mcgs_graph.h"

#define MCGS_MAX_CANDIDATES 64
#define MCGS_MAX_BATCH 256
#define MCGS_MAX_DEPTH 256
#define MCGS_MAX_THREADS 256

typedef enum { MCGS_PRIOR_UNIFORM = 0, MCGS_PRIOR_EQUITY = 1 } McgsPriorKind;
typedef enum { MCGS_HIDDEN_UNIFORM = 0, MCGS_HIDDEN_NET = 1 } McgsHiddenKind;
typedef enum { MCGS_EXPAND_AUTO = 0, MCGS_EXPAND_FIRST = 1, MCGS_EXPAND_SECOND = 2 } McgsExpand;
/* Which moves become a node's K edges. AUTO: the K most probable under P
 * with a net, the K best by static equity without. With a net, PRIOR is
 * AUTO; EQUITY: the K best by static equity, with P (renormalised over
 * them) as their prior; MIX: the ceil(K/2) best by equity, then the most
 * probable under P that are not among them, up to K. EQUITY and MIX keep
 * the static player's best moves in the search while P is still untrained
 * (the first generations of the loop); MIX lets P add the moves static
 * equity undervalues. */
typedef enum {
    MCGS_CANDIDATES_AUTO = 0,
    MCGS_CANDIDATES_PRIOR = 1,
    MCGS_CANDIDATES_EQUITY = 2,
    MCGS_CANDIDATES_MIX = 3
} McgsCandidateKind;

typedef struct McgsConfig {
    uint32_t visits;            /* completed playouts per decision, >= 1 */
    int candidates;             /* K edges per node, 1..MCGS_MAX_CANDIDATES */
    McgsCandidateKind candidates_by; /* which K moves (above) */
    double cpuct;               /* exploration scale, points */
    double puct_floor;          /* > 0: D(a) = max(puct_floor, N(a)) */
    double fpu;                 /* first-play urgency reduction, points */
    int rollout;                /* static plies valuing a leaf; 0 = the net's V */
    double value_mix;           /* with a net and rollouts: a leaf's value is (1 - m) rollout + m V,
                                 * m = value_mix in [0, 1] (0: rollouts alone); the rollout alone
                                 * once the bag is empty */
    McgsPriorKind prior;        /* uniform (with a net: P), or softmax(equity / prior_temperature)
                                 * (with a net: times P; needs candidates_by=equity) */
    double prior_temperature;   /* points */
    McgsHiddenKind hidden;      /* the opponent's rack at the root */
    const struct InferResult *infer; /* not NULL: the opponent's kept tiles in every world are
                                 * drawn from this posterior of their last move (search/rack_inference.h;
                                 * with hidden=uniform, while the bag has tiles), the rest of
                                 * their rack from what is left */
    WinValue win;               /* win.bonus: points a win is worth on top of the spread;
                                 * win.model values the ends of rollouts that stop
                                 * before the game does (eval/winprob.h) */
    uint32_t worlds;            /* > 0: playout i plays in world i mod worlds (a fixed pool
                                 * shared by all the root's moves); 0: a new world each */
    bool crn;                   /* the k-th visit of every root move plays in world k */
    McgsExpand expand;          /* when a node's candidates are generated (AUTO: at its second
                                 * visit) */
    int batch;                  /* playouts per evaluation round, 1..MCGS_MAX_BATCH */
    int threads;                /* threads for a round's rollouts, 1..MCGS_MAX_THREADS */
    double vloss;               /* virtual loss, points */
    double temperature;         /* > 0: sample the move played from the visits ... */
    int temperature_moves;      /* ... while the game's turn is below this */
    uint64_t seed;
    LeaveValueFn leave_value;   /* rack leaves: candidates, rollouts (NULL: 0) */
    const void *leave_ctx;
    const NnModel *net;         /* NULL: no network */
} McgsConfig;

/* visits 400, candidates 16, cpuct 40, floor 0, fpu 10, rollout 2, uniform
 * prior (temperature 10), uniform hidden, win bonus 0, crn, expand auto, batch 1, one thread, vloss 20,
 * temperature 0, seed 1, no rack leaves, no net. */
void mcgs_config_defaults(McgsConfig *c);
/* Refuses impossible combinations (a zero budget, H or P without a net,
 * no way to value a leaf, ...) with a one-line error. */
int mcgs_config_check(const McgsConfig *c, RkError *err);

typedef struct McgsResult {
    int count;                               /* root edges */
    Move moves[MCGS_MAX_CANDIDATES];         /* with score (equity 0) */
    PackedMove packed[MCGS_MAX_CANDIDATES];
    uint32_t visits[MCGS_MAX_CANDIDATES];
    double value[MCGS_MAX_CANDIDATES];       /* r + c, points, the root player's view (0 if unvisited) */
    float prior[MCGS_MAX_CANDIDATES];
    int best;                                /* the move chosen */
    double root_q;
    uint64_t playouts, collisions, evaluations, net_positions, batches, nodes, edges, outcomes;
    /* the leak's reach: choices of a move at the opponent's nodes below the
     * root, and how many of them had statistics to go by (the node visited
     * before, so some of its edges were backed up from worlds with the root
     * player's real rack; the others follow the prior and fpu alone) */
    uint64_t opponent_choices, opponent_informed;
    size_t bytes;                            /* graph memory at the end */
    double seconds;
} McgsResult;

typedef struct McgsPending McgsPending;

typedef struct McgsSearch {
    McgsConfig cfg;
    McgsGraph graph;
    McgsPending *pending;                    /* [cfg.batch] */
    MoveList scratch;
    NnFeatureContext fc;
    NnBatch leaf_batch, root_batch, side_batch;  /* with a net */
    NnBatch after;                           /* with V: the positions after the leaf nodes' replies */
    Game *reply_world;                       /* scratch of values_after_reply (one a search, not a batch) */
    bool nn_ready;
    struct WorkPool *pool;                   /* with threads > 1 */
} McgsSearch;

/* Checks the config and allocates. */
int mcgs_search_init(McgsSearch *s, const McgsConfig *cfg, RkError *err);
void mcgs_search_free(McgsSearch *s);
/* Playout i's world as the search deals it from root (the opponent's rack
 * and the bag; for tests). */
void mcgs_deal_world(McgsSearch *s, const Game *root, uint64_t i, Game *w);
/* Searches the position on turn in root (which must not be over). Returns 0,
 * or -1 with err set (the game is over, out of memory, an inference that
 * does not fit the root or comes with hidden=net, the net's features
 * failing); out is zeroed first,
 * so a failed search leaves no result (count 0). */
int mcgs_search_run(McgsSearch *s, const Game *root, McgsResult *out, RkError *err);

/* What V is asked at a leaf below the root (VALUE AFTER THE REPLY above):
 * the player on turn in the leaf's world w plays their best static move
 * (*reply) into *after. Returns 1 if the game goes on (V values *after, for
 * the other player, who is on turn there), 0 if the reply ended it.
 * *gain is the reply's spread change for the leaf's player; with the game
 * over it also holds the win value (win_value_final), so it is the leaf's
 * whole value. */
int mcgs_value_after_reply(const McgsConfig *c, const Game *w, Game *after, Move *reply, double *gain);

#endif
