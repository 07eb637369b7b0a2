/* rookery report: the per-generation table of a run, and a PNG of its
 * training curves drawn with gnuplot. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_options.h"
#include "commands.h"
#include "core/common.h"
#include "core/csvtable.h"
#include "core/textfile.h"
#include "nn/heldout.h"

#define MAX_COLS 128

static void usage(FILE *out) {
    fprintf(out,
            "usage: rookery report RUN [--png FILE] [--columns NAME,NAME...|list]\n"
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
            "ref PxS and ref S = nn.reference's cross-entropies (nats; P helps where PxS < S); dec gain =\n"
            "mcgs.decisions' study: the anchor's mean loss a move minus the search's, +/- its standard\n"
            "error (points; > 0: the search with the net in force chooses better moves).\n"
            "\n"
            "--columns NAME,...  instead of the table and the curves: the generation and these columns of\n"
            "                    metrics.csv as written (every figure of a generation's record has one;\n"
            "                    '-' where an older row has none); --columns list names them all.\n",
            NN_EVAL_CANDIDATES);
}

/* The columns read, by name; the first C_REQUIRED must be there. */
enum {
    C_GEN, C_GAMES, C_GAMES_S, C_WALL, C_EQUITY, C_LEAVE_CHG, C_RACKS, C_FORCED, C_VS_ZERO, C_NN_LOSS, C_P_TOP1,
    C_GATE_PAIRS, C_GATE_WIN, C_IN_FORCE, C_ANCHOR_PAIRS, C_ANCHOR_WIN, C_VALUE_PAIRS, C_VALUE_WIN, C_ROLLOUT,
    C_REF_P_POS, C_REF_PS_CE, C_REF_S_CE, C_NN_TRAINED, C_DEC_POS, C_DEC_GAIN, C_DEC_GAIN_SE, C_COUNT
};
enum { C_REQUIRED = C_RACKS + 1 };
static const char *const COLUMN_NAME[C_COUNT] = {
    [C_GEN] = "generation", [C_GAMES] = "games", [C_GAMES_S] = "games_per_s", [C_WALL] = "wall_s",
    [C_EQUITY] = "mean_best_equity", [C_LEAVE_CHG] = "leave_change_rms", [C_RACKS] = "racks_observed",
    [C_FORCED] = "forced_games", [C_VS_ZERO] = "match_win_pct", [C_NN_LOSS] = "nn_loss_last",
    [C_P_TOP1] = "nn_p_top1", [C_GATE_PAIRS] = "gate_pairs", [C_GATE_WIN] = "gate_win_pct",
    [C_IN_FORCE] = "model_in_force", [C_ANCHOR_PAIRS] = "anchor_pairs", [C_ANCHOR_WIN] = "anchor_win_pct",
    [C_VALUE_PAIRS] = "value_check_pairs", [C_VALUE_WIN] = "value_check_win_pct", [C_ROLLOUT] = "leaf_rollout",
    [C_REF_P_POS] = "ref_p_positions", [C_REF_PS_CE] = "ref_p_static_ce", [C_REF_S_CE] = "ref_static_cand_ce",
    [C_NN_TRAINED] = "nn_trained", [C_DEC_POS] = "decisions_positions", [C_DEC_GAIN] = "decisions_gain",
    [C_DEC_GAIN_SE] = "decisions_gain_se"};

/* The table read: each column's index (-1: absent) and which optional
 * parts the run has. */
typedef struct Report {
    const CsvTable *tab;
    int col[C_COUNT];
    int gates, anchors, refs;      /* rows with a gate, an anchor match, a reference score */
    int decided;                   /* rows with a decision study */
    bool search, anchored, valued; /* the search loop's columns are shown */
} Report;

/* Row r's field in column c. */
static const char *field(const Report *rp, int r, int c) { return csv_table_field(rp->tab, r, rp->col[c]); }
static bool nonzero(const Report *rp, int r, int c) { return strcmp(field(rp, r, c), "0") != 0; }

