/* search_loop.c - the graph search's part of `rookery train`: the model in
 * force, the self-play player it guides, and the gatekeeper (see trainer.h
 * and docs/mcgs.md). Every function here is collective. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textfile.h"
#include "train/manifest.h"
#include "train/rundir.h"
#include "reducer/totals_sum.h"
#include "trainer.h"

/* run.player with the loop's options for the net in model_dir (NULL: none)
 * and leaves valued by `rollout` plies (0: V). */
static void format_spec(const Trainer *t, const char *model_dir, int rollout, char *buf, size_t cap) {
    if (model_dir == NULL) {
        snprintf(buf, cap, "%s", t->cfg.player);
        return;
    }
    bool has_options = strchr(t->cfg.player, ':') != NULL;
    snprintf(buf, cap, "%s%snet=%s/model.h5,rollout=%d,hidden=%s,candidates_by=%s", t->cfg.player,
             has_options ? "," : ":", model_dir, rollout, t->cfg.mcgs_hidden_net ? "net" : "uniform",
             t->cfg.mcgs_candidates_with_net);
}

/* What a match's players add to the loop's spec (at most 31 bytes): their
 * most visited move (no move temperature: it would only add noise to the
 * match) and, if self-play randomizes its playout cap, always the full
 * search. */
static void append_match_options(const Trainer *t, char *buf) {
    strcat(buf, strchr(buf, ':') ? ",temperature=0" : ":temperature=0");
    if (strstr(t->cfg.player, "full_share=") != NULL) strcat(buf, ",full_share=1");
}

/* The spec of the search guided by model_gen's model (0: none; tmp: the
 * generation in flight, gen-NNNN.tmp) with leaves valued by `rollout` plies;
 * with the match options above if `match`. */
static void search_spec(const Trainer *t, int model_gen, bool tmp, int rollout, bool match, char *buf, size_t cap) {
    char dir[RUNDIR_PATH_MAX];
    bool net = model_gen > 0 && t->cfg.mcgs_net_auto;
    if (net) rundir_gen_path(t->cfg.output, model_gen, tmp, dir, sizeof dir);
    format_spec(t, net ? dir : NULL, rollout, buf, cap - 32);
    if (match) append_match_options(t, buf);
}

void train_search_describe(const Trainer *t, int model_gen, int rollout, bool match, char *buf, size_t cap) {
    char dir[32];
    bool net = model_gen > 0 && t->cfg.mcgs_net_auto;
    if (net) snprintf(dir, sizeof dir, "gen-%04d", model_gen);
    format_spec(t, net ? dir : NULL, rollout, buf, cap - 32);
    if (match) append_match_options(t, buf);
}

/* Opens the search player of spec, with the leaves in force lent unless the
 * spec names its own; the self-play player (p == &t->player) with its copies
 * for the other threads. */
static int open_search(Trainer *t, Player *p, const char *spec) {
    RkError err;
    int rc = train_player_open(t, p, spec, &err);
    if (rc != 0) fprintf(stderr, "rookery: rank %d: search player: %s\n", t->comm.rank, err.msg);
    if (rc == 0 && p == &t->player && (rc = train_open_helper_players(t, spec)) != 0) player_close(p);
    return rc;
}

/* Opens the two players of a match on every rank: 0, or 1 (all ranks agree;
 * nothing left open). */
static int open_pair(Trainer *t, Player *a, const char *spec_a, Player *b, const char *spec_b) {
    int rc = open_search(t, a, spec_a);
    if (rc == 0 && (rc = open_search(t, b, spec_b)) != 0) player_close(a);
    if (agree(t, rc != 0) != 0) {
        if (rc == 0) {
            player_close(a);
            player_close(b);
        }
        return 1;
    }
    return 0;
}

/* Plays `pairs` of a against b (specs) on the deals of `seed` into *r: 0 or 1. */
static int play_specs(Trainer *t, const char *spec_a, const char *spec_b, uint64_t pairs, uint64_t seed,
                      MatchResult *r) {
    Player a, b;
    if (open_pair(t, &a, spec_a, &b, spec_b) != 0) return 1;
    int rc = train_play_match(t, &a, &b, pairs, seed, r);
    player_close(&a);
    player_close(&b);
    return rc;
}

/* The search's state after a generation, as its manifest records it. */
typedef struct SearchState {
    int model_in_force;
    int value_won;      /* 0 or 1 */
    int value_checked;  /* the last model checked */
} SearchState;

/* The state after generation `latest` (all 0 for a new run, and for fields
 * absent from a manifest written before the value check). A manifest that
 * cannot be read fails (-1, err set): resuming as if no model were in force
 * would drop the promoted net for good. */
