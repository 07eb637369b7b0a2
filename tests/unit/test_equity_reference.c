/* Static equity against the reference engine
 * (../shared/reference/equity_sowpods.tsv): SOWPODS built by the build and
 * MAGPIE's CSW21.klv2 leaves. Equities are compared in millipoints, exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgp.h"
#include "core/movegen.h"
#include "eval/klv.h"
#include "testutil.h"
#include "worker/selfplay.h"

typedef struct EqRow {
    char id[128];
    char cgp[1024];
    char top_move[128];
    long top_score, n_tied;
    int32_t top_equity, second_equity; /* millipoints */
} EqRow;

/* "79.300" -> 79300; the file gives exactly three decimals. */
static int32_t parse_milli(const char *s) { return (int32_t)llround(strtod(s, NULL) * 1000.0); }

static int load_rows(const char *path, EqRow **out) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    char line[4096];
    int n = 0, cap = 64;
    EqRow *rows = malloc((size_t)cap * sizeof *rows);
    if (rows == NULL || fgets(line, sizeof line, f) == NULL) { /* header */
        fclose(f);
        free(rows);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *fl[16];
        int nf = tu_split_tabs(line, fl, 16);
        if (nf < 7) continue;
        if (n == cap) {
            cap *= 2;
            EqRow *nr = realloc(rows, (size_t)cap * sizeof *rows);
            if (nr == NULL) break;
            rows = nr;
        }
        EqRow *r = &rows[n++];
        snprintf(r->id, sizeof r->id, "%s", fl[0]);
        snprintf(r->cgp, sizeof r->cgp, "%s", fl[1]);
        snprintf(r->top_move, sizeof r->top_move, "%s", fl[2]);
        r->top_score = atol(fl[3]);
        r->top_equity = parse_milli(fl[4]);
        r->n_tied = atol(fl[5]);
        r->second_equity = parse_milli(fl[6]);
    }
    fclose(f);
    *out = rows;
    return n;
}

static int by_compare(const void *a, const void *b) { return movegen_compare(a, b); }

/* English, the standard board, the built SOWPODS and the leaves at klv_path.
 * False (with a SKIPPED line) if SOWPODS was not built. */
static bool open_sowpods_csw21(LetterDist *ld, Layout *lay, Kwg *kwg, Klv *klv, const char *klv_path) {
    const char *kwg_path = tu_sowpods_kwg();
    if (kwg_path == NULL) return false;
    RkError err;
    ld_english(ld);
    layout_standard15(lay);
    CU_ASSERT_FATAL(kwg_load(kwg, kwg_path, (uint32_t)ld->size, &err) == 0);
    CU_ASSERT_FATAL(klv_load(klv, klv_path, ld, &err) == 0);
    return true;
}

