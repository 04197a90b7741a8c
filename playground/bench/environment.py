"""What a measurement ran on, beyond the GPU's name: the driver, the clocks seen while it was timed, and the
software. A recorded row carries them (record.py), so that a timing can be compared with another only where
these agree, and a row taken at a throttled clock can be told apart.

Clocks are read through NVML (the `pynvml` module of nvidia-ml-py, which torch.cuda's own clock_rate() uses),
sampled by a thread while the timed runs go on: the GPU's clock follows its load, power and temperature, so a
single reading before or after says little. Where NVML cannot be read (no nvidia-ml-py, a ROCm GPU) the row
says so instead of guessing. Nothing here imports torch at module level.
"""
from __future__ import annotations

import platform
import threading

from .. import __version__, compat
from ..versions import package_version, torch_build

SAMPLE_S = 0.02          # NVML refreshes a clock reading about as often; finer sampling reads the same value


def _nvml_handle(index: int | None = None):
    """(pynvml, the NVML handle of CUDA device `index`, torch's current one by default), or raise: NVML counts
    devices its own way, so the index goes through torch's mapping (CUDA_VISIBLE_DEVICES) where torch has it."""
    import pynvml
    pynvml.nvmlInit()
    import torch
    if index is None:
        index = torch.cuda.current_device()
    try:
        index = compat.reach("nvml_device_index")(index)
    except Exception:           # an older torch: the CUDA index is NVML's when nothing is hidden
        pass
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(index)


class ClockWatch:
    """`with ClockWatch(index) as watch: <timed runs>`, then `watch.phrase()`: the SM and memory clocks NVML
    reported while the block ran (their range over every sample)."""

    def __init__(self, index: int | None = None):
        self.index = index
        self.sm: list[int] = []
        self.memory: list[int] = []
        self.problem = ""
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        try:
            self._nvml, self._handle = _nvml_handle(self.index)
        except ImportError:        # said in the row, not guessed
            self.problem = "nvidia-ml-py (pynvml) is not installed"
            return self
        except Exception as e:     # no NVIDIA driver (a ROCm GPU), NVML refused
            self.problem = f"NVML: {e}"
            return self
        self._sample()
        self._thread = threading.Thread(target=self._run, name="clock-watch", daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        nvml = self._nvml
        self.sm.append(nvml.nvmlDeviceGetClockInfo(self._handle, nvml.NVML_CLOCK_SM))
        self.memory.append(nvml.nvmlDeviceGetClockInfo(self._handle, nvml.NVML_CLOCK_MEM))

    def _run(self):
        while not self._stop.wait(SAMPLE_S):
            try:
                self._sample()
            except Exception as e:
                self.problem = f"{type(e).__name__}: {e}"
                return

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            try:
                self._sample()
            except Exception:
                pass
        return False

    def phrase(self) -> str:
        """'SM 1755-1980 MHz, memory 2619 MHz (NVML, 41 samples while timed)', or why there is no reading."""
        if not self.sm:
            return f"not read ({self.problem or 'NVML gave no sample'})"
        return (f"SM {_span(self.sm)} MHz, memory {_span(self.memory)} MHz "
                f"(NVML, {len(self.sm)} samples while timed)")


def _span(values: list[int]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def driver(index: int | None = None) -> str:
    """'NVIDIA 580.159.04, CUDA 13.0 driver API; torch built for CUDA 13.0': the driver NVML reports and the
    CUDA (or ROCm) torch was built for; what cannot be read is left out."""
    parts = []
    try:
        nvml, _ = _nvml_handle(index)
        version = nvml.nvmlSystemGetDriverVersion()
        cuda = nvml.nvmlSystemGetCudaDriverVersion()
        parts.append(f"NVIDIA {_text(version)}, CUDA {cuda // 1000}.{cuda % 1000 // 10} driver API")
    except Exception:
        pass
    build = torch_build()
    if build.get("cuda"):
        parts.append(f"torch built for CUDA {build['cuda']}")
    elif build.get("hip"):
        parts.append(f"torch built for ROCm {build['hip']}")
    return "; ".join(parts) or "not read"


def software() -> str:
    """'triton 3.6.0; torch 2.11.0+cu130; python 3.12.3; playground 0.1.0'."""
    return "; ".join([f"triton {package_version('triton') or '?'}",
                      f"torch {torch_build().get('torch') or 'not installed'}",
                      f"python {platform.python_version()}", f"playground {__version__}"])


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
