"""The whole check of real code: plan the cases, run the subject first in its sandboxed process, then the
reference here, then every guard. One solution (`check_one`) or many against one reference (`check_many`: in
parallel, each in its own process, so one that crashes, hangs or exhausts memory fails alone; or on Ray)."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...errors import UserError
from ..request import DEFAULT_MEMORY_GB, Request  # noqa: F401 -- the check's one Request, named here too
from . import arguments, cases as plans, guards, problem as problems, reference as references, sandbox
from .verdict import CaseVerdict, Verdict, Verdicts

@dataclass
class Plan:
    """What every solution of one check shares: the cases, the reference, what is known of them."""
    request: Request
    cases: list
    reference: references.Reference
    kind: str
    expected: dict = field(default_factory=dict)   # case id -> reference.Expected, where it does not depend on
    #                                                 the subject (KernelBench: the model is the problem's)


def plan(request: Request) -> Plan:
    if request.kernelbench:
        for given, flag in ((request.inputs, "inputs"), (request.init, "init"), (request.shapes, "shape")):
            if given:       # the problem file says these itself: a value here would be silently unused
                raise UserError(f"{flag} is for a callable's check; a KernelBench problem gives its own inputs and "
                                f"init (change its sizes with `set`)", param=flag)
        base = problems.load(request.ref, request.sets)
        case_list = plans.for_problem(base, request.sets, request.seed, request.seeds, request.quick)
        ref = references.load(request.ref, kernelbench_problem=base)
        for case in case_list:
            ref.prepare(case)
        return Plan(request, case_list[:1] if request.plain else case_list, ref, "kernelbench")
    if request.sets:
        raise UserError("set changes a KernelBench problem's sizes; with `inputs`, name sizes with `shape`",
                        param="set")
    if ":" not in request.subject:
        raise UserError(f"{request.subject}: name what to call, FILE.py:NAME or package.module:NAME; or give a "
                        f"KernelBench problem file as --ref", param="kernel")
    if not request.inputs:
        raise UserError("inputs: name the call's arguments (`inputs` \"x=fp16[1823,781], eps=1e-6\")", param="inputs")
    sets = [arguments.parse_inputs(text) for text in request.inputs]
    init = arguments.parse_keywords(request.init, "init")
    case_list = plans.for_callable(sets, request.shapes, init, request.seed, request.seeds, request.quick)
    return Plan(request, case_list[:1] if request.plain else case_list, references.load(request.ref), "callable")


def check_one(request: Request, shared: Plan | None = None, progress=None) -> Verdict:
    """Check one subject: its cases in one sandboxed child, then the reference and the guards here."""
    started = time.perf_counter()
    shared = shared or plan(request)
    subject_file = _subject_file(request, shared)
    scratch = Path(tempfile.mkdtemp(prefix="playground-check-"))
    scratch.chmod(0o755)          # the sandbox's user must reach box/ inside it; nothing else is kept here
    try:
        import torch
        torch.save([c.for_child() for c in shared.cases], scratch / "cases.pt")
        needed = _needed_paths(None if shared.kind == "kernelbench" else subject_file)
        box = sandbox.prepare(scratch / "box", needed, int(request.memory_gb * (1 << 30)),
                              int(request.timeout * 2 + 60), contain=request.contain and not request.plain)
        os.replace(scratch / "cases.pt", box.scratch / "cases.pt")
        box.protections.append("order: the subject ran first, in its own process, on fresh inputs; the reference "
                               "after it, on its own copies, and every comparison, in the checking process")
        if request.target is None:
            box.missing.append("poison: on this machine's GPU torch's caching allocator hands out memory unpoisoned")
        elif request.plain:
            box.missing.append("poison (--plain)")
        copied = None
        if shared.kind == "kernelbench":       # one file by the format: a copy in the scratch folder, readable there
            copied = box.scratch / "solution" / subject_file.name
            copied.parent.mkdir()
            shutil.copyfile(subject_file, copied)
            if box.settings.get("drop_to"):
                for path in (copied.parent, copied):
                    os.chown(path, *sandbox.NOBODY)
        if box.settings.get("drop_to"):
            os.chown(box.scratch / "cases.pt", *sandbox.NOBODY)
        settings = {"target": request.target, "kind": shared.kind if shared.kind == "kernelbench" else "callable",
                    "subject": str(copied) if copied else _subject_ref(request, subject_file), "cases": str(box.scratch / "cases.pt"),
                    "results": str(box.scratch / "results"), "backward": request.backward,
                    "module_dtype": _module_dtype(shared), "poison": not request.plain}
        if progress:
            progress(0, None, None)
        code, stderr = sandbox.run(box, settings, request.timeout)
        subject_seconds = time.perf_counter() - started
        answer_file = box.scratch / "results" / "answer.json"
        text = answer_file.read_text() if answer_file.exists() else None
        if text and copied:                # the trace and the findings name the user's file, not the copy that ran
            for ran_as in (str(copied), os.path.relpath(copied, box.scratch)):
                text = text.replace(json.dumps(ran_as)[1:-1], json.dumps(str(subject_file))[1:-1])
        answer = json.loads(text) if text else None
        verdict = Verdict(subject=request.subject, reference=shared.reference.describe(),
                          kind=(answer or {}).get("subject", {}).get("kind", ""), mode=_mode(request, answer),
                          protections=box.as_dict())
        ref_start = time.perf_counter()
        _judge(verdict, shared, answer, box.scratch / "results", code, stderr, request)
        verdict.seconds = {"subject": round(subject_seconds, 3), "reference and guards":
                           round(time.perf_counter() - ref_start, 3), "all": round(time.perf_counter() - started, 3)}
        return verdict
    finally:
        if not os.environ.get("PLAYGROUND_KEEP_SCRATCH"):
            shutil.rmtree(scratch, ignore_errors=True)


def check_many(request: Request, subjects: list[str], jobs: int, ray: str | None = None, progress=None) -> Verdicts:
    """Every subject against the one reference, at most `jobs` at once (each in its own sandboxed process)."""
    shared = plan(replace(request, subject=subjects[0]))
    for case in shared.cases:        # a KernelBench reference does not depend on the solution: computed once
        if shared.kind == "kernelbench":
            shared.expected[case.id] = shared.reference.expected(case, {}, request.backward)
    if ray:
        return Verdicts(_on_ray(request, subjects, jobs, ray))
    done = {"n": 0}

    def one(subject: str) -> Verdict:
        try:
            verdict = check_one(replace(request, subject=subject), shared)
        except UserError as e:
            verdict = Verdict(subject=subject, reference=shared.reference.describe(), kind="", mode="",
                              findings=[guards.Finding("load", str(e))])
        done["n"] += 1
        if progress:
            progress(done["n"], len(subjects), None)
        return verdict

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return Verdicts(list(pool.map(one, subjects)))


def _on_ray(request: Request, subjects: list[str], jobs: int, address: str) -> list[Verdict]:
    from ...sweep import ray_pool
    tasks = [{"index": i, "request": {**vars(replace(request, subject=s))}} for i, s in enumerate(subjects)]
    out: dict = {}
    ray_pool.in_ray(tasks, jobs, lambda task, result: out.__setitem__(task["index"], result),
                    timeout=request.timeout * 2 + 120, address=address, work=remote_check)
    verdicts = []
    for i, subject in enumerate(subjects):
        result = out.get(i) or {"error": "no answer from Ray"}
        if "verdict" in result:
            verdicts.append(result["verdict"])
        else:
            verdicts.append(Verdict(subject=subject, reference=request.ref, kind="", mode="ray",
                                    findings=[guards.Finding("load", result.get("error", "failed"))]))
    return verdicts


def remote_check(task: dict) -> dict:
    """Runs in a Ray worker: the local check of one solution, exactly (its own sandboxed child there)."""
    verdict = check_one(Request(**task["request"]))
    return {"verdict": verdict}


# --- judging what the child reported --------------------------------------------------------------
def _judge(verdict: Verdict, shared: Plan, answer: dict | None, results: Path, code, stderr: str,
           request: Request) -> None:
    import torch
    if answer is None:
        verdict.findings.append(guards.Finding("containment" if code is None else "load",
                                               _ended(code, stderr, request)))
        return
    if answer.get("load_error"):
        verdict.findings.append(guards.Finding("load", f"the subject could not be loaded: {answer['load_error']}"))
        return
    for event in answer.get("events", []):
        verdict.findings.append(guards.Finding(event["guard"], f"the subject tried: {event['what']} (refused)"
                                               if event["guard"] == "containment" else event["what"]))
    for name in answer.get("reach", []):
        verdict.findings.append(guards.Finding("reach", f"the subject replaced {name}; it cannot reach the "
                                                        f"comparison, which runs in the checking process"))
    ran_by_id = {c["id"]: c for c in answer.get("cases", [])}
    expected_by_id = {}
    for case in shared.cases:
        ran = ran_by_id.get(case.id)
        if ran is None:
            continue
        expected_by_id[case.id] = shared.expected.get(case.id) or \
            shared.reference.expected(case, ran, request.backward)
    baseline_scale = _scales(expected_by_id.get(shared.cases[0].id))
    settings = {"atol": request.atol, "rtol": request.rtol, "allow_inplace": request.allow_inplace,
                "backward": request.backward}
    all_launches = []
    answers: dict = {}           # case id -> its saved outputs, for the replay test
    for case in shared.cases:
        ran = ran_by_id.get(case.id)
        if ran is None:
            why = _ended(code, stderr, request) if code != 0 else "not run"
            verdict.cases.append(CaseVerdict(case.id, case.label, case.guard, "error", note=why))
            continue
        launches = ran.get("launches", [])
        all_launches += launches
        cv = CaseVerdict(case.id, case.label, case.guard, "pass", launches=launches, seconds=ran.get("seconds", 0))
        expected = expected_by_id[case.id]
        if ran["status"] == "error":
            if expected.error or case.guard == "layouts":
                cv.status, cv.note = "skip", (f"the reference fails here too ({expected.error})" if expected.error
                                              else f"the subject does not take strided tensors: {ran['error']}")
            else:
                cv.status, cv.note = "error", ran["error"]
                cv.findings = guards.unrun(launches)      # the error may be what an unwritten output led to
            verdict.cases.append(cv)
            continue
        if expected.error:
            cv.status, cv.note = "skip", f"the reference cannot run this case: {expected.error}"
            verdict.cases.append(cv)
            continue
        cv.parameters = ran.get("parameter_mapping")
        if cv.parameters and cv.parameters["unmatched_reference"]:
            cv.status, cv.note = "error", "not judged: the subject's parameters do not take the reference's"
            cv.findings = [guards.Finding("parameters", _unmatched(cv.parameters))]
            verdict.cases.append(cv)
            continue
        saved = torch.load(results / f"case-{case.id}.pt", weights_only=True)
        answers[case.id] = dict(saved.get("outputs") or [])
        others = _other_answers(case, shared.cases, expected_by_id)
        cv.findings, cv.outputs = guards.compare_case(case, ran, saved, expected, settings, baseline_scale, others)
        cv.findings += guards.launch_findings(launches, False)
        cv.findings = guards.masked(launches, cv.findings) + cv.findings      # first: it says why the rest fired
        unrun = guards.unrun(launches)
        if unrun:                  # the outputs hold what the kernel left unwritten: no value says anything
            answers.pop(case.id)
            cv.status, cv.outputs = "error", []
            cv.findings = unrun + [f for f in cv.findings if f.guard not in guards.VALUE_GUARDS]
            cv.note = "not judged: its outputs were never computed"
        elif cv.findings:
            cv.status = "fail"
        verdict.cases.append(cv)
    _attribute(verdict.cases)
    verdict.findings += _replayed(shared.cases, answers, expected_by_id)
    verdict.findings += _called_again(answer.get("again"), shared.cases, answers, expected_by_id, results)
    baseline = verdict.cases[0] if verdict.cases else None
    if baseline is not None and baseline.status == "skip":
        verdict.findings.append(guards.Finding("reference", f"the baseline case could not be judged: {baseline.note}"
                                                            + _unranged(request, baseline.note)))
    verdict.findings += [f for f in guards.launch_findings(all_launches, request.require_triton) if f.guard == "work"]
    unrun = [c for c in verdict.cases if any(f.guard == "interpreter" for f in c.findings)]
    if unrun:                      # said first: it is why the cases below fail, not any guard
        first = next(f.message for f in unrun[0].findings if f.guard == "interpreter")
        verdict.findings.insert(0, guards.Finding("interpreter", f"{first} (in {len(unrun)} of {len(shared.cases)} "
                                                                 f"cases; those were not judged)"))
    verdict.launches = len(all_launches)
    verdict.completed = sum(1 for r in all_launches if r.get("executed") and not r.get("error"))
    verdict.kernels = list(dict.fromkeys(r.get("kernel") for r in all_launches if r.get("kernel")))
    trace = answer.get("trace") or {}
    verdict.trace = trace
    verdict.variants = [_variant(var, trace.get("launches", [])) for var in trace.get("variants", [])]
    verdict.sizes = [{"label": c.label, "sizes": c.sizes} for c in shared.cases if c.sizes]


def _unranged(request: Request, note: str | None) -> str:
    """A hint where the reference fails on an index and an integer input was drawn without a range: the default
    range (arguments.INT_DEFAULT) is no index's range."""
    if "index" not in (note or "").lower() or request.kernelbench:
        return ""
    plain = [a.name for text in request.inputs for a in arguments.parse_inputs(text).args
             if isinstance(a, arguments.TensorArg) and arguments.is_integer(a.dtype) and a.low is None]
    if not plain:
        return ""
    low, high = arguments.INT_DEFAULT
    return (f" ({', '.join(dict.fromkeys(plain))} drawn in [{low},{high}), the default: give an index its range, "
            f"`{plain[0]}=DTYPE[DIMS] in [0,N)`)")


