/* mcgs_graph.c - nodes, edges, outcomes and the value formulas of the graph
 * search (see mcgs_graph.h). */
#include "mcgs_graph.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_NODES 1024u
#define INITIAL_EDGES 16384u
#define INITIAL_OUTCOMES 4096u

/* The graph's arrays are indexed by uint32_t. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    size_t c = *cap;
    if (need > UINT32_MAX / 2u || rk_grow(arr, &c, need, elem) != 0) return -1;
    *cap = (uint32_t)c;
    return 0;
}

static int table_resize(McgsGraph *g, uint32_t slots) {
    uint32_t *t = calloc(slots, sizeof *t);
    if (t == NULL) return -1;
    free(g->table);
    g->table = t;
    g->table_mask = slots - 1;
    for (uint32_t i = 1; i < g->n_nodes; i++) {
        uint32_t h = (uint32_t)g->nodes[i].key.lo & g->table_mask;
        while (g->table[h] != 0) h = (h + 1) & g->table_mask;
        g->table[h] = i;
    }
    return 0;
}

int mcgs_graph_init(McgsGraph *g, RkError *err) {
    memset(g, 0, sizeof *g);
    if (grow((void **)&g->nodes, &g->cap_nodes, INITIAL_NODES, sizeof *g->nodes) != 0 ||
        grow((void **)&g->edges, &g->cap_edges, INITIAL_EDGES, sizeof *g->edges) != 0 ||
        grow((void **)&g->outcomes, &g->cap_outcomes, INITIAL_OUTCOMES, sizeof *g->outcomes) != 0 ||
        table_resize(g, 2 * INITIAL_NODES) != 0) {
        mcgs_graph_free(g);
        return rk_error(err, "mcgs: out of memory for the search graph");
    }
    mcgs_graph_clear(g);
    return 0;
}

void mcgs_graph_free(McgsGraph *g) {
    free(g->nodes);
    free(g->edges);
    free(g->outcomes);
    free(g->table);
    memset(g, 0, sizeof *g);
}

void mcgs_graph_clear(McgsGraph *g) {
    g->n_nodes = g->n_edges = g->n_outcomes = 1; /* index 0 = none */
    memset(g->table, 0, ((size_t)g->table_mask + 1) * sizeof *g->table);
}

static bool key_eq(McgsKey a, McgsKey b) { return a.lo == b.lo && a.hi == b.hi; }

uint32_t mcgs_graph_find(const McgsGraph *g, McgsKey k) {
    uint32_t h = (uint32_t)k.lo & g->table_mask;
    for (uint32_t i; (i = g->table[h]) != 0; h = (h + 1) & g->table_mask)
        if (key_eq(g->nodes[i].key, k)) return i;
    return 0;
}

uint32_t mcgs_graph_node(McgsGraph *g, McgsKey k, bool *created) {
    *created = false;
    uint32_t found = mcgs_graph_find(g, k);
    if (found != 0) return found;
    if (grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes) != 0) return 0;
    /* keep the table at most half full */
    if (2 * (uint64_t)(g->n_nodes + 1) > (uint64_t)g->table_mask + 1 &&
        table_resize(g, 2 * (g->table_mask + 1)) != 0)
        return 0;
    uint32_t i = g->n_nodes++;
    g->nodes[i] = (McgsNode){.key = k};
    uint32_t h = (uint32_t)k.lo & g->table_mask;
    while (g->table[h] != 0) h = (h + 1) & g->table_mask;
    g->table[h] = i;
    *created = true;
    return i;
}

uint32_t mcgs_graph_add_edges(McgsGraph *g, uint32_t node, uint32_t n) {
    if (grow((void **)&g->edges, &g->cap_edges, g->n_edges + n, sizeof *g->edges) != 0) return 0;
    uint32_t first = g->n_edges;
    memset(g->edges + first, 0, (size_t)n * sizeof *g->edges);
    g->n_edges += n;
    g->nodes[node].first_edge = first;
    g->nodes[node].n_edges = n;
    return first;
}

uint32_t mcgs_graph_outcome(McgsGraph *g, uint32_t edge, uint32_t child) {
    for (uint32_t o = g->edges[edge].first_outcome; o != 0; o = g->outcomes[o].next)
        if (g->outcomes[o].child == child) return o;
    if (grow((void **)&g->outcomes, &g->cap_outcomes, g->n_outcomes + 1, sizeof *g->outcomes) != 0) return 0;
    uint32_t o = g->n_outcomes++;
    g->outcomes[o] = (McgsOutcome){.child = child, .visits = 0, .next = g->edges[edge].first_outcome};
    g->edges[edge].first_outcome = o;
    return o;
}

void mcgs_edge_recompute(McgsGraph *g, uint32_t edge) {
    McgsEdge *e = &g->edges[edge];
    double sum = e->terminal_sum;
    uint64_t n = e->terminal_visits;
    for (uint32_t o = e->first_outcome; o != 0; o = g->outcomes[o].next) {
        const McgsOutcome *out = &g->outcomes[o];
        if (out->visits == 0) continue;
        sum -= (double)out->visits * g->nodes[out->child].q;
        n += out->visits;
    }
    e->c = n > 0 ? sum / (double)n : 0.0;
}

void mcgs_node_recompute(McgsGraph *g, uint32_t node) {
    McgsNode *nd = &g->nodes[node];
    double sum = nd->u;
    uint64_t n = 0;
    for (uint32_t a = 0; a < nd->n_edges; a++) {
        const McgsEdge *e = &g->edges[nd->first_edge + a];
        if (e->visits == 0) continue;
        sum += (double)e->visits * ((double)e->reward + e->c);
        n += e->visits;
    }
    nd->visits = (uint32_t)n;
    nd->q = sum / (double)(1 + n);
}

double mcgs_edge_select_q(const McgsEdge *e, double fpu_q, double vloss) {
    double q = e->visits > 0 ? (double)e->reward + e->c : fpu_q;
    if (e->inflight > 0) {
        double n = (double)e->visits + (double)e->inflight;
        q = ((double)e->visits * q + (double)e->inflight * (q - vloss)) / n;
    }
    return q;
}

size_t mcgs_graph_bytes(const McgsGraph *g) {
    return (size_t)g->n_nodes * sizeof *g->nodes + (size_t)g->n_edges * sizeof *g->edges +
           (size_t)g->n_outcomes * sizeof *g->outcomes + ((size_t)g->table_mask + 1) * sizeof *g->table;
}