/* Finds the columns and checks every row has the required ones. */
static int report_open(Report *rp, const CsvTable *tab, const char *path) {
    memset(rp, 0, sizeof *rp);
    rp->tab = tab;
    int last = 0; /* the last required column: a row that stops before it is corrupt */
    for (int i = 0; i < C_COUNT; i++) {
        rp->col[i] = csv_table_column(tab, COLUMN_NAME[i]);
        if (rp->col[i] < 0 && i < C_REQUIRED) {
            fprintf(stderr, "rookery: %s: no column '%s' (not a rookery metrics file?)\n", path, COLUMN_NAME[i]);
            return -1;
        }
        if (i < C_REQUIRED && rp->col[i] > last) last = rp->col[i];
    }
    /* a part counts only with its value columns (rookery's own files have all or none) */
    const int *c = rp->col;
    bool gate_cols = c[C_GATE_PAIRS] >= 0 && c[C_GATE_WIN] >= 0, anchor_cols = c[C_ANCHOR_PAIRS] >= 0 && c[C_ANCHOR_WIN] >= 0;
    bool ref_cols = c[C_REF_P_POS] >= 0 && c[C_REF_PS_CE] >= 0 && c[C_REF_S_CE] >= 0;
    bool dec_cols = c[C_DEC_POS] >= 0 && c[C_DEC_GAIN] >= 0 && c[C_DEC_GAIN_SE] >= 0;
    int searched = 0;
    for (int r = 0; r < tab->nrows; r++) {
        if (!csv_table_has(tab, r, last)) {
            fprintf(stderr, "rookery: %s: row %d has %d fields, expected %d\n", path, r + 2, tab->nfields[r], tab->ncols);
            return -1;
        }
        rp->gates += gate_cols && nonzero(rp, r, C_GATE_PAIRS);
        rp->anchors += anchor_cols && nonzero(rp, r, C_ANCHOR_PAIRS);
        rp->refs += ref_cols && nonzero(rp, r, C_REF_P_POS);
        /* rows written before the columns existed stop short of them */
        rp->decided += dec_cols && csv_table_has(tab, r, c[C_DEC_GAIN_SE]) && nonzero(rp, r, C_DEC_POS);
        /* a row of the search's loop: it has gated, anchored, checked V, had a
         * model in force or rolled out at the leaves (a static run has none of these) */
        searched += nonzero(rp, r, C_GATE_PAIRS) || nonzero(rp, r, C_ANCHOR_PAIRS) || nonzero(rp, r, C_VALUE_PAIRS) ||
                    nonzero(rp, r, C_IN_FORCE) || nonzero(rp, r, C_ROLLOUT);
    }
    rp->search = gate_cols && c[C_IN_FORCE] >= 0 && searched > 0;
    rp->anchored = rp->search && anchor_cols;
    rp->valued = rp->search && c[C_VALUE_PAIRS] >= 0 && c[C_VALUE_WIN] >= 0 && c[C_ROLLOUT] >= 0;
    return 0;
}

/* One line a generation. The optional parts: the search's loop (the
 * gatekeeper's result and the model in force); the anchor (the search with
 * the model in force vs a fixed player); the value check (V leaves vs
 * rollouts, and the leaves' valuer after); nn.reference (P x static against
 * static over the top candidates, cross-entropy on another run). */
