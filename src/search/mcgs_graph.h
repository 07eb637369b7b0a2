/*
 * mcgs_graph.h - the graph of the Monte Carlo graph search (search/mcgs.h):
 * information-set nodes, their move edges, the chance outcomes of each edge,
 * a transposition table keyed by 128-bit information-set keys, and the
 * idempotent value formulas. No game logic here: the search driver plays the
 * moves and tells the graph what it saw.
 *
 * VALUES are in points, from the view of the player on turn at a node: the
 * expected change of that player's spread from here to the end of the game
 * (plus the win bonus of search/mcgs.h). A NODE n has
 *   u    its first estimate (the net's V, or a rollout's result), frozen;
 *   q    recomputed from its edges:  q = (u + sum_a N(a) (r(a) + c(a))) / (1 + sum_a N(a)),
 *        summing only visited edges.
 * An EDGE a (a move) has its prior, its immediate reward r(a) (the move's
 * score, points) and its visits N(a). What follows a move is a chance event
 * (the opponent's rack in the playout's world, the tiles drawn), so an edge
 * leads to OUTCOMES: child nodes, each with the visits it got through this
 * edge, or the end of the game (a value, summed). The edge's continuation
 * value, from the mover's view:
 *   c(a) = (terminal value sum + sum_o N(o) (-q(child o))) / (terminal visits + sum_o N(o)).
 * With one outcome per edge this is the MCGS design's
 *   q(n) = (u + sum_a N(a) (r(a) - q(child))) / (1 + sum_a N(a)).
 * Children are shared between parents (transpositions); each parent keeps
 * its own edge and outcome counts, so a child's q is read, never summed
 * twice. Nothing is stored per world.
 *
 * Storage: growable arrays addressed by 32-bit indices (index 0 is unused,
 * so 0 means "none"); nothing is freed until mcgs_graph_clear.
 */
#ifndef ROOKERY_MCGS_GRAPH_H
#define ROOKERY_MCGS_GRAPH_H
#include "core/common.h"
#include "core/position.h"

typedef struct McgsKey {
    uint64_t lo, hi;
} McgsKey;

/* NEW: created, not valued; PENDING: waiting for its evaluation; VALUED: u
 * known, no edges yet (lazy expansion, search/mcgs.h); READY: valued, with
 * its edges. */
typedef enum { MCGS_NODE_NEW = 0, MCGS_NODE_PENDING = 1, MCGS_NODE_READY = 2, MCGS_NODE_VALUED = 3 } McgsNodeState;

typedef struct McgsNode {
    McgsKey key;
    double u, q;
    uint32_t first_edge, n_edges; /* edges [first_edge, first_edge + n_edges) */
    uint32_t visits;              /* sum of the edges' visits */
    uint8_t state;                /* McgsNodeState */
} McgsNode;

typedef struct McgsEdge {
    PackedMove move;
    float prior;                  /* P of the move (renormalised over the node's edges) */
    int32_t reward;               /* the move's score, points */
    uint32_t visits;              /* completed playouts through this edge */
    uint32_t inflight;            /* playouts through it waiting for a leaf evaluation */
    uint32_t first_outcome;       /* a list through McgsOutcome.next (0 = none) */
    uint32_t terminal_visits;     /* playouts in which the move ended the game */
    double terminal_sum;          /* their values, mover's view, reward excluded */
    double c;                     /* the continuation value above (valid if visits > 0) */
} McgsEdge;

typedef struct McgsOutcome {
    uint32_t child, visits, next;
} McgsOutcome;

typedef struct McgsGraph {
    McgsNode *nodes;
    McgsEdge *edges;
    McgsOutcome *outcomes;
    uint32_t n_nodes, n_edges, n_outcomes;     /* used, index 0 included */
    uint32_t cap_nodes, cap_edges, cap_outcomes;
    uint32_t *table;                           /* open addressing: node index or 0 */
    uint32_t table_mask;
} McgsGraph;

int mcgs_graph_init(McgsGraph *g, RkError *err);
void mcgs_graph_free(McgsGraph *g);
/* Forgets every node, keeping the memory. */
void mcgs_graph_clear(McgsGraph *g);
/* The node of key k, created (state NEW, no edges) if it is not there.
 * Returns its index, or 0 when out of memory. *created says which. */
uint32_t mcgs_graph_node(McgsGraph *g, McgsKey k, bool *created);
/* Looks a key up without creating it (0: absent). */
uint32_t mcgs_graph_find(const McgsGraph *g, McgsKey k);
/* Appends n edges for node `node` (which must have none); returns the
 * index of the first, or 0 when out of memory. */
uint32_t mcgs_graph_add_edges(McgsGraph *g, uint32_t node, uint32_t n);
/* The outcome of edge e leading to child, created with 0 visits if new;
 * 0 when out of memory. */
uint32_t mcgs_graph_outcome(McgsGraph *g, uint32_t edge, uint32_t child);

/* The idempotent recomputations (see above). */
void mcgs_edge_recompute(McgsGraph *g, uint32_t edge);
void mcgs_node_recompute(McgsGraph *g, uint32_t node);
/* The value of edge e for selection, mover's view: r + c if visited, else
 * fpu_q; in-flight playouts count as visits of value (that - vloss). */
double mcgs_edge_select_q(const McgsEdge *e, double fpu_q, double vloss);

/* Bytes the graph uses: its nodes, edges and outcomes, and the table. */
size_t mcgs_graph_bytes(const McgsGraph *g);

#endif
