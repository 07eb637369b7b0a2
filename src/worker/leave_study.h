/*
 * leave_study.h - does a bag-aware leave (eval/dynleaves.h) change decisions,
 * and does it predict better? Measured on static self-play games.
 *
 * The games are played with static leaves (the .req's own leaves for the
 * full distribution). At every turn of the player on turn with at most
 * max_unseen unseen tiles and a non-empty bag:
 *   CHANGED: the moves are generated with the static leaves, the best
 *     `rerank` of them are reranked with the exact DLV of what they keep
 *     (dynleaves_rerank), and the position counts as changed if another move
 *     comes first.
 *   RESIDUALS: the move played keeps L. If the player's rack is full again
 *     on their next turn and the bag then still holds a rack's worth of
 *     tiles (the only turns the .req's E(R) is recorded on), that turn's
 *     best-move equity E_next is what the
 *     leave predicted (the .req's E is the mean best-move equity of a full
 *     rack, and a leave value is E's mean over the completions minus the
 *     baseline). Static prediction: baseline(full bag) + KLV(L); bag-aware:
 *     baseline(U) + DLV(L, U), U the unseen tiles when L was kept. The
 *     residuals E_next - prediction are summed per unseen bucket, so their
 *     mean (bias) and mean square can be compared.
 * Integers where it matters: counts; the residual sums are doubles summed
 * in game order (one process), so a study is deterministic for its seed.
 */
#ifndef ROOKERY_LEAVE_STUDY_H
#define ROOKERY_LEAVE_STUDY_H

#include "eval/dynleaves.h"
#include "worker/selfplay.h"

#define LEAVE_STUDY_BUCKETS 4 /* unseen 1-10, 11-20, 21-30, 31-40 */
#define LEAVE_STUDY_BUCKET_TILES 10

typedef struct LeaveStudyBucket {
    uint64_t positions, changed;
    uint64_t residuals;                     /* predictions checked */
    double sum_static, sq_static;           /* E_next - static prediction, points */
    double sum_dynamic, sq_dynamic;         /* E_next - bag-aware prediction */
} LeaveStudyBucket;

typedef struct LeaveStudy {
    /* inputs */
    const SelfplayConfig *play; /* leave_value must be klv_leave_value over static_klv */
    const RackTable *rt;
    const Req *req;
    const Klv *static_klv;
    double static_baseline; /* baseline of the full distribution, points */
    int rerank;             /* moves reranked per position (>= 1) */
    /* results */
    LeaveStudyBucket bucket[LEAVE_STUDY_BUCKETS];
    double seconds_exact;   /* time spent in the exact values */
} LeaveStudy;

/* Plays game `index` of play's seed and adds its positions to s. scratch:
 * a Game. Returns 0, or -1 with err set (out of memory). */
int leave_study_game(LeaveStudy *s, uint64_t index, Game *scratch, RkError *err);

#endif
