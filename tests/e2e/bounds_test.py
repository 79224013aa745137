#!/usr/bin/env python3
"""The bad-input suite's resource bounds (tests/bad-input/bounds.tsv; docs/reliability.md).

Each row runs the binary once, its stdin from a generator below, and asserts its exit code, that
the process's user + system CPU seconds and peak RSS (os.wait4) stay within the row's bounds, and
the row's check of the output. Usage: bounds_test.py ROOFLINE_BINARY SOURCE_DIR plain|sanitized MEASURE ("sanitized": a sanitizer
build; the CPU bounds are multiplied by 6 and RSS is not checked). MEASURE is tests/e2e/measure.cpp,
which runs a row and reports its CPU seconds and peak RSS: a forked child's peak RSS counts its
parent's pages until it execs, so the parent must be small, and this Python process is not.
"""
import json
import os
import subprocess
import sys
import tempfile

BIN, ROOT = (sys.argv[1], sys.argv[2]) if sys.argv[1] != "--generate" else (None, sys.argv[3])
SANITIZED = len(sys.argv) > 3 and sys.argv[3] == "sanitized"
MEASURE = sys.argv[4] if len(sys.argv) > 4 else None
CPU_FACTOR = 6.0 if SANITIZED else 1.0


def line(**fields):
    return json.dumps(fields, separators=(",", ":")) + "\n"


def distinct_reserve(n):
    # A capacity study with a swept reserve: every line a resolution of its own (N7).
    return "".join(line(command="memory", model="llama3-8b", gpu="h100-sxm", reserve=f"{i}B") for i in range(n))


def distinct_inline(n):
    # Inline configs that differ in one field: every line a model of its own (N7).
    with open(os.path.join(ROOT, "tests/fixtures/hf/llama3-8b.config.json")) as f:
        config = json.load(f)
    out = []
    for i in range(n):
        config["max_position_embeddings"] = 8192 + i
        out.append(line(command="kv", model=config, context=1024))
    return "".join(out)


GENERATORS = {
    "huge-line": lambda: ('{"command":"kv","model":"llama3-8b","x":[' + ",".join(["1"] * 990_000) + "]}\n" +
                          line(command="kv", model="llama3-8b", context=1024)),
    "draft-len-line": lambda: line(command="decode", model="llama3-8b", gpu="h100-sxm", draft="llama3-8b",
                                   **{"draft-len": "1e18"}),
    "distinct-reserve-6000": lambda: distinct_reserve(6000),
    "distinct-inline-4000": lambda: distinct_inline(4000),
}


def answers(n):
    def check(out):
        rows = [json.loads(x) for x in out.splitlines()]
        if len(rows) != n or any("error" in r for r in rows):
            return f"expected {n} answers without an error, got {len(rows)}"
        return None
    return check


def tokens_per_step_5(out):
    # γ = 10^18 at the default α = 0.8: 1 / (1 - α) tokens a target step.
    return None if "tokens per target step" in out and " 5.000" in out else "no 5.000 tokens per target step"


def labels_capped(out):
    return None if "the first 200 points are labelled" in out else "no note on the labels left out"


def svg_small(out):
    # 20,000 decode points on one curve: a few hundred distinct marks, not 20,000 elements.
    return None if out.count("<circle") < 2000 else f"{out.count('<circle')} circles drawn"


CHECKS = {
    "": lambda out: None,
    "tokens-per-step-5": tokens_per_step_5,
    "one-answer": answers(1),
    "labels-capped": labels_capped,
    "svg-small": svg_small,
    "answers-6000": answers(6000),
    "answers-4000": answers(4000),
}


def generated(name):
    """A temporary file holding generator NAME's text, written by a child process."""
    f = tempfile.TemporaryFile()
    if name:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", name, ROOT], stdout=f, check=True)
        f.seek(0)
    return f


def run(args, gen):
    with generated(gen) as stdin, tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        env = dict(os.environ, COLUMNS="100")
        with tempfile.NamedTemporaryFile("r") as figures:
            code = subprocess.run([MEASURE, figures.name, BIN] + args, stdin=stdin, stdout=stdout, stderr=stderr,
                                  env=env, check=False).returncode
            cpu_s, rss_kib = figures.read().split()
        stdout.seek(0)
        stderr.seek(0)
        return code, float(cpu_s), float(rss_kib) / 1024.0, stdout.read().decode(), stderr.read().decode()


def main():
    fail = 0
    rows = 0
    with open(os.path.join(ROOT, "tests/bad-input/bounds.tsv")) as f:
        for raw in f:
            if not raw.strip() or raw.startswith("#"):
                continue
            rid, code, gen, args, cpu, rss, check, finding = raw.rstrip("\n").split("\t")
            rows += 1
            got, cpu_s, rss_mib, out, err = run(json.loads(args), gen)
            where = f"{rid} ({finding}): roofline {' '.join(json.loads(args))}"
            problems = []
            if got != int(code):
                problems.append(f"exit {got}, expected {code}; stderr: {err[:300]}")
            if cpu_s > float(cpu) * CPU_FACTOR:
                problems.append(f"{cpu_s:.2f} CPU seconds, bound {float(cpu) * CPU_FACTOR:g}")
            if not SANITIZED and rss_mib > float(rss):
                problems.append(f"{rss_mib:.1f} MiB peak RSS, bound {rss}")
            message = CHECKS[check](out)
            if message:
                problems.append(message)
            status = "FAIL" if problems else "ok"
            print(f"{status} {where}: {cpu_s:.2f} s, {rss_mib:.1f} MiB" + "".join("\n  " + p for p in problems))
            fail |= bool(problems)
    # Memory exhaustion is an error of the input, never a crash or an internal error (N7): a batch
    # line of 990,000 values (under the 1,000,000-value limit), then a good line, under address-
    # space limits from 24 to 128 MiB. At every limit the process exits 0 or 1 (never a signal,
    # never 70), says nothing on stderr but "out of memory", and writes whole JSON lines; at one
    # limit at least the big line is its own "out of memory" answer and the next line is answered.
    if not SANITIZED:
        rows += 1
        import resource
        seen_line_error = False
        problems = []
        for mib in (24, 32, 40, 48, 64, 96, 128):
            limit = mib << 20
            with generated("huge-line") as stdin, tempfile.TemporaryFile() as stdout:
                p = subprocess.run([BIN, "batch"], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
                stdout.seek(0)
                out = stdout.read().decode()
            err = p.stderr.decode()
            try:
                got = [json.loads(x) for x in out.splitlines()]
            except ValueError:
                got = None
            if p.returncode not in (0, 1) or got is None or (err and not err.startswith("roofline: error: out of memory")):
                problems.append(f"{mib} MiB: exit {p.returncode}, stderr {err[:200]!r}, stdout {out[:200]!r}")
                continue
            if (len(got) == 2 and got[0].get("error", "").startswith("out of memory answering this line") and
                    "results" in got[1]):
                seen_line_error = True
        if not seen_line_error:
            problems.append("no limit made the big line its own out-of-memory answer")
        print(("FAIL" if problems else "ok") + " batch.out-of-memory (N7): 990,000 values under 24 to 128 MiB of "
              "address space" + "".join("\n  " + x for x in problems))
        fail |= bool(problems)
    print(f"{rows} rows, {'all within their bounds' if not fail else 'some out of bounds'}")
    return 1 if fail else 0


if __name__ == "__main__":
    if sys.argv[1] == "--generate":
        sys.stdout.write(GENERATORS[sys.argv[2]]())
        sys.exit(0)
    sys.exit(main())
