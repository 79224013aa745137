#!/usr/bin/env python3
"""Every command on every seed model: instructions (callgrind), peak memory and the JSONL rates.

Runs the roofline binary as a user runs it, one process per command, and prints markdown for
docs/performance.md ("Every command on every seed model"):

  1. instructions: each command on each seed model under
     `valgrind --tool=callgrind --callgrind-out-file=/dev/null`, the "Collected" count, and its
     ratio to an empty dynamically linked C++ program (`int main() { std::cout << ""; }`, g++ -O2),
     which this script compiles and measures the same way;
  2. peak memory: the same runs without valgrind, the child's maximum resident set (wait4);
  3. rates, wall clock and user CPU of the binary writing to /dev/null: `batch` over 100,000
     decode and memory plans, and 1000 x 1000 streamed `memory` and `decode` sweeps
     (`--format jsonl`); with callgrind, the instructions a batch line and a sweep point cost
     (a long run less a short one). roofline_bench (build/bench) times the same work in process.

A command that fails (non-zero exit, a crash, a timeout, valgrind missing) is a cell saying so,
never a stopped run. Usage:

  tests/bench/instructions.py [--binary build/release/src/roofline] [--quick] [--json FILE]
  cmake --build --preset release --target bench-instructions      (the same, from CMake)

--quick: llama3-8b only, 10,000 plans and 100 x 1000 sweeps, one timing run, no per-line
callgrind. Only the Python 3 standard library, valgrind and g++ (for the reference) are used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The models of the seed documents (shared/data/worked-examples.md of the steering material, "Presets used by the
# documents"): Llama 3 8B (seeds 000, 003, 004), Llama 2 7B (002, the "7B MHA"), Llama 2 70B (003),
# GPT-3 175B (003), Llama 3 405B (004, the MFU calibration); and one mixture of experts, which no
# seed has, so that the MoE paths are measured too (Mixtral 8x7B, the help's example).
SEED_MODELS = ["llama3-8b", "llama2-7b", "llama2-70b", "gpt3-175b", "llama3.1-405b", "mixtral-8x7b"]
QUICK_MODELS = ["llama3-8b"]
GPU = "h100-sxm"  # the seeds' accelerator
SECOND_GPU = "mi300x"  # compare's second column (seed 003)

# A fixed, small environment: the dynamic loader's and libc's start-up work depends on the
# environment's size, so a fixed one makes the counts repeat across shells and machines.
BASE_ENV = {"LC_ALL": "C", "PATH": "/usr/bin:/bin", "TERM": "dumb", "COLUMNS": "100"}


@dataclass
class Case:
    label: str  # the row of the table
    args: list[str]  # argv after the binary; "{model}" and "{tmp}" are substituted
    per_model: bool = True


def cases() -> list[Case]:
    g = ["--gpu", GPU]
    return [
        Case("report", ["report", "{model}", *g]),
        Case("report --format json", ["report", "{model}", *g, "--format", "json"]),
        Case("params", ["params", "{model}"]),
        Case("flops", ["flops", "{model}"]),
        Case("kv", ["kv", "{model}"]),
        Case("memory", ["memory", "{model}", *g]),
        Case("decode", ["decode", "{model}", *g]),
        Case("prefill", ["prefill", "{model}", *g]),
        Case("serve", ["serve", "{model}", *g]),
        Case("layer", ["layer", "{model}", *g]),
        Case("train", ["train", "{model}", *g, "--gpus", "64", "--tp", "8", "--zero", "1", "--tokens", "15T"]),
        Case("plan", ["plan", "{model}", *g, "--users", "100", "--tokens-per-s", "20"]),
        Case("plot (terminal)", ["plot", "{model}", *g]),
        Case("plot -o FILE.svg", ["plot", "{model}", *g, "-o", "{tmp}/plot-{model}.svg"]),
        Case("compare decode (2 GPUs)", ["compare", "decode", "{model}", "--gpu", f"{GPU},{SECOND_GPU}"]),
        Case("batch (11 plans, one a command)", ["batch", "{tmp}/plans-{model}.jsonl"]),
        Case("gemm 4096^3", ["gemm", "4096", "4096", "4096", *g], per_model=False),
        Case("gpus", ["gpus"], per_model=False),
        Case("models", ["models"], per_model=False),
        Case("completion bash", ["completion", "bash"], per_model=False),
        Case("--version", ["--version"], per_model=False),
        Case("--help", ["--help"], per_model=False),
    ]


def plans_file(model: str) -> str:
    """One plan a batch command, all on one model: what `batch (11 plans)` answers."""
    lines = []
    for command in ["report", "params", "flops", "kv", "memory", "decode", "prefill", "serve", "layer", "train", "plan"]:
        plan: dict[str, object] = {"command": command, "model": model}
        if command not in ("params", "flops", "kv"):
            plan["gpu"] = GPU
        if command == "plan":
            plan.update({"users": 100, "tokens-per-s": 20})
        lines.append(json.dumps(plan, separators=(",", ":")))
    return "\n".join(lines) + "\n"


def rate_plans(command: str, n: int) -> str:
    """roofline_bench's batch input (section 6): Llama 3 8B on H100 SXM and MI300X in turn, each
    line its own batch and context."""
    gpus = [GPU, SECOND_GPU]
    return "".join(
        f'{{"command":"{command}","model":"llama3-8b","gpu":"{gpus[i % 2]}","batch":{1 + i % 512},'
        f'"context":{1024 + 7 * i}}}\n'
        for i in range(n)
    )


@dataclass
class Run:
    code: int | None = None  # exit code; None: did not run (timeout, missing tool)
    error: str = ""  # why it failed, one line
    instructions: int | None = None
    max_rss_kb: int | None = None
    wall_s: float | None = None
    cpu_s: float | None = None  # user + system


GNU_TIME = "/usr/bin/time"


def run_plain(argv: list[str], timeout: float) -> Run:
    """Runs argv once, output to /dev/null: exit code, wall clock, user CPU and peak memory.

    Peak memory is GNU time's %M when /usr/bin/time exists. Linux keeps a process's maximum
    resident set across exec, so a child forked from this Python process (about 16 MB) would
    report at least Python's size; forked from GNU time (about 1 MB) it reports its own. Without
    GNU time, the child's own wait4 figure is used and is a floor of Python's size."""
    r = Run()
    err_file = tempfile.TemporaryFile()
    rss_file = tempfile.NamedTemporaryFile(prefix="roofline-rss-", delete=False)
    rss_file.close()
    use_time = os.access(GNU_TIME, os.X_OK)
    cmd = [GNU_TIME, "-f", "%M", "-o", rss_file.name, *argv] if use_time else argv
    try:
        t0 = time.perf_counter()
        # Its own process group, so that the timeout kills GNU time's child too.
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_file,
                             env=BASE_ENV, start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (p.pid, signal.SIGKILL))  # wait4 blocks below
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        r.wall_s = time.perf_counter() - t0
        r.code = os.waitstatus_to_exitcode(status)
        p.returncode = r.code  # reaped here, not by Popen
        r.cpu_s = usage.ru_utime + usage.ru_stime  # GNU time's and its child's
        r.max_rss_kb = usage.ru_maxrss
        if use_time:
            lines = Path(rss_file.name).read_text().splitlines()
            r.max_rss_kb = int(lines[-1]) if lines and lines[-1].strip().isdigit() else None
            for line in lines:  # GNU time exits 128 + N when its child dies of signal N
                m = re.match(r"Command terminated by signal (\d+)", line)
                if m:
                    r.code = -int(m.group(1))
        if r.wall_s >= timeout:
            r.error = f"killed at the timeout, {timeout:.0f} s"
        elif r.code != 0:
            err_file.seek(0)
            first = err_file.read().decode("utf-8", "replace").strip().splitlines()
            what = f"killed by signal {-r.code}" if r.code < 0 else f"exit {r.code}"
            if first:  # the first line, short enough for a table cell
                text = first[0] if len(first[0]) <= 60 else first[0][:59].rstrip() + "…"
                what += ": " + text.replace("|", "\\|").replace("`", "'")
            r.error = what
    except OSError as e:
        r.error = f"cannot run: {e}"
    finally:
        err_file.close()
        os.unlink(rss_file.name)
    return r


COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def run_callgrind(argv: list[str], timeout: float) -> tuple[int | None, str]:
    """The "Collected" instruction count of argv under callgrind, or None and why."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None, "valgrind not installed"
    cmd = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env=BASE_ENV, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"callgrind timeout after {timeout:.0f} s"
    except OSError as e:
        return None, f"cannot run valgrind: {e}"
    m = COLLECTED.search(p.stderr.decode("utf-8", "replace"))
    if m is None:
        return None, f"no callgrind count (exit {p.returncode})"
    return int(m.group(1)), ""


