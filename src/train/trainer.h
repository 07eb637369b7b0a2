/*
 * trainer.h - the training loop's own state and stages (internal to
 * src/train/; the public entry is train.h). A generation, in the order
 * generation.c runs it:
 *
 *   play      every rank its share of the games (worker/rank_share.h), in
 *             rounds with a stop check every ~32 games a rank
 *   reduce    one Allreduce of the integer accumulators (rack equities, SPV
 *             cells, totals); rank 0 writes the shards; forced-rack games
 *   derive    every rank the same leaves and SPV table from the same sums
 *   evaluate  held-out residuals, matches, the network's stage, and in the
 *             search's loop the gate, value check, anchor and decision study
 *             (evaluate.c, nn_stage.c, search_loop.c)
 *   write     rank 0: gen-NNNN.tmp/, manifest, metrics row, rename
 *             (snapshot.c), then pruning (run.keep)
 *
 * setup.c opens what every rank needs (lexicon, rack table, leaves, SPV,
 * players, model); resume.c holds the run directory's rules (the lock, the
 * configuration on record, what a resume verifies, --check's room check);
 * run.c ties them together (train_run).
 */
#ifndef ROOKERY_TRAIN_TRAINER_H
#define ROOKERY_TRAIN_TRAINER_H
#include <signal.h>
#include <stdio.h>

#include "core/engine.h"
#include "eval/derive.h"
#include "eval/klv.h"
#include "eval/racktable.h"
#include "eval/spv.h"
#include "nn/model.h"
#include "reducer/comm.h"
#include "reducer/shard_gather.h"
#include "search/player.h"
#include "train/train.h"
#include "worker/decision_study.h"
#include "worker/rank_share.h"
#include "worker/match.h"
#include "train/config.h"
#include "train/nn_stage.h"
#include "train/rundir.h"

/* A player spec the loop builds: run.player, a run path and the loop's options
 * (format_spec in search_loop.c), never truncated. */
#define TRAIN_SPEC_MAX (2 * TRAIN_PATH_MAX + 256)

/* The own state of self-play thread j >= 1 (run.threads; thread 0 uses
 * the Trainer's game, res, player and recorder): worker/rank_share.h. */
typedef struct TrainHelper {
    Game game;
    GameResiduals res;
    Player player;
    bool have_player;
    ShardSet samples;
    SampleRecorder recorder;
} TrainHelper;

/* The leaves' state: the rack table, the leaves in force, their deriver and
 * accumulators (train on every generation the schedule says). */
typedef struct TrainLeaves {
    RackTable racks;
    Klv klv;            /* the leaves in force */
    LeaveDeriver deriver;
    RackAccum acc;      /* the generation's sums (inside Trainer.reduce_buf) */
    RackAccum delta;    /* forced-rack observations of one batch, before they are summed */
    float *new_values;  /* the next generation's leaves, before they replace klv's */
} TrainLeaves;

/* The SPV positional table's state (spv.schedule != off). */
typedef struct TrainSpv {
    bool on;
    Spv table;          /* the table in force */
    Spv derived;        /* this generation's derivation */
    SpvAccum acc;       /* its cells (inside Trainer.reduce_buf) */
} TrainSpv;

/* The network's state (nn.train): the model in force, trained a little more
 * each generation, and what its stage reported. */
typedef struct TrainNet {
    NnFeatureContext fc;
    NnModel model;
    bool have_model, trained;
    NnStageReport rep;
    /* nn.reference: this generation's model scored on another run's
     * generation ref_gen (rank 0; 0: not scored this generation) */
    int ref_gen;
    char ref_run[TRAIN_PATH_MAX];
    NnEvalReport ref_eval;
} TrainNet;

/* The search's generation loop (run.player = mcgs:..., search_loop.c). */
typedef struct TrainSearch {
    bool loop;
    int model_in_force;   /* the generation whose model.h5 guides the search (0: none) */
    int player_model;     /* the one Trainer.player was opened with */
    int player_rollout;   /* the leaf rollout plies Trainer.player was opened with */
    bool value_won;       /* V has won a value check (kept in every manifest, whatever the mode);
                           * with mcgs.rollout_with_net = auto, V then values the leaves */
    int value_checked;    /* the last model the value check played (0: none) */
} TrainSearch;

