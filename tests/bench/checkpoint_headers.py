#!/usr/bin/env python3
"""Time `roofline params DIR` on a synthetic checkpoint: the shapes of a published config split
over N safetensors shards with an index, each shard a real header followed by a sparse data
region (no disk is written for the data). Only the headers are read, so the time should follow the
headers' size, not the checkpoint's (issue 23: a 100 GB checkpoint's headers in under 50 ms).

    tests/bench/checkpoint_headers.py --binary build/release/src/roofline [--shards 1000] [--runs 9]
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "hf")


def llama_tensors(c):
    d, f, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    h, kv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = d // h
    out = [("model.embed_tokens.weight", [v, d])]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out += [(p + "self_attn.q_proj.weight", [h * hd, d]), (p + "self_attn.k_proj.weight", [kv * hd, d]),
                (p + "self_attn.v_proj.weight", [kv * hd, d]), (p + "self_attn.o_proj.weight", [d, h * hd]),
                (p + "mlp.gate_proj.weight", [f, d]), (p + "mlp.up_proj.weight", [f, d]),
                (p + "mlp.down_proj.weight", [d, f]), (p + "input_layernorm.weight", [d]),
                (p + "post_attention_layernorm.weight", [d])]
    out += [("model.norm.weight", [d]), ("lm_head.weight", [v, d])]
    return out


def write_shard(path, tensors):
    header, offset = {}, 0
    for name, shape in tensors:
        n = 2
        for s in shape:
            n *= s
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        f.truncate(8 + len(text) + offset)  # sparse: the data region holds no blocks
    return 8 + len(text) + offset, len(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/release/src/roofline")
    ap.add_argument("--config", default="llama3.1-405b")
    ap.add_argument("--shards", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    config = json.load(open(os.path.join(FIXTURES, a.config + ".config.json")))
    tensors = llama_tensors(config)
    d = tempfile.mkdtemp(prefix="roofline-bench-ckpt-")
    try:
        json.dump(config, open(os.path.join(d, "config.json"), "w"))
        weight_map, total, headers = {}, 0, 0
        n = min(a.shards, len(tensors))
        shards = [tensors[k::n] for k in range(n)]  # round-robin: exactly n shards
        for k, group in enumerate(shards):
            name = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
            size, hsize = write_shard(os.path.join(d, name), group)
            total, headers = total + size, headers + hsize
            for t, _ in group:
                weight_map[t] = name
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map},
                  open(os.path.join(d, "model.safetensors.index.json"), "w"))
        times = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            r = subprocess.run([a.binary, "params", d, "--format", "json"], capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                raise SystemExit(r.stderr)
        stored = json.loads(r.stdout)["results"]["weights"]
        print(f"{a.config}: {len(tensors)} tensors in {len(shards)} shards, {total / 1e9:.1f} GB "
              f"({headers / 1e6:.2f} MB of headers); stored {stored['stored_bytes']:,} B")
        print(f"wall time of `params DIR`, {a.runs} runs: median {statistics.median(times) * 1e3:.1f} ms "
              f"(min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f})")
    finally:
        shutil.rmtree(d)


if __name__ == "__main__":
    main()
