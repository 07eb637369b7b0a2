/*
 * features.h - what the network sees: the input planes and scalars of a
 * position, from the player on turn's point of view (docs/features.md).
 *
 * One function, nn_features(), computes them from a compact Position; the
 * self-play inference path and the trainer both call it, so what the net
 * is trained on is exactly what it is shown in play.
 *
 * A model keeps the feature version it was made with (NnArch.feature_version,
 * stored in its model.h5); this build computes versions
 * NN_FEATURE_VERSION_MIN..NN_FEATURE_VERSION and refuses others. Version 3
 * adds the opponent's last move (Position.last): a plane of the squares it
 * put tiles on, five scalars and the count of each letter it placed
 * (docs/features.md). Version 3's layout gained those counts on 2026-11-27:
 * a model of the first layout (64 + 5 scalars for English) no longer loads
 * (a shape error naming the file and the dataset); none was ever a default.
 */
#ifndef ROOKERY_NN_FEATURES_H
#define ROOKERY_NN_FEATURES_H
#include "core/board.h"
#include "core/movegen.h"
#include "core/position.h"
#include "policy.h"

#define NN_FEATURE_VERSION 3     /* the newest this build computes */
#define NN_FEATURE_VERSION_MIN 2
#define NN_FEATURE_VERSION_DEFAULT 2 /* of a new model (nn.feature_version) */

/* Scores enter the network divided by this (points). */
#define NN_SCORE_SCALE 10.0f

/* Sizes for a letter distribution of ld->size letters (blank included) and
 * a dim x dim board: L = ld->size - 1 real letters. */
typedef struct NnFeatureShape {
    int version;        /* NN_FEATURE_VERSION_MIN..NN_FEATURE_VERSION */
    int dim, squares;   /* dim, dim*dim */
    int letters;        /* L */
    int planes;         /* per square: 3L + 11 + 14, + 1 from version 3 */
    int scalars;        /* 2(L+1) + 10, + 5 + (L+1) from version 3 */
} NnFeatureShape;
NnFeatureShape nn_feature_shape(const LetterDist *ld, int dim, int version);

/* Everything needed to turn a Position into features (the board's
 * cross-sets need the lexicon), and the leaves that value moves for a
 * model whose score prior is static equity (NnArch.prior_equity; NULL
 * leave_value: none given, and such a model refuses to run). */
typedef struct NnFeatureContext {
    const LetterDist *ld;
    const Layout *layout;
    const Kwg *kwg;
    NnFeatureShape shape;
    int32_t (*leave_value)(const void *ctx, const Rack *leave); /* a LeaveValueFn */
    const void *leave_ctx;
} NnFeatureContext;
/* No leaves; set them with nn_feature_context_leaves. The shape is the
 * default version's; a model's own (NnModel.fs) is what its batches use. */
void nn_feature_context(NnFeatureContext *fc, const LetterDist *ld, const Layout *lay, const Kwg *kwg);
void nn_feature_context_leaves(NnFeatureContext *fc, int32_t (*leave_value)(const void *, const Rack *),
                               const void *leave_ctx);

/* Writes planes[squares * planes] (NHWC: square-major) and
 * scalars[scalars], and the position's board (with cross-sets) and legal
 * moves, from which the last 14 planes come (the best score of each legal
 * sub-move) and the policy's masks. scratch is any move list. */
void nn_features(const NnFeatureContext *fc, const Position *p, float *planes, float *scalars, Board *board,
                 NnLegal *legal, MoveList *scratch);
/* Static equity for the move list of nn_features_equity: what a
 * MoveGenRequest adds to the position (movegen.h). */
typedef struct NnMoveEquity {
    LeaveValueFn leave_value;
    const void *leave_ctx;
    int opp_rack_score; /* face value of the opponent's rack (empty-bag rules) */
    int prior_equity;   /* 1: the legal moves' prior values are these equities (nn_legal_build) */
} NnMoveEquity;
/* nn_features, whose move generation also values the moves: scratch then
 * holds the position's moves with the equities movegen_all gives them with
 * eq (NULL: leaves worth 0, as nn_features), so a caller that needs the
 * static ranking too does not generate the moves twice. */
void nn_features_equity(const NnFeatureContext *fc, const Position *p, const NnMoveEquity *eq, float *planes,
                        float *scalars, Board *board, NnLegal *legal, MoveList *scratch);

#endif