typedef struct Trainer {
    Comm comm;
    const volatile sig_atomic_t *stop; /* the caller's stop flag (TrainRequest.stop), or NULL */
    TrainConfig cfg;
    Engine engine;
    /* the run directory (resume.c) */
    RunLock run_lock;    /* rank 0: the run directory's lock (train/rundir.h) */
    bool config_changed; /* a resume changed keys that may change: RUN/config.ini is rewritten */
    bool created_run;    /* rank 0 created the run directory (removed again if the run fails before gen-0000) */
    char lexicon_sha256[65]; /* rank 0: the lexicon file's, into every manifest */
    char config_changes[1024]; /* "key old -> new; ..." for the log */
    bool check_only;     /* --check: set up everything, write nothing, play nothing */
    /* what the generations train */
    TrainLeaves leaves;
    TrainSpv spv;
    TrainNet net;
    TrainSearch search;
    /* one buffer for the per-generation Allreduce: leaves.acc (2 x racks),
     * then the SPV cells (spv.acc), then the generation totals */
    int64_t *reduce_buf;
    size_t reduce_words;
    /* self-play: thread 0's game, player and recorder; the other threads' in helpers */
    GameResiduals *res; /* scratch */
    Game *game;
    Player player;      /* run.player when it is not "static" */
    bool have_player;
    TrainHelper *helpers; /* [cfg.threads - 1] */
    /* training samples (nn.shards): this rank's, and the files rank 0 wrote */
    ShardSet samples;
    SampleRecorder recorder;
    ShardFiles shard_files;
    bool gen_begun;     /* rank 0 has created this generation's gen-NNNN.tmp/ */
    /* the last generation played, for `rookery bench train` */
    bool bench;
    double last_play, last_overhead, last_wall;
    int64_t last_games;
} Trainer;

/* The local time as "YYYY-MM-DD HH:MM:SS". */
void train_timestamp(char *buf, size_t cap);

/* Rank 0 prints; the others stay quiet. */
#define SAY(t, ...)                                                                                                  \
    do {                                                                                                             \
        if ((t)->comm.rank == 0) {                                                                                   \
            char ts_[32];                                                                                            \
            train_timestamp(ts_, sizeof ts_);                                                                               \
            printf("[%s] ", ts_);                                                                                    \
            printf(__VA_ARGS__);                                                                                     \
            printf("\n");                                                                                            \
            fflush(stdout);                                                                                          \
        }                                                                                                            \
    } while (0)

/* Every rank agrees on a status: the worst (max) one wins. */
static inline int agree(Trainer *t, int status) { return (int)comm_max_i64(&t->comm, status); }

typedef struct GenTimes {
    double play, reduce, derive, write, wall;
    double evaluate; /* the generation's matches and checks (not part of wall's overhead) */
} GenTimes;

/* What a generation found, for the manifest and metrics.csv. */
typedef struct GenReport {
    GenerationTotals tot;
    DeriveInfo info;
    double change_rms;
    MatchResult match;       /* new leaves vs zero leaves */
    bool leaves_trained, spv_trained;
    SpvDeriveInfo spv_info;
    ResidualStats heldout;
    MatchResult spv_match;   /* new leaves with the new SPV vs without */
    uint64_t spv_match_pairs;
    /* the search's gatekeeper: the new model's search against the one in force */
    bool gate_played, promoted;
    MatchResult gate;
    int model_at_start;      /* the model in force as the generation began: its self-play's guide and the
                              * gate's opponent (0: the search without a net) */
    int model_in_force;      /* after this generation (0: none) */
    char gate_specs[2][TRAIN_SPEC_MAX]; /* the gate's players, as opened */
    /* the value check (mcgs.rollout_with_net = auto): the search with the model in force and
     * V leaves against the same with rollouts; V replaces them if it wins its share */
    int rollout_at_start;    /* the leaf rollout plies of this generation's self-play */
    int rollout_in_force;    /* after this generation */
    bool value_played;
    MatchResult value;
    /* the anchor: the search with the model in force (after the gate and the value check)
     * against a fixed player (mcgs.anchor_pairs, mcgs.anchor) */
    bool anchor_played;
    MatchResult anchor;
    /* the decision study (mcgs.decisions): player 1 the search with the model in force,
     * player 2 the anchor; the totals summed over ranks */
    bool decisions_played;
    DecisionTotals decisions;
} GenReport;

/* A rank's stop flag (TrainRequest.stop) is up. */
static inline bool train_stop_asked(const Trainer *t) { return t->stop != NULL && *t->stop != 0; }

/* setup.c: every rank loads what it needs (the engine, rack table, leaves,
 * SPV, players, model; a new run's gen-0000); *start_gen gets the first
 * generation to play. 0 or an exit code, on every rank. */
int train_setup(Trainer *t, int *start_gen);
/* Frees everything train_setup opened (what it got to), on every rank. */
void train_teardown(Trainer *t);

/* resume.c: the run directory's rules. */
/* The configuration in force (t->cfg holds --config, run.output is set): a
 * new run's is --config (or the embedded default) plus --set; an existing
 * run's must agree with its record in every key that cannot change mid-run
 * (train_config_differences); the changes allowed are listed in
 * t->config_changes. 0 or 2 with err set. */
