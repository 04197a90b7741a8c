"""The device a script sees on the virtual GPU: what it reports, and the modelled clock of its stream.

Every property comes from the project's device table (core/devices.py, each number with its
source there). The clock is a model, never a measurement: each kernel takes its modelled time
(capture.py), and `schedule` places it on the device's streams by these rules:

- in order on its stream: a kernel starts after the one queued before it on the same stream ends
  (CUDA C++ Programming Guide, "Streams"), and after any event its stream was told to wait for;
- dispatched in launch order: it starts no earlier than the kernel launched before it, on any stream
  (one hardware queue feeds the SMs here; real GPUs have several, so this is conservative);
- kernels of different streams overlap only on SMs the others leave free. A kernel takes
  min(1, CTAs / SMs) of the SMs (the block scheduler spreads CTAs one per SM first), and starts when
  that share is free. Kernels that share SMs could also run together on a real GPU, each slower; the
  performance model charges an SM's rates to one kernel at a time, so here they wait instead.
"""
from __future__ import annotations

from types import SimpleNamespace

from ..core import devices, targets


class VirtualGPU:
    """One virtual device of a target, with the modelled clock of each of its streams."""

    def __init__(self, target_name: str):
        self.target = targets.resolve(target_name)
        self.device = devices.get(self.target)
        self.stream_ends: dict[int, float] = {}    # stream -> seconds since start when its queued work ends
        self.running: list[tuple[float, float]] = []   # (end, share of the SMs) of each kernel placed so far
        self.last_start = 0.0                       # when the kernel launched last started

    @property
    def stream_end(self) -> float:
        """When everything queued on any stream has ended (modelled): what torch.cuda.synchronize waits for."""
        return max(self.stream_ends.values(), default=0.0)

    def end_of(self, stream: int) -> float:
        return self.stream_ends.get(stream, 0.0)

    def wait(self, stream: int, until: float | None):
        """The stream's next work starts no earlier than `until` (an event it waits for, another stream)."""
        if until is not None:
            self.stream_ends[stream] = max(self.end_of(stream), until)

    def sm_share(self, ctas: int) -> float:
        return min(1.0, ctas / self.device.num_sms)

    def schedule(self, stream: int, ready: float, seconds: float, ctas: int) -> float:
        """Place a kernel launched at host time `ready` on `stream` (the rules above); its start."""
        share = self.sm_share(ctas)
        start = max(ready, self.end_of(stream), self.last_start)
        # the SMs it needs free: earlier kernels only end from here on, so take the first end that frees them
        for end in sorted({start, *(e for e, _ in self.running if e > start)}):
            if sum(s for e, s in self.running if e > end) + share <= 1.0 + 1e-9:
                start = end
                break
        self.running = [(e, s) for e, s in self.running if e > start] + [(start + seconds, share)]
        self.last_start = start
        self.stream_ends[stream] = start + seconds
        return start

    @property
    def capability(self) -> tuple[int, int]:
        """What torch.cuda.get_device_capability answers: (9, 0) for sm_90; for gfx942, (9, 4) as ROCm's torch does."""
        if self.target.is_nvidia:
            arch = int(self.target.arch)
            return arch // 10, arch % 10
        digits = self.target.name.removeprefix("gfx")
        return int(digits[:-2] or 0), int(digits[-2], 16)

    def torch_properties(self) -> SimpleNamespace:
        """torch.cuda.get_device_properties(): the fields torch's own object has, from the table."""
        d = self.device
        major, minor = self.capability
        props = SimpleNamespace(
            name=f"{d.name} (virtual {self.target.name})", major=major, minor=minor,
            total_memory=d.memory_bytes, multi_processor_count=d.num_sms, warp_size=d.warp_size,
            max_threads_per_multi_processor=d.max_threads_per_sm, max_threads_per_block=d.max_threads_per_block,
            regs_per_multiprocessor=d.regs_per_sm or None, is_integrated=False, is_multi_gpu_board=False,
            shared_memory_per_block=d.shared_per_block or d.lds_per_workgroup,
            shared_memory_per_block_optin=d.shared_per_block_optin or d.lds_per_workgroup,
            shared_memory_per_multiprocessor=d.shared_per_sm or d.lds_per_cu,
            L2_cache_size=d.l2_bytes, clock_rate=int(d.clock_ghz * 1e6),
            gcnArchName=self.target.name if not self.target.is_nvidia else "NVIDIA CUDA",
            uuid="00000000-0000-0000-0000-000000000000",
        )
        return props

    def triton_properties(self) -> dict:
        """triton.runtime.driver.active.utils.get_device_properties(): the keys Triton's own drivers fill.

        Memory clock and bus width are not in the device table; asking for them names them (MissingKeys).
        """
        d = self.device
        props = {"max_shared_mem": d.shared_per_block_optin or d.lds_per_workgroup,
                 "multiprocessor_count": d.num_sms, "warpSize": d.warp_size,
                 "sm_clock_rate": int(d.clock_ghz * 1e6)}           # kHz, as cuDeviceGetAttribute reports it
        if self.target.is_nvidia:
            props["max_num_regs"] = d.regs_per_block
        else:
            props["arch"] = self.target.name
        return MissingKeys(props, f"the virtual {self.target.name}")

    def max_threads_for(self, registers: int) -> int:
        """What the driver reports as a kernel's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the block limit,
        lowered where the kernel's registers cannot fill it (registers are allocated per warp in units of
        reg_alloc_unit, from the per-block file; cuda_occupancy.h's rules, as occupancy.py applies them)."""
        d = self.device
        if not self.target.is_nvidia or registers <= 0:
            return d.max_threads_per_block
        per_warp = -(-registers * d.warp_size // d.reg_alloc_unit) * d.reg_alloc_unit
        warps = d.regs_per_block // per_warp
        warps -= warps % d.warp_alloc_granularity
        return max(min(d.max_threads_per_block, warps * d.warp_size), 0)


class MissingKeys(dict):
    """A dict whose missing keys fail with one line naming the key and the device."""

    def __init__(self, data: dict, owner: str):
        super().__init__(data)
        self.owner = owner

    def __missing__(self, key):
        raise KeyError(f"{key!r} is not provided by {self.owner} (it has: {', '.join(self)})")
