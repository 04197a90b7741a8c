"""`playground check ... --ref`: real code against PyTorch. A real project's wrapper, module and autograd
Function (Liger-Kernel, installed by the test extra) pass unmodified, forward and backward; code that is wrong
in the ways a weak check lets through fails, each with the guard that should fire; the sandbox holds against
escapes through libc."""
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from playground import report as schemas

torch = pytest.importorskip("torch")
from playground.check.code import judge, problem, sandbox  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "check_code"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux's")


def check(subject, ref, **kw):
    kw.setdefault("quick", True)
    return judge.check_one(judge.Request(subject=str(subject), ref=ref, **kw))


def fired(verdict) -> set:
    return set(verdict.guards)


def cli(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=ROOT)


# --- a real project's code, unmodified --------------------------------------------------------------
def test_a_real_wrapper_passes_and_names_its_kernel():
    v = check("liger_kernel.transformers.functional:liger_swiglu", "F.silu(a) * b",
              inputs=["a=fp32[32,781], b=fp32[32,781]"])
    assert v.ok, v.guards
    assert v.kind == "function" and v.kernels == ["_swiglu_forward_kernel"]
    assert [c.label for c in v.cases] == ["seed 0", "seed 1", "spiky inputs", "another shape (32 -> 23, 781 -> 585; odd)"]
    assert v.completed == v.launches == 4
    assert all(c.launches[0]["grid"] == [23 if "another" in c.label else 32, 1, 1] for c in v.cases)


def test_a_real_module_passes_with_its_weight_drawn_at_random():
    v = check("liger_kernel.transformers.rms_norm:LigerRMSNorm",
              "F.rms_norm(x, (781,), model.weight, model.variance_epsilon)", inputs=["x=fp32[16,781]"],
              init="hidden_size=781")
    assert v.ok, [f.message for c in v.cases for f in c.findings]
    assert v.kind == "module" and v.kernels == ["_rms_norm_forward_kernel"]


def test_a_real_autograd_function_passes_forward_and_backward_and_its_in_place_gradients_are_told():
    args = dict(inputs=["a=fp32[16,300], b=fp32[16,300]"], backward=True)
    strict = check("liger_kernel.ops.swiglu:LigerSiLUMulFunction", "F.silu(a) * b", **args)
    # Liger's swiglu backward stores da and db into a and b (ops/swiglu.py): a change to the inputs, in backward
    assert fired(strict) == {"inputs"}
    assert all("the backward pass changed its input" in f.message for c in strict.cases for f in c.findings)
    allowed = check("liger_kernel.ops.swiglu:LigerSiLUMulFunction", "F.silu(a) * b", allow_inplace=True, **args)
    assert allowed.ok and allowed.kernels == ["_swiglu_forward_kernel", "_swiglu_backward_kernel"]


# --- our own code, right and wrong --------------------------------------------------------------------
def test_a_module_that_ignores_its_weights_fails_though_the_default_initialisation_would_pass():
    ref = "F.layer_norm(x, (x.shape[-1],), model.weight, model.bias, model.eps)"
    good = check(f"{DATA}/norms.py:TritonLayerNorm", ref, inputs=["x=fp32[8,300]"], init="hidden_size=300")
    assert good.ok, [f.message for c in good.cases for f in c.findings]
    bad = check(f"{DATA}/norms.py:LayerNormIgnoringWeights", ref, inputs=["x=fp32[8,300]"], init="hidden_size=300")
    assert not bad.ok and {"tolerance", "scale"} <= fired(bad)


def test_a_wrong_backward_fails_where_the_forward_passes():
    good = check(f"{DATA}/norms.py:Cube", "x ** 3", inputs=["x=fp32[4,200]"], backward=True)
    assert good.ok, [f.message for c in good.cases for f in c.findings]
    bad = check(f"{DATA}/norms.py:CubeWrongBackward", "x ** 3", inputs=["x=fp32[4,200]"], backward=True)
    assert fired(bad) == {"backward"}
    assert all(any(f.message.startswith("tolerance: grad x") for f in c.findings) for c in bad.cases)


