"""Real-code corpus: the whole perfeq pipeline, run as a user would, on public C/MPI/OpenMP programs.

For every recipe in benchmarks/corpus/*.json, in a temporary folder (the sources under --src are
copied, never changed): `perfeq cc -- BUILD` and the plain BUILD, `perfeq run` at the two training
sizes on every process and thread count of the recipe, the plain and instrumented outputs compared,
`perfeq model` of all training traces, then at the big size (8x) on every process/thread count: a
real instrumented run (`perfeq counts --trace`) against `perfeq counts MODEL` (ops, messages,
bytes, summed over ranks), the median wall times of REPS plain and REPS instrumented runs (the
slowdown printed is that of the first process and thread count, P = 1, T = 1), and with --machine
`perfeq predict` against the plain time (error, inside the 95 % prediction interval or not), and
with --probes the fit-free prediction from a probe file (`perfeq probe`: probes and convolution).
The share of loops modelled symbolically is read from the model file: a loop item is symbolic unless
a `fit` or `constant` loop fallback names its file:line (`relaxed` counts as symbolic; loops never
entered in any training run are left out, and so are spin-waits, whose iterations are waiting the
model counts no work in: their number is in the details line); the model's own self-check (worst error on its training
runs) is printed too. Prints per program the first failing step and its one-line message (class
`traceback` when a perfeq command printed a Python traceback, `internal` for perfeq's one-line
internal error, `timeout`, `output`, or `error`), then an overall summary.

    python benchmarks/corpus.py --src /work/corpus [--only heat,comd] [--machine machine.json]
                                [--probes probes.json] [--reps 3] [--keep DIR] [--json > results.json]
    python benchmarks/corpus.py --load results.json      # the report of a saved run, nothing run

Recipe format (benchmarks/corpus/NAME.json, one JSON object per program; only the recipe is kept here):

    description  what the program is (free text); note: free text
    source       {"repo": "owner/name", "commit": "40 hex", "folder": "sub/folder or empty"}; the
                 sources are expected in SRC/LOCAL/FOLDER, unpacked from a mirror with
                 git --git-dir=MIRROR archive COMMIT FOLDER | tar -x -C SRC/LOCAL
    local        the folder under --src (default: the recipe's file name)
    dir          where to build and run, relative to FOLDER (default ".")
    prepare      optional shell command run in dir before each build (generated headers)
    build        the compile line as a user types it (shell syntax, globs allowed)
    program      the binary the build writes, relative to dir ("./prog")
    mpi          true: runs are `mpiexec -n P PROGRAM ARGS`; false: `PROGRAM ARGS`
    args         the program's arguments (shell words)
    files        optional {"name": "content"}: input files written into dir before each run
    train        the two training sizes, [{"NAME": value, ...}, {...}]
    big          the size predicted, about 8x the first training size in its main parameter
    procs        process counts of the training runs and of the runs at the big size (default [1])
    threads      OpenMP thread counts (OMP_NUM_THREADS), likewise (default [1])
    params       optional ["SYMBOL=lvalue", ...] given to `perfeq model` as --param
    check        optional regular expression (multiline); its matches in the plain and in the
                 instrumented run's output must be equal (at the first training size)
    exit         exit statuses that mean success (default [0])

In prepare, build, args and files, {NAME} is replaced by the size's value and {P}, {T} by the run's
process and thread counts ({{ and }} stand for a literal brace, as in str.format); a prepare or build that names a size is done once per size (sizes compiled
in with -D or a generated header). The parameter values given to `perfeq counts` and `perfeq predict`
at the big size are the ones the instrumented program recorded in its own trace at that size (the
model's `parameters` name the program variables), and so is T: the largest team the run recorded
(Rodinia lud sets 40 threads itself, whatever OMP_NUM_THREADS says).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECIPES = HERE / "corpus"
TIMEOUTS = {"prepare": 300, "build": 1800, "run": 600, "model": 1800, "counts": 600, "predict": 600,
            "predict (probes)": 600}
COUNT_KEYS = (("ops", "ops"), ("msgs", "startup"), ("bytes", "bytes"))
TRACEBACK = "Traceback (most recent call last)"
INTERNAL = "perfeq: internal error"  # an unexpected exception, said in one line instead of a traceback


# ---- recipes -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Recipe:
    name: str
    data: dict

    def get(self, key: str, default=None):
        return self.data.get(key, default)

    @property
    def source_dir(self) -> str:
        return self.data["source"].get("folder", "") or "."

    @property
    def procs(self) -> list[int]:
        return list(self.get("procs", [1]))

    @property
    def threads(self) -> list[int]:
        return list(self.get("threads", [1]))

    def configs(self) -> list[tuple[int, int]]:
        return [(p, t) for p in self.procs for t in self.threads]

    def per_size_build(self) -> bool:
        names = set().union(*(self.data["train"][0].keys(), self.data["big"].keys()))
        text = self.get("prepare", "") + " " + self.data["build"]
        return bool(names & {f for _, f, _, _ in string.Formatter().parse(text) if f})


def load_recipes(folder: Path, only: set[str] | None) -> list[Recipe]:
    recipes = [Recipe(path.stem, json.loads(path.read_text())) for path in sorted(folder.glob("*.json"))]
    return [r for r in recipes if not only or r.name in only]


# ---- running commands ----------------------------------------------------------------------------
class Failure(Exception):
    def __init__(self, step: str, kind: str, message: str):
        super().__init__(f"{step}: {kind}: {message}")
        self.step, self.kind, self.message = step, kind, message


@dataclass
class Done:
    rc: int
    out: str
    err: str
    seconds: float


def run(command: str | list[str], cwd: Path, env: dict[str, str], timeout: float, step: str) -> Done:
    """Run in a process group of its own, so that a timeout ends mpiexec's and the shell's children too."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, env=env, shell=isinstance(command, str), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise Failure(step, "timeout", f"no result after {timeout:.0f} s") from None
    return Done(proc.returncode, out, err, time.perf_counter() - start)


