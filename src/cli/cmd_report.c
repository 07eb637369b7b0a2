/* rookery report: the per-generation table of a run, and a PNG of its
 * training curves drawn with gnuplot. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "commands.h"
#include "core/common.h"
#include "core/textfile.h"
#include "nn/evaluate.h"

#define MAX_COLS 128

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery report RUN [--png FILE]\n"
            "\n"
            "Prints one line per generation from RUN/metrics.csv and draws the training curves\n"
            "(games/s, mean best-move equity, leave change between generations, racks observed,\n"
            "win %% of each generation's leaves against zero leaves; and, in runs that have them, the\n"
            "network's held-out P top-1, the gate and anchor matches of the search loop, and the\n"
            "nn.reference cross-entropies: P x static and static alone over the top %d candidates)\n"
            "into FILE (default RUN/report.png) with gnuplot (Debian package gnuplot-nox).\n"
            "\n"
            "Columns: gate %% = the search with the new net vs the net in force; in force = the model\n"
            "guiding the search; anchor %% = that search vs a fixed player; V chk %% and leaves = the value\n"
            "check and what values the search's leaves after it (V, or R and the rollout plies);\n"
            "ref PxS and ref S = nn.reference's cross-entropies (nats; P helps where PxS < S).\n",
            NN_EVAL_CANDIDATES);
}

/* Index of column `name` in the header fields, or -1. */
static int column(char **names, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

static int split(char *line, char **out, int cap) {
    int n = 0;
    char *save = NULL;
    for (char *f = strtok_r(line, ",\r\n", &save); f && n < cap; f = strtok_r(NULL, ",\r\n", &save)) out[n++] = f;
    return n;
}

int cmd_report(int argc, char **argv) {
    const char *run = NULL, *png = NULL;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--png") == 0 && i + 1 < argc) {
            png = argv[++i];
        } else if (argv[i][0] != '-' && run == NULL) {
            run = argv[i];
        } else {
            fprintf(stderr, "rookery report: unknown or incomplete option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (run == NULL) {
        fprintf(stderr, "rookery report: give the run directory (see --help)\n");
        return 2;
    }
    char path[4096], png_default[4096];
    snprintf(path, sizeof path, "%s/metrics.csv", run);
    RkError err;
    char *text = rk_read_file(path, 64u << 20, NULL, &err);
    if (text == NULL) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    char *save = NULL;
    char *header = strtok_r(text, "\n", &save);
    char *names[MAX_COLS];
    int ncols = header ? split(header, names, MAX_COLS) : 0;
    /* the columns read, by name; the first C_REQUIRED must be there */
    enum {
        C_GEN, C_GAMES, C_GAMES_S, C_WALL, C_EQUITY, C_LEAVE_CHG, C_RACKS, C_FORCED, C_VS_ZERO, C_NN_LOSS, C_P_TOP1,
        C_GATE_PAIRS, C_GATE_WIN, C_IN_FORCE, C_ANCHOR_PAIRS, C_ANCHOR_WIN, C_VALUE_PAIRS, C_VALUE_WIN, C_ROLLOUT,
        C_REF_P_POS, C_REF_PS_CE, C_REF_S_CE, C_NN_TRAINED, C_COUNT
    };
    enum { C_REQUIRED = C_RACKS + 1 };
    static const char *const want[C_COUNT] = {
        [C_GEN] = "generation", [C_GAMES] = "games", [C_GAMES_S] = "games_per_s", [C_WALL] = "wall_s",
        [C_EQUITY] = "mean_best_equity", [C_LEAVE_CHG] = "leave_change_rms", [C_RACKS] = "racks_observed",
        [C_FORCED] = "forced_games", [C_VS_ZERO] = "match_win_pct", [C_NN_LOSS] = "nn_loss_last",
        [C_P_TOP1] = "nn_p_top1", [C_GATE_PAIRS] = "gate_pairs", [C_GATE_WIN] = "gate_win_pct",
        [C_IN_FORCE] = "model_in_force", [C_ANCHOR_PAIRS] = "anchor_pairs", [C_ANCHOR_WIN] = "anchor_win_pct",
        [C_VALUE_PAIRS] = "value_check_pairs", [C_VALUE_WIN] = "value_check_win_pct", [C_ROLLOUT] = "leaf_rollout",
        [C_REF_P_POS] = "ref_p_positions", [C_REF_PS_CE] = "ref_p_static_ce", [C_REF_S_CE] = "ref_static_cand_ce",
        [C_NN_TRAINED] = "nn_trained"};
    int idx[C_COUNT];
    for (int i = 0; i < C_COUNT; i++) {
        idx[i] = column(names, ncols, want[i]);
        if (idx[i] < 0 && i < C_REQUIRED) {
            fprintf(stderr, "rookery: %s: no column '%s' (not a rookery metrics file?)\n", path, want[i]);
            free(text);
            return 2;
        }
    }
    /* every row first: which optional columns to show depends on all of them */
    int base = 0; /* the last required column: a row that stops before it is corrupt */
    for (int k = 0; k < C_REQUIRED; k++) base = idx[k] > base ? idx[k] : base;
    int nrows = 0;
    size_t cap = 0;
    char *(*row)[MAX_COLS + 1] = NULL; /* [MAX_COLS]: "0", what an absent column reads */
    char pad[] = "0";
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        void *rows_p = row;
        if (rk_grow(&rows_p, &cap, (size_t)nrows + 1, sizeof *row) != 0) {
            fprintf(stderr, "rookery: %s: out of memory\n", path);
            free(row);
            free(text);
            return 2;
        }
        row = rows_p;
        char **f = row[nrows];
        int n = split(line, f, MAX_COLS);
        if (n <= base) {
            fprintf(stderr, "rookery: %s: row %d has %d fields, expected %d\n", path, nrows + 2, n, ncols);
            free(row);
            free(text);
            return 2;
        }
        /* a run resumed by a later version has older rows with fewer (trailing)
         * columns: those read as "0", not played */
        for (int k = n; k <= MAX_COLS; k++) f[k] = pad;
        nrows++;
    }
    /* a column absent from the header reads as "0" too */
    for (int i = 0; i < C_COUNT; i++)
        if (idx[i] < 0) idx[i] = MAX_COLS;
    bool has[C_COUNT];
    for (int i = 0; i < C_COUNT; i++) has[i] = idx[i] != MAX_COLS;
    int gates = 0, anchors = 0, refs = 0, searched = 0;
    for (int r = 0; r < nrows; r++) {
        char **f = row[r];
        gates += strcmp(f[idx[C_GATE_PAIRS]], "0") != 0;
        anchors += strcmp(f[idx[C_ANCHOR_PAIRS]], "0") != 0;
        refs += strcmp(f[idx[C_REF_P_POS]], "0") != 0;
        /* a row of the search's loop: it has gated, anchored, checked V, had a
         * model in force or rolled out at the leaves (a static run has none of these) */
        searched += strcmp(f[idx[C_GATE_PAIRS]], "0") != 0 || strcmp(f[idx[C_ANCHOR_PAIRS]], "0") != 0 ||
                    strcmp(f[idx[C_VALUE_PAIRS]], "0") != 0 || strcmp(f[idx[C_IN_FORCE]], "0") != 0 ||
                    strcmp(f[idx[C_ROLLOUT]], "0") != 0;
    }
    /* the search's loop: the gatekeeper's result and the model in force; the
     * anchor (later runs): the search with the model in force vs a fixed player;
     * the value check (later runs): V leaves vs rollouts, and the leaves' valuer after;
     * nn.reference: P x static against static over the top candidates, cross-entropy on another run */
    bool search = has[C_GATE_PAIRS] && has[C_GATE_WIN] && has[C_IN_FORCE] && searched > 0;
    bool anchored = search && has[C_ANCHOR_PAIRS] && has[C_ANCHOR_WIN];
    bool valued = search && has[C_VALUE_PAIRS] && has[C_VALUE_WIN] && has[C_ROLLOUT];
    bool referenced = refs > 0;
    printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", "gen", "games", "games/s", "wall s", "mean equity",
           "leave chg", "racks seen", "forced", "vs zero %", "nn loss", "P top-1");
    if (search) printf(" %8s %8s", "gate %", "in force");
    if (anchored) printf(" %8s", "anchor %");
    if (valued) printf(" %8s %6s", "V chk %", "leaves");
    if (referenced) printf(" %8s %8s", "ref PxS", "ref S");
    printf("\n");
    for (int r = 0; r < nrows; r++) {
        char **f = row[r];
        /* the network's columns are blank in generations that did not train it */
        bool nn = has[C_NN_TRAINED] && has[C_NN_LOSS] && has[C_P_TOP1] && strcmp(f[idx[C_NN_TRAINED]], "1") == 0;
        printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", f[idx[C_GEN]], f[idx[C_GAMES]], f[idx[C_GAMES_S]],
               f[idx[C_WALL]], f[idx[C_EQUITY]], f[idx[C_LEAVE_CHG]], f[idx[C_RACKS]],
               has[C_FORCED] ? f[idx[C_FORCED]] : "-", has[C_VS_ZERO] ? f[idx[C_VS_ZERO]] : "-",
               nn ? f[idx[C_NN_LOSS]] : "-", nn ? f[idx[C_P_TOP1]] : "-");
        if (search) {
            bool gated = strcmp(f[idx[C_GATE_PAIRS]], "0") != 0;
            printf(" %8s %8s", gated ? f[idx[C_GATE_WIN]] : "-", f[idx[C_IN_FORCE]]);
        }
        if (anchored) printf(" %8s", strcmp(f[idx[C_ANCHOR_PAIRS]], "0") != 0 ? f[idx[C_ANCHOR_WIN]] : "-");
        if (valued) {
            bool checked = strcmp(f[idx[C_VALUE_PAIRS]], "0") != 0;
            /* V, or R and the rollout plies; "-" in rows from before the column */
            char leaves[16] = "-";
            const char *rollout = f[idx[C_ROLLOUT]];
            if (rollout != pad) { /* not a padded row */
                if (strcmp(rollout, "0") == 0) snprintf(leaves, sizeof leaves, "V");
                else snprintf(leaves, sizeof leaves, "R%.8s", rollout);
            }
            printf(" %8s %6s", checked ? f[idx[C_VALUE_WIN]] : "-", leaves);
        }
        if (referenced) {
            bool scored = strcmp(f[idx[C_REF_P_POS]], "0") != 0;
            printf(" %8s %8s", scored ? f[idx[C_REF_PS_CE]] : "-", scored ? f[idx[C_REF_S_CE]] : "-");
        }
        printf("\n");
    }
    int rows = nrows;
    free(row);
    free(text);
    if (rows == 0) {
        printf("(no generations yet)\n");
        return 0;
    }
    if (png == NULL) {
        snprintf(png_default, sizeof png_default, "%s/report.png", run);
        png = png_default;
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "rookery report: gnuplot not found (apt-get install gnuplot-nox); no PNG written\n");
        return 1;
    }
    bool existed = access(png, F_OK) == 0;
    FILE *probe = fopen(png, "ab");
    if (probe == NULL) {
        fprintf(stderr, "rookery report: cannot write %s: %s\n", png, strerror(errno));
        return 2;
    }
    fclose(probe);
    /* gnuplot's messages go to a temporary file: its warnings about flat
     * curves (a constant column, a single generation) are dropped, anything
     * else is passed on */
    char log[] = "/tmp/rookery-report-XXXXXX", cmd[64];
    int lfd = mkstemp(log);
    if (lfd < 0) {
        fprintf(stderr, "rookery report: cannot create a temporary file for gnuplot's messages\n");
        return 1;
    }
    close(lfd);
    /* gnuplot writes the image to stdout when it cannot open the output: never let it */
    snprintf(cmd, sizeof cmd, "gnuplot >/dev/null 2>'%s'", log);
    FILE *gp = popen(cmd, "w");
    if (gp == NULL) {
        fprintf(stderr, "rookery report: cannot start gnuplot\n");
        unlink(log);
        return 1;
    }
    /* columns are 1-based in gnuplot; the optional panels follow the four fixed ones */
    int gx = idx[C_GEN] + 1;
    int panels = 4 + has[C_VS_ZERO] + has[C_P_TOP1] + (gates > 0) + (anchors > 0) + referenced;
    fprintf(gp,
            "set terminal pngcairo size 1200,%d\nset output '%s'\nset datafile separator ','\n"
            "set multiplot layout %d,2 title 'rookery run %s'\nset grid\nset xtics 1\nset xlabel 'generation'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'games/s'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'mean best-move equity'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'leave change (rms, points)'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'racks observed'\n",
            200 * ((panels + 1) / 2), png, (panels + 1) / 2, run, path, gx, idx[C_GAMES_S] + 1, path, gx,
            idx[C_EQUITY] + 1, path, gx, idx[C_LEAVE_CHG] + 1, path, gx, idx[C_RACKS] + 1);
    if (has[C_VS_ZERO])
        fprintf(gp, "plot '%s' using %d:%d every ::1 with linespoints title 'win %% vs zero leaves'\n", path, gx,
                idx[C_VS_ZERO] + 1);
    if (has[C_P_TOP1])
        fprintf(gp, "plot '%s' using %d:($%d*100) every ::1 with linespoints title 'network: held-out P top-1 %%'\n",
                path, gx, idx[C_P_TOP1] + 1);
    if (gates > 0) /* generations without a gate (gate_pairs 0) are left out */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'gate: search with the new "
                "net vs the net in force, win %%'\n",
                path, gx, idx[C_GATE_PAIRS] + 1, idx[C_GATE_WIN] + 1);
    if (anchors > 0) /* likewise generations without an anchor match */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'anchor: search with the "
                "net in force vs a fixed player, win %%'\n",
                path, gx, idx[C_ANCHOR_PAIRS] + 1, idx[C_ANCHOR_WIN] + 1);
    if (referenced) /* P helps the search's prior where P x static is below static */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'reference run: P x static "
                "cross-entropy', '' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'static alone'\n",
                path, gx, idx[C_REF_P_POS] + 1, idx[C_REF_PS_CE] + 1, gx, idx[C_REF_P_POS] + 1, idx[C_REF_S_CE] + 1);
    fprintf(gp, "unset multiplot\n");
    int rc = pclose(gp);
    FILE *lf = fopen(log, "r");
    if (lf != NULL) {
        char line[512];
        while (fgets(line, sizeof line, lf) != NULL)
            if (rc != 0 || strncmp(line, "Warning: empty ", 15) != 0) fputs(line, stderr);
        fclose(lf);
    }
    unlink(log);
    if (rc != 0 || access(png, F_OK) != 0) {
        if (!existed) unlink(png); /* the empty file of the writability check */
        fprintf(stderr, "rookery report: gnuplot failed writing %s\n", png);
        return 1;
    }
    printf("curves: %s\n", png);
    return 0;
}
