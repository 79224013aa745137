#!/usr/bin/python3
"""roofline's property suite: invariants over every model and accelerator preset and seeded random
workloads, each one ctest test (property.<name>). Usage:

    invariants.py BINARY SOURCE_DIR NAME      run one invariant; exit 1 on a violation
    invariants.py BINARY SOURCE_DIR --all     run every invariant
    invariants.py --list                      the invariants' names
    invariants.py --machinery                 check the suite's own evaluator, comparisons and list

ROOFLINE_PROPERTY_SEED (default 1) picks the cases and ROOFLINE_PROPERTY_SCALE (default 1)
multiplies their number. Every violation is printed as the `roofline ...` command line that shows
it; tests/property/known_failures.txt lists the findings of the reliability review being fixed
elsewhere, which are reported but do not fail. docs/reliability.md, "Property suite", describes
each invariant.

Each invariant gathers outputs of the binary, checks them with a pure function of those outputs,
and then checks that function on a deliberately perturbed copy of a real output (its self-check):
an invariant whose check cannot see a wrong value fails.
"""
import copy
import itertools
import json
import math
import os
import pathlib
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from propkit import (Catalogue, Check, ExplainError, KnownFailures, Plan, Runner, close, cmdline,  # noqa: E402
                     csv_rows, csv_value, deck, diff, env_int, explain_holds, log_uniform_int, main_rng,
                     section_value)
from workloads import DTYPES, KV_DTYPES, Generator  # noqa: E402

MAX_COUNT = 2 ** 62
INVARIANTS = {}


def invariant(fn):
    INVARIANTS[fn.__name__] = fn
    return fn


class Context:
    def __init__(self, name, binary, source, seed, scale):
        self.name = name
        self.source = pathlib.Path(source)
        self.known = KnownFailures(pathlib.Path(__file__).resolve().parent / "known_failures.txt")
        self.runner = Runner(binary, isolate=lambda plan: self.known.isolates(plan.cmdline("--format", "json")))
        self.check = Check(name, self.known, seed, scale)
        self.scale = scale
        self.rng = main_rng(seed, name)
        self.cat = Catalogue(self.runner)
        self.gen = Generator(self.rng, self.cat)

    def n(self, base):
        return base * self.scale

    def answers(self, plans):
        """The batch answer of each plan: its results, or None (a refusal, counted as a skip, or a
        crash, reported as a violation of the invariant under way)."""
        out = []
        for plan, a in zip(plans, self.runner.batch(plans)):
            if isinstance(a, str):
                self.check.violation(plan.cmdline("--format", "json"), f"the run broke: {a}")
                out.append(None)
            elif "error" in a:
                self.check.skip(f"{plan.command}: refused ({a['error'].splitlines()[0][:70]}...)"
                                if len(a["error"]) > 70 else f"{plan.command}: refused ({a['error']})")
                out.append(None)
            else:
                out.append(a["results"])
        return out

    def single(self, args):
        """One CLI run; a crash is a violation, a refusal None."""
        r = self.runner.run(args)
        if r.crash:
            self.check.violation(cmdline(args), f"the run broke: {r.crash}")
            return None
        return r


def self_check(ctx, what, check_fn, data, perturb):
    """Runs check_fn on a perturbed deep copy of real data and records whether it complained."""
    bad = copy.deepcopy(data)
    perturb(bad)
    ctx.check.selfcheck(what, bool(check_fn(bad)))


def numbers(section):
    return {k: v for k, v in section.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


# ================================================================================================
# Equalities: every surface that shows a run shows the single run.

SWEEP_AXES = {
    "kv": ["batch", "context", "kv-dtype"],
    "memory": ["batch", "context", "gpus", "dtype", "kv-dtype", "tp"],
    "decode": ["batch", "context", "gpus", "dtype", "kv-dtype", "tp"],
    "prefill": ["batch", "prompt", "gpus", "dtype"],
    "serve": ["batch", "prompt", "output", "gpus", "concurrency", "tp"],
    "report": ["batch", "context", "prompt"],
    "flops": ["context", "prompt"],
    "params": ["dtype"],
    "train": ["micro-batch", "seq", "tp"],
    "layer": ["batch"],
}


def axis_values(ctx, plan, axis):
    g, rng = ctx.gen, ctx.rng
    if axis in ("dtype",):
        return rng.sample(sorted(set(DTYPES)), 2)
    if axis == "kv-dtype":
        return rng.sample(sorted(set(KV_DTYPES)), 2)
    if axis == "gpus":
        return [1, rng.choice([2, 4, 8])]
    if axis == "tp":
        options = [t for t in ctx.cat.heads_split(plan.model) if plan.command != "train" or t > 0]
        return sorted(rng.sample(options, min(2, len(options))))
    if axis == "micro-batch":
        return [1, rng.choice([2, 4])]
    if axis == "seq":
        return sorted(rng.sample(range(128, 8193), 2))
    draw = {"batch": g.batch, "context": g.context, "prompt": g.prompt, "output": g.output,
            "concurrency": lambda: log_uniform_int(rng, 1, 2048)}[axis]
    values = {draw()}
    while len(values) < 2:
        values.add(draw())
    return sorted(values)


@invariant
def sweep_point_equals_single(ctx):
    """Each point of a sweep (one or two swept flags) in --format json, jsonl and csv equals the
    single run at that point: the JSON point's results key by key, each JSON Lines figure the single
    run's value, each CSV cell the single run's CSV cell."""
    commands = deck(ctx.rng, SWEEP_AXES)  # the commands in an order of the seed's
    cases = []
    for i in range(ctx.n(6)):
        command = next(commands)
        plan = ctx.gen.plan(command, layout=False)
        axes = ctx.rng.sample(SWEEP_AXES[command], min(len(SWEEP_AXES[command]), 2 if ctx.gen.chance(0.4) else 1))
        if command == "train":  # --gpus is t x p x d: a swept --tp keeps d = 1
            plan = plan.without("tp", "pp", "sp", "ep", "grad-accum", "gpus")
            if "tp" not in axes:
                plan = plan.with_flags(("gpus", 1))
        values = {}
        for axis in axes:
            v = axis_values(ctx, plan, axis)
            if len(v) < 2:  # the heads split over one degree only
                continue
            values[axis] = v
            plan = plan.without(axis, "gpus" if axis == "tp" else axis)
        axes = list(values)
        if not axes:
            ctx.check.skip("no flag of the case sweeps")
            continue
        if command == "serve" and "concurrency" in axes:
            plan = plan.without("tpot")
        sweep = plan.with_flags(*[(a, ",".join(map(str, v))) for a, v in values.items()])
        cases.append((plan, sweep, axes, values))

    for plan, sweep, axes, values in cases:
        points = [dict(zip(axes, combo)) for combo in itertools.product(*[values[a] for a in axes])]
        outputs = {f: ctx.single(sweep.argv("--format", f)) for f in ("json", "jsonl", "csv")}
        if any(r is None for r in outputs.values()):
            continue
        singles = []
        for point in points:
            p = plan
            for a, v in point.items():
                p = p.replacing(a, v)
            if "tp" in point and plan.command == "train":
                p = p.replacing("gpus", point["tp"])
            j, c = ctx.single(p.argv("--format", "json")), ctx.single(p.argv("--format", "csv"))
            if j is None or c is None:
                break
            singles.append((p, j, c))
        if len(singles) != len(points):
            continue
        if outputs["json"].code != 0 or any(j.code not in (0, 3) for _, j, _ in singles):
            if outputs["json"].code != 0 and all(j.code in (0, 3) for _, j, _ in singles):
                ctx.check.case(sweep.cmdline("--format", "json"))
                ctx.check.violation(sweep.cmdline("--format", "json"),
                                    f"the sweep is refused ({outputs['json'].err.strip()[:200]}) while every "
                                    f"single run answers")
            else:
                ctx.check.skip("a point the inputs do not allow")
            continue
        data = {"points": points, "sweep": {f: r.out for f, r in outputs.items()},
                "singles": [(p.cmdline("--format", "json"), j.json(), csv_rows(c.out)) for p, j, c in singles]}
        ctx.check.case(sweep.cmdline("--format", "json"))
        for message in check_sweep(data):
            ctx.check.violation(sweep.cmdline("--format", message[0]), message[1])
        if not ctx.check.selfchecks:
            def perturb(d):
                doc = json.loads(d["sweep"]["json"])
                first = doc["results"][-1]["results"]
                section = next(s for s in first.values() if isinstance(s, dict) and numbers(s))
                key = sorted(numbers(section))[0]
                section[key] = section[key] * 1.5 + 1
                d["sweep"]["json"] = json.dumps(doc)
            self_check(ctx, "a sweep point's number changed by half", check_sweep, data, perturb)

            def perturb_csv(d):
                rows = csv_rows(d["sweep"]["csv"])
                column = next(i for i, k in enumerate(rows[0]) if "." in k and rows[1][i] not in ("", "true", "false")
                              and not k.startswith("point."))
                rows[1][column] = rows[1][column] + "1"
                d["sweep"]["csv"] = "\n".join(",".join(r) for r in rows) + "\n"
            self_check(ctx, "a streamed CSV cell changed", check_sweep, data, perturb_csv)


def check_sweep(data):
    out = []
    points = data["points"]
    doc = json.loads(data["sweep"]["json"])
    results = doc.get("results")
    if not isinstance(results, list) or len(results) != len(points):
        return [("json", f"{len(points)} points expected, got {type(results).__name__} "
                         f"{len(results) if isinstance(results, list) else ''}")]
    lines = [json.loads(l) for l in data["sweep"]["jsonl"].splitlines() if l.strip()]
    rows = csv_rows(data["sweep"]["csv"])
    if len(lines) != len(points):
        out.append(("jsonl", f"{len(lines)} lines for {len(points)} points"))
    if len(rows) != len(points) + 1:
        out.append(("csv", f"{len(rows) - 1} rows for {len(points)} points"))
    header = rows[0] if rows else []
    for i, (point, (single_cmd, single, single_csv)) in enumerate(zip(points, data["singles"])):
        d = diff(results[i].get("point"), point)
        if d:
            out.append(("json", f"point {i}: its 'point' is {results[i].get('point')}, expected {point}"))
        d = diff(results[i].get("results"), single["results"])
        if d:
            out.append(("json", f"point {point}: results differ from `{single_cmd}` at {d}"))
        if i < len(lines):
            line = lines[i]
            if diff(line.get("point"), point):
                out.append(("jsonl", f"line {i + 1}: point {line.get('point')}, expected {point}"))
            if "figures" in line:
                for key, value in line["figures"].items():
                    want = section_value(single["results"], key)
                    if diff(value, want):
                        out.append(("jsonl", f"point {point}: {key} = {json.dumps(value)}, `{single_cmd}` "
                                             f"gives {json.dumps(want)}"))
            elif diff(line.get("results"), single["results"]):
                out.append(("jsonl", f"point {point}: results differ from `{single_cmd}` at "
                                     f"{diff(line.get('results'), single['results'])}"))
        if i + 1 < len(rows) and len(single_csv) == 2:
            row = dict(zip(header, rows[i + 1]))
            one = dict(zip(single_csv[0], single_csv[1]))
            for key, cell in row.items():
                if key.startswith("point."):
                    if cell != str(point.get(key[len("point."):])):
                        out.append(("csv", f"row {i + 1}: {key} = {cell!r}, expected {point}"))
                elif key == "error":
                    if cell:
                        out.append(("csv", f"point {point}: error {cell!r}, the single run answers"))
                elif key not in one:
                    if cell:  # empty where the single run leaves the key out (docs/json.md, CSV)
                        out.append(("csv", f"point {point}: {key} = {cell!r}; `{single_cmd}`'s CSV has no such "
                                           f"column"))
                elif cell != one[key]:
                    out.append(("csv", f"point {point}: {key} = {cell!r}, `{single_cmd}` CSV gives {one[key]!r}"))
    return out


BATCH_COMMANDS = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train", "plan"]


@invariant
def batch_line_equals_single(ctx):
    """Each `roofline batch` answer equals the single command: its results, notes and warnings the
    command's --format json, its error the command's message and exit status, its exit code 3 where
    --require-fit makes the command's. All plans go through one batch process."""
    plans = []
    for i in range(ctx.n(33)):
        command = BATCH_COMMANDS[i % len(BATCH_COMMANDS)]
        plan = ctx.gen.plan(command)
        if command in ("memory", "decode", "prefill", "serve", "train", "report") and plan.get("gpu") \
                and ctx.gen.chance(0.3):
            plan = plan.with_flags(("require-fit", None))
        if command == "train" and ctx.gen.chance(0.5):
            plan = plan.with_flags(("fsdp", ctx.rng.choice(["full-shard", "shard-grad-op", "no-shard", "hybrid"])))
        if ctx.gen.chance(0.1):  # a mistake: the CLI's refusal is the answer's error
            plan = plan.replacing("batch", 0) if command not in ("params", "flops", "plan", "train") \
                else plan.without("weight-bits").replacing("dtype", "fp7")
        plans.append(plan)
    answers = ctx.runner.batch(plans)
    for plan, answer in zip(plans, answers):
        args = plan.argv("--format", "json")
        r = ctx.single(args)
        if r is None:
            continue
        if isinstance(answer, str):
            ctx.check.case(cmdline(args))
            ctx.check.violation(cmdline(args), f"the run broke: {answer} (as the batch line {plan.batch_line()})")
            continue
        data = {"answer": answer, "code": r.code, "out": r.out, "err": r.err, "plan": plan.batch_line(),
                "require_fit": plan.get("require-fit", False) is None}
        ctx.check.case(cmdline(args))
        for message in check_batch_line(data):
            ctx.check.violation(cmdline(args), message)
        if r.code == 0 and not any(w for w, _ in ctx.check.selfchecks if w.startswith("an answer")):
            def perturb(d):
                section = next(s for s in d["answer"]["results"].values() if isinstance(s, dict) and numbers(s))
                key = sorted(numbers(section))[-1]
                section[key] = section[key] + 1
            self_check(ctx, "an answer's number off by one", check_batch_line, data, perturb)
            self_check(ctx, "a note dropped from an answer", check_batch_line, data,
                       lambda d: d["answer"].__setitem__("notes", d["answer"]["notes"][1:] + ["x"]))


def check_batch_line(d):
    a = d["answer"]
    if d["code"] in (0, 3):
        if "error" in a:
            if d["require_fit"] and a.get("exit_code") == 2 and "require-fit" in a["error"]:
                return []  # refused like the other global options: the review's accepted outcome
            return [f"the batch line {d['plan']} answers the error {a['error']!r}; the command exits "
                    f"{d['code']} with results"]
        single = json.loads(d["out"])
        out = []
        for key in ("results", "notes", "warnings"):
            dd = diff(a.get(key, []), single.get(key, []), key)
            if dd:
                out.append(f"the batch line {d['plan']} differs from the command at {dd}")
        if d["code"] == 3 and a.get("exit_code") != 3:
            out.append(f"the command exits 3 (--require-fit, does not fit); the batch line {d['plan']} has "
                       f"exit_code {a.get('exit_code')!r}")
        return out
    if "error" not in a:
        return [f"the command exits {d['code']} ({d['err'].strip()[:200]}); the batch line {d['plan']} answers"]
    out = []
    if a.get("exit_code") != d["code"]:
        out.append(f"the batch line's exit_code {a.get('exit_code')} != the command's {d['code']}")
    if "roofline: error: " + a["error"] not in d["err"]:
        out.append(f"the batch line's error {a['error']!r} is not the command's {d['err'].strip()[:300]!r}")
    return out


COMPARE_QUESTIONS = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "train"]


