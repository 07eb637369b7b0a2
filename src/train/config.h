/*
 * config.h - the configuration of a training run: one INI-style file.
 *
 *   # comment            ; comment
 *   [section]
 *   key = value
 *
 * Every knob has a default (train_config_defaults), the embedded default
 * config is a short but real run, and `rookery train` applies command-line
 * overrides `--set section.key=value` after the file. Unknown sections or
 * keys and out-of-range values are errors naming the file, line and key, so a
 * typo never silently falls back to a default.
 *
 * Keys (section.key, default):
 *   run.seed                  1        run seed: game i of generation g is seeded from (seed, g, i)
 *   run.generations           3        generations to reach (a resumed run continues up to this)
 *   run.games_per_generation  3000     self-play games per generation, all ranks together
 *   run.output                runs/default   the run directory (at most TRAIN_OUTPUT_MAX bytes,
 *                                      so that every file path inside it fits)
 *   run.player                static   who plays the self-play games: static (best static
 *                                      equity), a sim player spec (search/player.h), e.g.
 *                                      sim:plies=2,candidates=10,iterations=50, or a graph
 *                                      search spec, e.g. mcgs:visits=200 (without net=: the
 *                                      loop gives it the model in force, see [mcgs]); without
 *                                      leaves= or req= it plays with the leaves in force
 *   run.progress_seconds      5        seconds between progress lines (0 = only per generation)
 *   run.threads               1        self-play threads per rank, 1..256: a rank plays this many
 *                                      games at once, sharing its tables and accumulators (one
 *                                      rank a node with threads = cores needs one copy of them
 *                                      instead of one a core); results do not depend on it
 *                                      (worker/rank_share.h)
 *   run.keep                  all      all | N >= 1: retention. After each generation the bulky
 *                                      files (leaves.klv2, racks.req, positional.spv, model.h5,
 *                                      shard-*.h5) of generations older than the newest N are
 *                                      removed, except what the run still reads: the shards of
 *                                      the trainer's window (nn.window) and the model in force.
 *                                      manifest.json and metrics-row.csv always stay
 *                                      (train/rundir.h)
 *   run.keep_every            0        with run.keep: every generation divisible by this also
 *                                      keeps all its files (milestones; 0 = none)
 *   lexicon.kwg               SOWPODS  lexicon name (looked up as docs/commands.md says) or .kwg path
 *   lexicon.ld                english  letter distribution name or .csv path
 *   lexicon.layout            standard15  board layout name or .txt path
 *   leaves.initial            zero     "zero" or a .klv2 file to start generation 1 from
 *   leaves.min_rack_count     0        per-generation minimum observations per rack, a comma
 *                                      list; generation g uses entry g-1 (the last one repeats)
 *   leaves.max_forced_games   1000     cap on forced-rack games per generation
 *   leaves.sampled_racks      0        racks valued on each position besides the mover's, 0..256:
 *                                      drawn from the whole distribution and added to the
 *                                      accumulators with their best move's equity, so that a
 *                                      rack's mean is taken over the positions of the games and
 *                                      not only over those where it was dealt (worker/rank_share.h;
 *                                      docs/leaves.md, "Sampled racks")
 *   leaves.shrink             30       shrinkage k of the leave derivation, in observations
 *                                      (a number >= 0; 0 = the plain formula): a leave's own
 *                                      mean is pulled towards the mean of its one-tile-shorter
 *                                      sub-leaves as k/(n_eff+k) (src/eval/derive.h)
 *   match.pairs               200      game pairs per generation between the new leaves and
 *                                      zero leaves (0 = none); the same pairs every generation,
 *                                      so the curve in metrics.csv compares like with like
 *   spv.schedule              both     off | both | alternate: which generations derive a new
 *                                      SPV table (docs/spv.md). both: from spv.start on, leaves
 *                                      and SPV every generation. alternate: leaves only before
 *                                      spv.start, then SPV at start, leaves at start+1, ...
 *   spv.target                final    final | exposure: the residual the table learns
 *                                      (worker/residuals.h; docs/spv.md)
 *   spv.start                 1        first generation that derives an SPV table
 *   spv.use                   no       yes | no: self-play plays with the SPV table in force
 *                                      (no: measured no gain, docs/results.md "SPV"; the
 *                                      tables are still trained and matched each generation)
 *   spv.initial               zero     "zero" or an .spv file for generation 0
 *   spv.k                     75       spread scale K of the variance weight, points
 *   spv.prior_mean            auto     shrinkage prior of the mean table, observations, or
 *                                      auto: estimated per bucket by empirical Bayes
 *                                      (eval/spv_derive.h)
 *   spv.prior_var             auto     the same for the variance table
 *   spv.heldout_games         200      held-out games per generation for the residual variance
 *                                      with and without the new table (0 = none)
 *   spv.match_pairs           200      game pairs per generation: new leaves with the new SPV
 *                                      against the new leaves without it (0 = none)
 *   nn.shards                 yes      yes | no: record training samples and write
 *                                      gen-NNNN/shard-XXXXX.h5 (docs/shards.md)
 *   nn.policy_temperature     1        P target: softmax of the static equities of the best
 *                                      moves at this temperature, points (0 = the played move)
 *   nn.policy_top             16       moves in that softmax (1..64)
 *   nn.shard_samples          100000   samples per shard file at most
 *   nn.train                  yes      yes | no: train the network each generation (needs shards)
 *   nn.window                 4        generations of shards the trainer samples from
 *   nn.steps                  150      Adam steps per generation
 *   nn.batch                  128      samples per step (all ranks together)
 *   nn.grad_chunks            8        fixed slices of each batch: chunk c is computed by rank
 *                                      c mod ranks and the chunks' gradients are summed in chunk
 *                                      order, so weights do not depend on the number of ranks
 *                                      (ranks beyond it idle while training; docs/nn.md)
 *   nn.lr                     0.001    Adam learning rate
 *   nn.weight_decay           0.0001   AdamW decoupled weight decay
 *   nn.value_search_weight    0        0..1: V's spread target is (1 - w) x the final spread + w x
 *                                      the search's expected final spread (its root value), for
 *                                      samples of a search without a win bonus (shards schema 2;
 *                                      docs/nn.md); 0 = the final spread only
 *   nn.value_weight           1        (0, 100]: V's losses' weight in the training loss (P's and
 *                                      H's weigh 1)
 *   nn.policy_loss            direct   direct | product: P's loss is the cross-entropy of P itself
 *                                      with the target, or of the search's prior made of P
 *                                      (softmax of log P + equity / T over the candidates; needs
 *                                      nn.prior = equity; docs/nn.md "The product loss")
 *   nn.product_candidates     16       the product loss's candidates: the K moves of highest
 *                                      static equity, with the target's moves
 *   nn.product_temperature    10       T, points: equity's temperature in the product (the
 *                                      search's prior_temperature)
 *   nn.heldout_every          10       game i of each generation is held out of training when
 *                                      i mod 10 = 9 (0 = none); the newest generation's held-out
 *                                      positions measure the model (metrics.csv)
 *   nn.eval_positions         1000     held-out positions evaluated at most per generation (an
 *                                      even stride over all of them when there are more)
 *   nn.reference              none     none | RUN | RUN:G: each new model is also scored on
 *                                      generation G (default: the latest) of another run, e.g.
 *                                      one played by a stronger search without a net, with the
 *                                      leaves it was played with (RUN/gen-(G-1)/leaves.klv2):
 *                                      the log's "reference" line, the manifest's
 *                                      nn.reference, metrics.csv's ref_* columns (docs/nn.md)
 *   nn.initial                none     none | FILE: a new run's network starts from FILE's
 *                                      weights (and its architecture, which then wins over the
 *                                      keys below) instead of random ones; gen-0000/model.h5
 *                                      keeps a copy. Like every trained model it guides the
 *                                      search only once it has won its gate (docs/nn.md)
 *   nn.prior                  score    score | equity: what P's learned prior term reads of each
 *                                      choice, its best score or its best static equity with the
 *                                      leaves in force (a property of a new model, saved in it;
 *                                      docs/nn.md "The policy's prior")
 *   nn.channels / blocks / embed / head_hidden / h_tiles   32 / 3 / 64 / 64 / 1
 *                                      the architecture (nn/model.h)
 *   nn.feature_version        2        2 | 3: what a new model reads (3 adds the opponent's last
 *                                      move: docs/features.md; a property of the model, saved in it)
 *   [mcgs] applies when run.player is an mcgs: spec (docs/mcgs.md, the generation loop):
 *   mcgs.net                  auto     auto | none: the search is guided by the promoted model
 *                                      (none before a generation has promoted one: then it
 *                                      searches without a net, with its own rollouts)
 *   mcgs.rollout_with_net     0        leaf rollout plies once a net guides (0 = V values leaves);
 *                                      auto or auto:N: 2 (N) plies until V wins the value check,
 *                                      then V (docs/mcgs.md)
 *   mcgs.candidates_with_net  prior    prior | equity | mix: a node's candidates once a net
 *                                      guides (docs/mcgs.md: P's top K, static equity's with P
 *                                      as prior, or half of each)
 *   mcgs.hidden_with_net      net      net | uniform: the opponent's rack from H, or uniform
 *   mcgs.gate_pairs           20       gatekeeper: game pairs of the search with the newly
 *                                      trained model against the search with the promoted one
 *                                      (0 = promote every new model); new deals each generation
 *   mcgs.gate_threshold       50       the new model is promoted if its win share (%) is at
 *                                      least this (0..101; above 100: never promote)
 *   mcgs.anchor_pairs         0        each generation, game pairs of the search with the model
 *                                      in force against a fixed anchor (0 = none): the
 *                                      absolute curve that the gate's relative results are not;
 *                                      the same deals every generation, never the gate's
 *   mcgs.anchor               search   the anchor: "search" (the loop's player without a net)
 *                                      or any player spec (static, sim:..., mcgs:...)
 *   mcgs.decisions            0        each generation, a decision study (worker/decision_study.h,
 *                                      docs/decisions.md) of the search with the model in force
 *                                      and the anchor on this many middle-game positions (0 =
 *                                      none): their moves' mean loss against a long reference
 *                                      simulation, paired; far finer than the anchor's match.
 *                                      The same positions every generation (games of the run
 *                                      seed by score alone); the reference uses the leaves in force
 *   mcgs.value_check_pairs    20       with rollout_with_net = auto: once for each model in
 *                                      force while rollouts value the leaves, game pairs of the
 *                                      search with it and V leaves against the same search with
 *                                      rollouts
 *   mcgs.value_check_threshold  50     V replaces the rollouts (for good) if its win share (%)
 *                                      is at least this (0..101)
 */