static void test_reference_equity(void) {
    char path[4096], klv_path[4096];
    if (tu_shared_path("reference/equity_sowpods.tsv", path, sizeof path) == NULL) return;
    if (tu_shared_path("reference/CSW21.klv2", klv_path, sizeof klv_path) == NULL) return;
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Klv klv;
    RkError err;
    if (!open_sowpods_csw21(&ld, &lay, &kwg, &klv, klv_path)) return;
    EqRow *rows = NULL;
    int n = load_rows(path, &rows);
    CU_ASSERT_FATAL(n == 49);
    Game *g = malloc(sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    MoveList list;
    movelist_init(&list);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        EqRow *r = &rows[i];
        if (cgp_parse(g, r->cgp, &ld, &lay, &kwg, 0, &err) != 0) {
            printf("\n%s: CGP rejected: %s\n", r->id, err.msg);
            bad++;
            continue;
        }
        MoveGenRequest req;
        movegen_request_for_game(&req, g);
        req.leave_value = klv_leave_value;
        req.leave_ctx = &klv;
        Move best;
        movegen_best(&req, &best, NULL);
        movegen_all(&req, &list);
        qsort(list.moves, list.count, sizeof(Move), by_compare);

        char best_s[128], first_s[128], named_s[128] = "";
        move_to_string(&best, &g->board, &ld, best_s, sizeof best_s);
        move_to_string(&list.moves[0], &g->board, &ld, first_s, sizeof first_s);
        long tied = 0;
        int32_t second = INT32_MIN;
        bool have_second = false, named_found = false;
        long named_score = -1;
        for (size_t j = 0; j < list.count; j++) {
            const Move *m = &list.moves[j];
            if (m->kind == MOVE_PASS) continue; /* no static equity */
            if (m->equity == r->top_equity) {
                tied++;
                char s[128];
                move_to_string(m, &g->board, &ld, s, sizeof s);
                if (strcmp(s, r->top_move) == 0) {
                    named_found = true;
                    named_score = m->score;
                    snprintf(named_s, sizeof named_s, "%s", s);
                }
            } else if (m->equity < r->top_equity && !have_second) {
                have_second = true;
                second = m->equity;
            }
        }
        bool ok = true;
        /* (a) the best move has the reference equity and is one of the tied moves */
        if (best.equity != r->top_equity) ok = false;
        if (r->n_tied == 1 && strcmp(best_s, r->top_move) != 0) ok = false;
        if (tied != r->n_tied) ok = false;
        if (!named_found || named_score != r->top_score) ok = false;
        if (!have_second || second != r->second_equity) ok = false;
        /* (b) the full list in movegen_compare order starts with movegen_best's move */
        bool first_same = move_same(&list.moves[0], &best) && list.moves[0].equity == best.equity;
        if (!first_same) ok = false;
        if (!ok) {
            bad++;
            printf("\n%s: best %s (%d, eq %.3f) ref %s (%ld, eq %.3f); tied %ld/%ld; second %.3f/%.3f; "
                   "named move %s; list first %s\n",
                   r->id, best_s, best.score, best.equity / 1000.0, r->top_move, r->top_score,
                   r->top_equity / 1000.0, tied, r->n_tied, have_second ? second / 1000.0 : NAN,
                   r->second_equity / 1000.0, named_found ? "found" : "NOT FOUND", first_s);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    printf("\n%d equity reference positions checked, %d mismatches\n", n, bad);
    movelist_free(&list);
    free(g);
    free(rows);
    klv_free(&klv);
    kwg_free(&kwg);
}

typedef struct CheckCtx {
    const Klv *klv;
    MoveList list;
    int positions, mismatches, exchanges_chosen;
} CheckCtx;

/* At every self-play position: the move the best-move path chose must be the
 * first of the full list sorted by movegen_compare. */
static void check_with_leaves(const Game *g, const Move *chosen, void *vctx) {
    CheckCtx *cc = vctx;
    cc->positions++;
    cc->exchanges_chosen += chosen->kind == MOVE_EXCHANGE;
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    req.leave_value = klv_leave_value;
    req.leave_ctx = cc->klv;
    movegen_all(&req, &cc->list);
    qsort(cc->list.moves, cc->list.count, sizeof(Move), by_compare);
    const Move *first = &cc->list.moves[0];
    if (!move_same(first, chosen) || first->equity != chosen->equity) {
        char a[128], b[128], cgp[2048];
        move_to_string(chosen, &g->board, g->ld, a, sizeof a);
        move_to_string(first, &g->board, g->ld, b, sizeof b);
        cgp_write(g, NULL, cgp, sizeof cgp);
        if (cc->mismatches++ < 5)
            printf("\nbest path chose %s (%d), sorted list has %s (%d) first: %s\n", a, chosen->equity, b,
                   first->equity, cgp);
    }
}

static void test_selfplay_best_equals_sorted(void) {
    char path[4096];
    if (tu_shared_path("reference/CSW21.klv2", path, sizeof path) == NULL) return;
    LetterDist ld;
    Layout lay;
    Kwg kwg;
    Klv klv;
    if (!open_sowpods_csw21(&ld, &lay, &kwg, &klv, path)) return;
    SelfplayConfig cfg = {.ld = &ld, .layout = &lay, .kwg = &kwg, .leave_value = klv_leave_value,
                          .leave_ctx = &klv, .seed = 2026};
    CheckCtx cc = {.klv = &klv};
    movelist_init(&cc.list);
    Game *g = malloc(sizeof *g);
    for (uint64_t i = 0; i < 120; i++) selfplay_game(&cfg, i, g, NULL, check_with_leaves, &cc);
    printf("\n%d self-play positions (CSW21 leaves): %d mismatches, %d exchanges chosen\n", cc.positions,
           cc.mismatches, cc.exchanges_chosen);
    CU_ASSERT(cc.positions > 2000);
    CU_ASSERT_EQUAL(cc.mismatches, 0);
    free(g);
    movelist_free(&cc.list);
    klv_free(&klv);
    kwg_free(&kwg);
}

int main(void) {
    CU_TestInfo tests[] = {{"reference equity (equity_sowpods.tsv, CSW21.klv2)", test_reference_equity},
                           {"self-play best move = first of the sorted full list", test_selfplay_best_equals_sorted},
                           CU_TEST_INFO_NULL};
    return tu_run("equity_reference", tests);
}