def _variant(var: dict, launches: list) -> dict:
    """A variant as the report shows it: what tells it from the others (its constexprs, what the JIT specialised)."""
    first = next((r for r in launches if r.get("variant") == var.get("id")), {})
    constexprs = {a["name"]: a.get("value") for a in first.get("args") or [] if a.get("kind") == "constexpr"}
    return {**{k: v for k, v in var.items() if k in ("id", "kernel", "hash", "num_warps", "num_stages", "registers",
                                                      "specialised")}, "constexprs": constexprs}


def _attribute(case_verdicts: list) -> None:
    """A case that fails where the baseline passed is named for what it changed: seeds, shapes, values, layouts."""
    if not case_verdicts or case_verdicts[0].status != "pass":
        return
    for cv in case_verdicts[1:]:
        if cv.status == "fail" and cv.stands_for:
            from .guards import Finding
            cv.findings.insert(0, Finding(cv.stands_for, f"right at the baseline ({case_verdicts[0].label}), wrong "
                                                         f"at {cv.label}"))


def _replayed(case_list, answers: dict, expected_by_id: dict) -> list:
    """The seeds guard's second test: the same answer, bit for bit, to inputs drawn under different seeds whose
    references differ is a replayed or hard-coded answer, whether or not it matched the first seed."""
    import torch
    seen = [c for c in case_list if c.guard in (None, "seeds") and c.id in answers]
    for a, b in zip(seen, seen[1:]):
        for name, got in answers[a.id].items():
            other = answers[b.id].get(name)
            ref_a = dict(expected_by_id[a.id].outputs).get(name)
            ref_b = dict(expected_by_id[b.id].outputs).get(name)
            if other is None or ref_a is None or ref_b is None or got.shape != other.shape:
                continue
            constant = got.numel() < 2 or bool((got == got.flatten()[0]).all())     # the scale guard's case
            if not constant and torch.equal(got, other) and not torch.equal(ref_a, ref_b):
                return [guards.Finding("seeds", f"{name}: the same answer, bit for bit, at {a.label} and {b.label}, "
                                                f"whose references differ: replayed, not computed")]
    return []