def test_strided_inputs_catch_a_kernel_that_assumes_contiguous_rows_and_sizes_by_name_follow_shape():
    v = check(f"{DATA}/rms.py:rms_norm", "F.rms_norm(x, (N,), w, 1e-6)", quick=False, seeds=1,
              inputs=["x=fp16[M,N], w=fp16[N], eps=1e-6"], shapes=[{"M": 9, "N": 300}])
    by_label = {c.label: c for c in v.cases}
    assert set(by_label) == {"seed 0", "large inputs", "negative inputs", "positive inputs", "equal inputs",
                             "spiky inputs", "strided tensors", "another shape (M=5, N=223; odd)"}
    strided = by_label["strided tensors"]
    assert strided.status == "fail" and strided.guards[0] == "layouts" and "memory" in strided.guards
    assert all(c.status == "pass" for label, c in by_label.items() if label != "strided tensors")


def test_the_reference_may_be_a_file_and_one_that_cannot_run_the_baseline_fails_the_check():
    inputs = ["x=fp32[4,64], w=fp32[64], eps=1e-6"]
    v = check(f"{DATA}/rms.py:rms_norm", f"{DATA}/norms.py:rms_reference", inputs=inputs)
    assert v.ok, v.guards
    wrong = check(f"{DATA}/rms.py:rms_norm", f"{DATA}/norms.py:Cube", inputs=inputs)   # Cube takes one argument
    assert fired(wrong) == {"reference"} and "TypeError" in wrong.findings[0].message


# --- inputs as real code takes them, and what happened when the interpreter could not run a kernel -----
def test_integer_tensors_take_a_range_bools_a_density_and_values_may_be_torch_dtypes():
    from playground.check.code import arguments, cases, draws
    parsed = arguments.parse_inputs("ids=int64[4,300] in [0,12), pos=i32[64] in (0,V], m=bool[64,128] p=0.1, "
                                    "w=fp32[12,64], n=int64[1000], dtype=torch.float32, causal=True, dims=(1, 2), "
                                    "how='mean', mode=sum, none=None")
    drawn = draws.tensors(parsed, {"V": 7}, seed=0, generator="negative")
    assert (drawn["ids"].min(), drawn["ids"].max()) == (0, 11) and drawn["ids"].dtype == torch.int64
    assert (drawn["pos"].min(), drawn["pos"].max()) == (1, 7)                 # (0,V] at V=7: 1 to 7
    assert 0.08 < drawn["m"].float().mean() < 0.12
    assert (drawn["n"].min(), drawn["n"].max()) == (0, arguments.INT_DEFAULT[1] - 1)   # the default: [0, 100)
    assert (drawn["w"] <= -1).all()                         # the class changes floating tensors alone
    assert drawn["dtype"] is torch.float32 and drawn["causal"] is True and drawn["dims"] == (1, 2)
    assert (drawn["how"], drawn["mode"], drawn["none"]) == ("mean", "sum", None)
    init = arguments.parse_keywords("dtype=torch.bfloat16, hidden=V, eps=1e-6", "init")   # --init takes them too
    assert cases._init_at(init, {"V": 7}, {}) == {"dtype": torch.bfloat16, "hidden": 7, "eps": 1e-6}
    # every case keeps the range, and at another shape a bound that is a literal dimension follows it
    plan = cases.for_callable([arguments.parse_inputs("ids=int64[4,300] in [0,12), w=fp32[12,64]")], [], {}, 0, 1,
                              quick=False)
    assert [c.label for c in plan][-1] == "another shape (64 -> 47, 12 -> 7, 300 -> 223; odd)"
    for case in plan:
        ids, w = dict(case.args)["ids"], dict(case.args)["w"]
        assert 0 <= int(ids.min()) and int(ids.max()) < w.shape[0], case.label


def test_an_index_kernel_passes_with_its_range_and_without_one_is_told_the_default():
    ranged = check(f"{DATA}/indexing.py:embedding", "F.embedding(ids, w)", quick=False, seeds=1,
                   inputs=["ids=int64[2,30] in [0,12), w=fp32[12,64]"])
    assert ranged.ok, [f.message for c in ranged.cases for f in c.findings]
    assert {"negative inputs", "large inputs", "strided tensors"} <= {c.label for c in ranged.cases}
    plain = check(f"{DATA}/indexing.py:embedding", "F.embedding(ids, w)", seeds=1,
                  inputs=["ids=int64[2,30], w=fp32[12,64]"])      # indices in [0,100) into 12 rows
    assert not plain.ok and fired(plain) == {"reference"}
    assert "IndexError" in plain.findings[0].message and "ids drawn in [0,100), the default" in \
        plain.findings[0].message