def one_line(done: Done) -> str:
    """The message a user would read first: a traceback's last line, a compiler error, perfeq's error."""
    text = done.err + "\n" + done.out
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if TRACEBACK in text:
        tail = text[text.rindex(TRACEBACK):].splitlines()
        last = [line for line in tail if line.strip() and not line.startswith(" ")]
        return last[-1].strip() if last else "traceback"
    compiler = [line for line in lines if re.search(r"\berror\b", line) and "perfeq" not in line]
    ours = [line for line in lines if line.startswith("perfeq:") and "error" in line]
    parts = compiler[:1] + ours[:1] or lines[-1:] or [f"exit status {done.rc}"]
    return short(" | ".join(parts))


def short(message: str) -> str:
    """A message without the compile command perfeq cc repeats after '(exit N):', at most 300 characters."""
    return re.sub(r"(\(exit \d+\)): \S*(cc|gcc|clang|mpicc)\b.*", r"\1", message)[:300]


def checked(done: Done, step: str, ok: tuple[int, ...] = (0,), perfeq: bool = True) -> Done:
    if perfeq and TRACEBACK in done.out + done.err:
        raise Failure(step, "traceback", one_line(done))
    if perfeq and INTERNAL in done.err:
        raise Failure(step, "internal", " ".join(done.err[done.err.index(INTERNAL):].split())[:300])
    if done.rc not in ok:
        raise Failure(step, "error", f"exit {done.rc}: {one_line(done)}")
    return done


def median_time(command: list[str], cwd: Path, env: dict[str, str], reps: int, step: str, ok) -> float:
    times = []
    for _ in range(reps):
        done = checked(run(command, cwd, env, TIMEOUTS["run"], step), step, ok, perfeq=False)
        times.append(done.seconds)
    return statistics.median(times)


# ---- one program ---------------------------------------------------------------------------------
@dataclass
class Outcome:
    name: str
    description: str
    failures: list[Failure] = field(default_factory=list)
    output: str = "not compared"
    loops: dict | None = None
    fallbacks: int | None = None
    parameters: list[str] | None = None
    self_check: float | None = None
    counts: list[dict] = field(default_factory=list)
    times: list[dict] = field(default_factory=list)
    load: list[float] = field(default_factory=list)
    seconds: float = 0.0