#ifndef ROOKERY_TRAIN_CONFIG_H
#define ROOKERY_TRAIN_CONFIG_H

#include "core/common.h"
#include "nn/train_step.h"
#include "worker/residuals.h"

#define TRAIN_MAX_SCHEDULE 64
#define TRAIN_PATH_MAX 1024
#define TRAIN_OUTPUT_MAX 960 /* run.output: leaves room for "/gen-NNNN.tmp/shard-NNNNN.h5" within 1024 */

typedef enum { SPV_SCHEDULE_OFF, SPV_SCHEDULE_BOTH, SPV_SCHEDULE_ALTERNATE } SpvSchedule;

typedef struct TrainConfig {
    uint64_t seed;
    int generations;
    uint64_t games_per_generation;
    char output[TRAIN_PATH_MAX];
    char player[TRAIN_PATH_MAX]; /* run.player */
    int progress_seconds;
    int threads;
    int keep;       /* run.keep: newest generations kept whole; 0 = all */
    int keep_every; /* run.keep_every: milestones kept whole; 0 = none */
    char lexicon[TRAIN_PATH_MAX];
    char ld[TRAIN_PATH_MAX];
    char layout[TRAIN_PATH_MAX];
    char initial_leaves[TRAIN_PATH_MAX];
    int n_min_rack_count;
    uint32_t min_rack_count[TRAIN_MAX_SCHEDULE];
    uint64_t max_forced_games;
    int sampled_racks;
    double shrink;
    uint64_t match_pairs;
    SpvSchedule spv_schedule;
    ResidualTarget spv_target;
    int spv_start;
    bool spv_use;
    char spv_initial[TRAIN_PATH_MAX];
    double spv_k, spv_prior_mean, spv_prior_var;
    uint64_t spv_heldout_games, spv_match_pairs;
    bool nn_shards, nn_train;
    double nn_temperature;
    int nn_top;
    uint64_t nn_shard_samples;
    int nn_window, nn_batch, nn_chunks, nn_heldout_every;
    uint64_t nn_eval_positions;
    char nn_reference[TRAIN_PATH_MAX]; /* "" = none; else RUN or RUN:G (nn.reference) */
    char nn_initial[TRAIN_PATH_MAX];   /* "" = none; else the model a new run starts from */
    int64_t nn_steps;
    double nn_lr, nn_weight_decay;
    double nn_search_weight;   /* the search's share of V's spread target, 0..1 */
    double nn_value_weight;    /* V's losses' weight in the training loss, > 0 */
    int nn_policy_loss;        /* NnPolicyLoss (nn/train_step.h) */
    int nn_product_candidates;
    double nn_product_temperature;
    NnArch nn_arch;
    bool mcgs_net_auto, mcgs_hidden_net;
    int mcgs_rollout_with_net;
    bool mcgs_rollout_auto;            /* rollout_with_net = auto[:N] */
    uint64_t mcgs_value_pairs;
    double mcgs_value_threshold;
    char mcgs_candidates_with_net[16]; /* prior | equity | mix */
    uint64_t mcgs_gate_pairs;
    double mcgs_gate_threshold;
    uint64_t mcgs_anchor_pairs;
    char mcgs_anchor[TRAIN_PATH_MAX]; /* "search": the loop's player without a net */
    int mcgs_decisions;               /* positions of the decision study, 0 = none */
} TrainConfig;