def test_a_dtype_given_as_torch_float16_reaches_the_call_as_that_dtype():
    v = check(f"{DATA}/indexing.py:scaled", "(x * scale).to(dtype)", seeds=1,
              inputs=["x=fp32[300], scale=0.5, dtype=torch.float16, causal=True"])
    assert v.ok, [c.note or [f.message for f in c.findings] for c in v.cases]     # scaled raises on anything else
    assert all(c.outputs[0].dtype == "fp16" for c in v.cases)


def test_a_kernel_the_interpreter_cannot_run_is_said_first_in_its_words_and_no_guard_is_blamed():
    from playground.check.code import text
    v = check(f"{DATA}/indexing.py:asm_copy", "x", seeds=1, inputs=["x=fp32[64]"])
    lines = text.lines(v)
    assert lines[2].startswith("  interpreter: _asm_copy_kernel: the interpreter cannot run this kernel: "
                               "NotImplementedError: inline_asm not supported in interpreter mode")
    assert "in 3 of 3 cases" in lines[2]
    assert all(c.status == "error" and c.guards == ["interpreter"] for c in v.cases)
    said = "\n".join(lines)
    assert not any(guard in said for guard in ("tolerance", "scale", "memory", "nonfinite"))
    assert lines[-1] == "FAIL: 0 of 3 cases pass; not judged: a launch could not run in Triton's interpreter"
    jsonschema.validate(json.loads(json.dumps(v.as_dict(), default=str)), schemas.schema("check"))
    assert v.exit_code == 1