class Program:
    """The working folder of one recipe: its builds, traces and model, and the commands on them."""

    def __init__(self, recipe: Recipe, src: Path, work: Path, perfeq: str, reps: int):
        self.recipe, self.src, self.work, self.perfeq, self.reps = recipe, src, work, perfeq, reps
        self.env = dict(os.environ)
        self.env["PATH"] = str(Path(perfeq).parent) + os.pathsep + self.env.get("PATH", "")
        self.env.pop("PERFEQ_TRACE", None)
        self.sizes = {f"s{i}": size for i, size in enumerate(recipe.get("train"))} | {"big": recipe.get("big")}
        self.tags = list(self.sizes) if recipe.per_size_build() else ["all"]
        self.ok = tuple(recipe.get("exit", [0]))

    # -- folders and commands
    def folder(self, kind: str, size: str) -> Path:
        tag = size if len(self.tags) > 1 else "all"
        return self.work / f"{kind}-{tag}" / self.recipe.source_dir / self.recipe.get("dir", ".")

    def env_for(self, threads: int, trace_dir: Path | None = None) -> dict[str, str]:
        env = dict(self.env, OMP_NUM_THREADS=str(threads))
        if trace_dir is not None:
            env["PERFEQ_TRACE"] = str(trace_dir / "rank.%r.trace")
        return env

    def fill(self, text: str, size: str, procs: int = 1, threads: int = 1) -> str:
        values = {**self.sizes[size], "P": procs, "T": threads}
        try:
            return text.format(**values)
        except (KeyError, IndexError) as exc:
            raise Failure("recipe", "error", f"{text!r}: no value for {exc}") from None

    def launch(self, size: str, procs: int, threads: int) -> list[str]:
        words = [self.recipe.get("program"), *shlex.split(self.fill(self.recipe.get("args", ""), size, procs, threads))]
        return (["mpiexec", "-n", str(procs)] if self.recipe.get("mpi") else []) + words

    def write_files(self, folder: Path, size: str, procs: int, threads: int) -> None:
        for name, content in self.recipe.get("files", {}).items():
            (folder / name).write_text(self.fill(content, size, procs, threads))

    def perfeq_cmd(self, args: list[str], step: str, cwd: Path | None = None, threads: int = 1) -> Done:
        done = run([self.perfeq, *args], cwd or self.work, self.env_for(threads), TIMEOUTS[step], step)
        return checked(done, step)

    # -- steps
    def build(self, kind: str) -> bool:
        step = "cc" if kind == "inst" else "build"
        for tag in self.tags:
            size = "s0" if tag == "all" else tag
            root = self.work / f"{kind}-{tag}"
            shutil.copytree(self.src / self.recipe.source_dir, root / self.recipe.source_dir, symlinks=True)
            cwd = self.folder(kind, size)
            if self.recipe.get("prepare"):
                checked(run(self.fill(self.recipe.get("prepare"), size), cwd, self.env, TIMEOUTS["prepare"], "prepare"),
                        "prepare", perfeq=False)
            command = self.fill(self.recipe.get("build"), size)
            if kind == "inst":
                command = f"{shlex.quote(self.perfeq)} cc -- {command}"
            checked(run(command, cwd, self.env, TIMEOUTS["build"], step), step, perfeq=kind == "inst")
        return True

    def traced_run(self, size: str, procs: int, threads: int, trace: Path, step: str) -> Done:
        cwd = self.folder("inst", size)
        self.write_files(cwd, size, procs, threads)
        done = run([self.perfeq, "run", "-o", str(trace), "--", *self.launch(size, procs, threads)], cwd,
                   self.env_for(threads), TIMEOUTS["run"], step)
        checked(done, step, self.ok)
        if not trace.is_file():
            raise Failure(step, "error", f"no trace written: {one_line(done)}")
        return done

    def plain_run(self, size: str, procs: int, threads: int) -> Done:
        cwd = self.folder("plain", size)
        self.write_files(cwd, size, procs, threads)
        done = run(self.launch(size, procs, threads), cwd, self.env_for(threads), TIMEOUTS["run"], "plain run")
        return checked(done, "plain run", self.ok, perfeq=False)

    def train(self) -> tuple[list[Path], Done]:
        traces, first = [], None
        for i in range(len(self.recipe.get("train"))):
            for procs, threads in self.recipe.configs():
                trace = self.work / "traces" / f"s{i}-P{procs}-T{threads}.trace"
                trace.parent.mkdir(exist_ok=True)
                done = self.traced_run(f"s{i}", procs, threads, trace, "run")
                first = first or done
                traces.append(trace)
        return traces, first

    def compare_output(self, instrumented: Done) -> str:
        pattern = self.recipe.get("check")
        if not pattern:
            return "not compared"
        procs, threads = self.recipe.configs()[0]
        plain = self.plain_run("s0", procs, threads)
        want = re.findall(pattern, plain.out, re.M)
        got = re.findall(pattern, instrumented.out, re.M)
        if not want:
            return "check matched nothing"
        if want != got:
            raise Failure("output", "output", f"plain {want[:2]} vs instrumented {got[:2]}")
        return "same"

    def model(self, traces: list[Path]) -> dict:
        path = self.work / "model.json"
        params = [item for p in self.recipe.get("params", []) for item in ("--param", p)]
        self.perfeq_cmd(["model", *map(str, traces), *params, "-o", str(path)], "model")
        return json.loads(path.read_text())

    def big_values(self, trace: Path) -> list[str]:
        """The model's parameter values in the 8x run, as perfeq reads them (`perfeq counts MODEL
        --trace`: what the run recorded, and the sizes its build compiled in), and its threads
        (``T=``, the largest team the run recorded: a program that sets its own thread count, Rodinia
        lud's omp_set_num_threads(40), does not run on OMP_NUM_THREADS)."""
        done = self.perfeq_cmd(["counts", str(self.work / "model.json"), "--trace", str(trace), "--json"], "counts")
        read = json.loads(done.out)
        values = [f"{symbol}={int(value) if float(value).is_integer() else value}"
                  for symbol, value in read["values"].items()]
        return values + [f"T={read['T']}"]

    def counts(self, model: dict, procs: int, threads: int) -> tuple[dict, list[str]]:
        trace = self.work / "traces" / f"big-P{procs}-T{threads}.trace"
        self.traced_run("big", procs, threads, trace, "run 8x")
        measured = json.loads(self.perfeq_cmd(["counts", "--trace", str(trace), "--json"], "counts").out)["total"]
        values = self.big_values(trace)
        model_counts = json.loads(self.perfeq_cmd(["counts", str(self.work / "model.json"), *values, f"P={procs}",
                                                   "--json"], "counts", threads=threads).out)
        # the trace's total of critical-path messages is the run's critical path (the maximum over the
        # ranks, symbolic/measured.py count_trace); the model's total sums every key over the ranks
        predicted = {**model_counts["total"], "startup": max(model_counts["per_rank"].get("startup", [0]))}
        row = {"P": procs, "T": threads, "values": values}
        for label, key in COUNT_KEYS:
            row[label] = {"measured": measured.get(key, 0), "predicted": predicted.get(key, 0)}
        return row, values

    def timing(self, procs: int, threads: int) -> dict:
        timing_dir = self.work / "timing"
        timing_dir.mkdir(exist_ok=True)
        command = self.launch("big", procs, threads)
        plain_dir, inst_dir = self.folder("plain", "big"), self.folder("inst", "big")
        self.write_files(plain_dir, "big", procs, threads)
        self.write_files(inst_dir, "big", procs, threads)
        plain, inst = [], []
        for _ in range(self.reps):  # interleaved, so that a change in the machine's load hits both
            plain.append(median_time(command, plain_dir, self.env_for(threads), 1, "time plain", self.ok))
            inst.append(median_time(command, inst_dir, self.env_for(threads, timing_dir), 1, "time instrumented",
                                    self.ok))
        return {"P": procs, "T": threads, "plain_s": statistics.median(plain), "instrumented_s": statistics.median(inst)}

    def _predicted(self, machine: Path, values: list[str], procs: int, threads: int, step: str) -> dict:
        """``perfeq predict MODEL --machine MACHINE ... --json``, read."""
        threads_given = [] if any(v.startswith("T=") for v in values) else [f"T={threads}"]
        done = self.perfeq_cmd(["predict", str(self.work / "model.json"), "--machine", str(machine), *values,
                                f"P={procs}", *threads_given, "--json"], step, threads=threads)
        return json.loads(done.out)

    def predict(self, machine: Path, values: list[str], procs: int, threads: int) -> dict:
        result = self._predicted(machine, values, procs, threads, "predict")
        return {"predicted_s": result["time_s"], "interval": result["prediction_interval"]}

    def convolve(self, probes: Path, values: list[str], procs: int, threads: int) -> dict:
        """The fit-free prediction (perfeq predict --machine PROBES.json: probes and convolution)."""
        return {"probes_s": self._predicted(probes, values, procs, threads, "predict (probes)")["seconds"]}


