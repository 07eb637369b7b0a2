/* train_search.c - the graph search's part of `rookery train`: the model in
 * force, the self-play player it guides, and the gatekeeper (see train.h
 * and docs/mcgs.md). Every function here is collective. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textfile.h"
#include "reducer/rundir.h"
#include "train.h"

/* run.player with the loop's options for the net in model_dir (NULL: none). */
static void format_spec(const Trainer *t, const char *model_dir, char *buf, size_t cap) {
    if (model_dir == NULL) {
        snprintf(buf, cap, "%s", t->cfg.player);
        return;
    }
    bool has_options = strchr(t->cfg.player, ':') != NULL;
    snprintf(buf, cap, "%s%snet=%s/model.h5,rollout=%d,hidden=%s,candidates_by=%s", t->cfg.player,
             has_options ? "," : ":", model_dir, t->cfg.mcgs_rollout_with_net, t->cfg.mcgs_hidden_net ? "net" : "uniform",
             t->cfg.mcgs_candidates_with_net);
}

void train_search_spec(const Trainer *t, int model_gen, bool tmp, char *buf, size_t cap) {
    char dir[RUNDIR_PATH_MAX];
    bool net = model_gen > 0 && t->cfg.mcgs_net_auto;
    if (net) rundir_gen_path(t->cfg.output, model_gen, tmp, dir, sizeof dir);
    format_spec(t, net ? dir : NULL, buf, cap);
}

void train_search_describe(const Trainer *t, int model_gen, char *buf, size_t cap) {
    char dir[32];
    bool net = model_gen > 0 && t->cfg.mcgs_net_auto;
    if (net) snprintf(dir, sizeof dir, "gen-%04d", model_gen);
    format_spec(t, net ? dir : NULL, buf, cap);
}

/* Opens the search player guided by model_gen's model, with the leaves in
 * force lent unless the spec names its own. A gate's players play their most
 * visited move (no move temperature: it would only add noise to the match). */
static int open_search(Trainer *t, Player *p, int model_gen, bool tmp, bool gate) {
    char spec[2 * RUNDIR_PATH_MAX + 32];
    train_search_spec(t, model_gen, tmp, spec, sizeof spec - 32);
    if (gate) strcat(spec, strchr(spec, ':') ? ",temperature=0" : ":temperature=0");
    RkError err;
    int rc = train_player_open(t, p, spec, &err);
    if (rc != 0) fprintf(stderr, "rookery: rank %d: search player: %s\n", t->comm.rank, err.msg);
    /* the self-play player's copies for the other threads */
    if (rc == 0 && p == &t->player && (rc = train_open_helper_players(t, spec)) != 0) player_close(p);
    return rc;
}

/* The model in force after generation `latest`, from its manifest (0 if it
 * names none). */