# --- containment ----------------------------------------------------------------------------------
@pytest.mark.skipif(sandbox.shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_escapes_through_libc_are_stopped_by_the_kernel_enforced_layers(monkeypatch):
    outside = ROOT / "tests" / "data" / "check_code" / "escaped.txt"
    assert not outside.exists()
    groups = []                 # each sandboxed child's process group: all of it must be gone after the check

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            groups.append(self.pid)

    monkeypatch.setattr(sandbox.subprocess, "Popen", Recorded)
    verdicts = judge.check_many(judge.Request(subject="", ref="x * 2", inputs=["x=fp32[8]"], quick=True, seeds=1),
                                [f"{DATA}/escapes.py:write_elsewhere", f"{DATA}/escapes.py:open_socket",
                                 f"{DATA}/escapes.py:fork_without_end"], jobs=1)
    write, connect, fork = verdicts.verdicts
    assert not outside.exists()
    assert "[Errno 30]" in write.cases[0].note          # EROFS: bubblewrap's read-only file system
    assert "Network is unreachable" in connect.cases[0].note or "connect refused" in connect.cases[0].note
    assert "fork refused after" in fork.cases[0].note and "Errno 11" in fork.cases[0].note
    children = int(fork.cases[0].note.split("after ")[1].split()[0])
    assert children < sandbox.PROCESSES
    assert "the unprivileged user nobody" in " ".join(fork.protections["in_force"])
    assert len(groups) >= 3       # and bubblewrap's probe, once a process
    for group in groups:
        with pytest.raises(ProcessLookupError):
            os.killpg(group, 0)


def test_a_solution_past_its_time_is_stopped_with_everything_it_started(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef f(x):\n    time.sleep(300)\n    return x\n")
    v = check(f"{slow}:f", "x", inputs=["x=fp32[4]"], timeout=20)
    assert not v.ok and all("stopped (--timeout)" in c.note for c in v.cases)


# --- KernelBench's problem files -----------------------------------------------------------------------
def test_a_problem_file_is_read_with_its_sizes_overridden(tmp_path):
    source = tmp_path / "p.py"
    source.write_text("import torch\nbatch_size = 16\ndim = 1024\nwide = dim * 2\nreduce_dim = 1\n"
                      "class Model(torch.nn.Module):\n    def forward(self, x):\n        return x.sum(reduce_dim)\n"
                      "def get_inputs():\n    return [torch.randn(batch_size, wide)]\n"
                      "def get_init_inputs():\n    return []\n")
    p = problem.load(source, {"dim": 10})
    assert p.sizes == {"batch_size": 16, "dim": 10, "reduce_dim": 1}
    assert p.inputs(0)[0].shape == (16, 20)          # `wide` follows the changed `dim`
    assert problem.other_sizes(p.sizes) == [{"batch_size": 11, "dim": 7}, {"batch_size": 8, "dim": 5}]
    assert problem.is_problem(source)


def test_bad_input_is_one_line_and_exit_2():
    r = cli("check", f"{DATA}/rms.py:rms_norm", "--ref", "x", "--inputs", "x=fp99[4]")
    assert r.returncode == 2 and "unknown dtype 'fp99'" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("check", f"{DATA}/rms.py:rms_norm", "--inputs", "x=fp32[4]")
    assert r.returncode == 2 and "--ref" in r.stderr
    for given, said in (("ids=int64[4] in [0,12", "after the dimensions: write `in [LOW,HIGH)`"),
                        ("x=fp32[4] in [0,12)", "a range is for integer tensors; x is fp32"),
                        ("m=bool[4] p=1.5", "the probability of True is a number from 0 to 1"),
                        ("ids=int8[4] in [0,300)", "does not fit i8"),
                        ("d=torch.nn.Linear", "only dtypes are values")):
        r = cli("check", f"{DATA}/rms.py:rms_norm", "--ref", "x", "--inputs", given)
        assert r.returncode == 2 and said in r.stderr and len(r.stderr.strip().splitlines()) == 1, (given, r.stderr)


def test_the_cli_prints_the_verdict_and_exits_1_on_a_failure():
    r = cli("check", f"{DATA}/norms.py:CubeWrongBackward", "--ref", "x ** 3", "--inputs", "x=fp32[4,64]", "--quick",
            "--backward", "--json")
    assert r.returncode == 1, r.stderr
    report = json.loads(r.stdout)
    jsonschema.validate(report, schemas.schema("check"))
    assert report["ok"] is False and report["guards_fired"] == ["backward"] and report["kind"] == "autograd"


def test_each_solution_fails_alone_whether_it_crashes_or_exhausts_memory(tmp_path):
    (tmp_path / "many.py").write_text(
        "import ctypes\nimport torch\n\n"
        "def crash(x):\n    ctypes.CDLL(None).abort()\n\n"
        "def hog(x):\n    return torch.empty(1 << 36, dtype=torch.uint8, device=x.device)[:0] + x.sum()\n\n"
        "def right(x):\n    return x * 2\n")
    verdicts = judge.check_many(judge.Request(subject="", ref="x * 2", inputs=["x=fp32[64]"], quick=True, seeds=1),
                                [f"{tmp_path}/many.py:{name}" for name in ("crash", "hog", "right")], jobs=3)
    crash, hog, right = verdicts.verdicts
    assert right.ok
    assert not crash.ok and "killed by SIGABRT" in crash.cases[0].note
    assert not hog.ok and hog.cases[0].status == "error" and "alloc" in hog.cases[0].note.lower()
    assert verdicts.exit_code == 1


@pytest.mark.slow
def test_many_solutions_on_a_local_ray_instance_get_the_same_verdicts():
    pytest.importorskip("ray")
    subjects = [f"{DATA}/rms.py:rms_norm", f"{DATA}/norms.py:rms_reference"]
    request = judge.Request(subject="", ref="F.rms_norm(x, (64,), w, 1e-6)", inputs=["x=fp32[4,64], w=fp32[64], eps=1e-6"],
                            quick=True, seeds=1, require_triton=True)
    on_ray = judge.check_many(request, subjects, jobs=2, ray="local").verdicts
    assert [v.ok for v in on_ray] == [True, False]
    assert on_ray[1].guards == ["work"]          # PyTorch alone answered


def test_a_kernelbench_problem_refuses_the_options_it_would_ignore():
    kb = Path(__file__).resolve().parent / "data" / "kernelbench"
    r = cli("check", f"{kb}/solutions/softmax_long_row/online_softmax.py", "--ref", f"{kb}/problems/softmax_long_row.py",
            "--inputs", "x=fp32[4]")
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("error: --inputs is for a callable's check")
