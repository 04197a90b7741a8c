"""The virtual GPU's streams: in order on a stream, side by side across streams only on free SMs.

The schedule's rules (virtual/gpu.py) on their own, then through a script that uses streams, events
and waits as it would on a GPU, then the lesson's example (examples/scripts/streams.py).
"""
import functools
import json
import re
from pathlib import Path

import pytest

from playground.virtual.gpu import VirtualGPU

ROOT = Path(__file__).resolve().parent.parent
H100_SMS = 132


def test_kernels_on_one_stream_run_in_order():
    gpu = VirtualGPU("sm_90")
    assert gpu.schedule(0, ready=0.0, seconds=1.0, ctas=4) == 0.0
    assert gpu.schedule(0, ready=0.1, seconds=1.0, ctas=4) == 1.0      # behind the first, though SMs are free
    assert gpu.stream_end == gpu.end_of(0) == 2.0


def test_kernels_on_two_streams_overlap_only_on_free_sms():
    gpu = VirtualGPU("sm_90")
    gpu.schedule(1, ready=0.0, seconds=1.0, ctas=66)                   # half the SMs
    assert gpu.schedule(2, ready=0.1, seconds=1.0, ctas=66) == 0.1     # the other half: side by side
    assert gpu.schedule(3, ready=0.2, seconds=1.0, ctas=1) == 1.0      # none left until the first ends
    assert gpu.stream_end == 2.0


def test_a_kernel_that_fills_the_gpu_waits_for_every_other_stream():
    gpu = VirtualGPU("sm_90")
    gpu.schedule(1, ready=0.0, seconds=1.0, ctas=4)
    gpu.schedule(2, ready=0.0, seconds=3.0, ctas=4)
    assert gpu.schedule(3, ready=0.5, seconds=1.0, ctas=4 * H100_SMS) == 3.0
    # dispatched in launch order: a small kernel launched after it does not jump ahead
    assert gpu.schedule(1, ready=0.6, seconds=1.0, ctas=1) == 4.0


def test_a_wait_delays_only_the_waiting_stream():
    gpu = VirtualGPU("sm_90")
    gpu.schedule(1, ready=0.0, seconds=2.0, ctas=4)
    gpu.wait(2, gpu.end_of(1))
    assert gpu.schedule(2, ready=0.1, seconds=1.0, ctas=4) == 2.0
    gpu.wait(3, None)                                                   # an event never recorded: no wait
    assert gpu.schedule(3, ready=2.1, seconds=1.0, ctas=4) == 2.1


@functools.cache
def _run(script: Path):
    pytest.importorskip("torch")
    from playground.virtual import session
    return session.run_script(str(script), [], "sm_90", execute=False, quiet_stdout=False)


def test_events_and_waits_in_a_script_order_its_streams(capfd):
    run = _run(ROOT / "tests" / "data" / "scripts" / "stream_events.py")
    out = capfd.readouterr().out
    assert run.exit_code == 0
    _, a, b, c, d = run.launches
    assert {a["stream"], c["stream"]} == {1} and {b["stream"], d["stream"]} == {2}
    assert b["gpu_start"] < a["gpu_end"]                     # 1. independent: side by side
    assert d["gpu_start"] == pytest.approx(c["gpu_end"])     # 2. waited for the event after c
    assert "first done, second busy: True False" in out      # 3. first.synchronize() waited for c only
    assert "after synchronize: True" in out


