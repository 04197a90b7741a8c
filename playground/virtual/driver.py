"""Triton's side of the virtual GPU: a stand-in driver, so `kernel[grid](...)` runs Triton's own launch path.

With this driver active, JITFunction.run does exactly what it does on a GPU: the binder specialises the
arguments, the options are parsed, the kernel is compiled for the driver's target through Triton's
cache. Only the last step differs: `load_binary` reads the binary's real registers and spills (what
cuFuncGetAttribute would answer), and the launcher hands the launch to capture.py, which records it
and runs the kernel in Triton's interpreter on the CPU tensors.
"""
from __future__ import annotations

import torch

from .. import compat
from ..artefact import disasm, resources
from . import capture
from .gpu import VirtualGPU

DriverBase = compat.reach("DriverBase")


class VirtualDriver(DriverBase):
    """The active driver inside `playground run`: reports the target, launches into capture.py."""

    def __init__(self, gpu: VirtualGPU, recorder):
        self.gpu = gpu
        self.recorder = recorder
        self.utils = _Utils(self)
        self.pending_metadata = None      # the metadata of the kernel whose handles Triton is loading
        self.get_device_capability = lambda device=None: gpu.capability

    @classmethod
    def is_active(cls):
        return False                       # never picked by Triton itself: session.py sets it active

    def map_python_to_cpp_type(self, ty: str) -> str:
        raise NotImplementedError("the virtual GPU has no C++ launcher")

    def get_current_target(self):
        return self.gpu.target.gpu_target()

    def get_active_torch_device(self):
        return torch.device("cuda", 0)     # what the script's GPU tensors say they are on (torch_device.py)

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        pass

    def get_current_stream(self, device=None):
        return torch.cuda.current_stream().cuda_stream

    def get_device_interface(self):
        return torch.cuda

    def get_benchmarker(self):
        return self.recorder.do_bench

    def get_empty_cache_for_benchmark(self):
        return torch.empty(0, dtype=torch.int8)

    def clear_cache(self, cache):
        pass

    def allocate_default_profile_scratch(self, size: int, alignment: int, stream):
        return torch.zeros(size, dtype=torch.int8)

    def launcher_cls(self, src, metadata):
        self.pending_metadata = metadata
        return _Launcher(self, src, metadata)


class _Utils:
    def __init__(self, driver: VirtualDriver):
        self.driver = driver

    def get_device_properties(self, device=None):
        return self.driver.gpu.triton_properties()

    def load_binary(self, name, kernel, shared, device):
        """(module, function, n_regs, n_spills, n_max_threads), as the real driver's attribute queries answer:
        registers and local bytes / 4 (Triton's driver.c divides the same way), read from the binary."""
        start = capture.host_time()
        try:
            return self._load_binary(name, kernel, shared)
        finally:
            self.driver.recorder.own(capture.host_time() - start)

    def _load_binary(self, name, kernel, shared):
        gpu = self.driver.gpu
        if gpu.target.is_nvidia:
            usage = resources._RES_USAGE.search(disasm.resource_usage_dump(kernel))
            regs, local = int(usage.group(1)), int(usage.group(4))
        else:
            md = self.driver.pending_metadata
            asm = compat.reach("get_cache_manager")(md.hash).get_file(f"{name}.amdgcn")
            read = resources.amd_from_assembly(open(asm).read(), shared)
            regs, local = read.registers, read.local_bytes
        return 0, 0, regs, local // 4, gpu.max_threads_for(regs)

    def unload_module(self, module):
        pass


class _Launcher:
    """What CompiledKernel.run calls: allocate scratch as the real launcher does, then hand over to capture.py."""

    def __init__(self, driver: VirtualDriver, src, metadata):
        self.driver, self.src, self.metadata = driver, src, metadata

    def __call__(self, grid_x, grid_y, grid_z, stream, function, packed_metadata, launch_metadata,
                 enter_hook, exit_hook, *args):
        _allocation = compat.reach("allocation")
        md = self.metadata
        size = getattr(md, "global_scratch_size", 0)
        if size:   # the real launcher asks the user's allocator (triton.set_allocator) for this
            _allocation._allocator.get()(grid_x * grid_y * grid_z * md.num_ctas * size,
                                         md.global_scratch_align, stream)
        if enter_hook:
            enter_hook(launch_metadata)
        self.driver.recorder.launched(self.src, md, (grid_x, grid_y, grid_z), args, stream=stream)
        if exit_hook:
            exit_hook(launch_metadata)