def reprice(row: dict, model: Path, probes: Path, perfeq: str) -> dict:
    """A saved row with its fit-free predictions made again from ``model`` with ``probes`` (at the
    values its counts were compared at); a row without a model or times is returned as it is."""
    if not model.is_file() or not row.get("times"):
        return row
    values = {(c["P"], c["T"]): c["values"] for c in row.get("counts", [])}
    times = []
    for t in row["times"]:
        found = values.get((t["P"], t["T"]))
        if found is None:
            times.append(t)
            continue
        threads = [] if any(v.startswith("T=") for v in found) else [f"T={t['T']}"]
        done = subprocess.run([perfeq, "predict", str(model), "--machine", str(probes), *found, f"P={t['P']}",
                               *threads, "--json"], capture_output=True, text=True, check=False,
                              env={**os.environ, "OMP_NUM_THREADS": str(t["T"])})
        seconds = json.loads(done.stdout)["seconds"] if done.returncode == 0 else None
        times.append({**t, "probes_s": seconds} if seconds is not None else {k: v for k, v in t.items() if k != "probes_s"})
    return {**row, "times": times}


def loop_share(model: dict) -> dict:
    """Loops (distinct file:line of loop items) and how the model counts them, from its fallbacks."""
    loops = {(Path(item["unit"]).name, int(item["line"])) for item in model.get("items", []) if item.get("kind") == "loop"}
    how: dict[tuple[str, int], str] = {}
    for text in model.get("fallbacks", []):
        found = re.match(r"(.+?):(\d+): loop modeled as ([\w-]+): (.*)", text)
        if not found:
            continue
        where = (Path(found.group(1)).name, int(found.group(2)))
        detail = found.group(4)
        kind = "wait" if detail.startswith("a spin-wait") else "never" if "never entered" in detail else found.group(3)
        loops.add(where)
        if how.get(where) not in ("fit", "constant"):  # a loop fitted in one context is not symbolic
            how[where] = kind
    kinds = [how.get(loop, "symbolic") for loop in loops]
    counted = [k for k in kinds if k not in ("never", "wait")]
    symbolic = sum(k in ("symbolic", "relaxed") for k in counted)
    return {"loops": len(counted), "symbolic": symbolic, "fit": kinds.count("fit"),
            "constant": kinds.count("constant"), "relaxed": kinds.count("relaxed"), "never_entered": kinds.count("never"),
            "waits": kinds.count("wait"), "share": symbolic / len(counted) if counted else None}


