"""The host side of a run (`playground run`, `--ops`): the dispatch trace, sync points, and copies between host and
GPU, pinned against pageable.

The rules on their own first (which copies block the host, the copy engines' schedule, the host link's line rate),
then data/scripts/host_side.py as `run --ops` captures it (each script runs once, in its own process), then the
lesson's script through the CLI.
"""
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from playground.core import devices, targets  # noqa: E402
from playground.errors import UserError  # noqa: E402
from playground.virtual import copies, host_text, session, timeline, torch_device  # noqa: E402
from playground.virtual.gpu import VirtualGPU  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "data" / "scripts" / "host_side.py"
LESSON_SCRIPT = ROOT / "tutorials" / "scripts" / "host_side.py"


def line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` holding `text` (so that the tests follow the script when it is edited)."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def on_gpu(tensor):
    setattr(tensor, torch_device._ON_GPU, True)     # as the device mode marks a tensor the script put on the GPU
    return tensor


# --- the rules --------------------------------------------------------------------------------------------------
def test_which_copies_block_the_host():
    """CUDA's API synchronization behaviour and PyTorch's copy: only a non_blocking copy from or into page-locked
    memory leaves the host free."""
    pageable, pinned, gpu = torch.ones(4), copies.pinned(torch.ones(4)), on_gpu(torch.ones(4))
    asks = {
        "pageable .to('cuda')": copies.requested("to", (pageable, "cuda"), {}),
        "pageable .to('cuda', non_blocking=True)": copies.requested("to", (pageable, "cuda"), {"non_blocking": True}),
        "pinned .to('cuda')": copies.requested("to", (pinned, "cuda"), {}),
        "pinned .to('cuda', non_blocking=True)": copies.requested("to", (pinned, torch.device("cuda", 0)),
                                                                   {"non_blocking": True}),
        "pinned .cuda(non_blocking=True)": copies.requested("cuda", (pinned,), {"non_blocking": True}),
        "gpu .cpu()": copies.requested("cpu", (gpu,), {}),
        "gpu .to('cpu', non_blocking=True)": copies.requested("to", (gpu, "cpu"), {"non_blocking": True}),
        "pageable.copy_(gpu, non_blocking=True)": copies.requested("copy_", (pageable, gpu), {"non_blocking": True}),
        "pinned.copy_(gpu, non_blocking=True)": copies.requested("copy_", (pinned, gpu), {"non_blocking": True}),
        "gpu.copy_(pinned, non_blocking=True)": copies.requested("copy_", (gpu, pinned, True), {}),
    }
    blocks = {what: ask.blocks_host for what, ask in asks.items()}
    assert blocks == {"pageable .to('cuda')": True, "pageable .to('cuda', non_blocking=True)": True,
                      "pinned .to('cuda')": True, "pinned .to('cuda', non_blocking=True)": False,
                      "pinned .cuda(non_blocking=True)": False, "gpu .cpu()": True,
                      "gpu .to('cpu', non_blocking=True)": False, "pageable.copy_(gpu, non_blocking=True)": True,
                      "pinned.copy_(gpu, non_blocking=True)": False, "gpu.copy_(pinned, non_blocking=True)": False}
    assert [asks[w].direction for w in ("pinned .to('cuda')", "gpu .cpu()", "gpu.copy_(pinned, non_blocking=True)")] \
        == ["H2D", "D2H", "H2D"]
    # no copy: within a device, or a dtype change alone
    assert copies.requested("to", (gpu, "cuda"), {}) is None and copies.requested("to", (pageable, torch.half), {}) \
        is None and copies.requested("copy_", (gpu, on_gpu(torch.ones(4))), {}) is None
    assert not copies.is_pinned(pageable) and copies.is_pinned(pinned)      # pinning gives a new tensor


def test_the_host_link_is_the_pcie_line_rate_per_direction():
    """PCI-SIG: 16 lanes x 16 GT/s (4.0) or 32 GT/s (5.0), 128b/130b; A100 SXM4 on 4.0, H100 SXM5 on 5.0."""
    rate = {name: devices.host_link_gbs(devices.get(targets.resolve(name))) for name in ("sm_80", "sm_90", "sm_100")}
    assert rate["sm_80"] == pytest.approx(31.5, abs=0.01) and rate["sm_90"] == pytest.approx(63.0, abs=0.02)
    assert rate["sm_100"] is None and "not timed" in copies.CopyEngines(VirtualGPU("sm_100")).basis()
    engines = copies.CopyEngines(VirtualGPU("sm_90"))
    assert engines.seconds(63_015_384) == pytest.approx(1e-3, rel=1e-6)
    assert "line rate" in engines.basis() and "upper bound" in engines.basis() and "never measured" in engines.basis()


def test_copies_take_one_engine_per_direction_in_their_streams_order():
    gpu = VirtualGPU("sm_90")
    engines = copies.CopyEngines(gpu)
    mb = 63_015_384                                                   # 1 ms at the line rate
    assert engines.place("H2D", 1, ready=0.0, nbytes=mb)[:2] == pytest.approx((0.0, 1e-3))
    assert engines.place("H2D", 2, ready=0.0, nbytes=mb)[0] == pytest.approx(1e-3)     # the engine is busy
    assert engines.place("D2H", 3, ready=0.0, nbytes=mb)[0] == 0.0                     # the other direction's is not
    gpu.schedule(4, ready=0.0, seconds=5e-3, ctas=1)
    assert engines.place("D2H", 4, ready=0.0, nbytes=mb)[0] == pytest.approx(5e-3)     # behind its stream's kernel
    assert gpu.end_of(4) == pytest.approx(6e-3)                                         # and the stream behind it


def test_ops_are_refused_where_the_script_runs_on_this_machines_gpu():
    with pytest.raises(UserError, match="ops lists the ATen ops of a run on a virtual GPU"):
        session.run_script(str(SCRIPT), [], None, ops=True)


# --- the script, as run --ops captures it ----------------------------------------------------------------------------
@functools.cache
def _run(script: Path = SCRIPT, ops: bool = True) -> session.Run:
    return session.run_script(str(script), [], "sm_90", ops=ops)


def host_goes_on(trace: dict, copy: int) -> bool:
    """Whether the host issued its next work before copy `copy` had ended (timeline times): the first later
    record, op, copy, sync point or launch, starts before the copy's modelled end."""
    issued = trace["copies"][copy]
    later = [r["host_time"] for key in ("ops", "copies", "syncs") for r in trace.get(key, [])
             if r["seq"] > issued["seq"] and r.get("copy") != copy]
    later += [launch["host_start"] for launch in trace["launches"][issued["after_launch"]:]]
    return min(later) < issued["gpu_end"]


def test_the_dispatch_trace_lists_aten_ops_with_their_shapes_and_the_triton_launch_in_order(capfd):
    run = _run()
    out = capfd.readouterr().out
    assert run.exit_code == 0 and "out == x + 1: True" in out and "pinned True, cuda:0" in out
    ops = {op["op"]: op for op in run.trace["ops"]}
    assert ops["aten::mm"]["inputs"] == [{"shape": [64, 32], "dtype": "float32"},
                                         {"shape": [32, 16], "dtype": "float32"}]
    assert ops["aten::relu"]["inputs"] == [{"shape": [64, 16], "dtype": "float32"}]
    line = line_of(SCRIPT, "torch.relu(a @ b)")
    assert ops["aten::mm"]["site"] == ops["aten::relu"]["site"] == f"host_side.py:{line}"
    assert ops["aten::mm"]["seq"] < ops["aten::relu"]["seq"] and ops["aten::mm"]["stream"] == 0
    # the launch sits between the copies (before it) and the matmul (after it)
    (launch,) = run.trace["launches"]
    assert [c["after_launch"] for c in run.trace["copies"]] == [0, 0] and ops["aten::mm"]["after_launch"] == 1
    assert launch["kernel"] == "add_kernel" and launch["site"] == f"host_side.py:{line_of(SCRIPT, 'add_kernel[')}"
    shown = host_text.dispatch_trace(run.trace)
    issued = [re.split(r"\s{2,}", row.strip())[2] for row in shown if re.match(r"^\s*\d+\s", row)]
    assert issued.index("copy H2D") < issued.index("add_kernel (Triton)") < issued.index("aten::mm") < \
        issued.index("aten::relu") < issued.index("Tensor.item()")
    # never a kernel's name: what a CUDA build would run is said to be unknown, or to be no kernel at all
    assert ops["aten::mm"]["gpu_kernel"] == "chosen by cuBLAS on a real GPU, not known here"
    assert ops["aten::relu"]["gpu_kernel"] == "chosen by ATen on a real GPU, not known here"
    assert {op["gpu_kernel"] for op in run.trace["ops"]} <= {
        "chosen by cuBLAS on a real GPU, not known here", "chosen by ATen on a real GPU, not known here",
        "none: an allocation", "none: a copy of one value to the host", "none: a view (its shape and strides only)"}
    assert run.trace["op_counts"]["aten::randn"] == 2 and run.trace["ops_left_out"] == 0


def test_the_sync_point_says_where_it_is_and_the_pageable_copy_blocks_while_the_pinned_one_does_not():
    trace = _run().trace
    item = next(s for s in trace["syncs"] if s["what"] == "Tensor.item()")
    assert item["site"] == f"host_side.py:{line_of(SCRIPT, '.item()')}" and item["stream"] == 0
    pageable, pinned = trace["copies"]
    assert (pageable["host_memory"], pageable["blocks_host"], pageable["bytes"]) == ("pageable", True, 4096 * 4)
    assert (pinned["host_memory"], pinned["blocks_host"], pinned["bytes"]) == ("pinned", False, 4 << 24)
    assert pinned["modelled_seconds"] == pytest.approx((4 << 24) / (devices.HOST_LINK_GBS["PCIe 5.0 x16"] * 1e9))
    # the pageable copy's wait is a sync point; the host's next work starts only once the copy has ended
    wait = next(s for s in trace["syncs"] if s.get("copy") == 0)
    assert wait["until"] == pytest.approx(pageable["gpu_end"]) and wait["what"] == "Tensor.to(): a blocking copy H2D"
    assert not host_goes_on(trace, 0)
    # the pinned, non_blocking one: no wait, and the kernel launch is issued while it is still on the copy engine
    assert not any(s.get("copy") == 1 for s in trace["syncs"])
    assert host_goes_on(trace, 1) and trace["launches"][0]["host_start"] < pinned["gpu_end"]


def test_the_check_that_the_host_goes_on_fails_for_a_copy_the_host_waited_for():
    """The same check on the same trace with the pinned copy's host time pushed past the wait a blocking copy
    would have (the host's clock then stands at the copy's end): it fails."""
    trace = json.loads(json.dumps(_run().trace))
    pinned = trace["copies"][1]
    for key in ("ops", "syncs", "copies"):
        for record in trace[key]:
            if record["seq"] > pinned["seq"]:
                record["host_time"] += pinned["gpu_end"] - pinned["host_time"]
    for launch in trace["launches"]:
        launch["host_start"] += pinned["gpu_end"] - pinned["host_time"]
    assert not host_goes_on(trace, 1)


def test_every_time_shown_says_it_is_modelled_or_measured_here():
    trace = _run().trace
    shown = host_text.lines(trace)
    head = next(line for line in shown if line.startswith("dispatch trace:"))
    assert "host us: the script's time here" in head and "GPU times modelled" in head
    assert "cannot know that kernel's name" in "\n".join(shown)
    rows = [row for row in host_text.dispatch_trace(trace) if re.match(r"^\s*\d+\s", row)]
    timed = [row for row in rows if re.search(r"\d us", row)]          # a launch's, a copy's, a wait's
    assert len(timed) == 5 and all("(modelled)" in row for row in timed), timed
    sync_head = next(line for line in shown if line.startswith("the host waited for the GPU"))
    assert "modelled" in sync_head and "waits us (modelled)" in shown[shown.index(sync_head) + 2]
    copy_head = next(line for line in shown if line.startswith("2 copies between host and GPU"))
    assert "modelled at the PCIe 5.0 x16 line rate" in copy_head and "never measured" in copy_head
    assert "lasts us (modelled)" in shown[shown.index(copy_head) + 2]


def test_the_timeline_has_the_copy_engine_the_waits_and_the_sync_points():
    trace = _run().trace
    events = timeline.events(trace)
    names = {e["tid"]: e["args"]["name"] for e in events["traceEvents"] if e["name"] == "thread_name"}
    assert list(names.values()) == ["host (measured here)", "GPU stream (modelled)", "copy engine, H2D (modelled)"]
    engine = next(tid for tid, name in names.items() if name.startswith("copy engine"))
    copied = [e for e in events["traceEvents"] if e.get("tid") == engine and e["ph"] == "X"]
    assert [e["name"] for e in copied] == ["copy H2D 16 KB (pageable)", "copy H2D 64 MB (pinned)"]
    launch = next(e for e in events["traceEvents"] if e["name"] == "launch add_kernel")
    assert launch["ts"] < copied[1]["ts"] + copied[1]["dur"]         # launched while the pinned copy runs
    host = [e for e in events["traceEvents"] if e.get("tid") == timeline.HOST_TID]
    assert any(e["name"] == "wait for GPU (modelled)" and e["ph"] == "X" for e in host)
    assert any(e["name"] == "sync: Tensor.item()" and e["ph"] == "i" for e in host)
    assert any(e["name"] == "aten::mm" and e["ph"] == "i" for e in host)
    assert "line rate" in events["otherData"]["note"] and "not known here" in events["otherData"]["note"]


def test_the_trace_matches_runs_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    jsonschema.Draft202012Validator(report.schema("run")).validate(json.loads(json.dumps(_run().trace, default=str)))


SYNCS = '''
import torch
x = torch.arange(8.0, device="cuda")
print(x)                                            # printing reads the values
if (x > 3).any():                                   # bool() of a GPU tensor
    kept = x[x > 3]                                 # a boolean mask: the size depends on the data
n = int(x.sum())
same = torch.equal(x, x.clone())
back = x.cpu()                                      # a blocking copy to the host
early = x.to("cpu", non_blocking=True)              # pinned by PyTorch: the host goes on
landed = torch.empty(8).copy_(x)                    # into pageable memory: blocking
made = torch.tensor([1.0, 2.0], device="cuda")      # from a Python list: a copy from pageable memory
staged = torch.empty(8, pin_memory=True)
side = torch.cuda.Stream()
with torch.cuda.stream(side):
    sent = staged.to("cuda", non_blocking=True)
side.synchronize()
done = torch.cuda.Event()
done.record()
done.synchronize()
torch.cuda.synchronize()
print("pinned:", early.is_pinned(), staged.is_pinned(), back.is_pinned(), x.is_pinned())
'''


def test_each_kind_of_sync_point_and_copy_is_recorded_where_the_script_makes_it(tmp_path, capfd):
    script = tmp_path / "syncs.py"
    script.write_text(SYNCS)
    run = session.run_script(str(script), [], "sm_80")
    out = capfd.readouterr().out
    assert run.exit_code == 0 and "pinned: True True False False" in out, out
    syncs = [(s["what"], int(s["site"].split(":")[1])) for s in run.trace["syncs"]]
    line = {text: line_of(script, text) for text in ("print(x)", "if (x > 3)", "x[x > 3]", "int(x.sum())",
                                                      "torch.equal", "x.cpu()", "copy_(x)", "torch.tensor([",
                                                      "side.synchronize()", "done.synchronize()",
                                                      "torch.cuda.synchronize()")}
    assert syncs == [
        ("printing a tensor (the values it reads, one sync point here)", line["print(x)"]),
        ("bool(tensor)", line["if (x > 3)"]),
        ("indexing with a boolean mask (its output's size depends on the data)", line["x[x > 3]"]),
        ("int(tensor)", line["int(x.sum())"]),
        ("torch.equal (its answer is a Python bool)", line["torch.equal"]),
        ("Tensor.cpu(): a blocking copy D2H", line["x.cpu()"]),
        ("Tensor.copy_(): a blocking copy D2H", line["copy_(x)"]),
        ("torch.tensor(device=...): a blocking copy H2D", line["torch.tensor(["]),
        ("Stream.synchronize()", line["side.synchronize()"]),
        ("Event.synchronize()", line["done.synchronize()"]),
        ("torch.cuda.synchronize()", line["torch.cuda.synchronize()"])]
    made = [(c["call"], c["direction"], c["host_memory"], c["blocks_host"], c["stream"]) for c in run.trace["copies"]]
    assert made == [
        ("Tensor.cpu()", "D2H", "pageable", True, 0), ("Tensor.to(non_blocking=True)", "D2H", "pinned", False, 0),
        ("Tensor.copy_()", "D2H", "pageable", True, 0), ("torch.tensor(device=...)", "H2D", "pageable", True, 0),
        ("Tensor.to(non_blocking=True)", "H2D", "pinned", False, 1)]
    assert run.trace["host_link"]["name"] == "PCIe 4.0 x16" and "ops" not in run.trace     # no --ops: no ATen ops


def test_the_lessons_script_through_the_cli_shows_every_part_of_the_host_side(tmp_path):
    trace_file, timeline_file = tmp_path / "run.json", tmp_path / "tl.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", "--ops", "--target", "sm_90",
                           str(LESSON_SCRIPT), "--trace", str(trace_file), "--timeline", str(timeline_file)],
                          capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "step 1: loss" in out and "next batch: (8192, 8192) on cuda:0" in out
    for words in ("dispatch trace:", "aten::mm", "chosen by cuBLAS on a real GPU, not known here",
                  "scale_kernel (Triton)", "Tensor.item()", "torch.cuda.synchronize()", "256 MB, pinned",
                  "the host goes on", "1 MB, pageable", "copies between host and GPU"):
        assert words in out, words
    trace = json.loads(trace_file.read_text())
    final = next(s for s in trace["syncs"] if s["what"] == "torch.cuda.synchronize()")
    last_copy = trace["copies"][-1]
    # the host raced ahead of the 256 MB copy on the side stream; at the end it waits for it, and no longer
    assert last_copy["stream"] == 1 and not last_copy["blocks_host"]
    assert final["until"] == pytest.approx(max(last_copy["gpu_end"], trace["launches"][-1]["gpu_end"]))
    assert final["wait_seconds"] > 0
    side_by_side = trace["launches"][-1]
    assert side_by_side["gpu_start"] < last_copy["gpu_end"]           # the kernel ran while the copy did
    assert "traceEvents" in json.loads(timeline_file.read_text())
