"""Reading Inductor's wrapper into a plan, on a wrapper it wrote (tests/data/inductor_relu_mm_wrapper.py.txt:
`torch.relu(a @ b + 1)` at 4096x4096 fp16 for sm_90, from torch 2.13). No torch needed to read it."""
from pathlib import Path

import pytest

from playground.core import targets
from playground.errors import UserError
from playground.inductor import plan

pytestmark = pytest.mark.compile
WRAPPER = (Path(__file__).resolve().parent / "data" / "inductor_relu_mm_wrapper.py.txt").read_text()


def read():
    return plan.read(WRAPPER, "torch.relu(a @ b + 1)", {"a": [4096, 4096], "b": [4096, 4096]}, "fp16",
                     targets.resolve("sm_90"), "H100 SXM5 80GB", "2.13.0")


def test_the_steps_in_launch_order():
    gemm, fused = read().steps
    assert (gemm.kind, gemm.name, gemm.aten, gemm.args) == ("library", "extern_kernels.mm", ["aten.mm"],
                                                            ["arg0_1", "arg1_1", "out=buf0"])
    assert (fused.kind, fused.name, fused.aten) == ("Triton pointwise", "triton_poi_fused_add_relu_0",
                                                    ["aten.add", "aten.relu"])
    assert fused.numels == [16777216] and fused.size_hints == {"x": 16777216}
    assert fused.signature == {"in_out_ptr0": "*fp16", "xnumel": "i32", "XBLOCK": "constexpr"}


def test_traffic_saved_and_memory_in_use():
    p = read()
    # one intermediate (the add's output) stays on chip: written once and read once, 2 bytes an element
    assert p.steps[1].saved_bytes == 2 * 1 * 4096 * 4096 * 2
    # the GEMM's output is the only buffer; the fused kernel reuses it in place for its result
    assert [b["bytes"] for b in p.buffers] == [4096 * 4096 * 2] and p.reused == 1
    assert p.peak_bytes == 4096 * 4096 * 2


def test_shapes_are_parsed_and_checked():
    assert plan.parse_shapes(["a=4096x4096,b=4096x1"]) == {"a": [4096, 4096], "b": [4096, 1]}
    for bad, message in ((["a=40x"], "dimensions are integers"), (["4a=8"], "expected NAME=AxB"),
                         (["a=0x8"], "dimensions are positive"), ([], "name the expression's tensors")):
        with pytest.raises(UserError, match=message):
            plan.parse_shapes(bad)


def test_an_unsupported_torch_is_one_clear_line(monkeypatch):
    assert plan.check_torch("2.13.0+cpu") == "2.13.0+cpu" and plan.check_torch("2.14.1+cu130") == "2.14.1+cu130"
    with pytest.raises(UserError, match=r"^torch 2.10.0 is not supported: playground works with torch 2.11 to 2.14 \(2.15 untested\) "):
        plan.check_torch("2.10.0")
    from playground import versions
    monkeypatch.setattr(versions, "torch_build", lambda: {})
    with pytest.raises(UserError, match="^torch is not installed: playground works with torch 2.11 to 2.14 \\(2.15 untested\\)"):
        plan.plan("a + 1", {"a": [8]})


def test_the_torch_the_suite_installs_is_supported():
    torch = pytest.importorskip("torch")
    assert plan.check_torch() == torch.__version__


def test_reopening_a_plan_or_a_trace_without_torch_is_one_clear_line(monkeypatch):
    from playground.core import registry
    real = registry.importlib.util.find_spec
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    for ref in ("fuse#2", "run.json#1"):
        with pytest.raises(UserError, match=rf"^{ref}: reopening what torch ran or planned needs torch: "
                                            r"pip install torch$"):
            registry.load(ref)