def test_the_lessons_example_gains_from_streams_only_while_sms_are_idle(capfd):
    from playground.virtual import text, timeline
    run = _run(ROOT / "examples" / "scripts" / "streams.py")
    out = capfd.readouterr().out
    assert len(re.findall(r"rows of \d+: one stream [0-9.]+ ms, two streams [0-9.]+ ms", out)) == 2
    # the schedule, not the printed times (those include the host's measured launch gaps): the timed
    # side-stream pair of each phase (launches 5-6 and 11-12)
    few, many = run.launches[4:6], run.launches[10:12]
    assert [a["grid"][0] for a in (few[0], many[0])] == [4, 4 * H100_SMS]
    # 4 programs each: the second starts as soon as the host has launched it, beside the first
    assert few[1]["gpu_start"] == pytest.approx(few[1]["host_start"] + few[1]["host_dispatch_seconds"])
    assert few[1]["gpu_start"] < few[0]["gpu_end"]
    # 528 programs each: both fill the GPU, so the second waits for the first to end
    assert many[1]["gpu_start"] == pytest.approx(many[0]["gpu_end"])
    tracks = [e["args"]["name"] for e in timeline.events(run.trace)["traceEvents"] if e["name"] == "thread_name"]
    assert tracks == ["host (measured here)", "GPU stream 0 (default) (modelled)", "GPU stream 1 (modelled)",
                      "GPU stream 2 (modelled)"]
    shown = "\n".join(text.lines(run.trace))
    assert "stream  starts at us" in shown and re.search(r"on 3 streams, [0-9.]+ ms of it side by side", shown)
    json.dumps(run.trace)


def test_the_host_clock_is_each_launching_threads_own_cpu_time():
    """capture.host_time is a thread's CPU time: a step is measured only against the same thread's last mark,
    so a launch from a second thread adds that thread's own time (from zero at its first launch), never the
    difference of two threads' clocks; and time spent waiting, not computing, is not the script's."""
    import threading
    import time

    from playground.virtual import capture
    recorder = object.__new__(capture.Recorder)       # only its clock, no device
    recorder._marks = {}
    recorder._mark()
    time.sleep(0.2)                                    # asleep: no CPU time
    assert recorder._since_mark() < 0.05
    steps = []

    def other_thread():
        steps.append(recorder._since_mark())           # its first step: nothing to count from
        busy = capture.host_time() + 0.05
        while capture.host_time() < busy:
            pass
        steps.append(recorder._since_mark())           # still nothing: it has not been marked yet
        recorder._mark()
        busy = capture.host_time() + 0.05
        while capture.host_time() < busy:
            pass
        steps.append(recorder._since_mark())           # its own 50 ms of work

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert steps[0] == steps[1] == 0.0 and 0.05 <= steps[2] < 0.5
    assert recorder._since_mark() < 0.05               # this thread did nothing meanwhile


def test_the_raw_stream_is_the_current_virtual_streams_handle(capfd):
    """bitsandbytes' wrappers launch on `torch._C._cuda_getCurrentRawStream(device)`: on the virtual GPU it is the
    current stream's number (0 for the default), `.cuda_stream` the same, and ExternalStream(handle) that stream."""
    from playground.virtual import session
    pytest.importorskip("torch")
    run = session.run_script(str(ROOT / "tests" / "data" / "scripts" / "raw_streams.py"), [], "sm_90",
                             execute=True, quiet_stdout=False)
    out = capfd.readouterr().out
    assert run.exit_code == 0, out
    assert "default stream raw: 0 0 None" in out          # ctypes.c_void_p(0).value is None, as on a GPU
    assert "side stream raw matches: True" in out
    assert "external stream is the side stream: True" in out
    assert "doubled: True" in out
    streams = [launch["stream"] for launch in run.launches]
    assert streams[0] != 0 and streams[1] == 0


def test_a_new_tensor_at_a_freed_ones_address_is_no_repeat():
    """The repeat a hand-rolled timing loop makes passes the same tensor objects; a new tensor where a freed one
    lay (its version count starting over, one check case's inputs after another's) holds other data."""
    import torch

    from playground.virtual import repeats
    first, other = torch.zeros(8), torch.ones(8)
    seen = repeats.Repeats()
    seen.ran(0, "same key", [first], repeats.Accesses())
    assert seen.repeat_of("same key", [first]) == 0
    assert first._version == other._version and seen.repeat_of("same key", [other]) is None