static int read_search_state(Trainer *t, int latest, SearchState *st, RkError *err) {
    *st = (SearchState){0, 0, 0};
    if (latest <= 0) return 0;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 32];
    rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = manifest_load(path, err);
    if (m == NULL) return -1;
    int64_t model = manifest_int(m, "search.model_in_force", 0), checked = manifest_int(m, "search.value_checked_model", 0);
    st->model_in_force = model > 0 && model <= latest ? (int)model : 0;
    st->value_won = manifest_int(m, "search.value_won", 0) == 1;
    st->value_checked = checked > 0 && checked <= latest ? (int)checked : 0;
    json_decref(m);
    return 0;
}

/* The leaf rollout plies in force once a net guides: the config's, or with
 * auto 0 (V) once V has won its value check. */
static int leaf_rollout(const Trainer *t) {
    return t->cfg.mcgs_rollout_auto && t->search.value_won ? 0 : t->cfg.mcgs_rollout_with_net;
}

/* The anchor's spec: the loop's own player without a net ("search", playing
 * its most visited move, as in the gate), or the spec given. */
static void anchor_spec(const Trainer *t, char *buf, size_t cap) {
    if (strcmp(t->cfg.mcgs_anchor, "search") != 0) snprintf(buf, cap, "%s", t->cfg.mcgs_anchor);
    else search_spec(t, 0, false, 0, true, buf, cap);
}

/* Opens the anchor on every rank: 0, or 1 (all ranks agree) with the error
 * printed by rank 0. */
static int open_anchor(Trainer *t, Player *p) {
    char spec[TRAIN_SPEC_MAX];
    anchor_spec(t, spec, sizeof spec);
    RkError err;
    int rc = train_player_open(t, p, spec, &err);
    if (rc != 0 && t->comm.rank == 0) fprintf(stderr, "rookery: mcgs.anchor: %s\n", err.msg);
    if (agree(t, rc != 0) != 0) {
        if (rc == 0) player_close(p);
        return 1;
    }
    return 0;
}

/* (Re)opens the self-play player for the model and rollout in force. */
static int open_self_play(Trainer *t) {
    if (t->have_player) player_close(&t->player);
    t->have_player = false;
    char spec[TRAIN_SPEC_MAX];
    search_spec(t, t->search.model_in_force, false, leaf_rollout(t), false, spec, sizeof spec);
    int rc = open_search(t, &t->player, spec);
    t->have_player = rc == 0;
    if (agree(t, rc != 0) != 0) return 1;
    t->search.player_model = t->search.model_in_force;
    t->search.player_rollout = leaf_rollout(t);
    return 0;
}