static int read_model_in_force(Trainer *t, int latest) {
    if (latest <= 0) return 0;
    char dir[RUNDIR_PATH_MAX], path[RUNDIR_PATH_MAX + 32];
    rundir_gen_path(t->cfg.output, latest, false, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    RkError err;
    char *text = rk_read_file(path, 1 << 20, NULL, &err);
    if (text == NULL) return 0;
    const char *at = strstr(text, "\"model_in_force\": ");
    int g = at != NULL ? atoi(at + strlen("\"model_in_force\": ")) : 0;
    free(text);
    return g > 0 && g <= latest ? g : 0;
}

/* The anchor's spec: the loop's own player without a net ("search", playing
 * its most visited move, as in the gate), or the spec given. */
static void anchor_spec(const Trainer *t, char *buf, size_t cap) {
    if (strcmp(t->cfg.mcgs_anchor, "search") != 0) {
        snprintf(buf, cap, "%s", t->cfg.mcgs_anchor);
        return;
    }
    train_search_spec(t, 0, false, buf, cap - 32);
    strcat(buf, strchr(buf, ':') ? ",temperature=0" : ":temperature=0");
}

/* Opens the anchor on every rank: 0, or 1 (all ranks agree) with the error
 * printed by rank 0. */
static int open_anchor(Trainer *t, Player *p) {
    char spec[TRAIN_PATH_MAX + 32];
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

int train_search_setup(Trainer *t, int latest) {
    t->mcgs_loop = strncmp(t->cfg.player, "mcgs", 4) == 0;
    if (!t->mcgs_loop) return 0;
    if (t->cfg.mcgs_anchor_pairs > 0) { /* a bad anchor spec fails now, not after a generation's games */
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
    int in_force = t->comm.rank == 0 ? read_model_in_force(t, latest) : 0;
    RkError err;
    if (comm_bcast(&t->comm, &in_force, sizeof in_force, &err) != 0) {
        fprintf(stderr, "rookery: %s\n", err.msg);
        return 1;
    }
    t->model_in_force = in_force;
    int rc = open_search(t, &t->player, in_force, false, false);
    t->have_player = rc == 0;
    if (agree(t, rc != 0) != 0) return 2;
    t->player_model = in_force;
    char spec[TRAIN_PATH_MAX + 256];
    train_search_describe(t, in_force, spec, sizeof spec);
    if (in_force > 0) SAY(t, "search: %s guided by gen-%04d/model.h5 (%s)", t->cfg.player, in_force, spec);
    else SAY(t, "search: %s without a net (no model promoted yet)", t->cfg.player);
    return 0;
}

int train_search_begin_generation(Trainer *t) {
    if (!t->mcgs_loop || t->player_model == t->model_in_force) return 0;
    player_close(&t->player);
    t->have_player = false;
    int rc = open_search(t, &t->player, t->model_in_force, false, false);
    t->have_player = rc == 0;
    if (agree(t, rc != 0) != 0) return 1;
    t->player_model = t->model_in_force;
    return 0;
}

int train_search_gate(Trainer *t, int gen, GenReport *rep) {
    rep->model_in_force = t->model_in_force;
    rep->model_at_start = t->model_in_force;
    if (!t->mcgs_loop || !t->cfg.mcgs_net_auto || !t->nn_trained) return 0;
    rep->gate_played = t->cfg.mcgs_gate_pairs > 0;
    if (!rep->gate_played) {
        rep->promoted = true;
    } else {
        Player cand, cur;
        int rc = open_search(t, &cand, gen, true, true);
        if (rc == 0) {
            rc = open_search(t, &cur, t->model_in_force, false, true);
            if (rc != 0) player_close(&cand);
        }
        if (agree(t, rc != 0) != 0) {
            if (rc == 0) {
                player_close(&cand);
                player_close(&cur);
            }
            return 1;
        }
        rc = train_play_match(t, &cand, &cur, t->cfg.mcgs_gate_pairs, &rep->gate);
        player_close(&cand);
        player_close(&cur);
        if (rc != 0) return 1;
        rep->promoted = rep->gate.win_pct >= t->cfg.mcgs_gate_threshold;
    }
    int before = t->model_in_force;
    if (rep->promoted) t->model_in_force = gen;
    rep->model_in_force = t->model_in_force;
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

int train_search_anchor(Trainer *t, int gen, GenReport *rep) {
    if (!t->mcgs_loop || t->cfg.mcgs_anchor_pairs == 0) return 0;
    /* without a model in force the loop's search is the default anchor itself */
    bool self = strcmp(t->cfg.mcgs_anchor, "search") == 0 && t->model_in_force == 0;
    if (self) {
        SAY(t, "gen %d anchor: none (no model in force: the search is the anchor itself)", gen);
        return 0;
    }
    if (rep->gate_played && rep->promoted && rep->model_at_start == 0 && strcmp(t->cfg.mcgs_anchor, "search") == 0 &&
        t->cfg.mcgs_anchor_pairs == t->cfg.mcgs_gate_pairs) {
        rep->anchor = rep->gate;
        rep->anchor_played = true;
        SAY(t, "gen %d anchor: the search with gen-%04d's model vs search: %.1f%% +/- %.1f (%" PRIu64
            " pairs; the gate's match, the same players and deals)",
            gen, t->model_in_force, rep->anchor.win_pct, rep->anchor.ci95_pct, t->cfg.mcgs_anchor_pairs);
        return 0;
    }
    Player cur, anchor;
    /* a model promoted this generation is still in gen-NNNN.tmp */
    int rc = open_search(t, &cur, t->model_in_force, t->model_in_force == gen, true);
    if (agree(t, rc != 0) != 0) {
        if (rc == 0) player_close(&cur);
        return 1;
    }
    if (open_anchor(t, &anchor) != 0) {
        player_close(&cur);
        return 1;
    }
    rc = train_play_match(t, &cur, &anchor, t->cfg.mcgs_anchor_pairs, &rep->anchor);
    player_close(&cur);
    player_close(&anchor);
    if (rc != 0) return 1;
    rep->anchor_played = true;
    char who[32];
    if (t->model_in_force > 0) snprintf(who, sizeof who, "gen-%04d's model", t->model_in_force);
    else snprintf(who, sizeof who, "no net");
    SAY(t, "gen %d anchor: the search with %s vs %s: %.1f%% +/- %.1f (%" PRIu64 " pairs)", gen, who,
        t->cfg.mcgs_anchor, rep->anchor.win_pct, rep->anchor.ci95_pct, t->cfg.mcgs_anchor_pairs);
    return 0;
}
