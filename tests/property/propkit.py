"""The property suite's machinery: plans and running the binary (one command line, or many plans
through one `roofline batch`), the preset catalogue, the known-failure list, value comparisons, an
interval evaluator for --explain substitutions, and the report every invariant prints.

Python 3 standard library only (jsonschema is imported by the schema invariant alone). Nothing here
measures time: the work is bounded by case counts (ROOFLINE_PROPERTY_SCALE), and the cases follow
from the seed (ROOFLINE_PROPERTY_SEED), so a run is the same run every time for a given seed.
"""
import csv
import io
import json
import math
import os
import pathlib
import random
import re
import resource
import shlex
import subprocess
import tempfile

# A process that runs this long is hung, not slow (the slowest case under ASan takes well under a
# second); the bound only keeps a hang from holding CI until ctest's own timeout.
HANG_GUARD_S = 300
SANITIZER_MARKS = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "roofline: internal error")


# ------------------------------------------------------------------------------------------------
# Plans: one command with its flags, as a command line and as a `roofline batch` line.

class Plan:
    """A command, its positional model (or None) and its flags in order; a flag's value None is a
    switch. The same plan is a command line (argv) and a batch line (JSON), so a violation found
    through `batch` is reported as the command line that shows it."""

    def __init__(self, command, model=None, flags=(), positional=()):
        self.command = command
        self.model = model
        self.flags = list(flags)
        self.positional = list(positional)  # gemm's M N K, compare's question

    def with_flags(self, *pairs):
        return Plan(self.command, self.model, self.flags + list(pairs), self.positional)

    def replacing(self, flag, value):
        """The plan with `flag` set to `value` (added when absent)."""
        flags = [(f, v) for f, v in self.flags if f != flag] + [(flag, value)]
        return Plan(self.command, self.model, flags, self.positional)

    def without(self, *names):
        return Plan(self.command, self.model, [(f, v) for f, v in self.flags if f not in names], self.positional)

    def get(self, flag, default=None):
        for f, v in self.flags:
            if f == flag:
                return v
        return default

    def argv(self, *extra):
        args = [self.command, *self.positional]
        if self.model is not None:
            args.append(self.model)
        for f, v in self.flags:
            args.append("--" + f)
            if v is not None:
                args.append(str(v))
        return args + list(extra)

    def batch_line(self):
        line = {"command": self.command}
        if self.model is not None:
            line["model"] = self.model
        for f, v in self.flags:
            line[f] = True if v is None else v
        return json.dumps(line)

    def cmdline(self, *extra):
        return "roofline " + " ".join(shlex.quote(a) for a in self.argv(*extra))


def cmdline(args):
    return "roofline " + " ".join(shlex.quote(a) for a in args)


# ------------------------------------------------------------------------------------------------
# Running the binary.

class Result:
    def __init__(self, args, code, out, err):
        self.args = args
        self.code = code
        self.out = out
        self.err = err

    @property
    def crash(self):
        """Why this run broke the CLI contract beyond a refusal, or None: a signal, an exit status
        outside 0-3, a sanitizer report or an internal error."""
        if self.code is None:
            return f"did not finish within {HANG_GUARD_S} s"
        how = None
        if self.code < 0:
            how = f"killed by signal {-self.code}"
        elif self.code not in (0, 1, 2, 3):
            how = f"exit status {self.code}"
        for mark in SANITIZER_MARKS:
            if mark in self.err:
                line = next(l for l in self.err.splitlines() if mark in l)
                return f"stderr: {line.strip()[:300]}" + (f" ({how})" if how else "")
        return how

    def json(self):
        return json.loads(self.out)