@invariant
def compare_column_equals_single(ctx):
    """Each `compare` column (JSON) is the single command's inputs, results and notes key by key,
    each ratio the column's number over the first column's, and each CSV column the single
    command's CSV values."""
    questions = deck(ctx.rng, COMPARE_QUESTIONS)
    for i in range(ctx.n(5)):
        question = next(questions)
        by_model = question in ("params", "flops", "kv") or ctx.gen.chance(0.4)
        plan = ctx.gen.plan(question, layout=False)
        if question == "report" and not plan.get("gpu"):
            by_model = True
        plan = plan.without("draft", "acceptance", "draft-len", "moe-decode", "ep")
        if by_model:
            models = list(dict.fromkeys([plan.model] + [ctx.gen.model() for _ in range(ctx.rng.choice([1, 2]))]))
            if question == "train":
                plan = plan.without("tp", "pp", "sp", "grad-accum").replacing("gpus", ctx.rng.choice([1, 8]))
            columns = [Plan(question, m, plan.flags) for m in models]
            compare = Plan("compare", ",".join(models), plan.flags, positional=[question])
        else:
            gpus = list(dict.fromkeys([plan.get("gpu")] + [ctx.gen.gpu() for _ in range(ctx.rng.choice([1, 2]))]))
            columns = [plan.replacing("gpu", g) for g in gpus]
            compare = Plan("compare", plan.model, plan.replacing("gpu", ",".join(gpus)).flags, positional=[question])
        if len(columns) < 2:
            continue
        j = ctx.single(compare.argv("--format", "json"))
        c = ctx.single(compare.argv("--format", "csv"))
        if j is None or c is None:
            continue
        singles = [(ctx.single(p.argv("--format", "json")), ctx.single(p.argv("--format", "csv"))) for p in columns]
        if any(s is None or t is None for s, t in singles):
            continue
        if j.code not in (0, 3) or any(s.code not in (0, 3) for s, _ in singles):
            ctx.check.skip(f"compare {question}: refused")
            continue
        data = {"compare": j.json(), "csv": csv_rows(c.out),
                "singles": [(p.cmdline("--format", "json"), s.json(), csv_rows(t.out))
                            for p, (s, t) in zip(columns, singles)]}
        ctx.check.case(compare.cmdline("--format", "json"))
        for message in check_compare(data):
            ctx.check.violation(compare.cmdline("--format", "json"), message)
        if not ctx.check.selfchecks:
            def perturb(d):
                column = d["compare"]["results"][1]
                section = next(k for k, s in column["ratios"].items() if numbers(s))
                key = sorted(numbers(column["ratios"][section]))[0]
                column["ratios"][section][key] *= 1.0001
            self_check(ctx, "a ratio off by 1e-4", check_compare, data, perturb)
            self_check(ctx, "a column's note dropped", check_compare, data,
                       lambda d: d["compare"]["results"][0].__setitem__("notes", ["x"]))


def check_compare(d):
    out = []
    columns = d["compare"]["results"]
    if len(columns) != len(d["singles"]):
        return [f"{len(columns)} columns for {len(d['singles'])} single runs"]
    first = columns[0]["results"]
    for column, (cmd, single, _) in zip(columns, d["singles"]):
        for key in ("inputs", "results", "notes"):
            dd = diff(column.get(key), single.get(key), key)
            if dd:
                out.append(f"column {column['column']}: differs from `{cmd}` at {dd}")
        if column is columns[0]:
            continue
        for section, rows in column["results"].items():
            if not isinstance(rows, dict):
                continue
            want = {}
            for key, value in numbers(rows).items():
                base = first.get(section, {}).get(key) if isinstance(first.get(section), dict) else None
                want[key] = value / base if isinstance(base, (int, float)) and not isinstance(base, bool) \
                    and base != 0 else None
            got = column.get("ratios", {}).get(section, {})
            dd = diff(got, want, f"ratios/{section}")
            if dd:
                out.append(f"column {column['column']}: {dd} (the ratio is the column's value over the first's)")
    rows = d["csv"]
    if rows:
        names = rows[0][2:2 + len(columns)]
        for r in rows[1:]:
            key = r[0]
            for i, (name, (cmd, _, single_csv)) in enumerate(zip(names, d["singles"])):
                if len(single_csv) != 2:
                    continue
                one = dict(zip(single_csv[0], single_csv[1]))
                if key in one and r[2 + i] != one[key]:
                    out.append(f"CSV column {name}: {key} = {r[2 + i]!r}, `{cmd.replace('json', 'csv')}` gives "
                               f"{one[key]!r}")
    return out


VERDICT_COMMANDS = ["memory", "decode", "prefill", "serve", "report", "train"]