static void print_table(const Report *rp) {
    const int *c = rp->col;
    printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", "gen", "games", "games/s", "wall s", "mean equity",
           "leave chg", "racks seen", "forced", "vs zero %", "nn loss", "P top-1");
    if (rp->search) printf(" %8s %8s", "gate %", "in force");
    if (rp->anchored) printf(" %8s", "anchor %");
    if (rp->valued) printf(" %8s %6s", "V chk %", "leaves");
    if (rp->refs > 0) printf(" %8s %8s", "ref PxS", "ref S");
    if (rp->decided > 0) printf(" %17s", "dec gain");
    printf("\n");
    for (int r = 0; r < rp->tab->nrows; r++) {
        /* the network's columns are blank in generations that did not train it */
        bool nn = c[C_NN_TRAINED] >= 0 && c[C_NN_LOSS] >= 0 && c[C_P_TOP1] >= 0 &&
                  strcmp(field(rp, r, C_NN_TRAINED), "1") == 0;
        printf("%4s %9s %9s %8s %12s %12s %14s %8s %10s %8s %8s", field(rp, r, C_GEN), field(rp, r, C_GAMES),
               field(rp, r, C_GAMES_S), field(rp, r, C_WALL), field(rp, r, C_EQUITY), field(rp, r, C_LEAVE_CHG),
               field(rp, r, C_RACKS), c[C_FORCED] >= 0 ? field(rp, r, C_FORCED) : "-",
               c[C_VS_ZERO] >= 0 ? field(rp, r, C_VS_ZERO) : "-", nn ? field(rp, r, C_NN_LOSS) : "-",
               nn ? field(rp, r, C_P_TOP1) : "-");
        if (rp->search)
            printf(" %8s %8s", nonzero(rp, r, C_GATE_PAIRS) ? field(rp, r, C_GATE_WIN) : "-", field(rp, r, C_IN_FORCE));
        if (rp->anchored) printf(" %8s", nonzero(rp, r, C_ANCHOR_PAIRS) ? field(rp, r, C_ANCHOR_WIN) : "-");
        if (rp->valued) {
            /* V, or R and the rollout plies; "-" in rows from before the column */
            char leaves[16] = "-";
            if (csv_table_has(rp->tab, r, c[C_ROLLOUT])) {
                const char *rollout = field(rp, r, C_ROLLOUT);
                if (strcmp(rollout, "0") == 0) snprintf(leaves, sizeof leaves, "V");
                else snprintf(leaves, sizeof leaves, "R%.8s", rollout);
            }
            printf(" %8s %6s", nonzero(rp, r, C_VALUE_PAIRS) ? field(rp, r, C_VALUE_WIN) : "-", leaves);
        }
        if (rp->refs > 0) {
            bool scored = nonzero(rp, r, C_REF_P_POS);
            printf(" %8s %8s", scored ? field(rp, r, C_REF_PS_CE) : "-", scored ? field(rp, r, C_REF_S_CE) : "-");
        }
        if (rp->decided > 0) {
            char gain[48] = "-";
            if (csv_table_has(rp->tab, r, c[C_DEC_GAIN_SE]) && nonzero(rp, r, C_DEC_POS))
                snprintf(gain, sizeof gain, "%+.3f+/-%.3f", strtod(field(rp, r, C_DEC_GAIN), NULL),
                         strtod(field(rp, r, C_DEC_GAIN_SE), NULL));
            printf(" %17s", gain);
        }
        printf("\n");
    }
}

/* The curves into png with gnuplot. Returns the command's exit code. */
static int draw_png(const Report *rp, const char *run, const char *path, const char *png) {
    const int *c = rp->col;
    bool referenced = rp->refs > 0;
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
    int gx = c[C_GEN] + 1;
    int panels = 4 + (c[C_VS_ZERO] >= 0) + (c[C_P_TOP1] >= 0) + (rp->gates > 0) + (rp->anchors > 0) + referenced +
                 (rp->decided > 0);
    fprintf(gp,
            "set terminal pngcairo size 1200,%d\nset output '%s'\nset datafile separator ','\n"
            "set multiplot layout %d,2 title 'rookery run %s'\nset grid\nset xtics 1\nset xlabel 'generation'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'games/s'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'mean best-move equity'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'leave change (rms, points)'\n"
            "plot '%s' using %d:%d every ::1 with linespoints title 'racks observed'\n",
            200 * ((panels + 1) / 2), png, (panels + 1) / 2, run, path, gx, c[C_GAMES_S] + 1, path, gx,
            c[C_EQUITY] + 1, path, gx, c[C_LEAVE_CHG] + 1, path, gx, c[C_RACKS] + 1);
    if ((c[C_VS_ZERO] >= 0))
        fprintf(gp, "plot '%s' using %d:%d every ::1 with linespoints title 'win %% vs zero leaves'\n", path, gx,
                c[C_VS_ZERO] + 1);
    if ((c[C_P_TOP1] >= 0))
        fprintf(gp, "plot '%s' using %d:($%d*100) every ::1 with linespoints title 'network: held-out P top-1 %%'\n",
                path, gx, c[C_P_TOP1] + 1);
    if (rp->gates > 0) /* generations without a gate (gate_pairs 0) are left out */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'gate: search with the new "
                "net vs the net in force, win %%'\n",
                path, gx, c[C_GATE_PAIRS] + 1, c[C_GATE_WIN] + 1);
    if (rp->anchors > 0) /* likewise generations without an anchor match */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'anchor: search with the "
                "net in force vs a fixed player, win %%'\n",
                path, gx, c[C_ANCHOR_PAIRS] + 1, c[C_ANCHOR_WIN] + 1);
    if (referenced) /* P helps the search's prior where P x static is below static */
        fprintf(gp,
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'reference run: P x static "
                "cross-entropy', '' using %d:($%d > 0 ? $%d : 1/0) every ::1 with linespoints title 'static alone'\n",
                path, gx, c[C_REF_P_POS] + 1, c[C_REF_PS_CE] + 1, gx, c[C_REF_P_POS] + 1, c[C_REF_S_CE] + 1);
    if (rp->decided > 0) /* the gain with its standard error; generations without a study left out;
                          * margins so the first and last error bars are not drawn on the frame */
        fprintf(gp,
                "set offsets 0.25, 0.25, graph 0.15, graph 0.1\n"
                "plot '%s' using %d:($%d > 0 ? $%d : 1/0):%d every ::1 with yerrorlines title 'decisions: gain "
                "over the anchor (points a move)'\n",
                path, gx, c[C_DEC_POS] + 1, c[C_DEC_GAIN] + 1, c[C_DEC_GAIN_SE] + 1);
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

