/*
 * kwg_build.c - builds a minimized DAWG + GADDAG (.kwg) from a word list.
 *
 * Method: every string set (the words for the DAWG, the GADDAG paths for the
 * GADDAG) is sorted and fed to an incremental minimal-automaton
 * construction for sorted input: the states along the last string's path
 * stay open, and when the next string leaves that path the states below the
 * fork are closed one by one, each either found in a hash register of
 * closed states or added to it. A state is its list of outgoing edges
 * (tile, accepts, child state), which is exactly a KWG sibling list, so two
 * equal states share one sibling list. The DAWG and the GADDAG use the same
 * register, so they also share lists with each other.
 *
 * Finally the reachable states are laid out breadth-first from the roots
 * (DAWG root first) after the two root nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "kwg.h"

/* An edge of a state: child state id << 32 | accepts << 8 | tile. */
typedef uint64_t Edge;
#define EDGE(tile, accepts, child) \
    (((uint64_t)(child) << 32) | ((uint64_t)((accepts) ? 1 : 0) << 8) | (uint64_t)(tile))
#define EDGE_TILE(e) ((uint32_t)((e)&0xFFu))
#define EDGE_ACCEPTS(e) ((((e) >> 8) & 1u) != 0)
#define EDGE_CHILD(e) ((uint32_t)((e) >> 32))

/* State 0 is the state without edges ("no children"); it is never stored in
 * the hash table. */
typedef struct Builder {
    Edge *edges; /* the closed states' edge lists, back to back */
    size_t n_edges, cap_edges;
    uint32_t *start; /* per state: first edge in edges[] */
    uint16_t *len;   /* per state: number of edges (at most 256) */
    uint32_t n_states, cap_states;
    uint32_t *table; /* open addressing, holds state ids, 0 = free */
    uint32_t table_mask;
} Builder;

typedef struct Str {
    const uint8_t *p;
    uint32_t len;
} Str;

static uint64_t hash_edges(const Edge *e, uint32_t n) {
    uint64_t h = 0x84222325CBF29CE4ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= e[i];
        h *= 0x9E3779B97F4A7C15ull;
        h ^= h >> 31;
    }
    return h;
}

static int builder_init(Builder *b, RkError *err) {
    memset(b, 0, sizeof *b);
    b->cap_edges = 1 << 16;
    b->cap_states = 1 << 14;
    b->edges = malloc(b->cap_edges * sizeof *b->edges);
    b->start = malloc(b->cap_states * sizeof *b->start);
    b->len = malloc(b->cap_states * sizeof *b->len);
    b->table_mask = (1u << 15) - 1;
    b->table = calloc((size_t)b->table_mask + 1, sizeof *b->table);
    if (!b->edges || !b->start || !b->len || !b->table)
        return rk_error(err, "kwg build: out of memory");
    b->start[0] = 0;
    b->len[0] = 0;
    b->n_states = 1;
    return 0;
}

static void builder_free(Builder *b) {
    free(b->edges);
    free(b->start);
    free(b->len);
    free(b->table);
    memset(b, 0, sizeof *b);
}

static int grow_table(Builder *b, RkError *err) {
    uint32_t new_size = (b->table_mask + 1) * 2;
    if (new_size == 0) return rk_error(err, "kwg build: state register overflow");
    uint32_t *t = calloc(new_size, sizeof *t);
    if (t == NULL) return rk_error(err, "kwg build: out of memory");
    uint32_t mask = new_size - 1;
    for (uint32_t s = 1; s < b->n_states; s++) {
        uint32_t h = (uint32_t)hash_edges(b->edges + b->start[s], b->len[s]) & mask;
        while (t[h] != 0) h = (h + 1) & mask;
        t[h] = s;
    }
    free(b->table);
    b->table = t;
    b->table_mask = mask;
    return 0;
}

/* Returns the id of the closed state with these edges, adding it if it is
 * new; 0 for no edges; UINT32_MAX on failure (err set). */
