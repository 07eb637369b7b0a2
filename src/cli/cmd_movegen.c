/* rookery movegen: the moves of one position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/cgp.h"
#include "core/movegen.h"
#include "eval/klv.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery movegen --cgp '<CGP>' [--lexicon FILE.kwg] [--top N] [--json] [--best]\n"
            "                       [--ld english|FILE.csv] [--layout standard15|FILE.txt]\n"
            "                       [--leaves FILE.klv2]\n"
            "\n"
            "Generates every legal move of the position (placements, exchanges, pass) and prints\n"
            "the counts and the N best moves by score (default 10).\n"
            "  --json     one JSON object: {\"placements\": P, \"exchanges\": E, \"passes\": 1,\n"
            "             \"top\": [{\"move\": \"8D QUARTZ\", \"score\": 68}, ...]}\n"
            "  --best     also run the fast best-move path and print its move\n"
            "  --leaves   leave values (.klv2): rank the moves by static equity instead (score +\n"
            "             leave, exchanges included), and give each move its \"equity\" in points\n"
            "             (null for the pass, which has none)\n"
            "  --lexicon  the .kwg to use (default: the CGP's `lex` op, else SOWPODS, looked up\n"
            "             as described in the README)\n");
}

/* movegen_best's order: its move comes first. */
static int by_equity(const void *a, const void *b) { return movegen_compare(a, b); }

static int by_score(const void *a, const void *b) {
    const Move *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return movegen_compare(x, y);
}

/* A move's equity as points with 3 decimals, exactly ("79.300", "-7.653");
 * a pass has no static equity and gets `none`. */
static void fmt_equity(const Move *m, const char *none, char *buf, size_t cap) {
    if (m->kind == MOVE_PASS) {
        snprintf(buf, cap, "%s", none);
        return;
    }
    int64_t a = m->equity < 0 ? -(int64_t)m->equity : m->equity;
    snprintf(buf, cap, "%s%lld.%03lld", m->equity < 0 ? "-" : "", (long long)(a / 1000), (long long)(a % 1000));
}

/* s as a JSON string (a move's text: short) */
static void json_string(const char *s) {
    char buf[512];
    printf("\"%s\"", rk_json_escape(s, buf, sizeof buf));
}

/* What movegen prints: the sorted moves (the first `shown` of them), their counts by kind,
 * whether to give equities (--leaves), and the request for --best's move (NULL: none). */
typedef struct MovegenShow {
    const MoveList *list;
    size_t shown, placements, exchanges, passes;
    bool equity;
    const MoveGenRequest *best;
    const Board *board;
    const LetterDist *ld;
} MovegenShow;

/* Prints the moves as one JSON object (--json). */
static void print_json(const MovegenShow *o) {
    char buf[128], eq[32];
    printf("{\"placements\": %zu, \"exchanges\": %zu, \"passes\": %zu, \"top\": [", o->placements, o->exchanges,
           o->passes);
    for (size_t i = 0; i < o->shown; i++) {
        move_to_string(&o->list->moves[i], o->board, o->ld, buf, sizeof buf);
        printf("%s{\"move\": ", i ? ", " : "");
        json_string(buf);
        printf(", \"score\": %d", o->list->moves[i].score);
        if (o->equity) {
            fmt_equity(&o->list->moves[i], "null", eq, sizeof eq);
            printf(", \"equity\": %s", eq);
        }
        printf("}");
    }
    printf("]");
    if (o->best) {
        Move m;
        movegen_best(o->best, &m, NULL);
        move_to_string(&m, o->board, o->ld, buf, sizeof buf);
        printf(", \"best\": {\"move\": ");
        json_string(buf);
        printf(", \"score\": %d, \"equity\": %.3f}", m.score, m.equity / 1000.0);
    }
    printf("}\n");
}

/* Prints the moves as text, one line a move. */
static void print_text(const MovegenShow *o) {
    char buf[128], eq[32];
    printf("placements %zu, exchanges %zu, passes %zu\n", o->placements, o->exchanges, o->passes);
    for (size_t i = 0; i < o->shown; i++) {
        move_to_string(&o->list->moves[i], o->board, o->ld, buf, sizeof buf);
        if (o->equity) {
            fmt_equity(&o->list->moves[i], "-", eq, sizeof eq);
            printf("%4zu. %-24s %4d  equity %s\n", i + 1, buf, o->list->moves[i].score, eq);
        } else {
            printf("%4zu. %-24s %4d\n", i + 1, buf, o->list->moves[i].score);
        }
    }
    if (o->best) {
        Move m;
        movegen_best(o->best, &m, NULL);
        move_to_string(&m, o->board, o->ld, buf, sizeof buf);
        printf("best: %s %d (equity %.3f)\n", buf, m.score, m.equity / 1000.0);
    }
}

int cmd_movegen(int argc, char **argv) {
    const char *cgp = NULL, *lexicon = NULL, *ld_name = NULL, *layout_name = NULL, *leaves = NULL;
    int top = 10;
    bool json = false, best = false;
    const CliOption opts[] = {{"--cgp", CLI_STRING, &cgp, 0, 0, NULL},
                              {"--lexicon", CLI_STRING, &lexicon, 0, 0, NULL},
                              {"--ld", CLI_STRING, &ld_name, 0, 0, NULL},
                              {"--layout", CLI_STRING, &layout_name, 0, 0, NULL},
                              {"--leaves", CLI_STRING, &leaves, 0, 0, NULL},
                              {"--top", CLI_INT, &top, 0, 1000000, NULL},
                              {"--json", CLI_FLAG, &json, 0, 0, NULL},
                              {"--best", CLI_FLAG, &best, 0, 0, NULL}};
    int parsed = cli_options_parse("movegen", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (cgp == NULL) {
        fprintf(stderr, "rookery movegen: --cgp is required (see --help)\n");
        return 2;
    }
    RkError err;
    Engine e;
    if (cli_engine_for_cgp(&e, cgp, ld_name, layout_name, lexicon) != 0) return 2;
    Klv klv;
    memset(&klv, 0, sizeof klv);
    if (leaves != NULL && klv_load(&klv, leaves, &e.ld, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        engine_close(&e);
        return 2;
    }
    Game *g = malloc(sizeof *g);
    if (g == NULL) {
        fprintf(stderr, "rookery: out of memory\n");
        klv_free(&klv);
        engine_close(&e);
        return 1;
    }
    if (cgp_parse(g, cgp, &e.ld, &e.layout, &e.kwg, 0, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        free(g);
        klv_free(&klv);
        engine_close(&e);
        return 2;
    }
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    if (leaves != NULL) klv_request_leaves(&req, klv_leave_value, &klv);
    MoveList list;
    movelist_init(&list);
    MovegenShow o = {.list = &list, .equity = leaves != NULL, .best = best ? &req : NULL, .board = &g->board,
                     .ld = &e.ld};
    o.placements = movegen_all(&req, &list);
    for (size_t i = 0; i < list.count; i++) {
        o.exchanges += list.moves[i].kind == MOVE_EXCHANGE;
        o.passes += list.moves[i].kind == MOVE_PASS;
    }
    qsort(list.moves, list.count, sizeof(Move), leaves != NULL ? by_equity : by_score);
    o.shown = (size_t)top < list.count ? (size_t)top : list.count;
    if (json) print_json(&o);
    else print_text(&o);
    movelist_free(&list);
    free(g);
    klv_free(&klv);
    engine_close(&e);
    return 0;
}
