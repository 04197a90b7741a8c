"""A lent GPU's few minutes, spent without preparing anything then: measure what only a GPU can, judge the
performance model on it, run what only a GPU runs, and keep everything in one folder to bring back.

    bash scripts/gpu_session.sh OUT                 # on the GPU machine, from anywhere
    bash scripts/gpu_session.sh OUT --dry-run       # anywhere: each step's exact command, the record format
                                                    # checked, the judging step run on a recorded fixture
    bash scripts/gpu_session.sh OUT --only lessons,pytest-gpu     # steps again, into the same OUT
    bash scripts/gpu_session.sh OUT --list          # the steps, one line each

The steps run in the order of their value (STEPS below): per-config timings first (`bench --config all
--record`, each gemm shape after a `sweep` that compiles its configs on every core), then the model judged on
them (benchmarks/model_accuracy.py, on the CPU while the GPU steps go on), the GPU-marked tests, native runs
of the example scripts and `check --all --quick`, and the lessons' GPU blocks. Each step is bounded by its
own timeout, and all of them by --budget (480 s: the device tool's 15 minutes hold a start, this run, and a
rerun of one step); a step that fails or runs out of time is recorded as such and the next one starts. One
Ctrl-C or SIGTERM stops the step running, with its processes, and the session, after saving what it has.

OUT holds at most the seven files below (the device tool brings back 8 files a call):
    session.json    the environment (GPU, driver, clocks, software) and each step: command, status, time
    session.log     everything every step printed, in order
    measured.csv    every timing, in the validation set's format (benchmarks/data/measured.csv)
    sweeps.json     what `sweep` ranked for each gemm shape on this GPU (the model's order, compiled here)
    judgement.json  the model judged on measured.csv: orders of configs, errors by kernel (MODELLED vs MEASURED)
    native.json     `run` on the example scripts, and `check --all --quick`, as JSON
    lessons.json    the lessons' GPU-only blocks, each with its output
Back on the project's machine: python scripts/gpu_intake.py OUT (docs/gpu_session.md).

Before anything, the wheels in .whl/ (scripts/gpu_wheels.sh made them; the device tool carries them) are
installed with --no-index into a folder of their own, and the commands run this checkout's `playground`
through a launcher on PATH: nothing of the machine's own Python is changed. This file needs only the standard
library, so that it starts before anything is installed.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / ".whl"
FIXTURE = ROOT / "tests" / "data" / "gpu_session" / "measured.csv"
BUDGET_S = 480            # the 8 minutes on an H100
RESERVE_S = 10            # kept back for the manifest and the end of the background step
MIN_STEP_S = 15           # a step that would get less than this is not started
FILES = ("session.json", "session.log", "measured.csv", "sweeps.json", "judgement.json", "native.json",
         "lessons.json")
MAX_FILES = 8             # what the device tool brings back from one call (its README, Limits)


@dataclass
class Step:
    name: str
    argv: list[str]                 # {python}, {out} and {playground} are filled in by commands()
    timeout_s: int
    what: str
    stdout_to: tuple[str, str] | None = None    # (a file of OUT, key): the step's stdout is JSON, kept there
    background: bool = False        # CPU work: runs beside the steps after it, joined at the end
    gpu: bool = True                # False: runs anywhere (the dry run runs it on the fixture)


GEMM_SHAPES = {"4096": "M=4096,N=4096,K=4096", "2048": "M=2048,N=2048,K=2048", "16": "M=16,N=4096,K=4096"}
ROW_SIZES = "1024,4096,16384"     # softmax and layer norm: M=4096 rows of N, the published tables' layout


def _steps() -> list[Step]:
    """Every step, in the order of its value. The measurements come first; each gemm shape's configs are
    compiled on every core by `sweep` (which also records the model's order) before `bench` times them."""
    record = ["--record", "{out}/measured.csv", "--no-progress"]
    steps = []
    for label, shape in GEMM_SHAPES.items():
        steps.append(Step(f"sweep-gemm-{label}", ["{playground}", "sweep", "gemm", "--target", "native", "--shape",
                                                  shape, "--dtype", "fp16", "--json", "--no-progress"], 45,
                          f"gemm's configs at {shape} fp16 compiled on every core and ranked by the model",
                          stdout_to=("sweeps.json", f"gemm {shape} fp16")))
        steps.append(Step(f"measure-gemm-{label}", ["{playground}", "bench", "gemm", "--config", "all", "--shape", shape,
                                                    "--dtype", "fp16", *record], 60,
                          f"every config of gemm timed at {shape} fp16, cuBLAS beside them"))
    for kernel in ("softmax", "layernorm"):
        steps.append(Step(f"measure-{kernel}", ["{playground}", "bench", kernel, "--config", "all", "--shape", "M=4096",
                                                "--sweep", f"N={ROW_SIZES}", "--dtype", "fp32", *record], 60,
                          f"every config of {kernel} timed at M=4096 and N = {ROW_SIZES.replace(',', ', ')} fp32, "
                          f"PyTorch beside them"))
    steps.append(Step("measure-vector-add", ["{playground}", "bench", "vector_add", "--sweep", "N=4096..268435456",
                                             "--dtype", "fp32", *record], 60,
                      "vector_add at N = 2^12 to 2^28 fp32 (its default config), torch.add beside it"))
    steps.append(Step("measure-vector-add-configs", ["{playground}", "bench", "vector_add", "--config", "all",
                                                     "--shape", "N=16777216", "--dtype", "fp32", *record], 30,
                      "every config of vector_add timed at N = 2^24 fp32"))
    steps.append(Step("judge", ["{python}", "benchmarks/model_accuracy.py", "--csv", "{out}/measured.csv", "--json",
                                "{out}/judgement.json", "--rows"], 150,
                      "the model judged on measured.csv: each shape's config order, each kernel's error",
                      background=True, gpu=False))
    steps.append(Step("pytest-gpu", ["{python}", "-m", "pytest", "-m", "gpu", "-q", "-rA", "-p", "no:cacheprovider",
                                     "tests"], 90, "the tests marked gpu"))
    for script in ("softmax_tutorial.py", "streams.py"):
        steps.append(Step(f"run-{Path(script).stem.replace('_', '-')}",
                          ["{playground}", "run", f"examples/scripts/{script}", "--json"], 45,
                          f"`run` without --target on examples/scripts/{script}: its launches on this GPU",
                          stdout_to=("native.json", f"run {script}")))
    steps.append(Step("check-all", ["{playground}", "check", "--all", "--quick", "--json"], 120,
                      "`check --all --quick` on this GPU", stdout_to=("native.json", "check --all --quick")))
    steps.append(Step("lessons", ["{python}", "tutorials/regenerate.py", "--gpu-only", "--save", "{out}/lessons.json"],
                      120, "the lessons' GPU-only blocks, their output kept for the lessons"))
    return steps


STEPS = _steps()


def commands(step: Step, python: str, out: Path, playground: str) -> list[str]:
    """The step's command line: {python}, {out} and {playground} filled in (nothing else: code may hold braces)."""
    fill = {"{python}": python, "{out}": str(out), "{playground}": playground}
    argv = []
    for arg in step.argv:
        for key, value in fill.items():
            arg = arg.replace(key, value)
        argv.append(arg)
    return argv


# ---- the session ------------------------------------------------------------------------------------------

class Session:
    """The manifest and the log of one OUT folder, written as each step ends (a session cut short keeps what
    it had)."""

    def __init__(self, out: Path, dry_run: bool, budget_s: float, rerun: bool):
        self.out, self.dry_run, self.budget_s = out, dry_run, budget_s
        self.started = time.monotonic()
        manifest = out / "session.json"
        if rerun and manifest.exists():
            self.data = json.loads(manifest.read_text())
            self.data.setdefault("reruns", []).append(_now())
        else:
            self.data = {"format": "playground gpu session 1", "started": _now(), "dry_run": dry_run,
                         "budget_s": budget_s, "environment": {}, "steps": []}
        self.log = open(out / "session.log", "a", buffering=1)
        self.lock = threading.RLock()          # a background step's lines and the step's in front, one at a time
        self.running: list[subprocess.Popen] = []
        self.stopping = False

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def say(self, text: str) -> None:
        with self.lock:
            print(text, flush=True)
            self.log.write(text + "\n")

    def save(self) -> None:
        self.data["updated"] = _now()
        _write_json(self.out / "session.json", self.data)

    def keep_json(self, name: str, key: str, text: str) -> str:
        """A step's JSON stdout, kept under `key` of OUT/name; '' or why it could not be."""
        try:
            value = json.loads(text)
        except json.JSONDecodeError as e:
            return f"its output is not JSON ({e}); it is in session.log"
        path = self.out / name
        data = json.loads(path.read_text()) if path.exists() else {}
        data[key] = value
        _write_json(path, data)
        return ""

    def stop(self, signum, _frame):
        """One Ctrl-C or SIGTERM: stop every step's processes, save, leave."""
        if self.stopping:
            os._exit(128 + signum)
        self.stopping = True
        for proc in self.running:
            _kill(proc)
        self.data["stopped"] = signal.Signals(signum).name
        self.save()                            # first: the console may be gone
        self.say(f"== stopped by {signal.Signals(signum).name}; what ran is saved in {self.out}")
        sys.exit(128 + signum)


def _write_json(path: Path, data) -> None:
    """Whole or not at all: a session stopped mid-write keeps the file as it was."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _kill(proc: subprocess.Popen) -> None:
    """The step's whole process group (it started one of its own): TERM, then KILL."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


class Running:
    """One step's process: its output streamed to the log (and the console, unless it is JSON to keep)."""

    def __init__(self, session: Session, step: Step, argv: list[str], env: dict, timeout_s: float,
                 capture: bool = False):
        self.session, self.step, self.timeout_s = session, step, timeout_s
        capture = capture or step.stdout_to is not None     # stdout kept (JSON), not shown
        self.begun = time.monotonic()
        self.stdout: list[str] = []
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True)
        session.running.append(self.proc)
        # a background step's lines go to the log alone: the console (all the device tool returns of it is its
        # tail) follows the steps in front
        prefix, console = (f"[{step.name}] ", False) if step.background else ("", True)
        self.readers = [threading.Thread(target=self._pump, args=(self.proc.stdout, not capture, prefix, console),
                                         daemon=True),
                        threading.Thread(target=self._pump, args=(self.proc.stderr, True, prefix, console),
                                         daemon=True)]
        for r in self.readers:
            r.start()

    def _pump(self, stream, show: bool, prefix: str, console: bool):
        for line in stream:
            if not show:
                self.stdout.append(line)
            elif console:
                self.session.say(prefix + line.rstrip("\n"))
            else:
                with self.session.lock:
                    self.session.log.write(prefix + line)

    def finish(self) -> dict:
        """Wait for the step (to its time limit), and say how it ended."""
        try:
            self.proc.wait(max(self.timeout_s - (time.monotonic() - self.begun), 0))
            status = "ok" if self.proc.returncode == 0 else f"failed (exit {self.proc.returncode})"
        except subprocess.TimeoutExpired:
            _kill(self.proc)
            status = f"timed out after {self.timeout_s:.0f} s"
        for r in self.readers:
            r.join(5)
        self.session.running.remove(self.proc)
        seconds = time.monotonic() - self.begun
        entry = {"name": self.step.name, "what": self.step.what, "command": shlex.join(self.proc.args),
                 "timeout_s": round(self.timeout_s), "status": status, "exit": self.proc.returncode,
                 "seconds": round(seconds, 1), "finished": _now()}
        if self.step.stdout_to:
            problem = self.session.keep_json(*self.step.stdout_to, "".join(self.stdout)) if self.stdout else \
                "it printed nothing on stdout"
            if problem:
                with self.session.lock:
                    self.session.log.write("".join(self.stdout))
                entry["output"] = problem
            else:
                entry["output"] = f"{self.step.stdout_to[0]}: {self.step.stdout_to[1]}"
        self.session.say(f"== {self.step.name}: {status} in {seconds:.1f} s")
        return entry


