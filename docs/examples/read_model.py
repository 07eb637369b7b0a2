#!/usr/bin/env python3
"""Reads a rookery model.h5 (docs/model.md): python3 read_model.py MODEL.h5"""
import sys
import h5py
import numpy as np

with h5py.File(sys.argv[1], "r") as f:
    a = {k: (v.decode() if isinstance(v, bytes) else int(v)) for k, v in f.attrs.items()}
    assert a["format"] == "rookery-model" and a["model_version"] == 1
    weights = {name: np.asarray(ds, dtype=np.float32) for name, ds in f["weights"].items()}
print("channels {channels}, blocks {blocks}, embed {embed}, head_hidden {head_hidden}, "
      "h_tiles {h_tiles}; {dim}x{dim} board, {distribution} ({letters} letters); "
      "feature version {feature_version}, step {train_step}, generation {generation}".format(**a))
print(len(weights), "tensors,", sum(w.size for w in weights.values()), "parameters;",
      "trunk.stem.w", weights["trunk.stem.w"].shape)
