"""The device a script sees on the virtual GPU: what it reports, and the modelled clock of its stream.

Every property comes from the project's device table (core/devices.py, each number with its
source there). The clock is a model, never a measurement: kernels queue on one stream and each
takes its modelled time (capture.py), so the stream's clock is the end of the last queued kernel.
"""
from __future__ import annotations

from types import SimpleNamespace

from ..core import devices, targets


class VirtualGPU:
    """One virtual device of a target, with the modelled clock of its (single) stream."""

    def __init__(self, target_name: str):
        self.target = targets.resolve(target_name)
        self.device = devices.get(self.target.name)
        self.stream_end = 0.0          # seconds since start: when the last queued kernel ends (modelled)

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
