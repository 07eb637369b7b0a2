/*
 * dynleaves.h - bag-aware ("dynamic") leave values from a rack-equity table
 * (.req, req.h), as designed in ../shared/dynamic-leaves-design.md.
 *
 * Static leaves assume the full distribution; late in a game the tiles left
 * differ a lot. The .req written by every generation holds E(R), the mean
 * best-move equity of every full rack R, from which leave values can be
 * derived again for the tiles actually left.
 *
 * THE POOL. For the player on turn, the tiles a leave L comes from and is
 * completed from are every tile not on the board: the UNSEEN tiles (the bag
 * and the opponent's rack, which the player cannot tell apart) plus the
 * player's own rack. dynleaves_recompute() runs the generation's derivation
 * (derive.h, shrinkage included) with that pool B in place of the full
 * distribution: W(R, L, B) = prod C(B - L, R - L). With nothing on the board
 * B is the full distribution and the result is the generation's own
 * .klv2, byte for byte (a test checks it). One KLV serves every rack drawn
 * from the pool, which is what a simulation from one root needs.
 *
 * It is an approximation for one decision: B - L still holds the tiles the
 * move will place (rack - L), as if they could be drawn again. The exact
 * value for the player's own leaves draws only from the unseen tiles U:
 *   DLV(L, U) = sum_D C(U, D) E(L + D) / sum_D C(U, D) - baseline(U),
 *   baseline(U) = sum_R C(U, R) E(R) / sum_R C(U, R)
 * over the observed racks (unobserved ones are left out of both sums, as in
 * derive.h; no shrinkage). dynleaves_exact() computes it for a few leaves by
 * enumerating the draws D, which is cheap when few tiles are unseen: the
 * "top-N reranking" of single decisions.
 *
 * Pure functions: no files, no global state; the Req, LeaveDeriver and
 * RackTable are read-only and may be shared by threads.
 */
#ifndef ROOKERY_DYNLEAVES_H
#define ROOKERY_DYNLEAVES_H

#include "core/game.h"
#include "core/movegen.h"
#include "eval/derive.h"
#include "eval/klv.h"
#include "eval/req.h"

/* pool = unseen + rack (rack may be NULL), checked against the distribution:
 * no letter beyond its count. On error -1 with a one-line message naming the
 * letter ("the unseen tiles and the rack hold 3 Z, the distribution 1"). */
int dynleaves_pool(const LetterDist *ld, const Rack *unseen, const Rack *rack, Rack *pool, RkError *err);

/* The leave values of every leave for pool B (see above) into out, a Klv
 * whose leave graph is the deriver's (e.g. from klv_init_zero, the one the
 * deriver was built from). opt: the generation's options (shrinkage); NULL
 * = the plain formula. info may be NULL. */
int dynleaves_recompute(const LeaveDeriver *d, const Req *req, const Rack *pool, const DeriveOptions *opt,
                        Klv *out, DeriveInfo *info, RkError *err);

/* The exact DLV(L, U) of n leaves, in points, into value[i]; *baseline gets
 * baseline(U) (may be NULL). A leave that U cannot complete to an observed
 * rack gets 0 (the empty leave is 0 by definition). Cost: one rack lookup
 * per distinct draw, so C(|U| + 26, 7 - |L|)-ish: fine for tens of unseen
 * tiles, seconds for a full bag. Returns -1 with a message if a leave holds
 * RK_RACK_SIZE tiles or more. */
int dynleaves_exact(const RackTable *rt, const Req *req, const Rack *unseen, const Rack *leaves, int n,
                    double *value, double *baseline, RkError *err);

/* Top-N reranking of one decision: list holds the position's moves with
 * static equities (movegen_all with static_leave), sorted by equity. Each of
 * the first n placements and exchanges has the static value of what it keeps
 * replaced by the exact DLV (millipoints, rounded once; keeping nothing is
 * worth 0 in both), the other parts of its equity unchanged; a pass is left
 * alone. Those n are then sorted again, in front of the rest. rack: the
 * player's rack; unseen: U; *baseline (may be NULL) gets baseline(U).
 * Returns the number reranked, or -1 (err set). */
int dynleaves_rerank(const RackTable *rt, const Req *req, LeaveValueFn static_leave, const void *static_ctx,
                     const Rack *rack, const Rack *unseen, MoveList *list, int n, double *baseline, RkError *err);

/* Everything bag-aware leaves need, loaded once: the rack table of the
 * distribution, the .req, a leave graph with its deriver, and `klv`, which
 * dynleaves_for_game() fills for one position (so one DynLeaves serves one
 * thread). */
typedef struct DynLeaves {
    RackTable rt;
    Req req;
    Klv klv;
    LeaveDeriver deriver;
} DynLeaves;

/* Builds the rack table for ld (about 0.5 s for English) and loads req_path
 * against it. On error -1 with a one-line message naming the file; t is then
 * empty (dynleaves_close is harmless). */
int dynleaves_open(DynLeaves *t, const LetterDist *ld, const char *req_path, RkError *err);
void dynleaves_close(DynLeaves *t);
/* t->klv = the leaves of the holdable leaves of the pool of the player on
 * turn in g (unseen + own rack), with shrinkage `shrink`. */
int dynleaves_for_game(DynLeaves *t, const Game *g, double shrink, DeriveInfo *info, RkError *err);

#endif