/* --columns: the generation and the named columns of metrics.csv, as
 * written; 0, or 2 with a message for a name the file does not have. */
static int print_columns(const CsvTable *tab, const char *list, const char *path) {
    if (strcmp(list, "list") == 0) {
        for (int c = 0; c < tab->ncols; c++) printf("%s\n", tab->names[c]);
        return 0;
    }
    enum { MAX_SHOWN = 64 };
    int col[MAX_SHOWN + 1], width[MAX_SHOWN + 1], n = 0;
    char names[1024];
    snprintf(names, sizeof names, "generation,%s", list);
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (n == MAX_SHOWN + 1) {
            fprintf(stderr, "rookery report: --columns: more than %d columns\n", MAX_SHOWN);
            return 2;
        }
        col[n] = csv_table_column(tab, name);
        if (col[n] < 0) {
            fprintf(stderr, "rookery report: %s: no column '%s' (--columns list names them)\n", path, name);
            return 2;
        }
        width[n] = (int)strlen(name) > 8 ? (int)strlen(name) : 8;
        printf("%s%*s", n ? " " : "", width[n], name);
        n++;
    }
    printf("\n");
    for (int r = 0; r < tab->nrows; r++) {
        for (int i = 0; i < n; i++)
            printf("%s%*s", i ? " " : "", width[i], csv_table_has(tab, r, col[i]) ? csv_table_field(tab, r, col[i]) : "-");
        printf("\n");
    }
    return 0;
}

int cmd_report(int argc, char **argv) {
    const char *run = NULL, *png = NULL, *columns = NULL, *dirs[1];
    CliStrings runs = {dirs, 0, 1, NULL};
    const CliOption opts[] = {{"--png", CLI_STRING, &png, 0, 0, NULL}, {"--columns", CLI_STRING, &columns, 0, 0, NULL}};
    int parsed = cli_options_parse_args("report", argc, argv, opts, 2, usage, &runs);
    if (parsed != 0) return parsed > 0 ? 0 : 2;
    if (runs.n == 1) run = dirs[0];
    if (run == NULL) {
        fprintf(stderr, "rookery report: give the run directory (see --help)\n");
        return 2;
    }
    char path[4096], png_default[4096];
    snprintf(path, sizeof path, "%s/metrics.csv", run);
    RkError err;
    CsvTable tab;
    char *text = rk_read_file(path, 64u << 20, NULL, &err);
    if (text == NULL || csv_table_parse(&tab, text, path, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 2;
    }
    if (columns != NULL) {
        int rc = print_columns(&tab, columns, path);
        csv_table_free(&tab);
        return rc;
    }
    Report rp;
    if (report_open(&rp, &tab, path) != 0) {
        csv_table_free(&tab);
        return 2;
    }
    print_table(&rp);
    if (tab.nrows == 0) {
        printf("(no generations yet)\n");
        csv_table_free(&tab);
        return 0;
    }
    if (png == NULL) {
        snprintf(png_default, sizeof png_default, "%s/report.png", run);
        png = png_default;
    }
    int rc = draw_png(&rp, run, path, png);
    csv_table_free(&tab);
    return rc;
}