@invariant
def modes_read_one_verdict(ctx):
    """Every mode reads the command's one answer and verdict, exit code included (issue 21): under
    --require-fit, on layouts and off them, the single run's exit code (0 or 3) and its fit section
    are those of its --brief (CSV), of its batch line, of its point in a two-point --batch sweep
    (JSON, whose exit code is 3 when either point's is) and of its column in a compare of two
    accelerators (3 when either column's is), and the sweep point's, the batch line's and the
    column's results are the single run's key by key."""
    commands = deck(ctx.rng, VERDICT_COMMANDS)
    for i in range(ctx.n(8)):
        command = next(commands)
        plan = ctx.gen.plan(command, layout=command in ("memory", "decode", "serve") and ctx.gen.chance(0.6))
        if not plan.get("gpu"):
            ctx.check.skip(f"{command}: no accelerator, no verdict")
            continue
        plan = plan.without("require-fit").with_flags(("require-fit", None))
        b = plan.get("batch") or 1
        other = b * 2 if command != "train" else None
        data = {"plan": plan.cmdline(), "command": command}
        single = ctx.single(plan.argv("--format", "json"))
        if single is None:
            continue
        if single.code not in (0, 3):
            ctx.check.skip(f"{command}: refused ({single.err.strip()[:60]})")
            continue
        data["single"] = (single.code, single.json())
        brief = ctx.single(plan.argv("--format", "csv", "--brief"))
        if brief is None:
            continue
        data["brief"] = (brief.code, csv_rows(brief.out))
        answers = ctx.runner.batch([plan])
        data["batch"] = answers[0] if answers else None
        if other is not None and command != "train":
            sweep_plan = plan.replacing("batch", f"{b},{other}")
            second = ctx.single(plan.replacing("batch", other).argv("--format", "json"))
            sweep = ctx.single(sweep_plan.argv("--format", "json"))
            if second is not None and sweep is not None and second.code in (0, 3):
                data["sweep"] = (sweep.code, sweep.out, second.code)
        if command in COMPARE_QUESTIONS:
            g2 = ctx.gen.gpu()
            if g2 != plan.get("gpu"):
                col2 = ctx.single(plan.replacing("gpu", g2).argv("--format", "json"))
                compare = Plan("compare", plan.model, plan.replacing("gpu", f"{plan.get('gpu')},{g2}").flags,
                               positional=[command])
                c = ctx.single(compare.argv("--format", "json"))
                if col2 is not None and c is not None and col2.code in (0, 3) and c.code in (0, 1, 2, 3):
                    data["compare"] = (c.code, c.out, col2.code)
        ctx.check.case(plan.cmdline("--format", "json"))
        for message in check_verdict(data):
            ctx.check.violation(plan.cmdline("--format", "json"), message)
        if not any(w.startswith("a verdict") for w, _ in ctx.check.selfchecks):
            def perturb(d):
                code, doc = d["single"]
                doc["results"]["fit"]["fits"] = not doc["results"]["fit"]["fits"]
            self_check(ctx, "a verdict flipped in the single run", check_verdict, data, perturb)


def check_verdict(d):
    out = []
    code, single = d["single"]
    fit = single["results"].get("fit")
    if fit is None:
        return [f"{d['command']} on an accelerator has no fit section"]
    if (code == 3) != (fit["fits"] is False):
        out.append(f"exit {code} beside fit {fit}")
    bcode, rows = d["brief"]
    if bcode != code:
        out.append(f"--brief exits {bcode}, the single run {code}")
    if len(rows) == 2 and "fit.fits" in rows[0]:
        cell = rows[1][rows[0].index("fit.fits")]
        if cell != {True: "true", False: "false", None: ""}[fit["fits"]]:
            out.append(f"--brief's fit.fits is {cell!r}, the single run's {fit['fits']}")
    elif len(rows) == 2:
        out.append("--brief has no fit.fits column")
    a = d.get("batch")
    if isinstance(a, dict):
        if "error" in a:
            out.append(f"the batch line answers the error {a['error']!r}; the single run exits {code}")
        else:
            if (a.get("exit_code", 0)) != code:
                out.append(f"the batch line's exit_code {a.get('exit_code', 0)} != the single run's {code}")
            dd = diff(a.get("results"), single["results"], "results")
            if dd:
                out.append(f"the batch line differs at {dd}")
    if "sweep" in d:
        scode, text, second = d["sweep"]
        want = 3 if 3 in (code, second) else 0
        if scode != want:
            out.append(f"the two-point --batch sweep exits {scode}; its points exit {code} and {second}")
        else:
            doc = json.loads(text)
            dd = diff(doc["results"][0]["results"], single["results"], "sweep point")
            if dd:
                out.append(f"the sweep's first point differs from the single run at {dd}")
    if "compare" in d:
        ccode, text, second = d["compare"]
        want = 3 if 3 in (code, second) else 0
        if ccode != want:
            out.append(f"compare exits {ccode}; its columns exit {code} and {second}")
        elif ccode in (0, 3):
            doc = json.loads(text)
            dd = diff(doc["results"][0]["results"], single["results"], "compare column")
            if dd:
                out.append(f"compare's first column differs from the single run at {dd}")
    return out


@invariant
def inputs_given_reproduce(ctx):
    """A JSON answer's `inputs.given` holds every input the command was given, as typed, and is a
    batch line: `{"command": ..., **given}` through `roofline batch` answers the same results,
    notes and warnings as the run that echoed it (issue 21, part 6). Plans include layouts and
    --require-fit."""
    commands = deck(ctx.rng, BATCH_COMMANDS)
    plans, singles = [], []
    for i in range(ctx.n(22)):
        command = next(commands)
        plan = ctx.gen.plan(command, layout=command in ("memory", "decode", "serve") and ctx.gen.chance(0.5))
        args = plan.argv("--format", "json")
        r = ctx.single(args)
        if r is None:
            continue
        if r.code not in (0, 3):
            ctx.check.skip(f"{command}: refused ({r.err.strip()[:60]})")
            continue
        doc = r.json()
        given = dict(doc["inputs"].get("given", {}))
        model = given.pop("model", None)
        flags = []
        for k, v in given.items():
            for one in (v if isinstance(v, list) else [v]):
                flags.append((k, None if one is True else one))
        echoed = Plan(command, model, flags)
        plans.append(echoed)
        singles.append((plan, args, doc, echoed))
    answers = ctx.runner.batch(plans)
    for (plan, args, doc, echoed), answer in zip(singles, answers):
        data = {"plan": plan, "doc": doc, "echoed": echoed, "answer": answer}
        ctx.check.case(cmdline(args))
        for message in check_given(data):
            ctx.check.violation(cmdline(args), message)
        if not any(w.startswith("an echo") for w, _ in ctx.check.selfchecks) and plan.flags:
            def perturb(d):
                f, v = d["echoed"].flags[-1]
                d["echoed"] = d["echoed"].without(f)
            self_check(ctx, "an echo missing an input", check_given, data, perturb)


def check_given(d):
    out = []
    plan, echoed = d["plan"], d["echoed"]
    want = sorted((f, "" if v is None else str(v)) for f, v in plan.flags)
    got = sorted((f, "" if v is None else str(v)) for f, v in echoed.flags)
    if want != got or plan.model != echoed.model:
        out.append(f"inputs.given {echoed.batch_line()} is not the plan's inputs {plan.batch_line()}")
    a = d["answer"]
    if isinstance(a, str) or "error" in a:
        return out + [f"the echoed inputs as a batch line {echoed.batch_line()} answer "
                      f"{a if isinstance(a, str) else a['error']!r}"]
    for key in ("results", "notes", "warnings"):
        dd = diff(a.get(key, []), d["doc"].get(key, []), key)
        if dd:
            out.append(f"the echoed inputs as a batch line differ from the run at {dd}")
    return out


FORMAT_COMMANDS = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "train", "layer"]


def normal(line):
    return " ".join(line.split())


@invariant
def formats_equal_single(ctx):
    """One run in every format says the same: each `section.key` CSV column is the JSON value and
    every JSON figure has its column; --format jsonl is the JSON document on one line; each --brief
    CSV cell is the full CSV's; each --brief table row is a row of the full table."""
    commands = deck(ctx.rng, FORMAT_COMMANDS)
    for i in range(ctx.n(6)):
        command = next(commands)
        plan = ctx.gen.plan(command)
        runs = {}
        for name, extra in (("json", ("--format", "json")), ("jsonl", ("--format", "jsonl")),
                            ("csv", ("--format", "csv")), ("table", ()), ("brief_csv", ("--format", "csv", "--brief")),
                            ("brief", ("--brief",))):
            runs[name] = ctx.single(plan.argv(*extra))
        if any(r is None for r in runs.values()):
            continue
        if any(r.code not in (0, 3) for r in runs.values()):
            ctx.check.skip(f"{command}: refused")
            continue
        data = {name: r.out for name, r in runs.items()}
        ctx.check.case(plan.cmdline("--format", "json"))
        for message in check_formats(data):
            ctx.check.violation(plan.cmdline(), message)
        if not ctx.check.selfchecks:
            def perturb(d):
                rows = csv_rows(d["csv"])
                column = next(i for i, k in enumerate(rows[0]) if "." in k and rows[1][i] not in ("", "true", "false"))
                rows[1][column] = str(float(rows[1][column]) * 1.001)
                d["csv"] = "\n".join(",".join(r) for r in rows) + "\n"
            self_check(ctx, "a CSV figure off by 1e-3", check_formats, data, perturb)

            def perturb_brief(d):
                lines = d["brief"].splitlines()
                k = next(i for i, l in enumerate(lines) if any(ch.isdigit() for ch in l) and l.startswith("  "))
                lines[k] = lines[k].replace("0", "9").replace("1", "2") if any(c in lines[k] for c in "01") \
                    else lines[k] + " x"
                d["brief"] = "\n".join(lines) + "\n"
            self_check(ctx, "a --brief row's digits changed", check_formats, data, perturb_brief)


def check_formats(d):
    out = []
    doc = json.loads(d["json"])
    results = doc["results"]
    jl = d["jsonl"].splitlines()
    if len(jl) != 1 or diff(json.loads(jl[0]), doc):
        out.append(f"--format jsonl is not the JSON document on one line: "
                   f"{diff(json.loads(jl[0]), doc) if len(jl) == 1 else f'{len(jl)} lines'}")
    rows = csv_rows(d["csv"])
    if len(rows) != 2:
        return out + [f"CSV has {len(rows)} lines, expected a header and a row"]
    full = dict(zip(rows[0], rows[1]))
    for key, cell in full.items():
        if "." in key and not csv_value(cell, section_value(results, key)):
            out.append(f"CSV {key} = {cell!r}, JSON results.{key} = {json.dumps(section_value(results, key))}")
    for section, rows_ in results.items():
        if isinstance(rows_, dict):
            for key, value in rows_.items():
                if not isinstance(value, (dict, list)) and f"{section}.{key}" not in full:
                    out.append(f"JSON results.{section}.{key} has no CSV column")
    brief = csv_rows(d["brief_csv"])
    if len(brief) == 2:
        for key, cell in zip(*brief):
            if key not in full:
                out.append(f"--brief CSV column {key} is not a column of the full CSV")
            elif full[key] != cell:
                out.append(f"--brief CSV {key} = {cell!r}, the full CSV has {full[key]!r}")
    table = {normal(l) for l in d["table"].splitlines()}
    for line in d["brief"].splitlines():
        if line.strip() and normal(line) not in table:
            out.append(f"--brief row {line.strip()!r} is not a row of the full table")
    return out