def _unmatched(mapping: dict) -> str:
    theirs, ours = mapping["unmatched_reference"], mapping["unmatched_subject"]
    return (f"the reference's {', '.join(theirs)} match{'es' if len(theirs) == 1 else ''} no parameter of the "
            f"subject by name, nor by the module tree's order and shapes" +
            (f" (the subject's unmatched: {', '.join(ours)})" if ours else " (the subject has no other parameter)"))


def _called_again(again: dict | None, case_list, answers: dict, expected_by_id: dict, results: Path) -> list:
    """The replayed guard: the module the first case built, called again on the second seed's inputs, must not
    answer what it answered the first time where the two references differ (an answer cached across calls, keyed
    by the input's shape or address, that a fresh module per case never shows)."""
    import torch
    if not again or again.get("status") != "ran" or not case_list or case_list[0].id not in answers:
        return []
    first, case_id = case_list[0], again["id"].removesuffix("-again")
    path = results / f"case-{again['id']}.pt"
    if case_id not in expected_by_id or not path.exists():
        return []
    got = dict(torch.load(path, weights_only=True).get("outputs") or [])
    for name, answer in got.items():
        before = answers[first.id].get(name)
        ref_first = dict(expected_by_id[first.id].outputs).get(name)
        ref_now = dict(expected_by_id[case_id].outputs).get(name)
        if before is None or ref_first is None or ref_now is None or answer.shape != before.shape:
            continue
        constant = answer.numel() < 2 or bool((answer == answer.flatten()[0]).all())     # the scale guard's case
        if not constant and torch.equal(answer, before) and not torch.equal(ref_first, ref_now):
            label = next((c.label for c in case_list if c.id == case_id), case_id)
            return [guards.Finding("replayed", f"{name}: called again on {label}'s inputs, the module built for "
                                               f"{first.label} answered what it answered there, bit for bit, "
                                               f"where the references differ: an answer kept from an earlier call")]
    return []


