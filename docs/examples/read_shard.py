#!/usr/bin/env python3
"""Reads a rookery training shard (docs/shards.md): python3 read_shard.py SHARD.h5"""
import sys
import h5py
import numpy as np

with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["schema_version"] == 1
    n, dim = int(f.attrs["samples"]), int(f.attrs["dim"])
    boards = f["board"][:].reshape(n, dim, dim)          # 0 empty, letter 1..26, +128 blank
    offsets = f["policy_offsets"][:].astype(np.int64)    # sample i: policy rows offsets[i]..offsets[i+1]
    probs = f["policy_probs"][:]
    moves = f["policy_moves"][:]                          # kind, dir, row, col, n, tiles[7]
    spread, result = f["final_spread"][:], f["result"][:]
    i = n // 2
    top = offsets[i] + int(np.argmax(probs[offsets[i]:offsets[i + 1]]))
    print(f"{n} samples of generation {int(f.attrs['generation'])}; sample {i}: game {int(f['game'][i])} "
          f"turn {int(f['turn'][i])}, {int((boards[i] > 0).sum())} tiles on the board, "
          f"P target of {offsets[i + 1] - offsets[i]} moves (top {probs[top]:.3f}: {moves[top].tolist()}), "
          f"final spread {int(spread[i])}, result {int(result[i])}")
