"""`playground run` without --target on a GPU machine: the script runs there, each launch captured through the
JIT (as on the virtual GPU) and timed by CUDA events recorded from Triton's launch hooks. No GPU here, so the GPU
is played by the virtual one's stand-in driver (which calls the launch hooks as Triton's launcher does, and runs
the kernel in the interpreter) and CUDA events by a clock that ticks once per record: what is tested is the
wiring, that every launch's two events are its own, that timing loops are counted apart, and the words."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

WIRING = r'''
import json, sys
import torch, triton, triton.testing
from playground.virtual import capture, native, torch_device, text
from playground.virtual.driver import VirtualDriver
from playground.virtual.gpu import VirtualGPU
from triton.runtime import driver

gpu = VirtualGPU("sm_90")
torch_device.install(gpu)
driver.set_active(VirtualDriver(gpu, capture.Recorder(gpu, execute=True)))   # "the GPU": runs the kernel


class Event:                      # the GPU's clock: 1 ms passes between two records
    clock = 0.0

    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        Event.clock += 1.0
        self.t = Event.clock

    def elapsed_time(self, end):
        return end.t - self.t


torch.cuda.Event = Event
torch.cuda.is_current_stream_capturing = lambda: False
torch.cuda.get_device_name = lambda device=None: "Fake GPU"
triton.testing.do_bench = lambda fn, **kw: [fn() for _ in range(5)] and 0.004
recorder = native.NativeRecorder(gpu)
native.install(recorder)

from playground.kernels.vector_add import vector_add_kernel
x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
out = torch.empty_like(x)
launch = lambda n: vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
launch(4096)
launch(4096)
launch(4001)                      # not divisible by 16: a second variant
triton.testing.do_bench(lambda: launch(4096))
compiled = vector_add_kernel.warmup(x, y, out, 2048, BLOCK_SIZE=512, grid=(1,))   # a third, compiled ahead
compiled[(4, 1, 1)](x, y, out, 2048, 512)                                        # and launched directly
triton.testing.do_bench(lambda: compiled[(4, 1, 1)](x, y, out, 2048, 512))
assert torch.allclose(out, x + y)
trace = recorder.as_dict()
print(json.dumps({"trace": trace, "text": "\n".join(text.lines(trace))}, default=str))
'''


@pytest.fixture(scope="module")
def native_run(tmp_path_factory):
    pytest.importorskip("torch")
    script = tmp_path_factory.mktemp("native") / "wiring.py"
    script.write_text(WIRING)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), TRITON_INTERPRET=""))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_each_launch_is_timed_by_its_own_two_events_and_timing_loops_are_counted_apart(native_run):
    trace = native_run["trace"]
    assert trace["native"] is True and trace["device"] == "Fake GPU"
    launches = trace["launches"]
    assert len(launches) == 4                                   # the do_bench loops' ten are not rows
    assert [launch["measured_seconds"] for launch in launches] == [1e-3] * 4
    assert all(launch["modelled_seconds"] > 0 for launch in launches)
    starts = [launch["gpu_start"] for launch in launches]
    assert starts == sorted(starts) and starts[0] > 0          # placed on the GPU's clock, after its zero
    assert [launch["variant"] for launch in launches] == [1, 1, 2, 3]
    assert [launch["new_compile"] for launch in launches] == [True, False, True, False]
    assert launches[3].get("direct") is True and launches[3]["grid"] == [4, 1, 1]
    first, second, third = trace["variants"]
    assert first["timed"] == {"launches": 5, "median_seconds": 1e-3, "min_seconds": 1e-3}
    assert third["timed"]["launches"] == 5 and (third["launches"], third["warmups"]) == (1, 1)
    assert "timed" not in second and first["same_binary"] is True and first["registers"] > 0
    assert trace["unwatched_launches"] == 0


def test_the_table_says_measured_and_modelled_apart(native_run):
    lines = native_run["text"].splitlines()
    assert lines[0] == ("4 launches of 3 compiled variants on this GPU, Fake GPU (sm_90); times measured with CUDA "
                        "events around each launch, the model's beside them")
    assert lines[2].split() == ["#", "kernel", "launched", "at", "grid", "variant", "compile", "ran", "measured", "us",
                                "modelled", "us"]
    assert "on the GPU" in lines[4] and "1,000.0" in lines[4]
    assert any("5 at 1,000.0 us" in line for line in lines)
    assert any(line.split()[:3] == ["4", "vector_add_kernel", "wiring.py:44"] and "direct" in line for line in lines)
    assert lines[-1].startswith("GPU busy 4.000 ms measured over the launches listed (modelled ")


def test_no_exec_without_a_target_is_refused_in_one_line(monkeypatch):
    from playground.errors import UserError
    from playground.virtual import session
    with pytest.raises(UserError, match="^no_exec runs no kernel on a virtual GPU"):
        session.run_script(str(ROOT / "examples" / "scripts" / "streams.py"), [], None, execute=False)


def test_a_native_trace_is_what_runs_json_schema_documents(native_run):
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    from playground.virtual.launches import TRACE_FORMAT
    trace = {"format": TRACE_FORMAT, **native_run["trace"], "script": "x.py", "argv": [], "exit_code": 0}
    jsonschema.Draft202012Validator(report.schema("run")).validate(trace)
