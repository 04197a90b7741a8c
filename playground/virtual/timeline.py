"""The run as a Chrome trace-event file (the JSON PyTorch's profiler exports; Perfetto opens it).

A track for the host: the script's Python, measured here, with each launch's dispatch as a slice
(compiling and interpreting are left out, capture.py). A track for each GPU stream the script used:
each kernel at its modelled start and duration, as gpu.schedule placed it. Where the GPU track has gaps, the GPU starves:
launches cost more than the kernels they start. Format: "Trace Event Format" (Google, the
catapult project), complete events (ph "X") with microsecond timestamps.
"""
from __future__ import annotations

HOST_TID, GPU_TID = 1, 2


def events(trace: dict) -> dict:
    pid = 1
    out = [{"ph": "M", "name": "process_name", "pid": pid, "args": {"name": f"playground run on the virtual "
                                                                          f"{trace['target']} (modelled GPU)"}},
           {"ph": "M", "name": "thread_name", "pid": pid, "tid": HOST_TID, "args": {"name": "host (measured here)"}}]
    streams = sorted({launch.get("stream", 0) for launch in trace["launches"]})
    for i, stream in enumerate(streams):
        label = "GPU stream (modelled)" if streams == [0] else \
            f"GPU stream {stream}{' (default)' if stream == 0 else ''} (modelled)"
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": GPU_TID + i, "args": {"name": label}})
    track = {stream: GPU_TID + i for i, stream in enumerate(streams)}
    for launch in trace["launches"]:
        name = launch["kernel"]
        args = {"grid": launch["grid"], "variant": launch["variant"], "site": launch["site"]}
        out.append({"ph": "X", "name": f"launch {name}", "cat": "host", "pid": pid, "tid": HOST_TID,
                    "ts": launch["host_start"] * 1e6, "dur": launch["host_dispatch_seconds"] * 1e6, "args": args})
        if launch.get("modelled_seconds") is not None:
            out.append({"ph": "X", "name": name, "cat": "kernel (modelled)", "pid": pid,
                        "tid": track[launch.get("stream", 0)], "ts": launch["gpu_start"] * 1e6,
                        "dur": launch["modelled_seconds"] * 1e6,
                        "args": args | {"modelled_us": launch["modelled_seconds"] * 1e6,
                                        "model": launch.get("model_basis", "")}})
    return {"traceEvents": out, "displayTimeUnit": "ns",
            "otherData": {"note": "GPU times are modelled by playground (its performance model), not measured"}}
