/* The generator against the reference engine's counts
 * (../shared/reference/movegen_sowpods.tsv, SOWPODS built by the build). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "testutil.h"

typedef struct RefRow {
    char id[128];
    char cgp[1024];
    long scoring, nonscoring, top_score, exchanges, n_top_score, blank_moves;
    char top_move[128];
} RefRow;

static int load_rows(const char *path, RefRow **out) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char line[4096];
    int n = 0, cap = 64;
    RefRow *rows = malloc((size_t)cap * sizeof *rows);
    if (fgets(line, sizeof line, f) == NULL) { /* header */
        fclose(f);
        free(rows);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *fl[16];
        int nf = tu_split_tabs(line, fl, 16);
        if (nf < 11) continue;
        if (n == cap) {
            cap *= 2;
            rows = realloc(rows, (size_t)cap * sizeof *rows);
        }
        RefRow *r = &rows[n++];
        snprintf(r->id, sizeof r->id, "%s", fl[0]);
        snprintf(r->cgp, sizeof r->cgp, "%s", fl[1]);
        r->scoring = atol(fl[4]);
        r->nonscoring = atol(fl[5]);
        r->top_score = atol(fl[6]);
        snprintf(r->top_move, sizeof r->top_move, "%s", fl[7]);
        r->exchanges = atol(fl[8]);
        r->n_top_score = atol(fl[9]);
        r->blank_moves = atol(fl[10]);
    }
    fclose(f);
    *out = rows;
    return n;
}

static void test_reference_counts(void) {
    char path[4096];
    if (tu_shared_path("reference/movegen_sowpods.tsv", path, sizeof path) == NULL) return;
    const char *kwg_path = tu_sowpods_kwg();
    if (kwg_path == NULL) return;
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    RkError err;
    ld_english(&ld);
    layout_standard15(&lay);
    CU_ASSERT_FATAL(kwg_load(&kwg, kwg_path, (uint32_t)ld.size, &err) == 0);
    RefRow *rows = NULL;
    int n = load_rows(path, &rows);
    CU_ASSERT_FATAL(n >= 49);
    Game *g = malloc(sizeof *g);
    MoveList list;
    movelist_init(&list);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        RefRow *r = &rows[i];
        if (cgp_parse(g, r->cgp, &ld, &lay, &kwg, 0, &err) != 0) {
            printf("\n%s: CGP rejected: %s\n", r->id, err.msg);
            bad++;
            continue;
        }
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        long placements = (long)movegen_all(&req, &list);
        long exch = 0, blanks = 0, top = -1, ntop = 0;
        for (size_t j = 0; j < list.count; j++) {
            const Move *m = &list.moves[j];
            if (m->kind == MOVE_EXCHANGE) exch++;
            if (m->kind != MOVE_PLACE) continue;
            for (int t = 0; t < m->len; t++)
                if (m->tiles[t] != MOVE_PLAYED_THROUGH && RK_IS_BLANKED(m->tiles[t])) {
                    blanks++;
                    break;
                }
            if (m->score > top) {
                top = m->score;
                ntop = 0;
            }
            if (m->score == top) ntop++;
        }
        bool ok = placements == r->scoring && exch + 1 == r->nonscoring && exch == r->exchanges &&
                  top == r->top_score && ntop == r->n_top_score && blanks == r->blank_moves;
        /* the named top-score move must be among ours with that score */
        bool found = false;
        char buf[128];
        for (size_t j = 0; j < list.count && !found; j++) {
            if (list.moves[j].kind != MOVE_PLACE || list.moves[j].score != top) continue;
            move_to_string(&list.moves[j], &g->board, &ld, buf, sizeof buf);
            found = strcmp(buf, r->top_move) == 0;
        }
        if (!ok || !found) {
            bad++;
            printf("\n%s: placements %ld/%ld exchanges %ld/%ld top %ld/%ld ntop %ld/%ld blanks %ld/%ld "
                   "top move %s %s\n",
                   r->id, placements, r->scoring, exch, r->exchanges, top, r->top_score, ntop, r->n_top_score,
                   blanks, r->blank_moves, r->top_move, found ? "found" : "NOT FOUND");
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    printf("\n%d reference positions checked, %d mismatches\n", n, bad);
    movelist_free(&list);
    free(g);
    free(rows);
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {{"reference counts (movegen_sowpods.tsv)", test_reference_counts}, CU_TEST_INFO_NULL};
    return tu_run("movegen_reference", tests);
}