class Runner:
    def __init__(self, binary, isolate=lambda plan: False):
        self.binary = binary
        self.processes = 0
        self.isolate = isolate  # plans run in a batch process of their own (known crashes)

    def run(self, args, stdin=None):
        self.processes += 1
        env = dict(os.environ, LC_ALL="C")
        env.pop("ROOFLINE_PRESET_PATH", None)
        try:
            p = subprocess.run([self.binary, *args], input=stdin, capture_output=True, encoding="utf-8",
                               errors="replace", env=env, timeout=HANG_GUARD_S)
            return Result(args, p.returncode, p.stdout, p.stderr)
        except subprocess.TimeoutExpired as e:
            text = [x.decode("utf-8", "replace") if isinstance(x, bytes) else (x or "") for x in (e.stdout, e.stderr)]
            return Result(args, None, *text)

    def batch(self, plans):
        """Answers each plan through `roofline batch`, many plans to a process. Returns one entry per
        plan: the answer object, or a string saying why there is none (a crash of the process that
        held it, found by splitting the stream until the plan is alone)."""
        answers = [None] * len(plans)
        alone = [i for i, p in enumerate(plans) if self.isolate(p)]
        shared = sorted(set(range(len(plans))) - set(alone))
        self._batch_into(plans, shared, answers)
        for i in alone:
            self._batch_into(plans, [i], answers)
        return answers

    def _batch_into(self, plans, indices, answers):
        if not indices:
            return
        text = "".join(plans[i].batch_line() + "\n" for i in indices)
        r = self.run(["batch"], stdin=text)
        lines = [json.loads(l) for l in r.out.splitlines() if l.strip()] if r.crash is None else []
        if r.crash is None and len(lines) == len(indices):
            for i, a in zip(indices, lines):
                answers[i] = a
            return
        if len(indices) == 1:
            answers[indices[0]] = r.crash or f"batch gave {len(lines)} answers to 1 line: {r.out[:300]!r}"
            return
        half = len(indices) // 2
        self._batch_into(plans, indices[:half], answers)
        self._batch_into(plans, indices[half:], answers)


# ------------------------------------------------------------------------------------------------
# Known failures: findings of the reliability review being fixed elsewhere.

class KnownFailures:
    """tests/property/known_failures.txt: `FINDING INVARIANT COMMAND-REGEX [ ~ MESSAGE-REGEX]` a line.
    A violation is expected when a line names its invariant (or `*`), its command regex is found in
    the reproducer command line and its message regex (if any) in the violation's message."""

    def __init__(self, path):
        self.lines = []
        with open(path, encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                text = raw.strip()
                if not text or text.startswith("#"):
                    continue
                parts = text.split(None, 2)
                if len(parts) < 3:
                    raise SystemExit(f"{path}:{number}: expected FINDING INVARIANT COMMAND-REGEX, got {text!r}")
                finding, invariant, rest = parts
                command, _, message = rest.partition(" ~ ")
                self.lines.append({"number": number, "finding": finding, "invariant": invariant,
                                   "command": re.compile(command.strip()),
                                   "message": re.compile(message.strip()) if message.strip() else None,
                                   "applied": 0, "matched": 0})

    def for_invariant(self, name):
        return [l for l in self.lines if l["invariant"] in (name, "*")]

    def applies(self, name, command):
        return [l for l in self.for_invariant(name) if l["command"].search(command)]

    def match(self, name, command, message):
        for l in self.for_invariant(name):
            if l["command"].search(command) and (l["message"] is None or l["message"].search(message)):
                return l
        return None

    def isolates(self, command):
        """Whether a plan runs in a batch process of its own: a line for every invariant (`*`, a known
        crash such as N3 under UBSan) names it, so the crash cannot take the plans that share its
        stream with it."""
        return any(l["command"].search(command) for l in self.lines if l["invariant"] == "*")


# ------------------------------------------------------------------------------------------------
# The report of one invariant.

class Check:
    """Collects an invariant's cases, skips and violations and prints them. A violation is a
    reproducible command line and what is wrong; one that a line of known_failures.txt matches is a
    known failure instead."""

    def __init__(self, name, known, seed, scale):
        self.name = name
        self.known = known
        self.seed = seed
        self.scale = scale
        self.cases = 0
        self.skips = {}
        self.violations = []  # (command, message)
        self.expected = []  # (finding, command, message)
        self.selfchecks = []  # (what, caught)
        self.seen = set()
        self.cpu_at_start = _cpu_seconds()

    def case(self, command=None):
        self.cases += 1
        if command is not None:
            for line in self.known.applies(self.name, command):
                line["applied"] += 1

    def skip(self, why):
        self.skips[why] = self.skips.get(why, 0) + 1

    def violation(self, command, message):
        key = (command, message)
        if key in self.seen:
            return
        self.seen.add(key)
        line = self.known.match(self.name, command, message)
        if line is not None:
            line["matched"] += 1
            self.expected.append((line["finding"], command, message))
        else:
            self.violations.append((command, message))

    def selfcheck(self, what, caught):
        """Records that the invariant's check, given a deliberately wrong value, reported it."""
        self.selfchecks.append((what, bool(caught)))

    def finish(self, runner):
        cpu = _cpu_seconds() - self.cpu_at_start
        print(f"property.{self.name}: seed {self.seed}, scale {self.scale}: {self.cases} cases, "
              f"{sum(self.skips.values())} skipped, {len(self.violations)} violations, "
              f"{len(self.expected)} known failures; {runner.processes} processes, {cpu:.1f} CPU-s")
        for why, n in sorted(self.skips.items()):
            print(f"  skipped {n}: {why}")
        for what, caught in self.selfchecks:
            print(f"  self-check {'caught' if caught else 'MISSED'}: {what}")
        shown = {}
        for finding, command, message in self.expected:
            shown[finding] = shown.get(finding, 0) + 1
            if shown[finding] <= 3:
                print(f"  known failure {finding}: {command}\n      {message}")
        for finding, n in sorted(shown.items()):
            if n > 3:
                print(f"  known failure {finding}: {n - 3} more")
        for line in self.known.for_invariant(self.name):
            # A line with a message regex names a failure that only some of its commands show (a
            # --require-fit run that does fit passes), so only a line without one can be seen stale.
            if line["applied"] and not line["matched"] and line["invariant"] == self.name and not line["message"]:
                print(f"  note: known_failures.txt line {line['number']} ({line['finding']}) applied to "
                      f"{line['applied']} cases and none failed; once its fix has landed, delete the line")
        for command, message in self.violations:
            print(f"VIOLATION: {command}\n    {message}")
        failed = bool(self.violations) or not all(c for _, c in self.selfchecks)
        if not self.selfchecks:
            print("SUITE ERROR: the invariant ran no self-check")
            failed = True
        if self.cases == 0:
            print("SUITE ERROR: no case was checked")
            failed = True
        return 1 if failed else 0


def _cpu_seconds():
    """CPU time of this process and of the runs of the binary it waited for, user and system."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    return children.ru_utime + children.ru_stime + own.ru_utime + own.ru_stime


# ------------------------------------------------------------------------------------------------
# Comparing values.

EXACT_INTEGERS = 2 ** 53


def close(a, b, rel=1e-12):
    """Equal, allowing for sums taken in another order: two JSON integers below 2^53 exactly (a sum
    of such integers in double is exact whatever the order), other numbers to `rel` relative."""
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int) and isinstance(b, int) and max(abs(a), abs(b)) < EXACT_INTEGERS:
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b)) or a == b


def diff(a, b, path=""):
    """The first difference between two JSON values as 'path: a != b', or None when equal. Numbers
    compare exactly (an int and a float of the same value are equal, as JSON has one number)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                return f"{path}/{k}: missing != {json.dumps(b[k])[:120]}"
            if k not in b:
                return f"{path}/{k}: {json.dumps(a[k])[:120]} != missing"
            d = diff(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} elements != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{path}/{i}")
            if d:
                return d
        return None
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str) \
            or isinstance(b, str):
        return None if (type(a) is type(b) and a == b) else f"{path}: {json.dumps(a)[:120]} != {json.dumps(b)[:120]}"
    return None if a == b else f"{path}: {a!r} != {b!r}"


