"""The run as a Chrome trace-event file (the JSON PyTorch's profiler exports; Perfetto opens it).

A track for the host: the script's Python, measured here, with each launch's dispatch as a slice
(compiling and interpreting are left out, capture.py), each sync point as an instant and the time the host then
waits for the GPU as a slice "wait for GPU (modelled)", each copy it issues and (with --ops) each ATen op as an
instant. A track for each GPU stream the script used: each kernel at its modelled start and duration, as
gpu.schedule placed it. A track for each copy engine the script's copies used, "copy engine, H2D (modelled)": each
copy at its modelled start and duration (copies.py). Where the GPU track has gaps, the GPU starves: launches cost
more than the kernels they start; where the host track runs ahead of it, dispatch is asynchronous, until a sync
point makes the host wait. Format: "Trace Event Format" (Google, the catapult project), complete events (ph "X")
and instants (ph "i") with microsecond timestamps.
"""
from __future__ import annotations

from ..units import binary

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
    note = "GPU times are modelled by playground (its performance model), not measured"
    out += _host_side(trace, pid, GPU_TID + len(streams))
    if trace.get("copies"):
        note += f"; {trace['host_link']['basis']}"
    if trace.get("ops"):
        note += ("; ATen ops are instants on the host track: the kernels they run on a GPU are not known here, "
                 "nor modelled")
    return {"traceEvents": out, "displayTimeUnit": "ns", "otherData": {"note": note}}


def _host_side(trace: dict, pid: int, first_tid: int) -> list[dict]:
    """Sync points, waits and copies (host_side.py), and with --ops the ATen ops."""
    out = []
    for sync in trace.get("syncs", []):
        args = {"what": sync["what"], "site": sync["site"], "stream": sync["stream"],
                "waits_us_modelled": sync["wait_seconds"] * 1e6}
        out.append({"ph": "i", "s": "t", "name": f"sync: {sync['what']}", "cat": "sync point", "pid": pid,
                    "tid": HOST_TID, "ts": sync["host_time"] * 1e6, "args": args})
        if sync["wait_seconds"] > 0:
            out.append({"ph": "X", "name": "wait for GPU (modelled)", "cat": "sync (modelled)", "pid": pid,
                        "tid": HOST_TID, "ts": sync["host_time"] * 1e6, "dur": sync["wait_seconds"] * 1e6,
                        "args": args})
    engines = sorted({c["direction"] for c in trace.get("copies", [])})
    track = {direction: first_tid + i for i, direction in enumerate(engines)}
    for direction, tid in track.items():
        out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                    "args": {"name": f"copy engine, {direction} (modelled)"}})
    for copy in trace.get("copies", []):
        name = f"copy {copy['direction']} {binary(copy['bytes'])} ({copy['host_memory']})"
        args = {"call": copy["call"], "site": copy["site"], "stream": copy["stream"], "bytes": copy["bytes"],
                "host_memory": copy["host_memory"], "non_blocking": copy["non_blocking"],
                "blocks_host": copy["blocks_host"], "modelled_us": (copy["modelled_seconds"] or 0) * 1e6}
        out.append({"ph": "i", "s": "t", "name": f"issue {name}", "cat": "copy", "pid": pid, "tid": HOST_TID,
                    "ts": copy["host_time"] * 1e6, "args": args})
        out.append({"ph": "X", "name": name, "cat": "copy (modelled)", "pid": pid, "tid": track[copy["direction"]],
                    "ts": copy["gpu_start"] * 1e6, "dur": (copy["modelled_seconds"] or 0) * 1e6, "args": args})
    for op in trace.get("ops", []):
        out.append({"ph": "i", "s": "t", "name": op["op"], "cat": "aten op (its kernel not modelled)", "pid": pid,
                    "tid": HOST_TID, "ts": op["host_time"] * 1e6,
                    "args": {"site": op["site"], "stream": op["stream"], "gpu_kernel": op["gpu_kernel"]}})
    return out
