/* leave_study.c - bag-aware leaves on self-play positions (see leave_study.h). */
#include "leave_study.h"
#include "eval/klv.h"

#include <string.h>

/* A prediction waiting for its player's next turn. */
typedef struct Pending {
    bool live;
    int bucket;
    double static_pred, dynamic_pred; /* points */
} Pending;

typedef struct StudyGame {
    LeaveStudy *s;
    MoveList list;
    Pending pending[2];
    int failed;
    RkError *err;
} StudyGame;

static void settle(StudyGame *sg, const Game *g, const Move *m) {
    Pending *p = &sg->pending[g->on_turn];
    if (!p->live) return;
    p->live = false;
    /* the .req's E(R) is recorded only with a full rack and at least a
     * rack's worth of tiles in the bag (generation.c): compare like with like */
    if (g->racks[g->on_turn].total != RK_RACK_SIZE || g->bag.count < RK_RACK_SIZE || m->kind == MOVE_PASS) return;
    LeaveStudyBucket *b = &sg->s->bucket[p->bucket];
    double e = m->equity / 1000.0, rs = e - p->static_pred, rd = e - p->dynamic_pred;
    b->residuals++;
    b->sum_static += rs;
    b->sq_static += rs * rs;
    b->sum_dynamic += rd;
    b->sq_dynamic += rd * rd;
}

static void observe(const Game *g, const Move *played, void *vctx) {
    StudyGame *sg = vctx;
    LeaveStudy *s = sg->s;
    if (sg->failed) return;
    settle(sg, g, played);
    Rack unseen;
    game_unseen(g, &unseen);
    if (g->bag.count == 0 || unseen.total < 1 || unseen.total > LEAVE_STUDY_BUCKETS * LEAVE_STUDY_BUCKET_TILES) return;
    int bucket = (unseen.total - 1) / LEAVE_STUDY_BUCKET_TILES;
    const Rack *rack = &g->racks[g->on_turn];
    MoveGenRequest req;
    movegen_request_for_game(&req, g);
    klv_request_leaves(&req, s->play->leave_value, s->play->leave_ctx);
    movegen_all(&req, &sg->list);
    movelist_sort_by_equity(&sg->list);
    if (sg->list.count == 0) return;
    Move best = sg->list.moves[0];
    double t0 = rk_seconds(), baseline = 0.0;
    int n = dynleaves_rerank(s->rt, s->req, s->play->leave_value, s->play->leave_ctx, rack, &unseen, &sg->list,
                             s->rerank, &baseline, sg->err);
    s->seconds_exact += rk_seconds() - t0;
    if (n < 0) {
        sg->failed = 1;
        return;
    }
    LeaveStudyBucket *b = &s->bucket[bucket];
    b->positions++;
    b->changed += !move_same(&sg->list.moves[0], &best);
    /* the move played is the static best; its reranked equity tells its DLV */
    if (played->kind == MOVE_PASS || !move_same(played, &best)) return;
    int32_t klv = move_leave_value(s->play->leave_value, s->play->leave_ctx, rack, played);
    int32_t dlv = klv;
    for (int i = 0; i < n; i++)
        if (move_same(&sg->list.moves[i], &best)) dlv = klv + (sg->list.moves[i].equity - best.equity);
    sg->pending[g->on_turn] = (Pending){.live = true,
                                        .bucket = bucket,
                                        .static_pred = s->static_baseline + klv / 1000.0,
                                        .dynamic_pred = baseline + dlv / 1000.0};
}

int leave_study_game(LeaveStudy *s, uint64_t index, Game *scratch, RkError *err) {
    StudyGame sg;
    memset(&sg, 0, sizeof sg);
    sg.s = s;
    sg.err = err;
    movelist_init(&sg.list);
    selfplay_game(s->play, index, scratch, NULL, observe, &sg);
    movelist_free(&sg.list);
    return sg.failed ? -1 : 0;
}