/* The configuration's keys are one table (config.c): each key's section,
 * name, type, range, default, whether it may change mid-run, and a line of
 * doc. Parsing, writing, the defaults, the default text and what a resume
 * may change all come from it; test_train_config checks that the reference
 * above lists exactly its keys with its defaults. */

/* The embedded default configuration as INI text, every key with its doc
 * line (what `rookery train --print-default-config` prints): its length, or
 * -1 if cap is too small (16 KB is enough). */
int train_config_default_text(char *buf, size_t cap);
/* The table's size, and its key i (section, key, default as written). */
int train_config_key_count(void);
void train_config_key(int i, const char **section, const char **key, const char **def);

void train_config_defaults(TrainConfig *c);
/* The trainer's loss options of the config (nn.value_search_weight, nn.policy_loss, ...). */
NnLossOptions train_config_loss_options(const TrainConfig *c);
/* Applies an INI text on top of c; `source` names it in errors. */
int train_config_parse(TrainConfig *c, const char *text, const char *source, RkError *err);
int train_config_load(TrainConfig *c, const char *path, RkError *err);
/* Sets one "section.key" to a value (command-line overrides). */
int train_config_set(TrainConfig *c, const char *dotted_key, const char *value, RkError *err);
/* The same from one "section.key=value" (a --set argument). */
int train_config_assign(TrainConfig *c, const char *assignment, RkError *err);
/* The rules across keys (a key that needs another's value), checked once the
 * whole configuration is known (after the file and every --set): 0, or -1
 * with err naming the keys. */
