"""A CUDA device for Inductor to plan for, on a CPU-only torch build, with the target's properties.

Inductor asks torch.cuda and its own device interface for the SM count, capability, registers and
shared memory, and asks Triton's active driver for the target; all answer from the project's device
table (virtual/gpu.py). Tensors are fake (FakeTensorMode), so nothing is allocated or run:
`torch._inductor.utils.get_code` returns the wrapper and kernels Inductor would launch. Inductor's own
caches are off, so every plan is made fresh. For a ROCm target torch reports a ROCm build (ROCM_RELEASE). Pattern initialisation traces on the CPU (it samples
`randperm` on the input device, which a fake CUDA device cannot run); the patterns are the same.
Only for a child process (planner_child.py): these patches stay for the life of the process.
"""
from __future__ import annotations

# A ROCm target is planned as a ROCm build of torch would plan it: torch.version.hip set (Inductor reads it
# to choose its HIP paths: wavefront-64 configs, waves_per_eu, hipBLAS). Which release it names matters
# only where Inductor gates a feature on the version; this is a current one, and the plan says it.
ROCM_RELEASE = "6.4.0"


def install(target_name: str):
    import torch

    from ..core import targets
    if not targets.resolve(target_name).is_nvidia:
        torch.version.hip = ROCM_RELEASE
    from .. import compat
    compat.reach("dynamo")      # imported before torch.cuda is patched: it reads the build's real state
    inductor_config, joint_graph = compat.reach("inductor_config"), compat.reach("joint_graph")
    compat.reach("get_code")    # Inductor's utils, imported here as before
    device_interface, driver = compat.reach("device_interface"), compat.reach("driver")

    from ..virtual import capture
    from ..virtual.driver import VirtualDriver
    from ..virtual.gpu import VirtualGPU

    gpu = VirtualGPU(target_name)
    props = gpu.torch_properties()
    inductor_config.fx_graph_cache = False
    inductor_config.autotune_local_cache = False
    inductor_config.use_static_cuda_launcher = False   # a CPU build has no static launcher; Triton's own is used
    patches = {
        "is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
        "set_device": lambda device: None, "get_device_properties": lambda device=None: props,
        "get_device_capability": lambda device=None: gpu.capability,
        "get_device_name": lambda device=None: props.name, "is_bf16_supported": lambda *a, **k: True,
        "_lazy_init": lambda: None, "is_initialized": lambda: True, "_exchange_device": lambda device: 0,
        "_maybe_exchange_device": lambda device: 0, "synchronize": lambda *a, **k: None,
        "get_rng_state": lambda device="cuda": torch.get_rng_state(),
        "set_rng_state": lambda state, device="cuda": None,
        # a CUDA build asks its runtime (torch 2.14's Dynamo, transforming a frame): no stream is captured here
        "is_current_stream_capturing": lambda: False,
    }
    for name, value in patches.items():
        setattr(torch.cuda, name, value)
    torch.cuda.graphs.is_current_stream_capturing = patches["is_current_stream_capturing"]
    # torch.accelerator asks the CUDA runtime of a CUDA build directly (torch 2.14's Dynamo takes its current
    # stream); answering as a CPU build does, which has no accelerator, keeps it from the runtime
    if hasattr(torch, "accelerator"):
        torch.accelerator.is_available = lambda: False
    # the first fake CUDA tensor makes a real one to start the GPU's context (torch 2.11 asks torch.cuda.is_available,
    # True here; 2.13 and 2.14 ask torch.accelerator): there is no GPU to start, and fake tensors need none
    compat.reach("fake_tensor").init_gpu_context = lambda device: None
    cuda = device_interface.get_interface_for_device("cuda")
    capability = gpu.capability[0] * 10 + gpu.capability[1]
    for name, value in {"is_available": lambda: True, "device_count": lambda: 1, "current_device": lambda: 0,
                        "get_compute_capability": lambda device=None: capability,
                        "get_device_properties": lambda device=None: props,
                        "is_bf16_supported": lambda including_emulation=False: True,
                        "exchange_device": lambda device: 0, "maybe_exchange_device": lambda device: 0}.items():
        setattr(cuda, name, staticmethod(value))
    cuda.Worker.get_device_properties = staticmethod(lambda device=None: props)
    cuda.Worker.current_device = staticmethod(lambda: 0)
    driver.set_active(VirtualDriver(gpu, capture.Recorder(gpu, execute=False)))
    triton_helpers = compat.reach("triton_helpers")
    triton_helpers.set_driver_to_gpu = lambda: None      # the virtual driver is the GPU's; keep it active
    plan_patterns = joint_graph.lazy_init
    joint_graph.lazy_init = lambda input_device=None: plan_patterns(torch.device("cpu"))
    return gpu