def evaluate(recipe: Recipe, src: Path, work: Path, perfeq: str, machine: Path | None, reps: int,
             probes: Path | None = None) -> Outcome:
    """Every step of the pipeline on one program; the first failure of each independent chain is kept."""
    outcome = Outcome(recipe.name, recipe.get("description", ""))
    start = time.perf_counter()
    outcome.load.append(os.getloadavg()[0])
    program = Program(recipe, src, work, perfeq, reps)

    def attempt(action, *args):
        try:
            return action(*args)
        except Failure as failure:
            outcome.failures.append(failure)
            return None

    if not (src / recipe.source_dir).is_dir():
        source = recipe.get("source")
        outcome.failures.append(Failure("source", "error", f"{src / recipe.source_dir} missing: git --git-dir=MIRROR "
                                        f"archive {source['commit']} {source.get('folder', '')} | tar -x -C {src}"))
        return outcome
    built_plain = attempt(program.build, "plain")
    built_inst = attempt(program.build, "inst")
    trained = attempt(program.train) if built_inst else None
    if trained and built_plain:
        outcome.output = attempt(program.compare_output, trained[1]) or "differs"
    model = attempt(program.model, trained[0]) if trained else None
    if model:
        outcome.loops, outcome.fallbacks = loop_share(model), len(model.get("fallbacks", []))
        outcome.parameters = list(model.get("parameters", {}))
        outcome.self_check = (model.get("self_check") or {}).get("worst_error")
    for procs, threads in recipe.configs():
        counted = attempt(program.counts, model, procs, threads) if model else None
        if counted:
            outcome.counts.append(counted[0])
        timed = attempt(program.timing, procs, threads) if built_plain and built_inst else None
        if timed and counted and machine:
            timed.update(attempt(program.predict, machine, counted[1], procs, threads) or {})
        if timed and counted and probes:
            timed.update(attempt(program.convolve, probes, counted[1], procs, threads) or {})
        if timed:
            outcome.times.append(timed)
        outcome.load.append(os.getloadavg()[0])
    outcome.seconds = time.perf_counter() - start
    return outcome