def _scales(expected) -> dict:
    import torch
    out = {}
    for name, t in (expected.outputs if expected else []):
        if isinstance(t, torch.Tensor) and t.numel():
            finite = t[torch.isfinite(t)]
            out[name] = float(finite.abs().max()) if finite.numel() else None
    return out


def _other_answers(case, case_list, expected_by_id) -> dict:
    """For the scale guard: the reference's outputs at the other seeds of the same sizes and class."""
    import torch
    out: dict = {}
    for other in case_list:
        if other.id == case.id or other.sizes != case.sizes or other.seed == case.seed:
            continue
        expected = expected_by_id.get(other.id)
        for name, t in (expected.outputs if expected and not expected.error else []):
            if isinstance(t, torch.Tensor):
                out.setdefault(name, []).append((f"seed {other.seed}", t))
    return out


def _ended(code, stderr: str, request: Request) -> str:
    if code is None:
        return f"still running after {request.timeout:g} s: stopped (--timeout), with every process it started"
    import signal
    last = next((line for line in reversed(stderr.splitlines())
                 if line.strip() and not line.startswith("playground: a virtual")), "")
    if code > 128 and code - 128 in signal.Signals._value2member_map_:
        code = 128 - code             # bubblewrap passes a signal's death on as 128 + the signal
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        return f"its process was killed by {name}" + (f" ({last.strip()[:200]})" if last else "") + \
            (" (the memory limit, --memory, or the CPU-time limit)" if name in ("SIGKILL", "SIGXCPU") else "")
    return f"its process ended (exit {code}) before reporting" + (f": {last.strip()[:300]}" if last else "")