def csv_rows(text):
    return list(csv.reader(io.StringIO(text)))


def csv_value(cell, value):
    """Whether a CSV cell holds the JSON value: empty for null or absent, true/false, the text,
    or a number equal to it exactly."""
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(cell) == float(value)
        except ValueError:
            return False
    if isinstance(value, str):
        return cell == value
    return False


def section_value(results, key):
    """results['section']['key'] for a CSV or JSONL key `section.key`, None when absent."""
    section, _, name = key.partition(".")
    rows = results.get(section)
    if not isinstance(rows, dict):
        return None
    return rows.get(name)


# ------------------------------------------------------------------------------------------------
# Interval arithmetic over --explain substitutions.

class Interval:
    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        self.lo = lo
        self.hi = lo if hi is None else hi

    def __add__(self, o):
        return Interval(self.lo + o.lo, self.hi + o.hi)

    def __sub__(self, o):
        return Interval(self.lo - o.hi, self.hi - o.lo)

    def __neg__(self):
        return Interval(-self.hi, -self.lo)

    def __mul__(self, o):
        ps = [_mul(a, b) for a in (self.lo, self.hi) for b in (o.lo, o.hi)]
        return Interval(min(ps), max(ps))

    def __truediv__(self, o):
        if o.lo <= 0.0 <= o.hi:  # a divisor that may be 0: any quotient
            return Interval(-math.inf, math.inf)
        return self * Interval(1.0 / o.hi, 1.0 / o.lo)

    def pow(self, o):
        if self.lo < 0:
            return Interval(-math.inf, math.inf)
        ps = []
        for a in (self.lo, self.hi):
            for b in (o.lo, o.hi):
                try:
                    ps.append(a ** b)
                except (OverflowError, ZeroDivisionError):
                    ps.append(math.inf)
        return Interval(min(ps), max(ps))