static uint32_t register_state(Builder *b, const Edge *e, uint32_t n, RkError *err) {
    if (n == 0) return 0;
    uint32_t h = (uint32_t)hash_edges(e, n) & b->table_mask;
    for (;;) {
        uint32_t s = b->table[h];
        if (s == 0) break;
        if (b->len[s] == n && memcmp(b->edges + b->start[s], e, n * sizeof *e) == 0) return s;
        h = (h + 1) & b->table_mask;
    }
    /* New state. */
    if (b->n_states == UINT32_MAX - 1) {
        rk_error(err, "kwg build: too many states");
        return UINT32_MAX;
    }
    if (b->n_edges + n > b->cap_edges) {
        size_t cap = b->cap_edges * 2;
        while (cap < b->n_edges + n) cap *= 2;
        Edge *ne = realloc(b->edges, cap * sizeof *ne);
        if (ne == NULL) {
            rk_error(err, "kwg build: out of memory");
            return UINT32_MAX;
        }
        b->edges = ne;
        b->cap_edges = cap;
    }
    if (b->n_states == b->cap_states) {
        uint32_t cap = b->cap_states * 2;
        uint32_t *ns = realloc(b->start, (size_t)cap * sizeof *ns);
        if (ns == NULL) {
            rk_error(err, "kwg build: out of memory");
            return UINT32_MAX;
        }
        b->start = ns;
        uint16_t *nl = realloc(b->len, (size_t)cap * sizeof *nl);
        if (nl == NULL) {
            rk_error(err, "kwg build: out of memory");
            return UINT32_MAX;
        }
        b->len = nl;
        b->cap_states = cap;
    }
    uint32_t s = b->n_states++;
    b->start[s] = (uint32_t)b->n_edges;
    b->len[s] = (uint16_t)n;
    memcpy(b->edges + b->n_edges, e, n * sizeof *e);
    b->n_edges += n;
    b->table[h] = s;
    if ((uint64_t)(b->n_states - 1) * 2 > b->table_mask) {
        if (grow_table(b, err) != 0) return UINT32_MAX;
    }
    return s;
}

/* ---- sorting the strings: MSD radix sort, insertion sort for small runs ---- */

static int str_cmp_from(const Str *a, const Str *b, uint32_t d) {
    uint32_t m = a->len < b->len ? a->len : b->len;
    if (m > d) {
        int c = memcmp(a->p + d, b->p + d, m - d);
        if (c != 0) return c;
    }
    return a->len < b->len ? -1 : a->len > b->len ? 1 : 0;
}

static void insertion_sort(Str *s, size_t n, uint32_t d) {
    for (size_t i = 1; i < n; i++) {
        Str x = s[i];
        size_t j = i;
        while (j > 0 && str_cmp_from(&s[j - 1], &x, d) > 0) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = x;
    }
}

/* Sorts s[0..n) (all equal in their first d bytes) by the bytes from d on.
 * tmp has room for n entries. Recursion depth is bounded by the longest
 * string. */
static int str_cmp(const void *a, const void *b) { return str_cmp_from(a, b, 0); }

static void radix_sort(Str *s, Str *tmp, size_t n, uint32_t d) {
    if (n < 32) {
        insertion_sort(s, n, d);
        return;
    }
    if (d >= 64) { /* long shared prefixes: keep the stack shallow */
        qsort(s, n, sizeof *s, str_cmp);
        return;
    }
    /* Bucket 0: strings that end at d; bucket 1 + c: byte c at position d. */
    size_t count[258] = {0};
    for (size_t i = 0; i < n; i++) count[s[i].len > d ? 1u + s[i].p[d] : 0u]++;
    size_t pos[258];
    size_t acc = 0;
    for (int c = 0; c < 258; c++) {
        pos[c] = acc;
        acc += count[c];
    }
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i].len > d ? 1u + s[i].p[d] : 0u;
        tmp[pos[c]++] = s[i];
    }
    memcpy(s, tmp, n * sizeof *s);
    size_t off = count[0];
    for (int c = 1; c < 257; c++) {
        if (count[c] > 1) radix_sort(s + off, tmp, count[c], d + 1);
        off += count[c];
    }
}

/* ---- incremental construction over sorted strings ---- */

