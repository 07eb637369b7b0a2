#include "reducer/totals_sum.h"

int totals_sum_match(const Comm *c, MatchTotals *t, RkError *err) {
    int64_t arr[MATCH_TOTALS_FIELDS];
    match_totals_pack(t, arr);
    if (comm_sum_i64(c, arr, MATCH_TOTALS_FIELDS, err) != 0) return -1;
    match_totals_unpack(arr, t);
    return 0;
}

int totals_sum_decisions(const Comm *c, DecisionTotals *t, RkError *err) {
    int64_t arr[DECISION_TOTALS_FIELDS];
    decision_totals_pack(t, arr);
    if (comm_sum_i64(c, arr, DECISION_TOTALS_FIELDS, err) != 0) return -1;
    decision_totals_unpack(arr, t);
    return 0;
}

int totals_sum_residuals(const Comm *c, ResidualStats *s, RkError *err) {
    int64_t arr[RESIDUAL_STATS_FIELDS];
    residual_stats_pack(s, arr);
    if (comm_sum_i64(c, arr, RESIDUAL_STATS_FIELDS, err) != 0) return -1;
    residual_stats_unpack(arr, s);
    return 0;
}