def launcher(python: str) -> tuple[str, dict]:
    """This checkout's `playground`, and the environment every step runs in: the wheels' folder and the
    checkout first on PYTHONPATH, the launcher's folder first on PATH (a `playground` installed from elsewhere
    would run other code)."""
    site = Path(tempfile.mkdtemp(prefix="playground-session-")) / "site"
    bin_dir = site.parent / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "playground"
    script.write_text(f"#!{python}\nimport sys\nfrom cli import main\nsys.argv[0] = 'playground'\nsys.exit(main())\n")
    script.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), str(site),
                                                                        os.environ.get("PYTHONPATH", "")])),
               PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", PYTHONUNBUFFERED="1", NO_COLOR="1",
               COLUMNS="160")
    return str(script), env | {"PLAYGROUND_SESSION_SITE": str(site)}


ENVIRONMENT_PROBE = r'''
import json, subprocess
out = {}
try:
    fields = "name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu,clocks.sm,clocks.mem"
    done = subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"], capture_output=True,
                          text=True, timeout=20)
    out["nvidia_smi"] = dict(zip(fields.split(","), (v.strip() for v in done.stdout.splitlines()[0].split(","))))
except Exception as e:
    out["nvidia_smi"] = f"not read: {type(e).__name__}: {e}"
import torch, triton
from playground.bench import environment
from playground.core import devices, targets
out.update(torch=torch.__version__, torch_cuda=torch.version.cuda, triton=triton.__version__,
           cuda_available=torch.cuda.is_available(), driver=environment.driver(), software=environment.software())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    target = targets.native()
    out.update(gpu=torch.cuda.get_device_name(0), capability=list(torch.cuda.get_device_capability(0)),
               sms=p.multi_processor_count, l2_bytes=getattr(p, "L2_cache_size", None), memory_bytes=p.total_memory,
               target=target.label if target else None,
               device_row=devices.for_driver_name(target, torch.cuda.get_device_name(0)).name if target else None)
print(json.dumps(out))
'''


