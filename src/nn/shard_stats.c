/*
 * shard_stats.c - a summary of training samples (see shard_stats.h).
 */
#include "shard_stats.h"

#include <math.h>
#include <string.h>

/* Every probability of the set's targets is k/n for an integer k (to float
 * precision). Most wrong n fail on the first few entries. */
static bool on_grid(const ShardSet *set, int n) {
    for (size_t i = 0; i < set->n; i++) {
        const ShardSample *s = &set->s[i];
        for (uint64_t j = s->policy_start; j < s->policy_start + s->policy_count; j++) {
            double x = (double)set->pprob[j] * n;
            if (fabs(x - nearbyint(x)) > 1e-3) return false;
        }
    }
    return true;
}

void shard_stats(const ShardSet *set, ShardStats *out) {
    memset(out, 0, sizeof *out);
    double abs_final = 0, top = 0, err2 = 0;
    for (size_t i = 0; i < set->n; i++) {
        const ShardSample *s = &set->s[i];
        out->samples++;
        if (i == 0 || s->game != set->s[i - 1].game) out->games++;
        if (s->turn > out->max_turn) out->max_turn = s->turn;
        out->no_policy += s->policy_count == 0;
        out->policy_entries += s->policy_count;
        out->single_move += s->policy_count == 1;
        float best = 0;
        for (uint32_t j = 0; j < s->policy_count; j++)
            if (set->pprob[s->policy_start + j] > best) best = set->pprob[s->policy_start + j];
        top += best;
        out->won += s->result > 0;
        out->drawn += s->result == 0;
        out->lost += s->result < 0;
        abs_final += fabs((double)s->final_spread);
        if (!isnan(s->search_spread)) {
            out->estimates++;
            double d = (double)s->search_spread - (double)s->final_spread;
            err2 += d * d;
        }
        if (s->opp_leave_known) out->leave_known++, out->leave_tiles += (uint64_t)s->opp_leave.total;
    }
    if (out->samples) out->mean_abs_final = abs_final / (double)out->samples;
    if (out->samples > out->no_policy) out->mean_top_prob = top / (double)(out->samples - out->no_policy);
    if (out->estimates) out->rms_estimate_error = sqrt(err2 / (double)out->estimates);
    for (int n = 1; n <= SHARD_STATS_MAX_GRID && out->policy_entries > 0; n++)
        if (on_grid(set, n)) {
            out->grid = n;
            break;
        }
}
