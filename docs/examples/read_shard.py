#!/usr/bin/env python3
"""Reads a rookery training shard (docs/shards.md): python3 read_shard.py SHARD.h5"""
import sys
import h5py
import numpy as np

with h5py.File(sys.argv[1], "r") as f:
    version = int(f.attrs["schema_version"])
    assert version in (1, 2)
    n, dim = int(f.attrs["samples"]), int(f.attrs["dim"])
    boards = f["board"][:].reshape(n, dim, dim)          # 0 empty, letter 1..26, +128 blank
    offsets = f["policy_offsets"][:].astype(np.int64)    # sample i: policy rows offsets[i]..offsets[i+1]
    probs = f["policy_probs"][:]
    moves = f["policy_moves"][:]                          # kind, dir, row, col, n, tiles[7]
    spread, result = f["final_spread"][:], f["result"][:]
    # schema 2: the search's expected final spread, NaN where no search gave one
    estimate = f["search_spread"][:] if version >= 2 else np.full(n, np.nan, dtype=np.float32)
    # a sample with a P target (a fast search's samples under playout cap randomization have none)
    has_target = np.flatnonzero(offsets[1:] > offsets[:-1])
    if len(has_target) == 0:
        sys.exit(f"{sys.argv[1]}: no sample has a P target")
    i = int(has_target[np.searchsorted(has_target, n // 2) % len(has_target)])
    top = offsets[i] + int(np.argmax(probs[offsets[i]:offsets[i + 1]]))
    print(f"{n} samples of generation {int(f.attrs['generation'])}; sample {i}: game {int(f['game'][i])} "
          f"turn {int(f['turn'][i])}, {int((boards[i] > 0).sum())} tiles on the board, "
          f"P target of {offsets[i + 1] - offsets[i]} moves (top {probs[top]:.3f}: {moves[top].tolist()}), "
          f"final spread {int(spread[i])}, result {int(result[i])}, search estimate {float(estimate[i]):.1f}")