def install_wheels(session: Session, python: str, env: dict) -> None:
    """The wheels of .whl/ into the launcher's own folder, offline (the device has no network)."""
    wheels = sorted(WHEELS.glob("*.whl"))
    if not wheels:
        session.say("== install: no .whl/ here (scripts/gpu_wheels.sh makes it): using what this Python has")
        session.data["steps"].append({"name": "install", "status": "skipped: no .whl/", "seconds": 0})
        return
    step = Step("install", [python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile",
                            "--no-cache-dir", "--target", env["PLAYGROUND_SESSION_SITE"], *map(str, wheels)], 60,
                f"{len(wheels)} wheels, offline, into a folder of their own")
    session.say(f"== install: {len(wheels)} wheels from .whl/")
    session.data["steps"].append(Running(session, step, step.argv, env, step.timeout_s).finish())


def run(out: Path, python: str, only: list[str] | None, budget_s: float) -> int:
    """The session on a GPU machine (or the steps `only` names, into the same OUT)."""
    session = Session(out, dry_run=False, budget_s=budget_s, rerun=only is not None)
    signal.signal(signal.SIGINT, session.stop)
    signal.signal(signal.SIGTERM, session.stop)
    playground, env = launcher(python)
    session.say(f"== a GPU session into {out}: budget {budget_s:.0f} s, started {_now()}")
    install_wheels(session, python, env)
    environment = _environment(session, python, env)
    if environment:
        session.data["environment"] = environment
        session.say("== environment: " + json.dumps(environment))
    session.save()
    if environment and not environment.get("cuda_available"):
        session.say("== torch sees no CUDA GPU here: the steps would measure nothing. Stopping; try --dry-run.")
        session.data["stopped"] = "no CUDA GPU"
        session.save()
        return 2
    background: list[Running] = []
    for step in STEPS:
        if only is not None and not any(step.name == o or step.name.startswith(o + "-") for o in only):
            continue
        available = session.left() - RESERVE_S
        timeout = min(step.timeout_s, available)
        argv = commands(step, python, out, playground)
        if available < min(MIN_STEP_S, step.timeout_s):
            session.say(f"== {step.name}: not run, {max(session.left(), 0):.0f} s left of the budget")
            session.data["steps"].append({"name": step.name, "what": step.what, "command": shlex.join(argv),
                                          "timeout_s": step.timeout_s, "status": "not run: no time left"})
            session.save()
            continue
        session.say(f"== {step.name}: {shlex.join(argv)}  (timeout {timeout:.0f} s)")
        running = Running(session, step, argv, env, timeout)
        if step.background:
            background.append(running)
            continue
        session.data["steps"].append(running.finish())
        session.save()
    for running in background:                # it ends with the budget at the latest
        running.timeout_s = min(running.timeout_s, max(session.left(), 1) + (time.monotonic() - running.begun))
        session.data["steps"].append(running.finish())
        session.save()
    session.data["finished"] = _now()
    session.save()
    ok = sum(s["status"] == "ok" for s in session.data["steps"])
    session.say(f"== done in {time.monotonic() - session.started:.0f} s: {ok} of {len(session.data['steps'])} steps "
                f"ok; files: {', '.join(sorted(p.name for p in out.iterdir() if p.is_file()))}")
    return 0


