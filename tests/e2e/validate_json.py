#!/usr/bin/python3
"""Validates roofline JSON against docs/roofline.schema.json: the committed goldens and live
outputs of every command; with a third argument `sweeps`, a sweep of every command that sweeps
over every flag it sweeps, and the reproducers of review N9. Needs Debian's python3-jsonschema."""
import json
import pathlib
import re
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_json.py: python3-jsonschema is missing; apt-get install python3-jsonschema")

root = pathlib.Path(sys.argv[2])
binary = sys.argv[1]
suite = sys.argv[3] if len(sys.argv) > 3 else "all"
schema = json.loads((root / "docs" / "roofline.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def deepest(error):
    """The errors under an anyOf that reach furthest into the document: the key that failed, not
    the branch (an object or a sweep's array) it was tried against."""
    if not error.context:
        return [error]
    leaves = [leaf for e in error.context for leaf in deepest(e)]
    depth = max(len(leaf.absolute_path) for leaf in leaves)
    return [leaf for leaf in leaves if len(leaf.absolute_path) == depth]


def report(documents):
    """Validates every document; prints the first errors of each failure and exits."""
    failures = 0
    for name, doc in documents.items():
        errors = [leaf for e in validator.iter_errors(doc) for leaf in deepest(e)]
        for e in sorted(errors, key=lambda e: list(map(str, e.absolute_path)))[:5]:
            print(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
        failures += bool(errors)
    print(f"{len(documents) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


def run_json(args):
    run = subprocess.run([binary, *args, "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"roofline {' '.join(args)} --format json: exit {run.returncode}: {run.stderr.strip()}")
        sys.exit(1)
    return json.loads(run.stdout)


if suite == "sweeps":
    # Review N9: a sweep of every command that sweeps, over every flag it sweeps, and the
    # reproducers of the classes the review found (fractional byte figures, nulls, enums).
    # The sweepable commands and their axes are read from the CLI itself (each flag's help says
    # "a list sweeps it"), so a command or axis the schema's sweep enums miss fails here.
    commands = [c for c in schema["properties"]["command"]["enum"] if c != "compare"]
    sweeps = {}
    on_gpu = set()
    for command in commands:
        text = subprocess.run([binary, command, "--help"], check=True, capture_output=True, text=True).stdout
        flags = re.findall(r"^\s+(?:-\w,)?--([\w-]+) [^\n]*; a list (?:or range )?sweeps it$", text, re.M)
        if flags:
            sweeps[command] = flags
        if re.search(r"^\s+--gpu GPU", text, re.M):
            on_gpu.add(command)
    sweep_then = schema["allOf"][0]["then"]["properties"]["command"]["enum"]
    if sorted(sweep_then) != sorted(sweeps):
        print(f"the sweep schema's commands {sorted(sweep_then)} are not the commands that sweep {sorted(sweeps)}")
        sys.exit(1)
    axes = sorted({flag for flags in sweeps.values() for flag in flags})
    for where, names in (("sweep.axes", schema["properties"]["sweep"]["properties"]["axes"]["items"]["enum"]),
                         ("sweep_point.point", schema["$defs"]["sweep_point"]["properties"]["point"]["propertyNames"]
                          ["enum"])):
        if sorted(names) != axes:
            print(f"the schema's {where} {sorted(names)} are not the flags that sweep {axes}")
            sys.exit(1)
    values = {"batch": "1,2", "context": "1k,2k", "prompt": "512,1024", "output": "16,32", "gpus": "1,2",
              "tp": "1,2", "pp": "1,2", "dp": "1,2", "micro-batch": "1,2", "seq": "1024,2048", "dtype": "bf16,fp8",
              "kv-dtype": "bf16,fp8", "concurrency": "64,300", "rate": "2,40"}
    # What a command (or one of its flags) needs beside the model and the accelerator.
    needs = {"plan": ["--users", "100", "--tokens-per-s", "20"], ("layer", "prompt"): ["--phase", "prefill"],
             ("serve", "rate"): ["--requests", "300"]}
    documents = {}
    for command, flags in sweeps.items():
        for flag in flags:
            if flag not in values:
                print(f"{command} --{flag}: no values to sweep it with here; add them to validate_json.py")
                sys.exit(1)
            gpu = ["--gpu", "h100-sxm"] if command in on_gpu else []
            args = [command, "llama3-8b", *gpu, *needs.get(command, []), *needs.get((command, flag), []),
                    f"--{flag}", values[flag]]
            doc = run_json(args)
            if doc.get("sweep", {}).get("axes") != [flag]:
                print(f"roofline {' '.join(args)}: not a sweep over --{flag}: {doc.get('sweep')}")
                sys.exit(1)
            documents["roofline " + " ".join(args)] = doc
    reproducers = [
        ["train", "deepseek-r1", "--gpu", "h100-nvl", "--gpus", "1", "--seq", "2048"],
        ["train", "llama1-7b", "--gpu", "a40", "--reserve", "10%", "--gpus", "4"],
        ["train", "glm-4.5-air", "--gpu", "rtx-3090", "--zero", "1", "--seq", "1024", "--gpus", "256", "--optimizer",
         "adam-8bit"],
        ["memory", "gpt-j-6b", "--gpu", "mi300a", "--weight-bits", "int4-g128", "--tp", "4"],
        ["decode", "mamba-2.8b", "--gpu", "mi325x", "--tp", "1"],
        ["layer", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,2"],
        ["serve", "llama3-8b", "--gpu", "h100-sxm", "--concurrency", "64,300"],
        # Issue 25: a simulated server with every load row (targets, a prefix), and one saturated.
        ["serve", "llama3-8b", "--gpu", "h100-sxm", "--rate", "5", "--ttft", "500ms", "--tpot", "50ms",
         "--shared-prefix", "100", "--requests", "300"],
        ["serve", "llama3-8b", "--gpu", "h100-sxm", "--rate", "40", "--requests", "300"],
        # N3 and N14 through the schema: a pure Mamba model on layouts, a model known by N alone.
        ["memory", "mamba-codestral-7b", "--gpu", "h100-sxm", "--tp", "1"],
        ["serve", "mamba-2.8b", "--gpu", "h100-sxm", "--tp", "2", "--pp", "2"],
        ["plan", "mamba-2.8b", "--gpu", "h100-sxm", "--users", "100", "--tokens-per-s", "30"],
        ["train", "--params", "70B", "--gpu", "h100-sxm", "--tp", "8", "--gpus", "8"],
    ]
    for args in reproducers:
        documents["roofline " + " ".join(args)] = run_json(args)
    # A fractional share is a number, but still never negative, and a count stays an integer.
    import copy
    fractional = documents["roofline train llama1-7b --gpu a40 --reserve 10% --gpus 4"]
    reserve = fractional["results"]["train_memory"]["reserve_bytes"]
    if reserve == int(reserve):
        print("the --reserve 10% reproducer no longer gives a fractional reserve; pick another")
        sys.exit(1)
    negative = copy.deepcopy(fractional)
    negative["results"]["train_memory"]["reserve_bytes"] = -0.5
    half_device = copy.deepcopy(fractional)
    half_device["results"]["layout"]["devices"] = 2.5
    shared_sweep = documents["roofline serve llama3-8b --gpu h100-sxm --concurrency 64,300"]
    foreign_axis = copy.deepcopy(shared_sweep)
    foreign_axis["sweep"]["axes"] = ["zero"]
    for label, bad in (("negative byte share", negative), ("fractional device count", half_device),
                       ("sweep over an input that does not sweep", foreign_axis)):
        if validator.is_valid(bad):
            print(f"schema accepts a {label}")
            sys.exit(1)
    report(documents)

documents = {str(p): json.loads(p.read_text()) for p in sorted((root / "tests" / "golden").glob("*.json"))}
commands = [
    ["report", "llama3-8b", "--gpu", "h100-sxm", "--explain"],
    ["report", "deepseek-v3", "--gpu", "mi355x"],
    ["report", "gemma2-9b", "--gpu", "m4-max"],
    ["params", "qwen1.5-moe-a2.7b"],
    ["params", "gpt-oss-20b", "--explain"],
    ["flops", "gpt3-175b"],
    ["train", "--params", "70B", "--tokens", "2T", "--gpu", "h100-sxm", "--gpus", "8"],
    ["params", "--params", "7B"],
    ["kv", "mistral-7b", "--context", "32768"],
    ["memory", "llama3.1-405b", "--gpu", "b200", "--gpus", "8"],
    ["decode", "mixtral-8x7b", "--gpu", "h200-sxm", "--batch", "64"],
    ["prefill", "qwen2.5-72b", "--gpu", "mi300x"],
    ["serve", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "2"],
    ["gemm", "1", "4096", "4096", "--gpu", "a100-80gb-sxm"],
    ["train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--zero", "1", "--tokens", "15T",
     "--price", "2.5"],
    ["train", "mixtral-8x7b", "--gpu", "h100-sxm", "--gpus", "4", "--tp", "2", "--qlora", "--recompute", "full",
     "--tokens", "1B", "--measured-step-time", "3s"],
    ["train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--pp", "4", "--pp-chunks", "2",
     "--grad-accum", "8", "--zero", "3", "--dropout", "--model-flops", "palm", "--hfu", "0.5", "--tokens", "1T"],
    ["train", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "256", "--tp", "8", "--ep", "8", "--sp",
     "--recompute", "full"],
    ["decode", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "2", "--draft", "llama3-8b"],
    ["serve", "deepseek-v3", "--gpu", "h200-sxm", "--gpus", "8", "--draft", "mtp"],
    ["decode", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "16", "--tp", "4", "--pp", "2", "--link-latency", "5us"],
    ["memory", "deepseek-v3", "--gpu", "h200-sxm", "--tp", "8", "--context", "32k"],
    ["serve", "mixtral-8x7b", "--gpu", "h100-sxm", "--tp", "2", "--ep", "1", "--concurrency", "32"],
    ["plan", "mixtral-8x7b", "--gpu", "h200-sxm", "--users", "10000", "--tokens-per-s", "30", "--context", "8k",
     "--tpot", "50ms"],
    ["plan", "llama3-70b", "--gpu", "h100-sxm,mi300x", "--users", "1000", "--tokens-per-s", "20", "--price", "2.5",
     "--ttft", "200ms"],
    ["layer", "llama3-8b", "--gpu", "h100-sxm", "--phase", "decode", "--batch", "1", "--context", "8k", "--explain"],
    ["layer", "deepseek-v3", "--gpu", "h200-sxm", "--phase", "prefill", "--prompt", "4096", "--fused"],
    ["layer", "gemma2-9b", "--gpu", "m4-max", "--batch", "4"],
    # N2: hybrid and state-space kinds (Mamba-1, Mamba-2, Gated DeltaNet, parallel attention + Mamba-2, FFN-only
    # layers), mllama's cross-attention layers; N15: no peak for the compute type, the prefill's floor null.
    ["layer", "nemotron-h-8b", "--gpu", "h100-sxm", "--context", "4096"],
    ["layer", "mamba-2.8b", "--gpu", "h100-sxm", "--phase", "prefill", "--prompt", "1024"],
    ["layer", "qwen3-next-80b-a3b", "--gpu", "mi300x", "--context", "8192", "--fused"],
    ["layer", "falcon-h1-7b", "--gpu", "h100-sxm", "--phase", "prefill", "--prompt", "2048"],
    ["layer", "jamba-v0.1", "--gpu", "h200-sxm", "--batch", "8", "--context", "32k"],
    ["layer", "llama3.2-11b-vision", "--gpu", "h100-sxm", "--batch", "4", "--context", "1"],
    ["layer", "starcoder2-15b", "--gpu", "gaudi2", "--phase", "prefill", "--dtype", "fp32"],
    ["serve", "llama3-70b", "--gpu", "h100-sxm", "--tp", "2", "--prompt", "4k", "--output", "512", "--batch", "1,8,32",
     "--explain"],
    ["gpus"],
    ["models"],
    # Sweeps: results is an array of points, each the single run's sections.
    ["decode", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1..1024*2"],
    ["decode", "llama3-8b", "--gpu", "h100-sxm", "--context", "1k..8k*2", "--kv-dtype", "bf16,fp8", "--batch", "1,64"],
    ["serve", "llama3-8b", "--gpu", "h100-sxm", "--prompt", "1k,4k", "--output", "256"],
    ["memory", "llama2-70b", "--gpu", "mi300x", "--batch", "8..64*2"],
    ["prefill", "qwen2.5-72b", "--gpu", "mi300x", "--prompt", "512,2048"],
    ["train", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "1,2,4,8", "--pp", "1,2", "--tokens", "15T"],
    ["kv", "mistral-7b", "--context", "1..32768*8"],
    ["flops", "gpt3-175b", "--prompt", "1,2048"],
    ["report", "llama3-8b", "--gpu", "h100-sxm", "--batch", "1,32"],
    ["params", "llama3-8b", "--dtype", "bf16,fp8"],
    # compare: each column the single command's results, with its ratios to the first.
    ["compare", "decode", "llama3-8b", "--gpu", "h100-sxm,h200-sxm,mi300x", "--batch", "32"],
    ["compare", "report", "llama3-70b", "--gpu", "h100-sxm,mi300x", "--explain"],
    ["compare", "params", "llama3-8b,llama3-70b,mixtral-8x7b"],
    ["compare", "flops", "llama3-8b,gpt3-175b"],
    ["compare", "kv", "llama3-8b,llama2-7b,gemma2-9b"],
    ["compare", "memory", "llama2-70b", "--gpu", "mi300x,h200-sxm", "--tp", "2", "--gpus", "2"],
    ["compare", "prefill", "qwen2.5-72b", "--gpu", "mi300x,h100-sxm"],
    ["compare", "serve", "llama3-8b,llama3-70b", "--gpu", "h200-sxm", "--draft", "llama3-8b"],
    ["compare", "train", "llama3-70b", "--gpu", "h100-sxm,mi300x", "--gpus", "64", "--tp", "8", "--tokens", "15T"],
]
for args in commands:
    out = subprocess.run([binary, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    documents["roofline " + " ".join(args)] = json.loads(out)

# The schema pins every result key and its type per command: a renamed or mistyped key fails.
import copy
probe = documents["roofline kv mistral-7b --context 32768"]
renamed = copy.deepcopy(probe)
renamed["results"]["kv"]["kv_bytes_per_token"] = renamed["results"]["kv"].pop("kv_cache_bytes_per_token")
retyped = copy.deepcopy(documents["roofline memory llama3.1-405b --gpu b200 --gpus 8"])
retyped["results"]["capacity"]["fits"] = "yes"
foreign = copy.deepcopy(probe)
foreign["results"]["decode"] = {}
# layer's operator tables are named by layer kind: any other name is rejected.
strange_kind = copy.deepcopy(documents["roofline layer deepseek-v3 --gpu h200-sxm --phase prefill --prompt 4096 --fused"])
strange_kind["results"]["layer_ops_hybrid"] = strange_kind["results"].pop("layer_ops_moe")
# A sweep's points are checked as the single run's results: a renamed key in one point fails, and
# so do a point of another command, an array without "sweep" and an axis that does not sweep.
sweep = documents["roofline decode llama3-8b --gpu h100-sxm --batch 1..1024*2"]
sweep_renamed = copy.deepcopy(sweep)
sweep_renamed["results"][3]["results"]["decode"]["step_s"] = sweep_renamed["results"][3]["results"]["decode"].pop(
    "step_time_s")
sweep_foreign = copy.deepcopy(sweep)
sweep_foreign["results"][0]["results"]["latency"] = {}
sweep_unmarked = copy.deepcopy(sweep)
del sweep_unmarked["sweep"]
sweep_axis = copy.deepcopy(sweep)
sweep_axis["results"][0]["point"] = {"zero": 1}
# A compare column is checked as its question's results: a renamed key fails, and so do a section of
# another command, a question it does not ask and a single column.
compared = documents["roofline compare decode llama3-8b --gpu h100-sxm,h200-sxm,mi300x --batch 32"]
compare_renamed = copy.deepcopy(compared)
compare_renamed["results"][1]["results"]["decode"]["step_s"] = compare_renamed["results"][1]["results"]["decode"].pop(
    "step_time_s")
compare_foreign = copy.deepcopy(compared)
compare_foreign["results"][2]["results"]["latency"] = {}
compare_layer = copy.deepcopy(compared)
compare_layer["inputs"]["question"] = "layer"
compare_alone = copy.deepcopy(compared)
del compare_alone["results"][1:]
compare_text_ratio = copy.deepcopy(compared)
compare_text_ratio["results"][1]["ratios"]["decode"]["bound"] = "memory"
for label, bad in (("renamed key", renamed), ("mistyped key", retyped), ("section of another command", foreign),
                   ("operator table of an unknown layer kind", strange_kind),
                   ("renamed key in a sweep point", sweep_renamed), ("sweep point of another command", sweep_foreign),
                   ("results array without sweep", sweep_unmarked), ("point on an input that does not sweep", sweep_axis),
                   ("renamed key in a compare column", compare_renamed),
                   ("compare column with another command's section", compare_foreign),
                   ("compare of a question it does not ask", compare_layer), ("compare of one column", compare_alone),
                   ("compare ratio that is not a number", compare_text_ratio)):
    if validator.is_valid(bad):
        print(f"schema accepts a {label}")
        sys.exit(1)

# compare's ratios name only the numbers of its column's results, and each is that number over the
# first column's (the schema cannot relate two places of a document).
for name, doc in documents.items():
    if doc.get("command") != "compare":
        continue
    first = doc["results"][0]["results"]
    for column in doc["results"][1:]:
        for section, rows in column["ratios"].items():
            for key, ratio in rows.items():
                value = column["results"][section][key]
                base = first.get(section, {}).get(key) if isinstance(first.get(section), dict) else None
                want = value / base if isinstance(base, (int, float)) and base != 0 else None
                if not isinstance(value, (int, float)) or ratio != want:
                    print(f"{name}: {column['column']}: ratios.{section}.{key} = {ratio}, not {want}")
                    sys.exit(1)

report(documents)