@invariant
def explain_evaluates_to_value(ctx):
    """Every --explain substitution, evaluated over intervals (each printed operand stands for every
    value that prints the same), holds the value printed beside it; a null value has none."""
    commands = ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train", "plan"]
    checked = 0
    for i in range(ctx.n(16)):
        plan = ctx.gen.plan(commands[i % len(commands)])
        r = ctx.single(plan.argv("--format", "json", "--explain"))
        if r is None:
            continue
        if r.code not in (0, 3):
            ctx.check.skip(f"{plan.command}: refused")
            continue
        doc = r.json()
        ctx.check.case(plan.cmdline("--format", "json", "--explain"))
        messages = check_explain(doc)
        checked += len(doc.get("explain", {}))
        for message in messages:
            ctx.check.violation(plan.cmdline("--format", "json", "--explain"), message)
        if not ctx.check.selfchecks:
            def perturb(d):
                for key, e in d["explain"].items():
                    section, _, name = key.partition(".")
                    v = d["results"].get(section, {}).get(name) if isinstance(d["results"].get(section), dict) \
                        else None
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and v != 0 and e["substituted"]:
                        d["results"][section][name] = v * 1.0001
                        return
            self_check(ctx, "a value off by 1e-4 beside its substitution", check_explain, doc, perturb)
    print(f"  {checked} substitutions evaluated")


def check_explain(doc):
    out = []
    for key, e in doc.get("explain", {}).items():
        section, _, name = key.partition(".")
        rows = doc["results"].get(section)
        if not isinstance(rows, dict) or name not in rows:
            out.append(f"explain.{key} names no result")
            continue
        value = rows[name]
        sub = e.get("substituted", "")
        if value is None:
            if sub:
                out.append(f"{key} is null but has the substitution {sub!r}")
            continue
        if not sub or isinstance(value, str):
            continue
        try:
            why = explain_holds(sub, value)
        except (ExplainError, ValueError, OverflowError) as err:
            why = f"cannot be evaluated: {err}"
        if why:
            out.append(f"{key} = {e.get('formula')} = {sub} -> {json.dumps(value)}: {why}")
    return out


# ================================================================================================
# Monotonicity: more of an input never helps where it only costs.

def answered_groups(ctx, groups):
    """(group, answers) for each group of plans, all of them through one batch process; a group
    with a plan that was not answered is left out."""
    flat = [p for g in groups for p in g]
    answers = ctx.answers(flat)
    out = []
    k = 0
    for g in groups:
        got = answers[k:k + len(g)]
        k += len(g)
        if all(a is not None for a in got):
            out.append((g, got))
    return out


def monotone(ctx, name, chains, checks):
    """chains: lists of plans that differ in one input, in increasing order. checks: (command,
    path, direction, what) with direction +1 (never smaller along the chain) or -1 (never larger);
    path 'section.key' on the results. Every chain goes through one batch process."""
    data = []
    for chain, got in answered_groups(ctx, chains):
        data.append({"plans": [p.cmdline("--format", "json") for p in chain], "results": got,
                     "command": chain[0].command})
    for d in data:
        ctx.check.case(d["plans"][0])
        for message, pair in check_monotone(d, checks):
            ctx.check.violation(" ; ".join(pair), message)
    for d in data:
        numeric = [x for x in checks if x[0] == d["command"] and isinstance(_lookup(d["results"][-1], x[1]), (int, float))
                   and not isinstance(_lookup(d["results"][-1], x[1]), bool)]
        if not numeric:
            continue
        command, path, direction, what = numeric[0]

        def perturb(bad, path=path, direction=direction):
            section, _, key = path.partition(".")
            last = bad["results"][-1][section][key]
            bad["results"][0][section][key] = last + abs(last) + 1 if direction > 0 else last - abs(last) - 1
        self_check(ctx, f"{command}: {path} moved against its direction ({what})",
                   lambda bad: check_monotone(bad, checks), d, perturb)
        break
    return data


def _lookup(results, path):
    section, _, key = path.partition(".")
    rows = results.get(section)
    return rows.get(key) if isinstance(rows, dict) else None


def check_monotone(d, checks):
    out = []
    for command, path, direction, what in checks:
        if command != d["command"]:
            continue
        for i in range(len(d["results"]) - 1):
            a, b = _lookup(d["results"][i], path), _lookup(d["results"][i + 1], path)
            if a is None or b is None:
                continue
            if isinstance(a, bool):  # a verdict: "fits" never comes back once lost (direction -1)
                bad = (not a and b) if direction < 0 else (a and not b)
            else:
                bad = (b < a and not close(a, b, 1e-12)) if direction > 0 else (b > a and not close(a, b, 1e-12))
            if bad:
                out.append((f"{path} {'fell' if direction > 0 else 'rose'} from {a!r} to {b!r} ({what})",
                            (d["plans"][i], d["plans"][i + 1])))
    return out


def chain_of(plan, flag, values):
    return [plan.replacing(flag, v) for v in values]


