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
#include "core/textfile.h"

#define MAX_COLS 128

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery report RUN [--png FILE]\n"
            "\n"
            "Prints one line per generation from RUN/metrics.csv and draws the training curves\n"
            "(games/s, mean best-move equity, leave change between generations, racks observed,\n"
            "win %% of each generation's leaves against zero leaves)\n"
            "into FILE (default RUN/report.png) with gnuplot (Debian package gnuplot-nox).\n");
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
    const char *want[] = {"generation",     "games",        "games_per_s",   "wall_s",
                          "mean_best_equity", "leave_change_rms", "racks_observed", "forced_games",
                          "match_win_pct",  "nn_loss_last", "nn_p_top1",     "gate_pairs",
                          "gate_win_pct",   "model_in_force", "anchor_pairs",  "anchor_win_pct",
                          "value_check_pairs", "value_check_win_pct", "leaf_rollout"};
    const int nwant = (int)(sizeof want / sizeof want[0]);
    _Static_assert(sizeof want / sizeof want[0] == 19, "idx[] is read up to idx[18] below");
    int idx[sizeof want / sizeof want[0]];
    for (int i = 0; i < nwant; i++) {
        idx[i] = column(names, ncols, want[i]);
        if (idx[i] < 0 && i < 6) {
            fprintf(stderr, "rookery: %s: no column '%s' (not a rookery metrics file?)\n", path, want[i]);
            free(text);
            return 2;
        }
    }
    /* the search's loop: the gatekeeper's result and the model in force */
    bool search = idx[11] >= 0 && idx[12] >= 0 && idx[13] >= 0;
    printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", "gen", "games", "games/s", "wall s", "mean equity",
           "leave chg", "racks seen", "forced", "vs zero %", "nn loss", "P top-1");
    /* the anchor (later runs): the search with the model in force vs a fixed player */
    bool anchored = search && idx[14] >= 0 && idx[15] >= 0;
    if (search) printf(" %8s %8s", "gate %", "in force");
    if (anchored) printf(" %8s", "anchor %");
    /* the value check (later runs, rollout_with_net = auto): V leaves vs rollouts, and the leaves' valuer after */
    bool valued = search && idx[16] >= 0 && idx[17] >= 0 && idx[18] >= 0;
    if (valued) printf(" %8s %6s", "V chk %", "leaves");
    printf("\n");
    int rows = 0, gates = 0, anchors = 0, trained = column(names, ncols, "nn_trained");
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[MAX_COLS];
        int n = split(line, f, MAX_COLS);
        /* a run resumed by a later version has older rows with fewer (trailing)
         * columns: those read as "0", not played; a short row of the base columns is corrupt */
        int base = 0;
        for (int k = 0; k < 6; k++) base = idx[k] > base ? idx[k] : base;
        if (n <= base) {
            fprintf(stderr, "rookery: %s: row %d has %d fields, expected %d\n", path, rows + 2, n, ncols);
            free(text);
            return 2;
        }
        for (int k = n; k < ncols; k++) f[k] = "0";
        /* the network's columns are blank in generations that did not train it */
        bool nn = trained >= 0 && idx[9] >= 0 && idx[10] >= 0 && strcmp(f[trained], "1") == 0;
        printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", f[idx[0]], f[idx[1]], f[idx[2]], f[idx[3]],
               f[idx[4]], f[idx[5]], f[idx[6]], idx[7] >= 0 ? f[idx[7]] : "-", idx[8] >= 0 ? f[idx[8]] : "-",
               nn ? f[idx[9]] : "-", nn ? f[idx[10]] : "-");
        if (search) {
            bool gated = strcmp(f[idx[11]], "0") != 0;
            gates += gated;
            printf(" %8s %8s", gated ? f[idx[12]] : "-", f[idx[13]]);
        }
        if (anchored) {
            bool played = strcmp(f[idx[14]], "0") != 0;
            anchors += played;
            printf(" %8s", played ? f[idx[15]] : "-");
        }
        if (valued) {
            bool checked = idx[16] < n && strcmp(f[idx[16]], "0") != 0;
            /* V, or R and the rollout plies; "-" in rows from before the column */
            char leaves[16] = "-";
            if (idx[18] < n && strcmp(f[idx[18]], "0") == 0) snprintf(leaves, sizeof leaves, "V");
            else if (idx[18] < n) snprintf(leaves, sizeof leaves, "R%.8s", f[idx[18]]);
            printf(" %8s %6s", checked ? f[idx[17]] : "-", leaves);
        }
        printf("\n");
        rows++;
    }
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
    /* columns are 1-based in gnuplot */
    fprintf(gp,
            "set terminal pngcairo size 1200,800\nset output '%s'\nset datafile separator ','\n"
            "set multiplot layout %d,2 title 'rookery run %s'\nset grid\nset xtics 1\nset xlabel 'generation'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'games/s'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'mean best-move equity'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'leave change (rms, points)'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'racks observed'\n",
            png, gates > 0 || anchors > 0 ? 4 : 3, run, path, idx[0] + 1, idx[2] + 1, path, idx[0] + 1, idx[4] + 1, path, idx[0] + 1, idx[5] + 1,
            path, idx[0] + 1, idx[6] + 1);
    if (idx[8] >= 0)
        fprintf(gp, "plot '%s' using %d:%d every ::1 with linespoints title 'win %% vs zero leaves'\n", path,
                idx[0] + 1, idx[8] + 1);
    if (idx[10] >= 0)
        fprintf(gp, "plot '%s' using %d:($%d*100) every ::1 with linespoints title 'network: held-out P top-1 %%'\n",
                path, idx[0] + 1, idx[10] + 1);
    if (gates > 0) /* generations without a gate (gate_pairs 0) are left out */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'gate: search with the new "
                "net vs the net in force, win %%'\n",
                path, idx[0] + 1, idx[11] + 1, idx[12] + 1);
    if (anchors > 0) /* likewise generations without an anchor match */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'anchor: search with the "
                "net in force vs a fixed player, win %%'\n",
                path, idx[0] + 1, idx[14] + 1, idx[15] + 1);
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