/* Adds the sorted strings as one automaton; *root gets its root state. */
static int build_sorted(Builder *b, const Str *s, size_t n, uint32_t *root, RkError *err) {
    uint32_t max_len = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].len > max_len) max_len = s[i].len;
    /* open[d]: the edges of the open state at depth d (at most 256). */
    size_t depths = (size_t)max_len + 1;
    Edge *open = malloc(depths * 256 * sizeof *open);
    uint32_t *open_n = calloc(depths, sizeof *open_n);
    if (open == NULL || open_n == NULL) {
        free(open);
        free(open_n);
        return rk_error(err, "kwg build: out of memory");
    }
    const Str *prev = NULL;
    uint32_t prev_len = 0;
    int rc = 0;
    for (size_t i = 0; i <= n && rc == 0; i++) {
        uint32_t common = 0;
        if (i < n) {
            const Str *w = &s[i];
            if (prev != NULL) {
                uint32_t m = prev_len < w->len ? prev_len : w->len;
                while (common < m && prev->p[common] == w->p[common]) common++;
                if (common == w->len && common == prev_len) continue; /* duplicate */
            }
        }
        /* Close the states below the fork (all of them at the end). */
        for (uint32_t d = prev_len; d > common; d--) {
            uint32_t id = register_state(b, open + (size_t)d * 256, open_n[d], err);
            if (id == UINT32_MAX) {
                rc = -1;
                break;
            }
            Edge *last = &open[(size_t)(d - 1) * 256 + open_n[d - 1] - 1];
            *last = (*last & 0xFFFFFFFFull) | ((uint64_t)id << 32);
            open_n[d] = 0;
        }
        if (rc != 0 || i == n) break;
        const Str *w = &s[i];
        for (uint32_t d = common; d < w->len; d++) {
            open[(size_t)d * 256 + open_n[d]++] = EDGE(w->p[d], d + 1 == w->len, 0);
            open_n[d + 1] = 0;
        }
        prev = w;
        prev_len = w->len;
    }
    if (rc == 0) {
        uint32_t id = register_state(b, open, open_n[0], err);
        if (id == UINT32_MAX)
            rc = -1;
        else
            *root = id;
    }
    free(open);
    free(open_n);
    return rc;
}

/* True when s[0..n) is already in order: the rack table hands over its
 * 3.2M racks generated in order, and a linear check is much cheaper than
 * sorting them again at every start of a run. */
static bool is_sorted(const Str *s, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (str_cmp_from(&s[i - 1], &s[i], 0) > 0) return false;
    return true;
}

static int sort_and_build(Builder *b, Str *s, size_t n, uint32_t *root, RkError *err) {
    if (n > 1 && !is_sorted(s, n)) {
        Str *tmp = malloc(n * sizeof *tmp);
        if (tmp == NULL) return rk_error(err, "kwg build: out of memory");
        radix_sort(s, tmp, n, 0);
        free(tmp);
    }
    return build_sorted(b, s, n, root, err);
}

/* ---- layout ---- */

static int lay_out(const Builder *b, uint32_t dawg_root, uint32_t gaddag_root, Kwg *out,
                   RkError *err) {
    uint32_t *pos = calloc(b->n_states, sizeof *pos);
    uint32_t *queue = malloc((size_t)b->n_states * sizeof *queue);
    if (pos == NULL || queue == NULL) {
        free(pos);
        free(queue);
        return rk_error(err, "kwg build: out of memory");
    }
    uint64_t next = 2;
    uint32_t qn = 0;
    uint32_t roots[2] = {dawg_root, gaddag_root};
    for (int r = 0; r < 2; r++) {
        uint32_t s = roots[r];
        if (s != 0 && pos[s] == 0) {
            pos[s] = (uint32_t)next;
            next += b->len[s];
            queue[qn++] = s;
        }
    }
    for (uint32_t qi = 0; qi < qn && next <= (uint64_t)KWG_ARC_MASK + 1; qi++) {
        uint32_t s = queue[qi];
        const Edge *e = b->edges + b->start[s];
        for (uint32_t j = 0; j < b->len[s]; j++) {
            uint32_t c = EDGE_CHILD(e[j]);
            if (c != 0 && pos[c] == 0) {
                pos[c] = (uint32_t)next;
                next += b->len[c];
                queue[qn++] = c;
            }
        }
    }
    if (next > (uint64_t)KWG_ARC_MASK + 1) {
        free(pos);
        free(queue);
        return rk_error(err,
                        "kwg build: the graph needs more than %u nodes, the most a 22-bit arc "
                        "index can address",
                        KWG_ARC_MASK + 1);
    }
    uint32_t n = (uint32_t)next;
    uint32_t *nodes = malloc((size_t)n * sizeof *nodes);
    if (nodes == NULL) {
        free(pos);
        free(queue);
        return rk_error(err, "kwg build: out of memory for %u nodes", n);
    }
    nodes[0] = KWG_IS_END_BIT | (dawg_root ? pos[dawg_root] : 0);
    nodes[1] = KWG_IS_END_BIT | (gaddag_root ? pos[gaddag_root] : 0);
    for (uint32_t qi = 0; qi < qn; qi++) {
        uint32_t s = queue[qi];
        const Edge *e = b->edges + b->start[s];
        uint32_t at = pos[s];
        for (uint32_t j = 0; j < b->len[s]; j++) {
            uint32_t c = EDGE_CHILD(e[j]);
            uint32_t v = (EDGE_TILE(e[j]) << 24) | (c ? pos[c] : 0);
            if (EDGE_ACCEPTS(e[j])) v |= KWG_ACCEPTS_BIT;
            if (j + 1 == b->len[s]) v |= KWG_IS_END_BIT;
            nodes[at + j] = v;
        }
    }
    free(pos);
    free(queue);
    out->nodes = nodes;
    out->n = n;
    return 0;
}