def increasing(draw, n=3, rng=None):
    """n increasing values: drawn independently (a wide spread), or, with `rng` and half the time, a
    draw and its near neighbours (steps of a tenth or a hundredth of it), where a local dip shows."""
    if rng is not None and rng.random() < 0.5:
        base = max(1, draw())
        step = max(1, base // rng.choice([10, 100]))
        return [base + k * step for k in range(n)]
    values = set()
    for _ in range(20):
        values.add(draw())
        if len(values) == n:
            break
    return sorted(values)


@invariant
def monotone_in_context(ctx):
    """More context never less KV per sequence, never more sequences that fit, never fewer required
    bytes, never a faster decode step; a longer prompt never a shorter prefill."""
    chains = []
    for i in range(ctx.n(48)):
        command = ["kv", "memory", "decode", "prefill", "serve"][i % 5]
        plan = ctx.gen.plan(command).without("draft", "acceptance", "draft-len", "concurrency", "tpot", "shared-prefix")
        if command == "prefill" or command == "serve":
            chains.append(chain_of(plan, "prompt", increasing(ctx.gen.prompt, rng=ctx.rng)))
        else:
            chains.append(chain_of(plan, "context", increasing(ctx.gen.context, rng=ctx.rng)))
    monotone(ctx, "context", chains, [
        ("kv", "kv.kv_cache_bytes_per_sequence", +1, "KV per sequence"),
        ("kv", "kv.kv_cache_bytes_batch", +1, "KV of the batch"),
        ("memory", "capacity.required_bytes", +1, "required bytes"),
        ("memory", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
        ("memory", "capacity.fits", -1, "fits"),
        ("memory", "deployment.kv_bytes_per_sequence_per_device", +1, "KV per device"),
        ("memory", "deployment.max_sequences_per_replica", -1, "sequences per replica"),
        ("decode", "decode.kv_bytes_per_step", +1, "KV read per step"),
        ("decode", "decode.step_time_s", +1, "step floor"),
        ("decode", "decode.decode_tokens_per_s", -1, "aggregate tokens/s"),
        ("decode", "decode.fits", -1, "fits"),
        ("prefill", "prefill.prefill_flop", +1, "prefill FLOPs"),
        ("prefill", "prefill.ttft_floor_s", +1, "TTFT floor"),
        ("serve", "latency.ttft_floor_s", +1, "TTFT floor"),
        ("serve", "capacity.required_bytes", +1, "required bytes"),
        ("serve", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
    ])


@invariant
def monotone_in_batch(ctx):
    """More batch never a shorter step or fewer aggregate tokens/s (decode), never less KV or fewer
    required bytes, never a longer context that fits, never a shorter prefill."""
    chains = []
    for i in range(ctx.n(48)):
        command = ["kv", "memory", "decode", "prefill", "decode"][i % 5]
        plan = ctx.gen.plan(command).without("draft", "acceptance", "draft-len")
        chains.append(chain_of(plan, "batch", increasing(ctx.gen.batch, rng=ctx.rng)))
    monotone(ctx, "batch", chains, [
        ("kv", "kv.kv_cache_bytes_batch", +1, "KV of the batch"),
        ("memory", "capacity.required_bytes", +1, "required bytes"),
        ("memory", "capacity.max_context_tokens", -1, "longest context that fits"),
        ("memory", "capacity.fits", -1, "fits"),
        ("decode", "decode.step_time_s", +1, "step floor"),
        ("decode", "decode.flop_per_step", +1, "FLOPs per step"),
        ("decode", "decode.bytes_per_step", +1, "bytes per step"),
        ("decode", "decode.decode_tokens_per_s", +1, "aggregate tokens/s"),
        ("decode", "decode.decode_tokens_per_s_per_sequence", -1, "tokens/s per sequence"),
        ("prefill", "prefill.prefill_flop", +1, "prefill FLOPs"),
        ("prefill", "prefill.ttft_floor_s", +1, "TTFT floor"),
    ])


@invariant
def monotone_in_devices(ctx):
    """More devices (--gpus, one ideal device) never fewer sequences, a shorter longest context or a
    slower step; under ZeRO 1-3 more data-parallel devices never more model states per device."""
    chains = []
    for i in range(ctx.n(48)):
        if i % 3 == 2:
            plan = ctx.gen.plan("train").without("pp", "grad-accum", "ep", "lora", "qlora", "fsdp", "shard-group")
            t = plan.get("tp", 1)
            plan = plan.replacing("zero", ctx.rng.choice([1, 2, 3]))
            chains.append(chain_of(plan, "gpus", [t * d for d in increasing(lambda: ctx.rng.choice([1, 2, 4, 8, 64]))]))
        else:
            command = ["memory", "decode"][i % 3]
            plan = ctx.gen.plan(command, layout=False).without("draft", "acceptance", "draft-len")
            chains.append(chain_of(plan, "gpus", increasing(lambda: ctx.rng.choice([1, 2, 3, 4, 8, 16]))))
    monotone(ctx, "devices", chains, [
        ("memory", "capacity.max_concurrent_sequences", +1, "sequences that fit"),
        ("memory", "capacity.max_context_tokens", +1, "longest context that fits"),
        ("memory", "capacity.fits", +1, "fits"),
        ("decode", "decode.step_time_s", -1, "step floor"),
        ("decode", "decode.fits", +1, "fits"),
        ("train", "train_memory.model_state_bytes", -1, "model states per device"),
        ("train", "train_memory.optimizer_state_bytes", -1, "optimizer states per device"),
        ("train", "train_memory.gradient_bytes", -1, "gradients per device"),
        ("train", "train_memory.weight_bytes", -1, "weights per device"),
    ])


@invariant
def monotone_in_zero_stage(ctx):
    """A higher ZeRO stage (0 to 3, the same layout) never more weights, gradients, optimizer states or
    model states per device."""
    chains = []
    for i in range(ctx.n(48)):
        plan = ctx.gen.plan("train").without("fsdp", "zero")
        chains.append(chain_of(plan, "zero", [0, 1, 2, 3]))
    monotone(ctx, "zero", chains, [
        ("train", "train_memory.model_state_bytes", -1, "model states per device"),
        ("train", "train_memory.optimizer_state_bytes", -1, "optimizer states per device"),
        ("train", "train_memory.gradient_bytes", -1, "gradients per device"),
        ("train", "train_memory.weight_bytes", -1, "weights per device"),
    ])


@invariant
def monotone_in_tensor_degree(ctx):
    """A higher tensor-parallel degree t (the same p and d) never more parameters, weights or KV per
    device (train, and memory and decode on a serving layout)."""
    chains = []
    for i in range(ctx.n(48)):
        command = ["train", "memory", "decode"][i % 3]
        model = ctx.gen.model()
        degrees = ctx.cat.heads_split(model)
        if len(degrees) < 2:
            ctx.check.skip("the heads split over one degree only")
            continue
        ts = sorted(ctx.rng.sample(degrees, min(3, len(degrees))))
        if command == "train":
            plan = ctx.gen.plan("train", model=model).without("tp", "sp", "ep", "gpus", "grad-accum")
            p = plan.get("pp", 1)
            chains.append([plan.replacing("tp", t).replacing("gpus", t * p) for t in ts])
        else:
            plan = ctx.gen.plan(command, model=model, layout=True).without("ep", "tp", "draft", "acceptance",
                                                                             "draft-len")
            chains.append(chain_of(plan, "tp", ts))
    monotone(ctx, "tp", chains, [
        ("train", "train_memory.params_per_device", -1, "parameters per device"),
        ("train", "train_memory.weight_bytes", -1, "weights per device"),
        ("memory", "deployment.params_per_device", -1, "parameters per device"),
        ("memory", "deployment.weight_bytes_per_device", -1, "weights per device"),
        ("memory", "deployment.kv_bytes_per_sequence_per_device", -1, "KV per sequence per device"),
        ("decode", "deployment.params_per_device", -1, "parameters per device"),
        ("decode", "deployment.weight_bytes_per_device", -1, "weights per device"),
        ("decode", "deployment.kv_bytes_per_sequence_per_device", -1, "KV per sequence per device"),
    ])


WEIGHT_BITS = ["2", "3", "4", "4.125", "4.5", "5.5", "6.5625", "8", "8.5", "16", "32"]


@invariant
def monotone_in_weight_bits(ctx):
    """More bits per weight (--weight-bits, the compute type fixed) never fewer weight bytes, fewer
    required bytes, more sequences that fit, or a faster decode step."""
    chains = []
    for i in range(ctx.n(48)):
        command = ["params", "memory", "decode", "serve"][i % 4]
        plan = ctx.gen.plan(command).without("dtype", "weight-bits", "draft", "acceptance", "draft-len")
        if command in ("decode", "serve"):
            plan = plan.replacing("compute-dtype", "bf16")
        bits = sorted(ctx.rng.sample(WEIGHT_BITS, 3), key=float)
        chains.append(chain_of(plan, "weight-bits", bits))
    monotone(ctx, "bits", chains, [
        ("params", "weights.weight_bytes", +1, "weight bytes"),
        ("memory", "capacity.weight_bytes", +1, "weight bytes"),
        ("memory", "capacity.required_bytes", +1, "required bytes"),
        ("memory", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
        ("memory", "capacity.fits", -1, "fits"),
        ("decode", "decode.weight_bytes_per_step", +1, "weights read per step"),
        ("decode", "decode.step_time_s", +1, "step floor"),
        ("serve", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
        ("serve", "latency.tpot_floor_s", +1, "TPOT floor"),
    ])


@invariant
def monotone_in_reserve(ctx):
    """A larger runtime reserve never more free memory, more sequences that fit, a longer context,
    fewer required bytes (memory, serve) or more training headroom (train)."""
    chains = []
    for i in range(ctx.n(48)):
        command = ["memory", "serve", "train"][i % 3]
        plan = ctx.gen.plan(command).without("reserve", "concurrency", "tpot")
        if ctx.gen.chance(0.5):
            values = [f"{v}%" for v in sorted(ctx.rng.sample([0, 1, 5, 10, 25, 50], 3))]
        else:
            values = [f"{v}MiB" for v in sorted(ctx.rng.sample([0, 256, 1024, 4096, 16384], 3))]
        chains.append(chain_of(plan, "reserve", values))
    monotone(ctx, "reserve", chains, [
        ("memory", "capacity.free_for_kv_bytes", -1, "free for KV"),
        ("memory", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
        ("memory", "capacity.max_context_tokens", -1, "longest context"),
        ("memory", "capacity.required_bytes", +1, "required bytes"),
        ("memory", "capacity.fits", -1, "fits"),
        ("serve", "capacity.max_concurrent_sequences", -1, "sequences that fit"),
        ("serve", "steady_state.max_concurrency_sequences", -1, "the KV budget's sequences"),
        ("train", "train_memory.total_bytes", +1, "total per device"),
        ("train", "train_memory.headroom_bytes", -1, "headroom"),
        ("train", "train_memory.fits", -1, "fits"),
    ])


# ================================================================================================
# Conservation: parts add up to their whole.

FORMAT_BITS = {"fp32": 32, "tf32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4, "fp4": 4,
               "q4_0": 4.5, "q4_k": 4.5, "q5_k": 5.5, "q6_k": 6.5625, "q8_0": 8.5, "int4-g128": 4.125,
               "int4-g64": 4.25, "int4-g32": 4.5, "int8-g128": 8.125, "awq-g128": 4.15625, "awq-g64": 4.3125,
               "gptq-g128": 4.15625, "gptq-int8-g128": 8.1875, "mxfp4": 4.25, "mxfp8": 8.25, "nvfp4": 4.5,
               "fp8-block128": 8 + 32 / 16384, "q4_1": 5, "q5_0": 5.5, "q5_1": 6, "q2_k": 2.625, "q3_k": 3.4375,
               "tq1_0": 1.6875, "tq2_0": 2.0625}


def bits_of(plan):
    wb = plan.get("weight-bits")
    if wb is not None:
        return FORMAT_BITS.get(wb, None) or float(wb)
    return FORMAT_BITS[plan.get("dtype", "bf16")]


@invariant
def params_sum_to_total(ctx):
    """Parameters add up: total = non-embedding + embedding + head + positions + vision; the per-matrix
    rows sum to the blocks and each is its per-layer count times its layers; active <= total;
    weight bytes = total x bits / 8 for the format asked and for every row of the dtype table."""
    plans = [ctx.gen.weights(Plan("params", m)) for m in ctx.cat.model_names for _ in range(ctx.scale)]
    answers = ctx.answers(plans)
    data = []
    for plan, a in zip(plans, answers):
        if a is None:
            continue
        m = ctx.cat.models[plan.model]
        published = plan.get("weight-bits") is None and plan.get("dtype") is None and m.get("published_weights")
        d = {"results": a, "bits": bits_of(plan), "arch": m["arch"], "published": published}
        data.append((plan, d))
        ctx.check.case(plan.cmdline("--format", "json"))
        for message in check_params(d):
            ctx.check.violation(plan.cmdline("--format", "json"), message)
    plan, d = data[0]
    self_check(ctx, "embedding off by one", check_params, d,
               lambda b: b["results"]["params"].__setitem__("embedding_params", b["results"]["params"]["embedding_params"] + 1))
    self_check(ctx, "a matrix row off by one", check_params, d,
               lambda b: b["results"]["components"][0].__setitem__("params", b["results"]["components"][0]["params"] + 1))


def check_params(d):
    out = []
    r = d["results"]
    p = r["params"]
    total = p["total_params"]
    parts = p["non_embedding_params"] + p["embedding_params"] + p["lm_head_params"] + p.get("position_params", 0) \
        + p.get("vision_params", 0)
    if parts != total:
        out.append(f"non-embedding + embedding + head + positions + vision = {parts:,} != total {total:,}")
    a = d["arch"]
    norm = {"rmsnorm": 1, "layernorm": 2, "layernorm_nobias": 1}.get(a.get("norm"), 0) * a["d_model"]
    extra = (norm if a.get("embedding_norm") else 0) + 2 * a.get("embed_proj_dim", 0) * a["d_model"] \
        + p.get("cross_attention_params", 0)
    if p["blocks_params"] + p["final_norm_params"] + extra != p["non_embedding_params"]:
        out.append(f"blocks {p['blocks_params']:,} + final norm {p['final_norm_params']:,} + embedding norm, "
                   f"projections and cross-attention {extra:,} != non-embedding {p['non_embedding_params']:,}")
    components = r.get("components", [])
    s = sum(c["params"] for c in components)
    if components and s != p["blocks_params"]:
        out.append(f"the per-matrix rows sum to {s:,}, the blocks are {p['blocks_params']:,}")
    for c in components:
        if c["params"] != c["params_per_layer"] * c["layers"]:
            out.append(f"{c['layer_kind']} {c['component']}: {c['params']:,} != {c['params_per_layer']:,} x "
                       f"{c['layers']} layers")
        if c["active_params_per_layer"] > c["params_per_layer"]:
            out.append(f"{c['layer_kind']} {c['component']}: active {c['active_params_per_layer']:,} > "
                       f"{c['params_per_layer']:,} per layer")
    if p.get("active_params", total) > total:
        out.append(f"active {p['active_params']:,} > total {total:,}")
    want = total * d["bits"] / 8
    if d.get("published") and "checkpoint_bytes" in r["weights"]:
        # The published layout (gpt-oss: MXFP4 experts) against the checkpoint row, which sums the
        # block-scaled matrices one by one (params.cpp checkpoint_bytes).
        want = r["weights"]["checkpoint_bytes"]
        if not close(r["weights"]["weight_bytes"], want, 1e-12):
            out.append(f"weight bytes {r['weights']['weight_bytes']!r} != the checkpoint's {want!r}")
    elif d.get("published"):
        # Another published layout (DeepSeek's FP8 blocks): fewer bytes than bf16, more than 1 a weight.
        if not total < r["weights"]["weight_bytes"] < total * 2:
            out.append(f"weight bytes {r['weights']['weight_bytes']!r} outside ({total:,}, 2 x {total:,})")
    elif not close(r["weights"]["weight_bytes"], want, 1e-12):
        out.append(f"weight bytes {r['weights']['weight_bytes']!r} != {total:,} x {d['bits']} / 8 = {want!r}")
    for row in r.get("weights_by_dtype", []):
        want = total * row["bits_per_weight"] / 8
        if not close(row["weight_bytes"], want, 1e-12):
            out.append(f"weights_by_dtype {row['dtype']}: {row['weight_bytes']!r} != total x "
                       f"{row['bits_per_weight']} / 8 = {want!r}")
    return out


LAYER_SUMS = (("flop", "flop"), ("weight_bytes", "weight_bytes"), ("kv_bytes", "kv_bytes"))


@invariant
def layer_sums_equal_pass(ctx):
    """`layer` adds up and agrees with the pass it lists: each operator table sums to its layer kind's
    row; the kinds times their layers plus the head are the totals; bytes moved = weights + KV +
    activations; and the totals are decode's (or prefill's) FLOPs, weight bytes and KV bytes, and
    the whole pass's floor decode's step floor (prefill's TTFT floor)."""
    plans = []
    for m in ctx.cat.model_names:
        for _ in range(ctx.scale):
            layer = ctx.gen.plan("layer", model=m)
            prefill = layer.get("phase") == "prefill"
            drop = ("phase", "fused", "tokens") + (() if prefill else ("prompt", "lm-head", "attention"))
            companion = Plan("prefill" if prefill else "decode", m, [(f, v) for f, v in layer.flags if f not in drop])
            plans.append((layer, companion))
    answers = ctx.answers([p for pair in plans for p in pair])
    data = []
    for k, (layer, companion) in enumerate(plans):
        a, b = answers[2 * k], answers[2 * k + 1]
        if a is None or b is None:
            continue
        d = {"layer": a, "pass": b, "phase": companion.command, "fused": layer.get("fused", False) is None}
        data.append(d)
        ctx.check.case(layer.cmdline("--format", "json"))
        for message in check_layer(d):
            ctx.check.violation(f"{layer.cmdline('--format', 'json')} ; {companion.cmdline('--format', 'json')}",
                                message)
    d = next(x for x in data if not check_layer(x))
    self_check(ctx, "an operator's FLOPs doubled", check_layer, d,
               lambda b: b["layer"][b["layer"]["layer_kinds"][0]["table"]][1].__setitem__(
                   "flop", 2 * b["layer"][b["layer"]["layer_kinds"][0]["table"]][1]["flop"] + 1))
    self_check(ctx, "decode's KV bytes off by one", check_layer, d,
               lambda b: b["pass"][b["phase"]].__setitem__(
                   "kv_bytes_per_step" if b["phase"] == "decode" else "prefill_kv_written_bytes",
                   b["pass"][b["phase"]]["kv_bytes_per_step" if b["phase"] == "decode"
                                         else "prefill_kv_written_bytes"] + 1e6))


def check_layer(d):
    out = []
    r = d["layer"]
    kinds = r["layer_kinds"]
    total = r["layer"]
    for kind in kinds:
        ops = r.get(kind["table"], [])
        for key, _ in LAYER_SUMS:
            s = sum(o[key] for o in ops)
            if not close(s, kind[key]):
                out.append(f"{kind['table']}: the operators' {key} sum to {s!r}, the {kind['kind']} row says "
                           f"{kind[key]!r}")
        fused = any(o.get("fused") for o in ops)
        s = sum(o["activation_bytes"] for o in ops)
        want = kind["activation_bytes_fused" if fused else "activation_bytes"]
        if not close(s, want):
            out.append(f"{kind['table']}: the operators' activation bytes sum to {s!r}, the row says {want!r}")
        for o in ops:
            if o["bytes"] != o["weight_bytes"] + o["kv_bytes"] + o["activation_bytes"]:
                out.append(f"{kind['table']} {o['id']}: bytes {o['bytes']!r} != weights + KV + activations")
            for key in ("flop", "bytes", "weight_bytes", "kv_bytes", "activation_bytes"):
                if o[key] < 0:
                    out.append(f"{kind['table']} {o['id']}: {key} {o[key]!r} is negative")
    for key, total_key in LAYER_SUMS + (("activation_bytes", "activation_bytes_unfused"),
                                        ("activation_bytes_fused", "activation_bytes_fused")):
        s = sum(k[key] * k["layers"] for k in kinds)
        if not close(s, total[total_key]):
            out.append(f"the layer kinds' {key} x layers + head = {s!r}, the total says {total[total_key]!r}")
    for part in ("unfused", "fused"):
        want = total["weight_bytes"] + total["kv_bytes"] + total[f"activation_bytes_{part}"]
        if not close(total[f"bytes_{part}"], want):
            out.append(f"bytes moved {part} {total[f'bytes_{part}']!r} != weights + KV + activations = {want!r}")
    if d["phase"] == "decode":
        p = d["pass"]["decode"]
        pairs = (("flop", "flop_per_step"), ("weight_bytes", "weight_bytes_per_step"), ("kv_bytes", "kv_bytes_per_step"),
                 ("whole_pass_time_s", "step_time_s"))
    else:
        p = d["pass"]["prefill"]
        pairs = (("flop", "prefill_flop"), ("weight_bytes", "prefill_weight_bytes"),
                 ("kv_bytes", "prefill_kv_written_bytes"), ("whole_pass_time_s", "ttft_floor_s"))
    for mine, theirs in pairs:
        if not close(total.get(mine), p.get(theirs)):
            out.append(f"layer's {mine} = {total.get(mine)!r}, {d['phase']}'s {theirs} = {p.get(theirs)!r}")
    return out


@invariant
def memory_terms_sum_to_total(ctx):
    """Memory terms add up: KV per token is its layer ranges', per sequence each range's tokens (its
    window) plus the recurrent state, the batch's per sequence x batch; required = weights + batch x
    KV per sequence + reserve, free = capacity - reserve - weights, sequences = floor(free / KV per
    sequence) (capped at 2^62); capacity = per device x devices; a decode step's bytes = weights +
    KV read, its KV = batch x KV per sequence; on a layout (no pipeline) required per device =
    weights + batch x KV per device + reserve; train: model states = weights + gradients +
    optimizer states, total = states + max(activations + ZeRO-3 buffers, optimizer step) +
    reserve."""
    groups = []
    for i in range(ctx.n(96)):
        command = ["memory", "decode", "serve", "report", "train", "memory"][i % 6]
        plan = ctx.gen.plan(command).without("draft", "acceptance", "draft-len")
        if command == "serve":
            plan = plan.without("batch")
        if command == "train":
            groups.append([plan])
            continue
        context = plan.get("context") if command != "serve" else None
        if command == "serve":
            context = plan.get("prompt", 2048) + plan.get("output", 256)
        kv = Plan("kv", plan.model, [("context", context)] if context is not None else [])
        if plan.get("kv-dtype"):
            kv = kv.with_flags(("kv-dtype", plan.get("kv-dtype")))
        groups.append([plan, kv])
    data = []
    for g, got in answered_groups(ctx, groups):
        plan = g[0]
        devices = plan.get("gpus")
        if devices is None and plan.command != "train":
            devices = plan.get("tp", 1) * plan.get("pp", 1) * plan.get("dp", 1)
        d = {"command": plan.command, "results": got[0], "kv": got[1] if len(got) > 1 else None,
             "batch": plan.get("batch", 1) if plan.command != "serve" else None, "devices": devices,
             "weights": ctx.cat.models[plan.model]["params"]["total_params"] * bits_of(plan) / 8,
             "pipeline": plan.get("pp", 1) > 1, "micro_batches": plan.get("micro-batches", 1),
             "serve": plan.command == "serve", "arch": ctx.cat.models[plan.model].get("arch") or {}}
        data.append(d)
        command = " ; ".join(p.cmdline("--format", "json") for p in g)
        ctx.check.case(command)
        for message in check_memory_terms(d):
            ctx.check.violation(command, message)
    d = next(x for x in data if x["command"] == "memory" and not check_memory_terms(x))
    # Off by one byte, or by a part in 10^9 where one byte is below the comparison's tolerance (a
    # terabyte-scale model's required bytes are not integers below 2^53).
    self_check(ctx, "required bytes off by one", check_memory_terms, d,
               lambda b: b["results"]["capacity"].__setitem__(
                   "required_bytes", b["results"]["capacity"]["required_bytes"] +
                   max(1, b["results"]["capacity"]["required_bytes"] * 1e-9)))
    d = next(x for x in data if x["command"] == "train" and not check_memory_terms(x))
    self_check(ctx, "train: gradients off by one", check_memory_terms, d,
               lambda b: b["results"]["train_memory"].__setitem__("gradient_bytes",
                                                                  b["results"]["train_memory"]["gradient_bytes"] + 1))


def check_memory_terms(d):
    out = []
    r = d["results"]
    kvr = d["kv"]
    if kvr is not None:
        kv = kvr["kv"]
        layers = kvr.get("kv_layers", [])
        per_token = sum(x["kv_cache_bytes_per_token_per_layer"] * x["layers"] for x in layers)
        if layers and not close(per_token, kv["kv_cache_bytes_per_token"]):
            out.append(f"kv: the layer ranges hold {per_token!r} B per token, kv_cache_bytes_per_token is "
                       f"{kv['kv_cache_bytes_per_token']!r}")
    cap = r.get("capacity")
    if cap is not None and kvr is not None:
        per_seq = kvr["kv"]["kv_cache_bytes_per_sequence"]
        if d["batch"] is not None:
            want = cap["weight_bytes"] + d["batch"] * per_seq + cap["reserve_bytes"]
            if not close(cap["required_bytes"], want):
                out.append(f"required {cap['required_bytes']!r} != weights {cap['weight_bytes']!r} + "
                           f"{d['batch']} x KV {per_seq!r} + reserve {cap['reserve_bytes']!r} = {want!r}")
        free = cap["capacity_bytes"] - cap["reserve_bytes"] - cap["weight_bytes"]
        if not close(cap["free_for_kv_bytes"], free):
            out.append(f"free for KV {cap['free_for_kv_bytes']!r} != capacity - reserve - weights = {free!r}")
        if not close(cap["weight_bytes"], d["weights"], 1e-12):
            out.append(f"weights {cap['weight_bytes']!r} != total parameters x bits / 8 = {d['weights']!r}")
        if d["devices"] and cap["capacity_bytes"] != cap["capacity_per_device_bytes"] * d["devices"]:
            out.append(f"capacity {cap['capacity_bytes']!r} != {cap['capacity_per_device_bytes']!r} x "
                       f"{d['devices']} devices")
        n = cap.get("max_concurrent_sequences")
        if per_seq > 0 and n is not None and not d["serve"]:
            want = min(MAX_COUNT, max(0, math.floor(free / per_seq)))
            if n != want and not (abs(free / per_seq - round(free / per_seq)) < 1e-9 and abs(n - want) == 1):
                out.append(f"most sequences {n} != floor(free {free!r} / KV per sequence {per_seq!r}) = {want}")
    dec = r.get("decode")
    if dec is not None and kvr is not None:
        if not close(dec["bytes_per_step"], dec["weight_bytes_per_step"] + dec["kv_bytes_per_step"]):
            out.append(f"decode: bytes per step {dec['bytes_per_step']!r} != weights {dec['weight_bytes_per_step']!r}"
                       f" + KV {dec['kv_bytes_per_step']!r}")
        want = d["batch"] * kvr["kv"]["kv_cache_bytes_per_sequence"]
        indexer = d["arch"].get("indexer")
        if indexer:
            # DSA: a step reads the indexer keys of all T cached tokens and the attention cache of the
            # top k only, b L ((e - d_I) min(T, k) + d_I T); T from what the cache holds, b L e T.
            e = kvr["kv"]["kv_elements_per_token_per_layer"]
            per_token = kvr["kv"]["kv_cache_bytes_per_token"]
            tokens = kvr["kv"]["kv_cache_bytes_per_sequence"] / per_token
            d_i = indexer["head_dim"]
            want = d["batch"] * per_token / e * ((e - d_i) * min(tokens, indexer["topk"]) + d_i * tokens)
        if not close(dec["kv_bytes_per_step"], want):
            out.append(f"decode: KV read {dec['kv_bytes_per_step']!r} != batch {d['batch']} x KV per sequence = {want!r}")
    dep = r.get("deployment")
    if dep is not None and kvr is not None and not d["pipeline"] and d["batch"] is not None \
            and dep.get("required_bytes_per_device") is not None and cap is not None:
        per_dev = dep["kv_bytes_per_sequence_per_device"]
        reserve = cap["reserve_bytes"] / d["devices"] if d["devices"] else 0
        want = dep["weight_bytes_per_device"] + d["batch"] * per_dev + reserve
        if not close(dep["required_bytes_per_device"], want):
            out.append(f"deployment: required per device {dep['required_bytes_per_device']!r} != weights "
                       f"{dep['weight_bytes_per_device']!r} + {d['batch']} x KV {per_dev!r} + reserve {reserve!r}")
    if dep is not None and kvr is not None and dep.get("kv_bytes_per_sequence_per_device") is not None:
        # A hybrid's recurrent state splits by its own share (SSM heads), the attention KV by the KV heads'.
        state = kvr["kv"].get("state_bytes_per_sequence") or 0
        state_share = dep.get("state_share_per_device")
        want = (kvr["kv"]["kv_cache_bytes_per_sequence"] - state) * dep["kv_share_per_device"] + \
            state * (state_share if state_share is not None else dep["kv_share_per_device"]) \
            if dep.get("kv_share_per_device") is not None else None
        if want is not None and not close(dep["kv_bytes_per_sequence_per_device"], want):
            out.append(f"deployment: KV per device {dep['kv_bytes_per_sequence_per_device']!r} != KV per sequence x "
                       f"share {dep['kv_share_per_device']!r} = {want!r}")
    if dep is not None and d["pipeline"] and dep.get("first_stage_required_bytes") is not None:
        want = max(dep["first_stage_required_bytes"], dep.get("last_stage_required_bytes") or 0)
        if not close(dep["required_bytes_per_device"], want):
            out.append(f"deployment: required per device {dep['required_bytes_per_device']!r} != the larger "
                       f"stage's {want!r}")
    tm = r.get("train_memory")
    if tm is not None:
        states = tm["weight_bytes"] + tm["gradient_bytes"] + tm["optimizer_state_bytes"]
        if not close(tm["model_state_bytes"], states):
            out.append(f"train: model states {tm['model_state_bytes']!r} != weights + gradients + optimizer = "
                       f"{states!r}")
        live = tm["activation_bytes"] + (tm.get("zero3_gathered_bytes") or 0) + \
            (tm.get("zero3_unsharded_gradient_bytes") or 0)
        step = tm.get("optimizer_temporary_bytes") or 0
        want = tm["model_state_bytes"] + max(live, step) + tm["reserve_bytes"]
        if not close(tm["total_bytes"], want):
            out.append(f"train: total {tm['total_bytes']!r} != states + max(activations + ZeRO-3 buffers "
                       f"{live!r}, optimizer step {step!r}) + reserve = {want!r}")
    return out


# ================================================================================================
# Fit: a verdict is its arithmetic.

@invariant
def fit_is_required_within_capacity(ctx):
    """Every fit verdict is its arithmetic: capacity.fits = required <= capacity; devices_needed =
    ceil((required - reserve) / (capacity - reserve) per device); decode's and prefill's fits and
    devices_needed are memory's at the same batch and context (prompt); on a layout fits_per_device
    = required per device <= capacity per device; train: fits = total <= capacity, headroom =
    capacity - total. Half the cases run again with --gpu-memory at the boundary: the bytes the first
    run required, and one byte less."""
    groups = []
    for i in range(ctx.n(96)):
        command = ["memory", "decode", "prefill", "serve", "train", "memory"][i % 6]
        plan = ctx.gen.plan(command).without("draft", "acceptance", "draft-len")
        if command in ("decode", "prefill"):
            groups.append([plan, companion_memory(plan)])
        else:
            groups.append([plan])
    data = fit_cases(ctx, groups)
    # The boundary: a capacity per device of exactly what the first run needed, and one byte less.
    edges = []
    for g, d in data:
        plan = g[0]
        if len(edges) >= ctx.n(48) or "%" in str(plan.get("reserve", "")) or plan.get("gpu-memory"):
            continue
        need = boundary_bytes(d)
        if need is None or need < 2:
            continue
        for capacity in (need, need - 1):
            p = plan.replacing("gpu-memory", f"{capacity}B")
            edges.append([p, companion_memory(p)] if len(g) > 1 else [p])
    fit_cases(ctx, edges)
    d = next(x for _, x in data if x["command"] == "memory" and not check_fit(x))
    self_check(ctx, "a fit verdict flipped", check_fit, d,
               lambda b: b["results"]["capacity"].__setitem__("fits", not b["results"]["capacity"]["fits"]))
    d = next(x for _, x in data if x["command"] == "train" and not check_fit(x))
    self_check(ctx, "train headroom off by one", check_fit, d,
               lambda b: b["results"]["train_memory"].__setitem__("headroom_bytes",
                                                                  b["results"]["train_memory"]["headroom_bytes"] + 1))


def companion_memory(plan):
    """The memory command at a decode's (prefill's) workload: its batch and context (the prompt)."""
    mem = Plan("memory", plan.model, [(f, v) for f, v in plan.flags if f in (
        "gpu", "gpus", "gpu-memory", "batch", "context", "dtype", "weight-bits", "kv-dtype", "reserve", "tp", "pp", "dp",
        "ep", "micro-batches")])
    if plan.command == "prefill":
        mem = mem.replacing("context", plan.get("prompt", 2048))
    return mem


def boundary_bytes(d):
    """The capacity per device at which a case's verdict turns: what one device must hold."""
    r = d["results"]
    if r.get("deployment") is not None:
        need = r["deployment"].get("required_bytes_per_device")
    elif r.get("train_memory") is not None:
        need = r["train_memory"]["total_bytes"]
    elif r.get("capacity") is not None:
        need = r["capacity"]["required_bytes"] / (d["devices"] or 1)
    elif d["memory"] is not None:
        need = d["memory"]["capacity"]["required_bytes"] / (d["devices"] or 1)
    else:
        return None
    return math.ceil(need) if need is not None and math.isfinite(need) and need < 2 ** 62 else None


def fit_cases(ctx, groups):
    data = []
    for g, got in answered_groups(ctx, groups):
        d = {"command": g[0].command, "results": got[0], "memory": got[1] if len(got) > 1 else None,
             "devices": g[0].get("gpus") or (g[0].get("tp", 1) * g[0].get("pp", 1) * g[0].get("dp", 1))}
        data.append((g, d))
        command = " ; ".join(p.cmdline("--format", "json") for p in g)
        ctx.check.case(command)
        for message in check_fit(d):
            ctx.check.violation(command, message)
    return data


def devices_to_fit(need, usable):
    if usable <= 0:
        return None
    return int(min(max(math.ceil(need / usable), 1), MAX_COUNT))


def check_fit(d):
    out = []
    r = d["results"]
    cap = r.get("capacity")
    if cap is not None:
        if cap["fits"] != (cap["required_bytes"] <= cap["capacity_bytes"]):
            out.append(f"fits {cap['fits']} but required {cap['required_bytes']!r} vs capacity {cap['capacity_bytes']!r}")
        devices = d["devices"] or 1
        usable = cap["capacity_per_device_bytes"] - cap["reserve_bytes"] / devices
        want = devices_to_fit(cap["required_bytes"] - cap["reserve_bytes"], usable)
        if cap.get("devices_needed") != want:
            out.append(f"devices_needed {cap.get('devices_needed')} != ceil((required - reserve) / (capacity - reserve)"
                       f" per device) = {want}")
    dep = r.get("deployment")
    if dep is not None:
        need = dep.get("required_bytes_per_device")
        fits = dep.get("fits_per_device")
        if need is None:
            out.append(f"deployment: fits_per_device {fits} with required_bytes_per_device null")
        elif fits != (need <= dep["capacity_bytes_per_device"]):
            out.append(f"deployment: fits_per_device {fits} but required {need!r} vs capacity "
                       f"{dep['capacity_bytes_per_device']!r}")
    for section in ("decode", "prefill"):
        s = r.get(section)
        if s is not None and d["memory"] is not None:
            m = d["memory"]["capacity"]
            if s["fits"] != m["fits"] or s["devices_needed"] != m["devices_needed"]:
                out.append(f"{section}: fits {s['fits']}, devices_needed {s['devices_needed']}; memory at the same "
                           f"workload: fits {m['fits']}, devices_needed {m['devices_needed']}")
    tm = r.get("train_memory")
    if tm is not None:
        if tm["fits"] != (tm["total_bytes"] <= tm["capacity_bytes"]):
            out.append(f"train: fits {tm['fits']} but total {tm['total_bytes']!r} vs capacity {tm['capacity_bytes']!r}")
        if tm["headroom_bytes"] != tm["capacity_bytes"] - tm["total_bytes"]:
            out.append(f"train: headroom {tm['headroom_bytes']!r} != capacity - total = "
                       f"{tm['capacity_bytes'] - tm['total_bytes']!r}")
    return out


# ================================================================================================
# The schema.

@invariant
def json_schema_valid(ctx):
    """Every JSON document validates against docs/roofline.schema.json (2020-12): single runs of every
    command (with --explain at times), sweeps of every sweepable flag, compare documents, and each
    batch answer's results against its command's results schema."""
    try:
        import jsonschema
    except ImportError:
        print("python3-jsonschema is missing; apt-get install python3-jsonschema")
        sys.exit(1)
    schema = json.loads((ctx.source / "docs" / "roofline.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    results = {}

    def results_validator(command):
        if command not in results:
            sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/results_{command}"}
            results[command] = jsonschema.Draft202012Validator(sub)
        return results[command]

    def errors(v, doc):
        return list(dict.fromkeys(m for e in sorted(v.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
                                  for m in schema_errors(e)))

    def check_doc(doc):
        return errors(validator, doc)

    docs = []
    commands = BATCH_COMMANDS + ["gemm"]
    sweeps = dict(SWEEP_AXES, plan=["context"])
    for i in range(ctx.n(10)):
        command = commands[i % len(commands)]
        if command == "gemm":
            plan = Plan("gemm", None, [("gpu", ctx.gen.gpu())] if ctx.gen.chance(0.7) else [],
                        positional=[str(log_uniform_int(ctx.rng, 1, 65536)) for _ in range(3)])
        else:
            plan = ctx.gen.plan(command)
        if command in sweeps and ctx.gen.chance(0.4):  # a sweep of one of its flags
            axis = ctx.rng.choice(sweeps[command])
            if command == "train" and axis == "tp":
                axis = "seq"
            if command == "plan":
                values = sorted(ctx.rng.sample(range(1, 131_073), 2))
            else:
                values = axis_values(ctx, plan, axis)
            plan = plan.without(axis).with_flags((axis, ",".join(map(str, values))))
        elif command != "gemm" and ctx.gen.chance(0.3):
            plan = plan.with_flags(("explain", None))
        docs.append(plan)
    docs += [Plan("gpus"), Plan("models")]
    for i in range(ctx.n(1)):
        q = ctx.rng.choice(["decode", "memory", "serve"])
        plan = ctx.gen.plan(q, layout=False).without("draft", "acceptance", "draft-len", "ep", "moe-decode")
        docs.append(Plan("compare", plan.model, plan.replacing("gpu", f"{plan.get('gpu')},{ctx.gen.gpu()}").flags,
                         positional=[q]))
    first = None
    for plan in docs:
        r = ctx.single(plan.argv("--format", "json"))
        if r is None:
            continue
        if r.code not in (0, 3):
            ctx.check.skip(f"{plan.command}: refused")
            continue
        doc = r.json()
        ctx.check.case(plan.cmdline("--format", "json"))
        first = first or doc
        for message in check_doc(doc):
            ctx.check.violation(plan.cmdline("--format", "json"), message)
    plans = [ctx.gen.plan(BATCH_COMMANDS[i % len(BATCH_COMMANDS)]) for i in range(ctx.n(len(ctx.cat.model_names)))]
    for plan, a in zip(plans, ctx.answers(plans)):
        if a is None:
            continue
        ctx.check.case(plan.cmdline("--format", "json"))
        for message in errors(results_validator(plan.command), a):
            ctx.check.violation(plan.cmdline("--format", "json"), "results/" + message)
    bad = copy.deepcopy(first)
    bad["schema_version"] = 2
    ctx.check.selfcheck("a document with schema_version 2", bool(check_doc(bad)))
    doc = json.loads(ctx.runner.run(["kv", "llama3-8b", "--format", "json"]).out)
    doc["results"]["kv"]["kv_cache_bytes_per_token"] = -1
    ctx.check.selfcheck("a negative KV size", bool(check_doc(doc)))
    # Byte shares and averages may be fractional (docs/json.md, N9), never negative.
    doc = json.loads(ctx.runner.run(["train", "llama3-8b", "--gpu", "h100-sxm", "--format", "json"]).out)
    doc["results"]["train_memory"]["total_bytes"] = -doc["results"]["train_memory"]["total_bytes"]
    ctx.check.selfcheck("a negative train total", bool(check_doc(doc)))


def schema_errors(e):
    """'path: message' for each leaf of a schema error: an anyOf or oneOf (results: an object or a
    sweep's array) gives the deepest errors of its alternatives, which say what is wrong."""
    leaves = []

    def walk(err):
        if err.context:
            for c in err.context:
                walk(c)
        else:
            leaves.append(err)
    walk(e)
    depth = max(len(list(x.absolute_path)) for x in leaves)
    deepest = [x for x in leaves if len(list(x.absolute_path)) == depth] if depth > len(list(e.absolute_path)) else [e]
    return [f"{'/'.join(map(str, x.absolute_path))}: {x.message[:160]}" for x in deepest]


# ================================================================================================
# The machinery itself: the evaluator, the comparisons and the known-failure list, on fixed inputs.

def machinery():
    """The suite's own parts on fixed inputs: the interval evaluator, the JSON and CSV comparisons,
    the known-failure matcher and the plan's two spellings. Exit 1 on any wrong answer."""
    import tempfile
    wrong = []

    def expect(what, got, want):
        if got != want:
            wrong.append(f"{what}: got {got!r}, expected {want!r}")
    expect("max(1.95116e-05, 0.00480107) holds 0.0048010688", explain_holds("max(1.95116e-05, 0.00480107)",
                                                                              0.004801068811), None)
    expect("a value past the printed digits fails", explain_holds("0.00480107", 0.0048012) is not None, True)
    expect("grouped integers are exact", explain_holds("131,072 x 8", 1048577) is not None, True)
    expect("grouped integers are exact (holds)", explain_holds("131,072 x 8", 1048576), None)
    expect("floor and division", explain_holds("max(0, floor((17,179,869,184 - 6,463,935,360 - 0) / 131,072))",
                                               81756), None)
    expect("floor and division, one off", explain_holds("max(0, floor((17,179,869,184 - 6,463,935,360 - 0) / "
                                                        "131,072))", 81755) is not None, True)
    expect("a comparison", explain_holds("6,463,935,360 <= 17,179,869,184", True), None)
    expect("a comparison that fails", explain_holds("6,463,935,360 <= 17,179,869,184", False) is not None, True)
    expect("min of three", explain_holds("min(4, 2, 3) x 1.5", 3.0), None)
    expect("a power", explain_holds("(1 - 0.8^5) / (1 - 0.8)", 3.3616), None)
    try:
        explain_holds("24 x n/a x 1", 1.0)
        wrong.append("'24 x n/a x 1' evaluated")
    except ExplainError:
        pass
    expect("diff: int and float alike", diff({"a": [1, 2.0]}, {"a": [1.0, 2]}), None)
    expect("diff: a missing key", diff({"a": 1}, {"a": 1, "b": 2}) is not None, True)
    expect("diff: true is not 1", diff(True, 1) is not None, True)
    expect("csv: empty is null", csv_value("", None), True)
    expect("csv: exact numbers", csv_value("3350000000000", 3.35e12), True)
    expect("csv: a changed digit", csv_value("3350000000001", 3.35e12), False)
    expect("close: integers exact", close(10 ** 12, 10 ** 12 + 1), False)
    expect("close: floats to 1e-12", close(1.0, 1.0 + 1e-14), True)
    p = Plan("decode", "llama3-8b", [("gpu", "h100-sxm"), ("fused", None), ("batch", 8)])
    expect("argv", p.argv(), ["decode", "llama3-8b", "--gpu", "h100-sxm", "--fused", "--batch", "8"])
    expect("batch line", json.loads(p.batch_line()), {"command": "decode", "model": "llama3-8b", "gpu": "h100-sxm",
                                                      "fused": True, "batch": 8})
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("# a comment\nN2  layer_sums_equal_pass  ^roofline layer mamba-2\\.8b\\s  ~ ^layer's flop\n"
                "N3  *  ^roofline memory mamba\n")
    known = KnownFailures(f.name)
    os.unlink(f.name)
    expect("a line of its invariant", bool(known.match("layer_sums_equal_pass", "roofline layer mamba-2.8b --gpu x",
                                                       "layer's flop = 1")), True)
    expect("the message must match", known.match("layer_sums_equal_pass", "roofline layer mamba-2.8b --gpu x",
                                                 "bytes moved"), None)
    expect("another invariant", known.match("fit_is_required_within_capacity", "roofline layer mamba-2.8b --gpu x",
                                            "layer's flop"), None)
    expect("* is any invariant", bool(known.match("anything", "roofline memory mamba-2.8b", "x")), True)
    real = KnownFailures(pathlib.Path(__file__).resolve().parent / "known_failures.txt")
    for line in real.lines:
        if line["invariant"] != "*" and line["invariant"] not in INVARIANTS:
            wrong.append(f"known_failures.txt line {line['number']}: no invariant {line['invariant']!r}")
    for w in wrong:
        print(f"WRONG: {w}")
    print(f"property.machinery: {len(wrong)} wrong answers")
    return 1 if wrong else 0


# ================================================================================================

def main(argv):
    if argv[1:2] == ["--list"]:
        print("\n".join(INVARIANTS))
        return 0
    if argv[1:2] == ["--machinery"]:
        return machinery()
    if len(argv) != 4:
        print(__doc__)
        return 2
    binary, source, name = argv[1:]
    seed = env_int("ROOFLINE_PROPERTY_SEED", 1)
    scale = env_int("ROOFLINE_PROPERTY_SCALE", 1)
    names = list(INVARIANTS) if name == "--all" else [name]
    status = 0
    for n in names:
        if n not in INVARIANTS:
            print(f"unknown invariant {n!r}; invariants: {', '.join(INVARIANTS)}")
            return 2
        ctx = Context(n, binary, source, seed, scale)
        print(f"property.{n}: {INVARIANTS[n].__doc__.split(chr(10))[0]} ...")
        INVARIANTS[n](ctx)
        status |= ctx.check.finish(ctx.runner)
    if status:
        print(f"\nto rerun: ROOFLINE_PROPERTY_SEED={seed} ROOFLINE_PROPERTY_SCALE={scale} "
              f"{' '.join(argv[:3])} {name}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