def _mul(a, b):
    if a == 0.0 or b == 0.0:
        return 0.0
    return a * b


class ExplainError(Exception):
    pass


class Arithmetic:
    """Evaluates a substitution (`max(F/P, Q/BW) = max(1.95116e-05, 0.00480107)` is given as its
    right side) over intervals: each printed operand stands for every value that prints so (a grouped
    integer is exact; any other number is rounded to 6 significant digits, `{:.6g}`). Grammar:
    numbers, + - x * / ^, parentheses, max, min, floor, ceil, and one <= comparison."""

    FUNCTIONS = ("max", "min", "floor", "ceil")

    def __init__(self, text):
        self.s = text
        self.i = 0

    def evaluate(self):
        v = self.sum()
        self.skip()
        if self.s.startswith("<=", self.i):
            self.i += 2
            w = self.sum()
            self.skip()
            if self.i != len(self.s):
                raise ExplainError(f"unexpected text at {self.s[self.i:]!r}")
            return ("<=", v, w)
        if self.i != len(self.s):
            raise ExplainError(f"unexpected text at {self.s[self.i:]!r}")
        return v

    def skip(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def eat(self, c):
        self.skip()
        if self.s.startswith(c, self.i):
            self.i += len(c)
            return True
        return False

    def sum(self):
        v = self.product()
        while True:
            if self.eat("+"):
                v = v + self.product()
            elif self.eat("-"):
                v = v - self.product()
            else:
                return v

    def product(self):
        v = self.power()
        while True:
            self.skip()
            if self.s.startswith("<=", self.i):
                return v
            if self.eat("x") or self.eat("*") or self.eat("×") or self.eat("·"):
                v = v * self.power()
            elif self.eat("/"):
                v = v / self.power()
            else:
                return v

    def power(self):
        v = self.factor()
        if self.eat("^"):
            return v.pow(self.power())
        return v

    def factor(self):
        self.skip()
        if self.eat("-"):
            return -self.factor()
        if self.eat("("):
            v = self.sum()
            if not self.eat(")"):
                raise ExplainError(f"missing ) in {self.s!r}")
            return v
        for name in self.FUNCTIONS:
            if self.s.startswith(name, self.i):
                self.i += len(name)
                if not self.eat("("):
                    raise ExplainError(f"missing ( after {name}")
                a = self.sum()
                if name in ("max", "min"):
                    args = [a]
                    while self.eat(","):
                        args.append(self.sum())
                    if not self.eat(")"):
                        raise ExplainError(f"missing ) after {name}")
                    if name == "max":
                        return Interval(max(x.lo for x in args), max(x.hi for x in args))
                    return Interval(min(x.lo for x in args), min(x.hi for x in args))
                if not self.eat(")"):
                    raise ExplainError(f"missing ) after {name}")
                f = math.floor if name == "floor" else math.ceil
                return Interval(_round(f, a.lo), _round(f, a.hi))
        return self.number()

    def number(self):
        m = re.compile(r"\d{1,3}(?:,\d{3})+(?![\d.])|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?").match(
            self.s, self.i)
        if not m:
            raise ExplainError(f"expected a number at {self.s[self.i:]!r}")
        text = m.group(0)
        self.i = m.end()
        if "," in text:  # grouped: an exact integer
            return Interval(float(text.replace(",", "")))
        x = float(text)
        if x == 0.0 or (x == int(x) and "e" not in text and "." not in text and len(text) > 6):
            return Interval(x)
        h = 0.5 * 10.0 ** (math.floor(math.log10(abs(x))) - 5)
        return Interval(x - h, x + h)


def _round(f, x):
    return x if math.isinf(x) else float(f(x))


def explain_holds(substituted, value):
    """None when the substitution, evaluated over intervals, can give the printed value; else why not."""
    got = Arithmetic(substituted).evaluate()
    if isinstance(got, tuple):
        _, a, b = got
        if not isinstance(value, bool):
            return f"a comparison for a value that is not a boolean ({value!r})"
        if a.hi <= b.lo and not value:
            return f"{substituted} holds but the value is false"
        if a.lo > b.hi and value:
            return f"{substituted} fails but the value is true"
        return None
    if isinstance(value, bool):
        return None if (got.lo <= (1.0 if value else 0.0) <= got.hi) else \
            f"evaluates to [{got.lo:.9g}, {got.hi:.9g}], the value is {value}"
    slack = 1e-9 * max(abs(value), abs(got.lo) if math.isfinite(got.lo) else 0.0,
                       abs(got.hi) if math.isfinite(got.hi) else 0.0) + 1e-300
    if got.lo - slack <= value <= got.hi + slack:
        return None
    return f"evaluates to [{got.lo:.9g}, {got.hi:.9g}], the value is {value!r}"


# ------------------------------------------------------------------------------------------------
# The catalogue: every model and accelerator preset, with what a generator needs to know.

class Catalogue:
    """Every model and accelerator preset, from three processes: `models`, `gpus`, and one `compare
    params` over every model, whose columns carry each preset's resolved architecture. The answer is
    kept beside the binary (property-catalogue.json, keyed by the binary's size and time), so the
    tests of one build ask once."""

    def __init__(self, runner):
        binary = pathlib.Path(runner.binary)
        stat = binary.stat()
        key = f"{binary.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
        cache = binary.parent / "property-catalogue.json"
        data = None
        try:
            cached = json.loads(cache.read_text())
            if cached.get("key") == key:
                data = cached
        except (OSError, ValueError):
            pass
        if data is None:
            data = self._ask(runner)
            data["key"] = key
            try:
                with tempfile.NamedTemporaryFile("w", dir=binary.parent, prefix=".property-catalogue.",
                                                 delete=False) as f:
                    json.dump(data, f)
                os.replace(f.name, cache)
            except OSError:
                pass
        self.models = data["models"]
        self.gpus = data["gpus"]
        self.model_names = sorted(self.models)
        self.gpu_names = sorted(self.gpus)

    @staticmethod
    def _ask(runner):
        models = runner.run(["models", "--format", "json"])
        gpus = runner.run(["gpus", "--format", "json"])
        if models.code != 0 or gpus.code != 0:
            raise SystemExit(f"roofline models/gpus failed: {models.err}{gpus.err}")
        table = {m["name"]: m for m in models.json()["results"]["models"]}
        compared = runner.run(["compare", "params", ",".join(sorted(table)), "--format", "json", "-q"])
        if compared.code != 0:
            raise SystemExit(f"roofline compare params (every model) failed: {compared.err}")
        for column in compared.json()["results"]:
            m = table[column["column"]]
            a = column["inputs"]["model"]["architecture"]
            m["arch"] = a
            m["params"] = column["results"]["params"]
            m["experts"] = (a.get("moe") or {}).get("n_experts", 0)
            m["hybrid"] = bool((a.get("hybrid") or {}).get("layers"))
            m["mtp"] = a.get("mtp_layers", 0) > 0
            m["published_weights"] = column["inputs"]["workload"].get("weights_published", False)
        return {"models": table, "gpus": {g["name"]: g for g in gpus.json()["results"]["gpus"]}}

    def heads_split(self, name, limit=8):
        """Tensor degrees t <= limit a model's heads split over: t divides the query heads, and the
        KV heads split over t or t is a multiple of them (ranks beyond them keep copies)."""
        m = self.models[name]
        h, kv = m["n_heads"], m["n_kv_heads"]
        if h == 0:
            return [1]
        return [t for t in divisors(h, limit) if kv == 0 or kv % t == 0 or t % kv == 0]

    def stages(self, name, limit=8):
        return divisors(self.models[name]["n_layers"], limit)


def log_uniform_int(rng, lo, hi):
    """An integer from lo to hi, every decade as likely as any other."""
    if lo >= hi:
        return lo
    a, b = math.log(max(lo, 1)), math.log(hi + 1)
    return min(hi, max(lo, int(math.exp(rng.uniform(a, b)))))


def divisors(n, limit):
    return [d for d in range(1, min(n, limit) + 1) if n % d == 0]


def deck(rng, items):
    """An endless shuffled cycle of items: n draws cover min(n, len(items)) distinct ones."""
    items = list(items)
    while True:
        rng.shuffle(items)
        yield from items


def env_int(name, default):
    text = os.environ.get(name, "")
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SystemExit(f"{name}={text!r}: expected an integer")
    if value < 0 or (name.endswith("SCALE") and value < 1):
        raise SystemExit(f"{name}={text!r}: expected a positive integer")
    return value


def main_rng(seed, name):
    return random.Random(f"{seed}:{name}")