# ---- transform -----------------------------------------------------------------------------------
def error_pct(row: dict) -> float | None:
    measured, predicted = row["measured"], row["predicted"]
    if measured == 0:
        return 0.0 if predicted == 0 else float("inf")
    return 100.0 * (predicted - measured) / measured


def summarize(outcome: Outcome) -> dict:
    """The measurements of one program as a JSON-able row (what --json prints and --load reads)."""
    return derive({
        "name": outcome.name,
        "failures": [{"step": f.step, "class": f.kind, "message": f.message} for f in outcome.failures],
        "output": outcome.output,
        "parameters": outcome.parameters,
        "loops": outcome.loops,
        "fallbacks": outcome.fallbacks,
        "self_check_worst": outcome.self_check,
        "counts": outcome.counts,
        "times": outcome.times,
        "load": [min(outcome.load), max(outcome.load)],
        "seconds": outcome.seconds,
        "description": outcome.description,
    })


def derive(row: dict) -> dict:
    """The figures printed, from a row's measurements: the first failure, the count error of the
    largest magnitude over the big-size runs, the slowdown of the first (P = 1, T = 1) configuration
    (the one least disturbed by other work on the machine), the time errors and interval hits."""
    first = row["failures"][0] if row["failures"] else None
    worst = {}
    for label, _ in COUNT_KEYS:
        errors = [error_pct(counts[label]) for counts in row["counts"]]
        worst[label] = max(errors, key=abs) if errors else None
    times = row["times"]
    predicted = [t for t in times if "predicted_s" in t]
    return {
        **row,
        "status": "ok" if first is None else f"{first['step']}: {first['class']}",
        "message": None if first is None else first["message"],
        "count_error_pct": worst,
        "slowdowns": [t["instrumented_s"] / t["plain_s"] for t in times],
        "slowdown": times[0]["instrumented_s"] / times[0]["plain_s"] if times else None,
        "time_error_pct": [100.0 * (t["predicted_s"] / t["plain_s"] - 1) for t in predicted],
        "inside_interval": [t["interval"][0] <= t["plain_s"] <= t["interval"][1] for t in predicted],
        "probes_error_pct": [100.0 * (t["probes_s"] / t["plain_s"] - 1) for t in times if "probes_s" in t],
    }


def overall(rows: list[dict]) -> dict:
    shares = [r["loops"]["share"] for r in rows if r["loops"] and r["loops"]["share"] is not None]
    counted = [r for r in rows if all(v is not None for v in r["count_error_pct"].values())]
    slowdowns = [r["slowdown"] for r in rows if r["slowdown"] is not None]
    time_errors = [abs(e) for r in rows for e in r["time_error_pct"]]
    inside = [i for r in rows for i in r["inside_interval"]]
    probes = [abs(e) for r in rows for e in r.get("probes_error_pct", [])]
    classes: dict[str, int] = {}
    steps: dict[str, int] = {}
    for r in rows:
        for f in r["failures"]:
            classes[f["class"]] = classes.get(f["class"], 0) + 1
        if r["failures"]:
            steps[r["failures"][0]["step"]] = steps.get(r["failures"][0]["step"], 0) + 1
    return {
        "programs": len(rows),
        "through": sum(not r["failures"] for r in rows),
        "models": sum(r["loops"] is not None for r in rows),
        "crashes": sum(any(f["class"] in ("traceback", "internal") for f in r["failures"]) for r in rows),
        "first_failing_step": steps,
        "failure_classes": classes,
        "loops_symbolic_median": statistics.median(shares) if shares else None,
        "loops_symbolic_range": [min(shares), max(shares)] if shares else None,
        "loops_symbolic_pooled": [sum(r["loops"]["symbolic"] for r in rows if r["loops"]),
                                  sum(r["loops"]["loops"] for r in rows if r["loops"])],
        "counts_compared": len(counted),
        "counts_within_1pct": sum(all(abs(v) <= 1 for v in r["count_error_pct"].values()) for r in counted),
        "slowdown_median": statistics.median(slowdowns) if slowdowns else None,
        "slowdown_max": max(slowdowns) if slowdowns else None,
        "time_error_median_abs": statistics.median(time_errors) if time_errors else None,
        "inside_interval": [sum(inside), len(inside)],
        "probes_error_median_abs": statistics.median(probes) if probes else None,
        "probes_compared": len(probes),
        "load": [min(r["load"][0] for r in rows), max(r["load"][1] for r in rows)] if rows else None,
        "cores": os.cpu_count(),
    }