int train_search_setup(Trainer *t, int latest) {
    t->search.loop = strncmp(t->cfg.player, "mcgs", 4) == 0;
    if (!t->search.loop) return 0;
    if (t->cfg.mcgs_anchor_pairs > 0 || t->cfg.mcgs_decisions > 0) { /* a bad anchor spec fails now, not after a generation's games */
        Player anchor;
        if (open_anchor(t, &anchor) != 0) return 2;
        player_close(&anchor);
    }
    if (t->cfg.mcgs_net_auto && !t->cfg.nn_train) {
        if (t->comm.rank == 0)
            fprintf(stderr, "rookery: mcgs.net = auto needs nn.train = yes (the loop trains the model it "
                            "promotes); set mcgs.net = none for a search without a net\n");
        return 2;
    }
    if (t->cfg.mcgs_rollout_auto && !t->cfg.mcgs_net_auto) {
        if (t->comm.rank == 0)
            fprintf(stderr, "rookery: mcgs.rollout_with_net = auto needs mcgs.net = auto (the value check "
                            "compares V with rollouts in the search guided by the promoted model)\n");
        return 2;
    }
    if (t->cfg.mcgs_net_auto) { /* the longest spec the loop builds (the gate's new model) must open */
        char longest[TRAIN_SPEC_MAX];
        search_spec(t, 9999, true, 100, true, longest, sizeof longest);
        if (strlen(longest) >= sizeof ((Player *)NULL)->spec) {
            if (t->comm.rank == 0)
                fprintf(stderr, "rookery: run.player and run.output make the gate's player spec %zu bytes long, "
                                "over the %zu a player spec may have; shorten run.output\n",
                        strlen(longest), sizeof ((Player *)NULL)->spec - 1);
            return 2;
        }
    }
    SearchState st = {0, 0, 0};
    RkError err;
    if (t->comm.rank == 0 && read_search_state(t, latest, &st, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        st.model_in_force = -1; /* every rank stops */
    }
    if (comm_bcast(&t->comm, &st, sizeof st, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    if (st.model_in_force < 0) return 1;
    t->search.model_in_force = st.model_in_force;
    t->search.value_won = st.value_won != 0; /* a fixed rollout_with_net in the config wins over it */
    t->search.value_checked = st.value_checked;
    if (open_self_play(t) != 0) return 2;
    char spec[TRAIN_SPEC_MAX];
    train_search_describe(t, t->search.model_in_force, leaf_rollout(t), false, spec, sizeof spec);
    if (t->search.model_in_force > 0)
        SAY(t, "search: %s guided by gen-%04d/model.h5 (%s)", t->cfg.player, t->search.model_in_force, spec);
    else
        SAY(t, "search: %s without a net (no model promoted yet)", t->cfg.player);
    if (t->cfg.mcgs_rollout_auto)
        SAY(t, "search: leaves with a net valued by %s (mcgs.rollout_with_net = auto:%d)",
            leaf_rollout(t) > 0 ? "rollouts until V wins its value check" : "V (it has won its value check)",
            t->cfg.mcgs_rollout_with_net);
    return 0;
}

int train_search_begin_generation(Trainer *t) {
    if (!t->search.loop || (t->search.player_model == t->search.model_in_force && t->search.player_rollout == leaf_rollout(t))) return 0;
    return open_self_play(t);
}

int train_search_gate(Trainer *t, int gen, GenReport *rep) {
    rep->model_in_force = t->search.model_in_force;
    rep->model_at_start = t->search.model_in_force;
    rep->rollout_at_start = rep->rollout_in_force = leaf_rollout(t);
    if (!t->search.loop || !t->cfg.mcgs_net_auto || !t->net.trained) return 0;
    rep->gate_played = t->cfg.mcgs_gate_pairs > 0;
    if (!rep->gate_played) {
        rep->promoted = true;
    } else {
        search_spec(t, gen, true, leaf_rollout(t), true, rep->gate_specs[0], sizeof rep->gate_specs[0]);
        search_spec(t, t->search.model_in_force, false, leaf_rollout(t), true, rep->gate_specs[1], sizeof rep->gate_specs[1]);
        if (play_specs(t, rep->gate_specs[0], rep->gate_specs[1], t->cfg.mcgs_gate_pairs,
                       match_deals_seed(t->cfg.seed, MATCH_DEALS_GATE, gen), &rep->gate) != 0) return 1;
        rep->promoted = rep->gate.win_pct >= t->cfg.mcgs_gate_threshold;
    }
    int before = t->search.model_in_force;
    if (rep->promoted) t->search.model_in_force = gen;
    rep->model_in_force = t->search.model_in_force;
    char prev[32];
    if (before > 0) snprintf(prev, sizeof prev, "gen-%04d's", before);
    else snprintf(prev, sizeof prev, "no net");
    if (rep->gate_played)
        SAY(t, "gen %d gate: the search with the new model vs with %s: %.1f%% +/- %.1f (%" PRIu64
            " pairs, threshold %.1f%%): %s",
            gen, prev, rep->gate.win_pct, rep->gate.ci95_pct, t->cfg.mcgs_gate_pairs, t->cfg.mcgs_gate_threshold,
            rep->promoted ? "promoted" : "not promoted");
    else
        SAY(t, "gen %d gate: none (mcgs.gate_pairs = 0): promoted", gen);
    return 0;
}

int train_search_value_check(Trainer *t, int gen, GenReport *rep) {
    /* once per model: the check's pairs are the same deals every generation, so a model
     * already checked would replay the same games */
    if (!t->search.loop || !t->cfg.mcgs_rollout_auto || t->search.value_won || t->search.model_in_force == 0 ||
        t->search.model_in_force == t->search.value_checked)
        return 0;
    /* a model promoted this generation is still in gen-NNNN.tmp */
    bool tmp = t->search.model_in_force == gen;
    char with_v[TRAIN_SPEC_MAX], with_rollouts[TRAIN_SPEC_MAX];
    search_spec(t, t->search.model_in_force, tmp, 0, true, with_v, sizeof with_v);
    search_spec(t, t->search.model_in_force, tmp, leaf_rollout(t), true, with_rollouts, sizeof with_rollouts);
    if (play_specs(t, with_v, with_rollouts, t->cfg.mcgs_value_pairs, match_deals_seed(t->cfg.seed, MATCH_DEALS_VALUE, gen),
                   &rep->value) != 0) return 1;
    rep->value_played = true;
    bool wins = rep->value.win_pct >= t->cfg.mcgs_value_threshold;
    SAY(t, "gen %d value check: gen-%04d's model, V leaves vs %d-ply rollouts: %.1f%% +/- %.1f (%" PRIu64
        " pairs, threshold %.1f%%): %s",
        gen, t->search.model_in_force, leaf_rollout(t), rep->value.win_pct, rep->value.ci95_pct, t->cfg.mcgs_value_pairs,
        t->cfg.mcgs_value_threshold, wins ? "V values the leaves from now on" : "rollouts stay");
    t->search.value_checked = t->search.model_in_force;
    t->search.value_won = wins;
    rep->rollout_in_force = leaf_rollout(t);
    return 0;
}

/* Opens, on every rank, the search with the model in force (as a match
 * plays it) and the anchor, and names the model in `who`: 0, or 1 (all
 * ranks agree; nothing left open). */
static int open_current_and_anchor(Trainer *t, int gen, Player *cur, Player *anchor, char *who, size_t cap) {
    char cur_spec[TRAIN_SPEC_MAX];
    /* a model promoted this generation is still in gen-NNNN.tmp */
    search_spec(t, t->search.model_in_force, t->search.model_in_force == gen, leaf_rollout(t), true, cur_spec, sizeof cur_spec);
    if (t->search.model_in_force > 0) snprintf(who, cap, "gen-%04d's model", t->search.model_in_force);
    else snprintf(who, cap, "no net");
    int rc = open_search(t, cur, cur_spec);
    if (agree(t, rc != 0) != 0) {
        if (rc == 0) player_close(cur);
        return 1;
    }
    if (open_anchor(t, anchor) != 0) {
        player_close(cur);
        return 1;
    }
    return 0;
}

/* Without a model in force the loop's search is the default anchor itself. */
static bool anchor_is_self(const Trainer *t) {
    return strcmp(t->cfg.mcgs_anchor, "search") == 0 && t->search.model_in_force == 0;
}

int train_search_anchor(Trainer *t, int gen, GenReport *rep) {
    if (!t->search.loop || t->cfg.mcgs_anchor_pairs == 0) return 0;
    if (anchor_is_self(t)) {
        SAY(t, "gen %d anchor: none (no model in force: the search is the anchor itself)", gen);
        return 0;
    }
    char who[32];
    Player cur, anchor_player;
    if (open_current_and_anchor(t, gen, &cur, &anchor_player, who, sizeof who) != 0) return 1;
    int rc = train_play_match(t, &cur, &anchor_player, t->cfg.mcgs_anchor_pairs,
                              match_deals_seed(t->cfg.seed, MATCH_DEALS_ANCHOR, gen), &rep->anchor);
    player_close(&cur);
    player_close(&anchor_player);
    if (rc != 0) return 1;
    rep->anchor_played = true;
    SAY(t, "gen %d anchor: the search with %s vs %s: %.1f%% +/- %.1f (%" PRIu64 " pairs)", gen, who,
        t->cfg.mcgs_anchor, rep->anchor.win_pct, rep->anchor.ci95_pct, t->cfg.mcgs_anchor_pairs);
    return 0;
}

int train_search_decisions(Trainer *t, int gen, GenReport *rep) {
    if (!t->search.loop || t->cfg.mcgs_decisions == 0) return 0;
    if (anchor_is_self(t)) {
        SAY(t, "gen %d decisions: none (no model in force: the search is the anchor itself)", gen);
        return 0;
    }
    char who[32];
    Player cur, anchor_player;
    if (open_current_and_anchor(t, gen, &cur, &anchor_player, who, sizeof who) != 0) return 1;
    DecisionStudyConfig c;
    decision_study_config_defaults(&c);
    c.ld = &t->engine.ld;
    c.layout = &t->engine.layout;
    c.kwg = &t->engine.kwg;
    /* the positions from games by score alone: the same every generation, whatever the
     * leaves in force; the reference values moves with the leaves in force */
    c.game_leave_value = NULL;
    c.game_leave_ctx = NULL;
    c.leave_value = klv_leave_value;
    c.leave_ctx = &t->leaves.klv;
    c.seed = match_deals_seed(t->cfg.seed, MATCH_DEALS_DECISIONS, gen);
    c.positions = t->cfg.mcgs_decisions;
    const Player *players[2] = {&cur, &anchor_player};
    RkError err;
    DecisionTotals *tot = &rep->decisions;
    int rc = decision_study_run_share(&c, players, 2, t->comm.rank, t->comm.size, tot, NULL, NULL, &err);
    if (rc != 0) fprintf(stderr, "rookery: rank %d: %s\n", t->comm.rank, err.msg);
    player_close(&cur);
    player_close(&anchor_player);
    if (agree(t, rc != 0) != 0) return 1;
    if (totals_sum_decisions(&t->comm, tot, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    rep->decisions_played = true;
    DecisionSummary s0, s1;
    decision_summary(tot, 0, &s0);
    decision_summary(tot, 1, &s1);
    SAY(t, "gen %d decisions: the search with %s loses %.3f +/- %.3f points a move, %s %.3f +/- %.3f: "
           "a gain of %+.3f +/- %.3f over the anchor (%d positions)",
        gen, who, s0.mean_loss, s0.loss_se, t->cfg.mcgs_anchor, s1.mean_loss, s1.loss_se, s1.diff, s1.diff_se,
        t->cfg.mcgs_decisions);
    return 0;
}