int train_config_check(const TrainConfig *c, RkError *err);
/* Does generation g (1-based) derive a new SPV table / new leaves? */
bool train_config_spv_trains(const TrainConfig *c, int generation);
bool train_config_leaves_train(const TrainConfig *c, int generation);
const char *train_config_schedule_name(SpvSchedule s);
/* Minimum count per rack for generation g (1-based). */
uint32_t train_config_min_count(const TrainConfig *c, int generation);
/* lexicon.kwg read as engine_open takes it: the value itself if it is a
 * file (it holds a '/' or names a .kwg), NULL if it is a lexicon name (the
 * name is then the value). */
const char *train_config_lexicon_path(const TrainConfig *c);
/* Writes the configuration in force as INI text (for RUN/config.ini). */
int train_config_write(const TrainConfig *c, char *buf, size_t cap);

/* One key whose value differs between two configs (train_config_differences). */
typedef struct TrainConfigDiff {
    char key[128];            /* section.key */
    char from[256], to[256];  /* the values as written (long ones cut) */
    bool may_change;          /* a key a run may change between generations (below) */
} TrainConfigDiff;
/* The keys whose written values differ from a to b, up to cap of them into
 * out; returns how many differ (may exceed cap), -1 if a config cannot be
 * written. A run may not change, when it resumes, what makes it the run it
 * is: run.seed, run.player, the lexicon (kwg, ld, layout), its starting
 * points (leaves.initial, spv.initial, nn.initial), the network's shape
 * (nn.channels, blocks, embed, head_hidden, h_tiles, prior, feature_version), the held-out
 * split (nn.heldout_every) and mcgs.net. Other keys (the budget, the
 * retention, the evaluation's and the trainer's settings) may change: the
 * change is recorded (RUN/config.ini, the log, the next generation's
 * config.ini). */
int train_config_differences(const TrainConfig *a, const TrainConfig *b, TrainConfigDiff *out, int cap);

#endif