# ---- print ---------------------------------------------------------------------------------------
def fmt_pct(value: float | None) -> str:
    if value is None:
        return "-"
    if value == float("inf"):
        return "inf"
    return f"{value:+.1f}" if abs(value) < 1000 else f"{value:+.0f}"


def fmt_loops(loops: dict | None) -> str:
    if not loops or not loops["loops"]:
        return "-"
    return f"{loops['symbolic']}/{loops['loops']} {100 * loops['share']:.0f}%"


def table(rows: list[dict]) -> str:
    header = ("program", "first failure", "loops symbolic", "self %", "ops %", "msgs %", "bytes %", "slowdown",
              "time err %", "in PI", "probes err %")
    lines = [header]
    for r in rows:
        err = r["count_error_pct"]
        pi = r["inside_interval"]
        check = r["self_check_worst"]
        lines.append((r["name"], r["status"], fmt_loops(r["loops"]), fmt_pct(None if check is None else 100 * check),
                      fmt_pct(err["ops"]), fmt_pct(err["msgs"]),
                      fmt_pct(err["bytes"]), f"{r['slowdown']:.2f}x" if r["slowdown"] else "-",
                      " ".join(f"{e:+.0f}" for e in r["time_error_pct"]) or "-",
                      f"{sum(pi)}/{len(pi)}" if pi else "-",
                      " ".join(f"{e:+.0f}" for e in r.get("probes_error_pct", [])) or "-"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))
                     for line in lines)


def details(row: dict) -> str:
    """One line: the model's parameters, how its loops are counted, the output comparison."""
    loops = row["loops"]
    how = "no model" if loops is None else (
        f"loops {loops['symbolic']} symbolic ({loops['relaxed']} relaxed), {loops['fit']} fitted, "
        f"{loops['constant']} constant, {loops['never_entered']} never entered, {loops.get('waits', 0)} spin-waits; "
        f"{row['fallbacks']} fallbacks")
    params = "-" if row["parameters"] is None else ", ".join(row["parameters"]) or "none"
    return f"{row['name']}: parameters {params}; {how}; output {row['output']}"


def report(rows: list[dict], summary: dict) -> str:
    out = [table(rows), ""]
    for r in rows:
        for f in r["failures"]:
            out.append(f"{r['name']}: {f['step']}: {f['class']}: {short(f['message'])}")
    out.append("")
    for r in rows:
        out.append(details(r))
    s = summary
    pct = lambda v: "-" if v is None else f"{100 * v:.0f} %"  # noqa: E731
    out += ["",
            f"programs through every step: {s['through']}/{s['programs']}; models built: {s['models']}/{s['programs']}; "
            f"crashed (traceback or internal error): {s['crashes']}",
            "first failing step: " + (", ".join(f"{k} {v}" for k, v in sorted(s["first_failing_step"].items())) or "none"),
            "failures by class: " + (", ".join(f"{k} {v}" for k, v in sorted(s["failure_classes"].items())) or "none"),
            f"loops symbolic: median {pct(s['loops_symbolic_median'])}"
            + (f", range {pct(s['loops_symbolic_range'][0])}-{pct(s['loops_symbolic_range'][1])}"
               if s["loops_symbolic_range"] else "")
            + (f"; over all loops {s['loops_symbolic_pooled'][0]}/{s['loops_symbolic_pooled'][1]}"
               if s.get("loops_symbolic_pooled") and s["loops_symbolic_pooled"][1] else ""),
            f"counts at 8x within 1 % (ops, messages, bytes): {s['counts_within_1pct']}/{s['counts_compared']} programs compared",
            "slowdown (instrumented / plain, medians of the runs at the big size, P = 1, T = 1): "
            + (f"median {s['slowdown_median']:.2f}x, max {s['slowdown_max']:.2f}x" if s["slowdown_median"] else "-"),
            "predicted time at the big size: "
            + (f"median |error| {s['time_error_median_abs']:.0f} %, inside the 95 % interval "
               f"{s['inside_interval'][0]}/{s['inside_interval'][1]}" if s["time_error_median_abs"] is not None else "-"),
            *([f"fit-free (probes and convolution) at the big size: median |error| {s['probes_error_median_abs']:.0f} % "
               f"over {s['probes_compared']} runs"] if s.get("probes_error_median_abs") is not None else []),
            f"load average during the runs: {s['load'][0]:.2f}-{s['load'][1]:.2f} on {s['cores']} cores"
            if s["load"] else ""]
    return "\n".join(out)