int kwg_build(Kwg *out, const KwgWords *words, bool with_gaddag, RkError *err) {
    out->nodes = NULL;
    out->n = 0;
    out->wordmap = NULL;
    size_t count = words ? words->count : 0;
    /* Check the input and size the GADDAG strings: a word of length n gives
     * n paths, n + (n - 1)(n + 1) bytes in all. */
    size_t gaddag_bytes = 0, gaddag_count = 0;
    for (size_t i = 0; i < count; i++) {
        int len = words->lens[i];
        if (len < 1) return rk_error(err, "kwg build: word %zu is empty", i + 1);
        const uint8_t *w = words->words[i];
        for (int j = 0; with_gaddag && j < len; j++)
            if (w[j] == KWG_SEPARATOR)
                return rk_error(err, "kwg build: word %zu holds tile 0 (the GADDAG separator)",
                                i + 1);
        size_t n = (size_t)len;
        gaddag_bytes += n * n + n - 1;
        gaddag_count += n;
    }

    Builder b;
    if (builder_init(&b, err) != 0) {
        builder_free(&b);
        return -1;
    }
    int rc = 0;
    uint32_t dawg_root = 0, gaddag_root = 0;

    Str *s = malloc((count ? count : 1) * sizeof *s);
    if (s == NULL) rc = rk_error(err, "kwg build: out of memory");
    if (rc == 0) {
        for (size_t i = 0; i < count; i++) {
            s[i].p = words->words[i];
            s[i].len = (uint32_t)words->lens[i];
        }
        rc = sort_and_build(&b, s, count, &dawg_root, err);
    }
    free(s);
    s = NULL;

    if (rc == 0 && with_gaddag && count > 0) {
        uint8_t *buf = malloc(gaddag_bytes);
        Str *g = malloc(gaddag_count * sizeof *g);
        if (buf == NULL || g == NULL) {
            rc = rk_error(err, "kwg build: out of memory for %zu GADDAG paths", gaddag_count);
        } else {
            size_t at = 0, gi = 0;
            for (size_t i = 0; i < count; i++) {
                const uint8_t *w = words->words[i];
                uint32_t n = (uint32_t)words->lens[i];
                /* Split after c1..ci, i = n..1: reverse(c1..ci) [0 c(i+1)..cn]. */
                for (uint32_t split = n; split >= 1; split--) {
                    uint8_t *p = buf + at;
                    uint32_t l = 0;
                    for (uint32_t j = split; j >= 1; j--) p[l++] = w[j - 1];
                    if (split < n) {
                        p[l++] = KWG_SEPARATOR;
                        for (uint32_t j = split; j < n; j++) p[l++] = w[j];
                    }
                    g[gi].p = p;
                    g[gi].len = l;
                    gi++;
                    at += l;
                }
            }
            rc = sort_and_build(&b, g, gi, &gaddag_root, err);
        }
        free(buf);
        free(g);
    }

    if (rc == 0) rc = lay_out(&b, dawg_root, gaddag_root, out, err);
    builder_free(&b);
    return rc;
}
