/* gen_log.c - a generation's summary lines from its record (see gen_log.h). */
#include "gen_log.h"

#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "manifest.h"

/* One figure of a line: the record's member at `path`, printed into
 * `text` at its "%s". A field starts with "; " unless it is glued to the
 * one before (", " or a unit is part of its text then). */
typedef struct LogField {
    const char *path;
    const char *text;
    bool glued;     /* no "; " before it */
    bool skip_zero; /* left out when the figure is 0 (or absent) */
} LogField;

static const LogField DONE_LINE[] = {
    {"games", "%s games", true, false},
    {"turns", ", %s turns", true, false},
    {"games_per_s", ", %s games/s", true, false},
    {"mean_best_equity", "mean best equity %s", false, false},
    {"sampled_observations", "sampled racks %s", false, true},
    {"racks_observed", "racks observed %s", false, false},
    {"leave_change_rms", "leave change rms %s", false, false},
    {"match_vs_zero_leaves.win_pct", "vs zero leaves %s%", false, false},
    {"match_vs_zero_leaves.ci95_pct", " +/- %s", true, false},
    {"timings_s.play", "play %s s", false, false},
    {"timings_s.reduce", ", reduce %s s", true, false},
    {"timings_s.derive", ", derive %s s", true, false},
    {"timings_s.evaluate", ", evaluate %s s", true, false},
    {"timings_s.write", ", write %s s", true, false},
};

static const LogField SPV_LINE[] = {
    {"spv_trained", "derived %s", true, false},
    {"spv.cells_observed", "%s cells observed", false, false},
    {"spv.tile_observations", ", %s tile observations", true, false},
    {"spv.mean_abs", ", mean |adj| %s", true, false},
    {"spv.prior_mean_1", "priors of 1-point tiles: mean %s", false, false},
    {"spv.prior_var_1", ", var %s", true, false},
    {"spv.openness_multipliers", "openness multipliers %s", false, false},
    {"heldout.resid_var", "held-out residual variance %s", false, false},
    {"heldout.resid_var_spv", " -> %s with SPV", true, false},
    {"heldout.moves", " (%s moves)", true, false},
    {"match_spv_on_vs_off.win_pct", "SPV on vs off %s%", false, false},
    {"match_spv_on_vs_off.ci95_pct", " +/- %s", true, false},
    {"match_spv_on_vs_off.pairs", " (%s pairs)", true, false},
};

/* The text of a member as recorded: an integer, a real in its shortest
 * form (the record rounded it to its decimals), a string, yes/no. */
static bool member_text(json_t *v, char *buf, size_t cap) {
    if (json_is_integer(v)) snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) snprintf(buf, cap, "%.15g", json_real_value(v));
    else if (json_is_string(v)) snprintf(buf, cap, "%s", json_string_value(v));
    else if (json_is_boolean(v)) snprintf(buf, cap, "%s", json_is_true(v) ? "yes" : "no");
    else return false;
    return true;
}

static bool is_zero(json_t *v) {
    return v == NULL || (json_is_integer(v) && json_integer_value(v) == 0) || (json_is_real(v) && json_real_value(v) == 0.0);
}

/* Appends fields[0..n) to out (which holds `len` bytes). An absent member
 * is left out, and so are the fields glued to it (a "+/- 1.2" or "(2
 * pairs)" belongs to the figure before it). */
static void append_fields(json_t *record, const LogField *fields, size_t n, char *out, size_t cap, size_t len) {
    bool head_shown = true;
    for (size_t i = 0; i < n && len < cap; i++) {
        json_t *v = manifest_get(record, fields[i].path);
        char value[160];
        bool shown = !(fields[i].skip_zero && is_zero(v)) && member_text(v, value, sizeof value);
        if (!fields[i].glued || i == 0) head_shown = shown;
        if (!shown || !head_shown) continue;
        const char *at = strstr(fields[i].text, "%s");
        assert(at != NULL); /* every text of the tables holds one %s */
        int w = snprintf(out + len, cap - len, "%s%.*s%s%s", fields[i].glued ? "" : "; ",
                         (int)(at - fields[i].text), fields[i].text, value, at + 2);
        if (w < 0) return;
        len += (size_t)w;
    }
}

void gen_log_done(json_t *record, char *out, size_t cap) {
    int w = snprintf(out, cap, "gen %lld done: ", (long long)manifest_int(record, "generation", 0));
    if (w > 0 && (size_t)w < cap) append_fields(record, DONE_LINE, sizeof DONE_LINE / sizeof *DONE_LINE, out, cap, (size_t)w);
}

void gen_log_spv(json_t *record, char *out, size_t cap) {
    int w = snprintf(out, cap, "gen %lld spv: ", (long long)manifest_int(record, "generation", 0));
    if (w > 0 && (size_t)w < cap) append_fields(record, SPV_LINE, sizeof SPV_LINE / sizeof *SPV_LINE, out, cap, (size_t)w);
}