int train_run_config(Trainer *t, const char *config_path, const char *const *sets, int nsets, RkError *err);
/* Rank 0 takes RUN/.lock (creating RUN for a new run); --check only tries
 * it. 0 or 2, on every rank. */
int train_lock_run(Trainer *t);
/* Rank 0: the last complete generation `latest` is whole (its manifest's
 * files, the lexicon's checksum, the shards of the trainer's window). */
int train_verify_resume(const Trainer *t, int latest, RkError *err);
/* --check: RUN (or its nearest existing parent) is writable and has room
 * for a generation. */
int train_check_room(const Trainer *t, int latest, RkError *err);
/* A new run this process created and locked that failed before its gen-0000
 * leaves no directory behind. Rank 0, at exit. */
void train_discard_failed_start(Trainer *t);

/* generation.c: plays, reduces, derives, evaluates and writes generation
 * gen. 0, TRAIN_EXIT_STOPPED or 1. */
int train_generation(Trainer *t, int gen);
/* run.keep: rank 0 removes the bulky files of old generations (never the
 * window's shards or the model in force); failures are warnings. */
void train_prune(Trainer *t, int gen);

/* snapshot.c: rank 0 writes gen-0000 (a new run), or generation gen
 * (its files, manifest.json, metrics row; gen-NNNN.tmp renamed). */
int train_write_generation0(Trainer *t, RkError *err);
/* DIR/config.ini: the configuration in force (RUN/config.ini, and each
 * generation's record of the configuration it was made with). */
int train_write_config(const Trainer *t, const char *dir, RkError *err);
int train_write_generation(Trainer *t, int gen, const GenReport *rep, GenTimes *tm, RkError *err);

/* evaluate.c (collective): held-out residuals with the new tables, the
 * evaluation matches, and the network's stage. Return 0 or 1 (error). */
int train_heldout_residuals(Trainer *t, int gen, ResidualStats *st);
int train_evaluation_matches(Trainer *t, GenReport *rep);
int train_nn_generation(Trainer *t, int gen);
/* `pairs` game pairs between a and b dealt to the ranks by index, pair i
 * dealt from (seed, i), seed from match_deals_seed (worker/match.h); 0 or 1
 * (error). */
int train_play_match(Trainer *t, const Player *a, const Player *b, uint64_t pairs, uint64_t seed, MatchResult *r);

/* Opens a player of the loop from spec: checked against the board, with the
 * leaves in force lent unless the spec names its own. 0, or -1 with err set
 * (nothing left open). */
int train_player_open(Trainer *t, Player *p, const char *spec, RkError *err);
/* Opens each helper thread's own copy of the player opened from spec,
 * closing the old ones. Returns 0, or 1 with the error printed. Not
 * collective. */
int train_open_helper_players(Trainer *t, const char *spec);

/* search_loop.c: the search's loop (run.player = mcgs:...). Setup finds the
 * model in force (the latest manifest's model_in_force) and opens the
 * player; each generation reopens it when another model is in force; the
 * gate plays the newly trained model's search against the one in force and
 * promotes it if it wins its share (mcgs.gate_pairs, mcgs.gate_threshold).
 * Return 0 or an exit code. */
int train_search_setup(Trainer *t, int latest);
int train_search_begin_generation(Trainer *t);
int train_search_gate(Trainer *t, int gen, GenReport *rep);
/* The search spec that model_gen's model guides with leaves valued by
 * `rollout` plies (0: V), as the manifest records it: the net named relative
 * to the run (gen-NNNN/model.h5), so the same on every rank count and after
 * the run is moved; with `match`, as a match of the loop plays it (gate,
 * value check, anchor: the most visited move, full searches). */
void train_search_describe(const Trainer *t, int model_gen, int rollout, bool match, char *buf, size_t cap);
/* After the gate, with mcgs.rollout_with_net = auto while rollouts value the
 * leaves and a model not yet checked is in force: the value check
 * (mcgs.value_check_pairs, mcgs.value_check_threshold). If V wins, it values
 * the leaves from the next generation on, for good. */
int train_search_value_check(Trainer *t, int gen, GenReport *rep);
/* After the value check: the search with the model in force against the
 * anchor (mcgs.anchor_pairs; skipped while the default anchor is the search
 * itself, before any model is promoted), on the anchor's own deals: never
 * the gate's result, even with the same two players (the gate chose the
 * model on its deals, so its result flatters the model it promoted). */
int train_search_anchor(Trainer *t, int gen, GenReport *rep);
/* After the anchor: the decision study (mcgs.decisions positions from the
 * run's own games played by score alone: the same positions every generation) of the
 * search with the model in force
 * against the anchor, with the leaves in force for the positions and the
 * reference; skipped when the anchor match is (the search would meet
 * itself). */
int train_search_decisions(Trainer *t, int gen, GenReport *rep);

#endif
