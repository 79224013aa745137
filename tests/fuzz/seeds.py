#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the tree's fixtures and presets.

Run from the repository root: python3 tests/fuzz/seeds.py. Each seed is small (configs and presets
minified); the flag names come from src/io/scenario_spec.cpp, in its order (the quantity and sweep
harnesses pick an input by index).
"""
import hashlib
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fuzz/corpus"


def write(harness, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)


def minified(path):
    return json.dumps(json.loads(path.read_text()), separators=(",", ":"))


spec = (ROOT / "src/io/scenario_spec.cpp").read_text()
inputs = re.findall(r'^    \{"([a-z0-9-]+)", (?:nullptr|"[a-z]")', spec, re.M)
# Sweepable inputs, in input_defs() order: the defs whose entry names Sweep::counts or names.
entries = re.split(r'\n    \{"', spec)
sweepable = []
for e in entries[1:]:
    name = e.split('"', 1)[0]
    body = e.split("\n    {", 1)[0]
    if "Sweep::counts" in body or "Sweep::names" in body:
        sweepable.append(name)

# quantity: selector byte, then text.
texts = {0: ["80 GiB", "80GB", "192e9 B", "1.5 TB", "0B"], 1: ["3.35 TB/s", "819 GB/s", "1.2 TiB/s"],
         2: ["989.4 TFLOP/s", "2.5 PFLOP/s", "1978.9 TOP/s"], 3: ["700 W", "1.2 kW"],
         4: ["8k", "8Ki", "2T", "4611686018427387904", "9007199254740993", "1e6", "0"],
         5: ["4M", "238.3k", "1e6", "2Ki"], 6: ["0.8", "80%", "1e-3"], 7: ["1.2", "850ms", "20us", "2min", "2h"]}
for sel, ts in texts.items():
    for t in ts:
        write("quantity", bytes([sel]) + t.encode())
samples = {"dtype": "bf16", "kv-dtype": "fp8", "mlp": "gated", "norm": "rmsnorm", "zero": "3",
           "optimizer": "adam", "phase": "decode", "recompute": "full", "lora-targets": "attention",
           "gpu-peak": "fp8=1979 TFLOP/s", "tpot": "20ms", "price": "2.5", "mfu": "40%"}
for i, name in enumerate(inputs):
    write("quantity", bytes([8 + i]) + samples.get(name, "32").encode())

# sweep: selector byte over the sweepable inputs, then text.
for i, name in enumerate(sweepable):
    for t in (["bf16,fp8", "fp8"] if "dtype" in name else ["1,8,32", "1k..128k*2", "1..10+3", "1,2,4..1024*2"]):
        write("sweep", bytes([i]) + t.encode())

# hf_config: one fixture config per model_type, the smallest.
by_type = {}
for p in sorted((ROOT / "tests/fixtures/hf").glob("*.config.json")):
    text = minified(p)
    t = json.loads(text).get("model_type", p.name)
    if len(text) <= 6000 and (t not in by_type or len(text) < len(by_type[t])):
        by_type[t] = text
for text in by_type.values():
    write("hf_config", text)

# preset: 0 + a model preset, 1 + a GPU preset.
models = sorted((ROOT / "presets/models").glob("*.json"), key=lambda p: p.stat().st_size)[:24]
for p in models:
    write("preset", b"\x00" + minified(p).encode())
for p in sorted((ROOT / "presets/gpus").glob("*.json"))[::4]:
    write("preset", b"\x01" + minified(p).encode())

# batch: the fixture plans, alone and together.
plans = (ROOT / "tests/fixtures/plans.jsonl").read_text().splitlines()
for line in plans:
    write("batch", line + "\n")
write("batch", "\n".join(plans) + "\n")
write("batch", '{"command":"decode","model":"m.json","gpu":"g.json","batch":"1,8"}\n{"command":"kv"}\nnot json\n')

# cli: arguments separated by NUL, then 0x01 and stdin.
cli = [["report", "llama3-8b", "--gpu", "h100-sxm"], ["params", "llama3-8b", "--format", "json"],
       ["kv", "llama3-70b", "--context", "32k", "--batch", "8", "--kv-dtype", "fp8"],
       ["memory", "mixtral-8x7b", "--gpu", "mi300x", "--format", "csv"],
       ["decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,8,32", "--format", "jsonl"],
       ["prefill", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "4k", "--explain"],
       ["serve", "llama3-8b", "--gpu", "h100-sxm", "--output", "256", "--tpot", "20ms"],
       ["train", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "8", "--zero", "3", "--tokens", "1T"],
       ["plan", "llama3-70b", "--gpu", "h100-sxm,mi300x"], ["layer", "llama3-8b", "--gpu", "h100-sxm"],
       ["flops", "llama3-8b", "--context", "8k"], ["gemm", "4096", "4096", "4096", "--gpu", "h100-sxm"],
       ["gpus"], ["models", "--names"], ["compare", "decode", "llama3-8b,mistral-7b", "--gpu", "h100-sxm"],
       ["plot", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,8,64"], ["params", "m.json"],
       ["decode", "m.json", "--gpu", "g.json", "--brief"], ["report", "llama3-8b", "--gpu", "h100-sxm", "--gpu-memory", "1e30B"],
       ["decode", "--layers", "32", "--hidden", "4096", "--heads", "32", "--vocab", "32000", "--gpu", "h100-sxm"],
       ["completion", "bash"], ["--version"], ["params", "--help"]]
for args in cli:
    write("cli", "\0".join(args))
write("cli", "params\0-\x01" + by_type.get("llama", "{}"))
write("cli", "batch\x01" + "\n".join(plans[:3]) + "\n")
write("cli", "batch\0p.jsonl")

# completion_names: a candidate preset file stem (and alias): names of the rule, the edges of the
# rule, and the shells' specials.
for name in ["llama3-8b", "opt-1.3b", "gpt-neox-20b+lora", "Qwen2.5_7B", "a" * 100, "a" * 101, "9b", "-x", ".x",
             "_x", "meta-llama/Llama-3.1-8B", "a/b/c", "a b", "a$(id)", "a`id`", "a*", "a;b", "a,b", "a'b", "a\"b",
             "~a", "a=b", "a\nb", "a\x7f", "caf\xc3\xa9", "LLAMA3-8B", "h100-sxm", "x" * 250]:
    write("completion_names", name.encode("utf-8", "surrogateescape"))

# batch_sweep: lines of a command byte (index into the harness's command list, and the model) and
# NUL-separated fields, each a byte picking a sweepable input (its index in `sweepable`) and a value.
bcommands = ["decode", "prefill", "serve", "memory", "report", "train", "layer", "kv", "flops", "params"]
# The inputs with Sweep::counts or names, in input_defs() order (the harness picks by index).
bvalues = ["8", "1,8", "1..64*2", "8,16", "1k..8k+1k", "2..4", "0", "-1", "1e3", "bf16,fp8", "fp8", "32k"]
for ci, c in enumerate(bcommands):
    for k, v in enumerate(bvalues[:6]):
        write("batch_sweep", bytes([ci]) + bytes([(ci + k) % len(sweepable)]) + v.encode())
for i, name in enumerate(sweepable):
    v = "bf16,fp8" if "dtype" in name else "1,2"
    write("batch_sweep", bytes([0]) + bytes([i]) + b"4" + b"\n" + bytes([10]) + bytes([i]) + v.encode())
    write("batch_sweep", bytes([i % 10]) + bytes([i | 0x80]) + b"16\0" + bytes([(i + 1) % len(sweepable)]) + b"2")
write("batch_sweep", b"\n\x00\x01" + b"1..8\n\x05\x02" + b"8,16\n")

# preset_dir: entries separated by "\n\n", a header byte (bit 0 gpus/, bits 1-2 file, directory,
# FIFO, symlink; bit 3 no ".json") and a name on the first line, then the content.
small_model = minified(models[0])
small_gpu = minified(sorted((ROOT / "presets/gpus").glob("*.json"), key=lambda p: p.stat().st_size)[0])
pd = [[(0, "mine", small_model)], [(1, "mygpu", small_gpu)], [(0, "mine", small_model), (1, "mygpu", small_gpu)],
      [(0, "bad name", "{}")], [(0, "empty", "")], [(0, "loop", ""), (6, "loop2", "")], [(4, "fifo", "")],
      [(2, "adir", "")], [(8, "notes.txt", "hello")], [(0, "a", small_model), (0, "A", small_model)],
      [(0, "dup", '{"aliases":["x/y","x/y"]}')], [(0, "llama3-8b", small_model)], [(0, "x" * 101, "{}")],
      [(0, "m1", small_model), (6, "m2", ""), (1, "g1", small_gpu)]]
for entries in pd:
    write("preset_dir", b"\n\n".join(bytes([h]) + n.encode() + b"\n" + c.encode() for h, n, c in entries))

# weight_format: a byte (bit 0: --kv-format, else --weight-format; bits 1-2: the model), then the
# value: one format, published, class=format lists at the edges of the syntax; KV formats and bits.
wf = ["bf16", "int4-g128", "mxfp4", "q4_k", "published", "PUBLISHED", "experts=mxfp4,rest=bf16",
      "experts=mxfp4,attention=fp8-block128,rest=int4-g64", "rest=nvfp4", "ffn=q8_0", "experts=mxfp4,",
      "=mxfp4", "experts=", "experts=mxfp4,experts=bf16", "rest=bf16,rest=fp8", "vision=int8,router=fp32",
      "shared-experts=awq-g128,head=bf16,embedding=q6_k,vectors=fp32", "experts=mxfp4=bf16", ",", "x", ""]
kvf = ["fp8-token", "int4-g64", "int2-g128", "6", "1", "32", "0", "33", "4.5", "1e1", "bf16", "-4", " 6"]
for m in range(4):
    for t in wf:
        write("weight_format", bytes([m << 1]) + t.encode())
    for t in kvf:
        write("weight_format", bytes([(m << 1) | 1]) + t.encode())

# safetensors: a byte (bit 0: the harness writes the header's length), two bytes of data-buffer
# size (little-endian), then the header (after its 8-byte length when bit 0 is clear).
def st_header(tensors):
    h, at = {}, 0
    for name, dtype, shape, per in tensors:
        n = per
        for d in shape:
            n *= d
        h[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}
        at += n
    h["__metadata__"] = {"format": "pt"}
    return json.dumps(h, separators=(",", ":")), at


for tensors in [[("model.embed_tokens.weight", "BF16", [10, 8], 2)],
                [("w", "F32", [2, 2], 4), ("w_scale", "F8_E4M3", [4], 1), ("b", "U8", [3], 1)],
                [("x", "I64", [1], 8), ("e", "BF16", [0], 2)], []]:
    text, n = st_header(tensors)
    write("safetensors", bytes([1, n & 0xFF, n >> 8]) + text.encode())
    write("safetensors", bytes([0, n & 0xFF, n >> 8]) + len(text).to_bytes(8, "little") + text.encode())
write("safetensors", bytes([1, 4, 0]) + b'{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},'
      b'"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}')
write("safetensors", bytes([1, 0, 0]) + b'{"a":{"dtype":"X9","shape":[18446744073709551615],"data_offsets":[0,0]}}')
write("safetensors", bytes([0, 0, 0]) + (10**9).to_bytes(8, "little") + b"{}")

# Dictionaries: tests/fuzz/<harness>.dict, libFuzzer's format (one quoted token a line).
def dict_file(harness, tokens):
    lines = [f"# {harness}: generated by tests/fuzz/seeds.py"]
    for t in sorted(set(tokens)):
        esc = "".join(c if 0x20 <= ord(c) < 0x7f and c not in '"\\' else f"\\x{ord(c):02x}" for c in t)
        lines.append(f'"{esc}"')
    (ROOT / f"tests/fuzz/{harness}.dict").write_text("\n".join(lines) + "\n")


units = ["B", "kB", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "B/s", "GB/s", "TB/s", "GiB/s",
         "FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "TOP/s", "W", "kW", "s", "ms", "us", "ns", "min", "h", "%",
         "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti", "e", "e308", "e-308", "e19", "1e999", "inf", "nan",
         "4611686018427387904", "9223372036854775807", "18446744073709551615", "-", "+", ".", " "]
names = ["bf16", "fp16", "fp32", "fp8", "fp4", "int8", "int4", "tf32", "fp64", "gated", "plain", "rmsnorm",
         "layernorm", "layernorm-nobias", "nonparametric", "per-head", "full-width", "rope", "alibi", "learned",
         "none", "attention", "mlp", "all", "adam", "sgd", "full", "selective", "decode", "prefill"]
flags = ["--" + n for n in inputs] + ["--format", "--units", "--color", "--quiet", "-q", "--explain", "--brief",
                                    "--help", "--version", "--yes", "--names", "--family", "--dtype", "--kind"]
commands = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train", "plan",
            "plot", "compare", "gemm", "gpus", "models", "batch", "completion"]
formats = ["table", "json", "csv", "markdown", "jsonl", "svg", "si", "iec", "always", "never", "bash", "zsh", "fish"]
presets = ["llama3-8b", "llama3-70b", "mixtral-8x7b", "mistral-7b", "h100-sxm", "mi300x", "a100-80gb-sxm",
           "m.json", "g.json", "p.jsonl", "-"]
hf_keys, preset_keys = set(), set()


def keys(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            keys(v, out)
    elif isinstance(value, list):
        for v in value:
            keys(v, out)


model_types = set()
for p in (ROOT / "tests/fixtures/hf").glob("*.config.json"):
    j = json.loads(p.read_text())
    keys(j, hf_keys)
    model_types.add(str(j.get("model_type", "")))
for p in list((ROOT / "presets/models").glob("*.json")) + list((ROOT / "presets/gpus").glob("*.json")):
    keys(json.loads(p.read_text()), preset_keys)
json_tokens = ["{", "}", "[", "]", ":", ",", '""', "true", "false", "null", "0", "-1", "1e400", "2e308", "0.5",
               "\\u0000", "\\n"]
quoted = lambda ks: ['"' + k + '":' for k in ks]
dict_file("quantity", units + names + ["0", "1", "2", "8", "=", ","])
dict_file("sweep", [",", "..", "+", "*", "k", "M", "Ki", "Mi", "0", "1", "2", "1024", "e3"] + names[:9])
dict_file("hf_config", json_tokens + quoted(hf_keys) + ['"' + t + '"' for t in model_types if t]
          + ['"sliding_attention"', '"full_attention"', '"silu"', '"gelu"'])
dict_file("preset", json_tokens + quoted(preset_keys) + ['"' + u + '"' for u in ["80 GB", "3.35 TB/s", "989 TFLOP/s"]]
          + ['"' + n + '"' for n in names])
dict_file("batch", json_tokens + quoted(["command", "model", "gpu"] + inputs) + ['"' + c + '"' for c in commands]
          + ['"' + p + '"' for p in presets] + ["\n"])
dict_file("cli", ["\x00", "\x01"] + commands + flags + formats + presets + units + names)
dict_file("completion_names", [".", "_", "+", "-", "/", "a", "0", "Z", " ", "$", "`", "*", "?", "[", "]", "'", '"',
                            "\\", ",", ";", "=", "~", "!", "#", "%", "{", "}", "(", ")", "|", "&", "<", ">", "\t",
                            "\n", "\x7f", "\xe9"] + presets[:7])
dict_file("batch_sweep", [",", "..", "+", "*", "k", "M", "Ki", "0", "1", "2", "64", "1024", "e3", "-", " ", "\x00", "\n"]
          + names[:9])
dict_file("preset_dir", json_tokens + quoted(preset_keys) + ["\n\n", "\n", ".json", "\x00", "\x01", "\x02", "\x04",
                                                               "\x06", "\x08", "llama3-8b", "h100-sxm"])
dict_file("weight_format", ["=", ",", "rest", "published", "embedding", "attention", "ffn", "experts",
                            "shared-experts", "router", "head", "vectors", "vision", "bf16", "fp8", "fp4", "fp32",
                            "int4", "int8", "int4-g128", "int4-g64", "int4-g32", "int8-g128", "awq-g128", "awq-g64",
                            "gptq-g128", "gptq-int8-g128", "mxfp4", "mxfp8", "nvfp4", "fp8-block128", "q4_0", "q4_1",
                            "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "tq1_0", "tq2_0",
                            "fp8-token", "int8-token", "int4-token", "int8-g64", "int2-g32", "int2-g128", "\x00",
                            "\x01", "\x02", "\x03", "1", "32", "e1", ".5", "-"])
dict_file("safetensors", json_tokens + ['"dtype":', '"shape":', '"data_offsets":', '"__metadata__":', '"format":',
                                        '"pt"', '"F64"', '"F32"', '"F16"', '"BF16"', '"F8_E4M3"', '"F8_E5M2"',
                                        '"F8_E8M0"', '"I64"', '"I32"', '"I16"', '"I8"', '"U64"', '"U32"', '"U16"',
                                        '"U8"', '"BOOL"', '"F4"', "18446744073709551615", "9223372036854775807",
                                        "\x00\x00\x00\x00\x00\x00\x00", "\x01", "\x00"])