def empty_program(tmp: Path) -> tuple[str | None, str]:
    """The reference: an empty C++ program that uses <iostream>, linked dynamically, g++ -O2."""
    gxx = shutil.which("g++")
    if gxx is None:
        return None, "g++ not installed"
    src = tmp / "empty.cpp"
    exe = tmp / "empty"
    src.write_text('#include <iostream>\nint main() { std::cout << ""; }\n')
    p = subprocess.run([gxx, "-O2", str(src), "-o", str(exe)], capture_output=True)
    if p.returncode != 0:
        return None, "g++ failed"
    subprocess.run([str(exe)], env=BASE_ENV)  # warm the page cache
    return str(exe), ""


def mega(n: int) -> str:
    return f"{n / 1e6:.2f} M"


def cell(run: Run, reference: int | None) -> str:
    if run.instructions is None:
        return f"**{run.error or 'failed'}**"
    text = mega(run.instructions)
    if reference:
        text += f" ({run.instructions / reference:.2f}x)"
    if run.error:
        text += f" **{run.error}**"
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(ROOT / "build/release/src/roofline"),
                    help="the roofline binary [default: build/release/src/roofline]")
    ap.add_argument("--quick", action="store_true",
                    help="llama3-8b only, smaller rate runs, one timing run, no per-line callgrind")
    ap.add_argument("--models", help="comma-separated presets instead of the seed models")
    ap.add_argument("--no-callgrind", action="store_true", help="peak memory and rates only")
    ap.add_argument("--no-rates", action="store_true", help="skip the batch and sweep rates")
    ap.add_argument("--repeat", type=int, help="timing runs of each rate, the best kept [default: 3; --quick 1]")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a run may take [default: 300]")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    a = ap.parse_args()

    binary = str(Path(a.binary).resolve())
    if not os.access(binary, os.X_OK):
        print(f"instructions.py: no executable at {binary}; build it: cmake --preset release && "
              "cmake --build --preset release", file=sys.stderr)
        return 2
    models = a.models.split(",") if a.models else (QUICK_MODELS if a.quick else SEED_MODELS)
    repeat = a.repeat or (1 if a.quick else 3)
    n_plans = 10_000 if a.quick else 100_000
    sweep_batch = "1..100" if a.quick else "1..1000"
    callgrind = not a.no_callgrind
    out: dict[str, object] = {"binary": binary, "models": models, "gpu": GPU}

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="roofline-bench-") as tmpdir:
        tmp = Path(tmpdir)
        for m in models:
            (tmp / f"plans-{m}.jsonl").write_text(plans_file(m))
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, env=BASE_ENV)
        out["version"] = version.stdout.strip()

        reference, why = (None, "not measured")
        empty, why = empty_program(tmp)
        empty_run = run_plain([empty], a.timeout) if empty else Run(error=why)
        if callgrind and empty:
            reference, why = run_callgrind([empty], a.timeout)
        say(f"empty C++ program: {reference or why}, {empty_run.max_rss_kb} KB")
        out["empty_program_instructions"] = reference
        out["empty_program_max_rss_kb"] = empty_run.max_rss_kb

        # 1 and 2: every command on every model.
        results: dict[str, dict[str, Run]] = {}
        for c in cases():
            row: dict[str, Run] = {}
            for m in models if c.per_model else ["(any)"]:
                argv = [binary] + [x.format(model=m, tmp=tmp) for x in c.args]
                run = run_plain(argv, a.timeout)
                if callgrind and run.code is not None:
                    run.instructions, cg_error = run_callgrind(argv, a.timeout)
                    if cg_error and not run.error:
                        run.error = cg_error
                elif callgrind and run.instructions is None and not run.error:
                    run.error = "did not run"
                row[m] = run
                say(f"{c.label:34} {m:14} {run.instructions or '-':>12} {run.max_rss_kb or '-':>7} KB {run.error}")
            results[c.label] = row
        out["commands"] = {
            label: {m: vars(r) for m, r in row.items()} for label, row in results.items()
        }

        # 3: rates.
        rates: list[dict[str, object]] = []
        if not a.no_rates:
            for command in ["decode", "memory"]:
                path = tmp / f"rate-{command}.jsonl"
                path.write_text(rate_plans(command, n_plans))
                best: Run | None = None
                for _ in range(repeat):
                    r = run_plain([binary, "batch", str(path)], a.timeout)
                    if best is None or (r.wall_s or 1e9) < (best.wall_s or 1e9):
                        best = r
                rates.append({"what": f"`batch`, {n_plans:,} `{command}` plans from a file", "unit": "plans",
                              "n": n_plans, **vars(best)})
            points = (100 if a.quick else 1000) * 1000
            for command in ["memory", "decode"]:
                argv = [binary, command, "llama3-8b", "--gpu", GPU, "--batch", sweep_batch,
                        "--context", "0..999k+1k", "--format", "jsonl"]
                best = None
                for _ in range(repeat):
                    r = run_plain(argv, a.timeout)
                    if best is None or (r.wall_s or 1e9) < (best.wall_s or 1e9):
                        best = r
                rates.append({"what": f"`{command} --batch {sweep_batch} --context 0..999k+1k --format jsonl`",
                              "unit": "points", "n": points, **vars(best)})
            for r in rates:
                say(f"{r['what']}: {r['wall_s']} s wall, {r['cpu_s']} s CPU, {r['error']}")
        out["rates"] = rates

        # Instructions a batch line and a sweep point cost: (long run - short run) / extra lines.
        per_item: list[tuple[str, int | None, str]] = []
        if callgrind and not a.quick:
            for command in ["memory", "decode"]:
                counts = []
                for n in (10, 2010):
                    path = tmp / f"cg-{command}-{n}.jsonl"
                    path.write_text(rate_plans(command, n))
                    counts.append(run_callgrind([binary, "batch", str(path)], a.timeout))
                (lo, e1), (hi, e2) = counts
                per_item.append((f"a `batch` line answering `{command}`",
                                 (hi - lo) // 2000 if lo and hi else None, e1 or e2))
            for command in ["memory", "decode"]:
                counts = []
                for batch in ("1", "1..100"):  # x 100 contexts: 100 and 10,000 points
                    counts.append(run_callgrind([binary, command, "llama3-8b", "--gpu", GPU, "--batch", batch,
                                                 "--context", "0..99k+1k", "--format", "jsonl"], a.timeout))
                (lo, e1), (hi, e2) = counts
                per_item.append((f"a `{command}` point of a streamed sweep (`--format jsonl`)",
                                 (hi - lo) // 9900 if lo and hi else None, e1 or e2))
        out["per_item_instructions"] = [{"what": w, "instructions": n, "error": e} for w, n, e in per_item]

    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")

    # The markdown.
    p = print
    p(f"Binary: `{out['version']}`, {GPU} where a command needs an accelerator.")
    p()
    if callgrind:
        p(f"Instructions (callgrind \"Collected\"); in brackets, the ratio to the empty C++ program "
          f"({f'{reference:,}' if reference else why} instructions).")
        p()
        p("| command | " + " | ".join(f"`{m}`" for m in models) + " | max |")
        p("|---|" + "---:|" * (len(models) + 1))
        worst: list[tuple[int, str]] = []
        for label, row in results.items():
            cells = []
            for m in models:
                run = row.get(m) or row.get("(any)")
                cells.append(cell(run, reference) if m in row or m == models[0] else "")
            counted = [r.instructions for r in row.values() if r.instructions is not None]
            failed = [r for r in row.values() if r.instructions is None or r.error]
            top = max(counted) if counted else None
            if top is None:
                mx = "**failed**"
            else:
                mx = f"**{mega(top)}**" + (f" ({top / reference:.2f}x)" if reference else "")
                if failed:
                    mx += f", {len(failed)} failed"
                worst.append((top, label))
            p(f"| `{label}` | " + " | ".join(cells) + f" | {mx} |")
        p()
        worst.sort(reverse=True)
        p("Slowest (the per-command max): " + ", ".join(
            f"`{label}` {mega(n)}" + (f" ({n / reference:.2f}x)" if reference else "") for n, label in worst[:5]) + ".")
        p()
    p("Peak memory over the models (maximum resident set of the process, GNU time's %M, without valgrind), MB; the empty "
      f"C++ program: {f'{empty_run.max_rss_kb / 1024:.1f}' if empty_run.max_rss_kb else empty_run.error}.")
    p()
    p("| command | lowest | highest | runs |")
    p("|---|---:|---:|---|")
    for label, row in results.items():
        sizes = [r.max_rss_kb for r in row.values() if r.max_rss_kb is not None]
        bad = [f"{m}: **{r.error}**" for m, r in row.items() if r.code != 0 or r.max_rss_kb is None]
        runs = f"{len(row)} model(s)" if "(any)" not in row else "one run"
        lo = f"{min(sizes) / 1024:.1f}" if sizes else ""
        hi = f"{max(sizes) / 1024:.1f}" if sizes else ""
        p(f"| `{label}` | {lo} | {hi} | {'; '.join([runs, *bad])} |")
    p()
    if rates:
        p(f"Rates: the binary writing to /dev/null, the best of {repeat} run(s) by wall clock:")
        p()
        p("| what | wall | a second (wall) | CPU (user + sys) | a second (CPU) | peak RSS |")
        p("|---|---:|---:|---:|---:|---:|")
        for r in rates:
            if r["code"] != 0 or r["wall_s"] is None:
                p(f"| {r['what']} | **{r['error'] or 'failed'}** | | | | |")
                continue
            n, unit = r["n"], r["unit"]
            p(f"| {r['what']} | {r['wall_s']:.3f} s | {n / r['wall_s'] / 1e3:,.0f} k {unit} | {r['cpu_s']:.3f} s | "
              f"{n / max(r['cpu_s'], 1e-9) / 1e3:,.0f} k {unit} | {r['max_rss_kb'] / 1024:.1f} MB |")
        p()
    if per_item:
        p("Instructions a line or a point costs (callgrind, a long run less a short one, over the difference):")
        p()
        p("| work | instructions |")
        p("|---|---:|")
        for w, n, e in per_item:
            p(f"| {w} | {f'{n:,}' if n is not None else f'**{e}**'} |")
        p()
    failures = sum(1 for row in results.values() for r in row.values() if r.code != 0 or r.error)
    if failures:
        p(f"{failures} run(s) failed; see the cells in bold.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