def _mode(request: Request, answer: dict | None) -> str:
    trace = (answer or {}).get("trace") or {}
    if request.target:
        return f"virtual {trace.get('device', request.target)} ({request.target}): the interpreter on the CPU"
    return f"this machine's {trace.get('device', 'GPU')}"


def _module_dtype(shared: Plan) -> str | None:
    """A module given --inputs runs in its inputs' floating dtype, as a model is cast before it runs."""
    import torch
    if shared.kind == "kernelbench" or not shared.cases:
        return None
    first = next((v for _, v in shared.cases[0].args if isinstance(v, torch.Tensor) and v.is_floating_point()), None)
    return None if first is None else str(first.dtype).removeprefix("torch.")


def _subject_file(request: Request, shared: Plan) -> Path | None:
    where = request.subject if shared.kind == "kernelbench" else request.subject.rpartition(":")[0]
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise UserError(f"no such file: {where}", param="kernel")
        return path.resolve()
    return None


def _subject_ref(request: Request, file: Path | None) -> str:
    if file is None:
        return request.subject
    return str(file) if ":" not in request.subject else f"{file}:{request.subject.rpartition(':')[2]}"


def _needed_paths(subject_file: Path | None) -> list[Path]:
    from ...lifecycle import PROJECT_ROOT
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(os.path.realpath(sys.executable)).parent.parent,
             Path(PROJECT_ROOT)}
    # a folder under /tmp on the path is some tool's (torch's compile cache), not the code's: the sandbox's own /tmp
    paths |= {Path(p) for p in sys.path if p and os.path.isdir(p) and not p.startswith(tempfile.gettempdir())}
    if subject_file is not None:       # the file too: its folder may be /tmp itself, which the sandbox replaces
        paths |= {subject_file.parent, subject_file}
    return sorted({Path(os.path.realpath(p)) for p in paths})