def results(rows: list[dict]) -> dict:
    return {"date": date.today().isoformat(), "programs": rows, "summary": overall(rows)}


def write_results(path: Path, rows: list[dict]) -> None:
    """The result so far, replaced whole (never a half-written file)."""
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(results(rows), indent=1))
    part.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="folder of the programs' sources (SRC/LOCAL/FOLDER)")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help="folder of recipes (default benchmarks/corpus)")
    parser.add_argument("--only", help="comma-separated recipe names (default: all)")
    parser.add_argument("--machine", type=Path, help="machine profile for perfeq predict (perfeq fit -o)")
    parser.add_argument("--probes", type=Path, help="probe file (perfeq probe -o): also the fit-free prediction")
    parser.add_argument("--reps", type=int, default=3, help="timed runs of each build at the big size (median)")
    parser.add_argument("--perfeq", default=str(Path(sys.executable).parent / "perfeq"), help="the perfeq command")
    parser.add_argument("--keep", type=Path, help="keep the working folders here (DIR/NAME)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("-o", "--output", type=Path, metavar="RESULTS.json",
                        help="also write the --json result here after each program (a run stopped early keeps "
                             "the rows it finished; --load reads it)")
    parser.add_argument("--load", type=Path, metavar="RESULTS.json",
                        help="print the report of a saved --json result instead of running anything")
    parser.add_argument("--reprice", type=Path, metavar="KEPT",
                        help="with --load and --probes: the fit-free predictions again, from the models kept in "
                             "KEPT/NAME/model.json (a saved run's --keep), against the saved plain times; "
                             "nothing is built or run (what a change of the convolution or the probes does)")
    args = parser.parse_args(argv)
    if args.load:
        saved = json.loads(args.load.read_text())
        if args.reprice:
            if not args.probes:
                parser.error("--reprice needs --probes")
            saved["programs"] = [reprice(row, args.reprice / row["name"] / "model.json", args.probes.resolve(),
                                         args.perfeq) for row in saved["programs"]]
        rows = [derive(row) for row in saved["programs"]]
        if args.json:
            print(json.dumps({**saved, "summary": overall(rows)}, indent=1))
        else:
            print(f"corpus run of {saved.get('date', '?')}"
                  + (f", fit-free predictions again with {args.probes}" if args.reprice else ""))
            print(report(rows, overall(rows)))
        return 0
    if args.src is None:
        parser.error("--src is required (or --load)")
    recipes = load_recipes(args.recipes, set(args.only.split(",")) if args.only else None)
    if not recipes:
        print("no recipes", file=sys.stderr)
        return 2
    machine = args.machine.resolve() if args.machine else None
    rows = []
    with tempfile.TemporaryDirectory(prefix="perfeq-corpus-") as tmp:
        for recipe in recipes:
            work = (args.keep or Path(tmp)) / recipe.name
            if work.exists():
                shutil.rmtree(work)
            work.mkdir(parents=True)
            outcome = evaluate(recipe, args.src.resolve() / recipe.get("local", recipe.name), work, args.perfeq,
                               machine, args.reps, args.probes.resolve() if args.probes else None)
            rows.append(summarize(outcome))
            if args.output:
                write_results(args.output, rows)
            print(f"{recipe.name}: {rows[-1]['status']} ({outcome.seconds:.0f} s)", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results(rows), indent=1))
    else:
        print(report(rows, overall(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