def _environment(session: Session, python: str, env: dict) -> dict:
    """What this session runs on (ENVIRONMENT_PROBE's JSON), or {} with the reason in the log."""
    step = Step("environment", [python, "-c", ENVIRONMENT_PROBE], 60, "the GPU, driver, clocks and software")
    running = Running(session, step, step.argv, env, step.timeout_s, capture=True)
    entry = running.finish()
    entry["command"] = "python -c ENVIRONMENT_PROBE (scripts/gpu_session.py)"
    session.data["steps"].append(entry)
    text = "".join(running.stdout).strip()
    try:
        return json.loads(text.splitlines()[-1]) if text else {}
    except json.JSONDecodeError:
        session.say(text)
        return {}


# ---- the dry run ------------------------------------------------------------------------------------------

def dry_run(out: Path, python: str) -> int:
    """What a GPU session would do, checked here: each step's command (parsed by the CLI it calls), the files
    it leaves (within the device tool's limits), the record format (the fixture, as bench --record writes it),
    and the judging step, run on the fixture. Returns 1 if anything would go wrong on the GPU."""
    session = Session(out, dry_run=True, budget_s=BUDGET_S, rerun=False)
    problems = []
    session.say(f"== dry run: the steps a GPU session runs, in order (budget {BUDGET_S} s, each with its timeout)")
    total = 0
    for step in STEPS:
        argv = commands(step, python, out, "playground")
        total += step.timeout_s
        where = "in the background, beside the steps after it" if step.background else ""
        session.say(f"  {step.name:<28} {step.timeout_s:>4} s  {shlex.join(argv)}")
        session.say(f"  {'':<28}         {step.what}{'; ' + where if where else ''}")
        session.data["steps"].append({"name": step.name, "what": step.what, "command": shlex.join(argv),
                                      "timeout_s": step.timeout_s, "status": "listed (dry run)"})
        if argv[0] == "playground":
            problem = _parses(argv[1:])
            if problem:
                problems.append(f"{step.name}: {problem}")
    session.say(f"  every timeout together: {total} s; the budget stops the session at {BUDGET_S} s")
    problems += _check_files()
    problems += _check_fixture()
    judge = next(s for s in STEPS if s.name == "judge")
    argv = [a.replace(f"{out}/measured.csv", str(FIXTURE)) for a in commands(judge, python, out, "playground")]
    session.say(f"== judge, on the fixture: {shlex.join(argv)}")
    running = Running(session, judge, argv, dict(os.environ, PYTHONUNBUFFERED="1"), judge.timeout_s)
    entry = running.finish()
    entry["name"] = "judge (on the fixture)"
    session.data["steps"].append(entry)
    if entry["status"] != "ok":
        problems.append(f"judge on the fixture: {entry['status']}")
    elif not (out / "judgement.json").exists():
        problems.append("judge on the fixture wrote no judgement.json")
    session.data["problems"] = problems
    session.data["finished"] = _now()
    session.save()
    for p in problems:
        session.say(f"problem: {p}")
    session.say(f"== dry run {'passed' if not problems else 'FAILED'}: {len(STEPS)} steps listed, "
                f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _parses(args: list[str]) -> str:
    """'' if the CLI takes these arguments (parsed by click, nothing run), else its complaint."""
    import click

    from playground.cli import main
    name, rest = args[0], args[1:]
    command = main.get_command(None, name)
    if command is None:
        return f"no command {name!r}"
    if name == "run":               # run hands what follows the script to it: only the script is its own
        return "" if rest and Path(ROOT / rest[0]).is_file() else f"no script {rest[:1]}"
    try:
        command.make_context(name, list(rest))
    except click.ClickException as e:
        return e.format_message()
    return ""


def _check_files() -> list[str]:
    """The files a session leaves fit the device tool's limits: at most 8, in OUT itself, plain names."""
    named = set(FILES) | {s.stdout_to[0] for s in STEPS if s.stdout_to}
    for step in STEPS:
        named |= {Path(a.split("}/", 1)[1]).name for a in step.argv if a.startswith("{out}/")}
    problems = [f"{name}: not a plain file name" for name in named if not all(c.isalnum() or c in "._-" for c in name)]
    if len(named) > MAX_FILES:
        problems.append(f"{len(named)} files ({', '.join(sorted(named))}): the device tool brings back {MAX_FILES}")
    if named - set(FILES):
        problems.append(f"files the docstring does not list: {', '.join(sorted(named - set(FILES)))}")
    return problems


def _check_fixture() -> list[str]:
    """The fixture is in the validation set's format, as bench --record writes it (record.check_row)."""
    import csv

    from playground.bench import record
    with open(FIXTURE, newline="") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != record.FIELDS:
            return [f"{FIXTURE.name}: its header is not record.FIELDS"]
        return [f"{FIXTURE.name} line {i}: {p}" for i, row in enumerate(reader, 2) for p in record.check_row(row)]


# ---- the command ------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gpu_session.sh", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", help="the folder for everything the session writes ($OUT on the device)")
    parser.add_argument("--dry-run", action="store_true", help="list and check everything; run only the judge")
    parser.add_argument("--list", action="store_true", help="the steps, one line each")
    parser.add_argument("--only", help="run these steps again (names, or a prefix such as measure), into OUT")
    parser.add_argument("--budget", type=float, default=BUDGET_S, help=f"seconds for all steps (default {BUDGET_S})")
    args = parser.parse_args(argv)
    if args.list:
        for step in STEPS:
            print(f"{step.name:<28} {step.timeout_s:>4} s  {step.what}")
        return 0
    if not args.out:
        print("error: name the folder to write (OUT); see --help", file=sys.stderr)
        return 2
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    only = [o.strip() for o in args.only.split(",") if o.strip()] if args.only else None
    if only is not None:
        unknown = [o for o in only if not any(s.name == o or s.name.startswith(o + "-") for s in STEPS)]
        if unknown:
            print(f"error: --only {','.join(unknown)}: no such step (--list lists them)", file=sys.stderr)
            return 2
    elif any(out.iterdir()):
        print(f"error: {out} is not empty: a session writes into an empty folder (--only adds to one)",
              file=sys.stderr)
        return 2
    python = sys.executable
    if args.dry_run:
        return dry_run(out, python)
    return run(out, python, only, args.budget)


if __name__ == "__main__":
    sys.exit(main())
