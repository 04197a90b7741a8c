"""Lesson 03's exercise: the fused softmax of examples/scripts/softmax_tutorial.py, sized as Triton's fused-softmax
tutorial sizes it, with the timing sweep and without the ten large launches at the end.

The grid is meant to be persistent: as many programs as the GPU holds at once, each looping over rows, so that
every launch runs in one wave. The sizing below counts registers and shared memory only, and so launches more
programs than fit on some GPUs. Fix `programs_per_sm` so that every launch fits in one wave on sm_80 and sm_89:

    playground run my_softmax.py --target sm_89 --trace run.json
    playground occupancy run.json#2            # each limit, as the hardware counts it
"""
import torch
import triton
import triton.language as tl
from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        numerator = tl.exp(row - tl.max(row, axis=0))
        softmax_output = numerator / tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, softmax_output, mask=mask)


def programs_per_sm(kernel, num_warps):
    """How many programs of `kernel` one SM holds at once: here, as Triton's tutorial counts them."""
    occupancy = NUM_REGS // (kernel.n_regs * WARP_SIZE * num_warps)
    if kernel.metadata.shared:
        occupancy = min(occupancy, SIZE_SMEM // kernel.metadata.shared)
    return occupancy


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    num_programs = min(NUM_SM * programs_per_sm(kernel, num_warps), n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


torch.manual_seed(0)
x = torch.randn(200, 781, device=DEVICE)      # a few rows, so that the interpreter is quick
torch.testing.assert_close(softmax(x), torch.softmax(x, axis=1))
print(f"{NUM_SM} SMs; softmax matches torch")

for n_cols in (128, 256, 512, 1024, 2048, 4096, 8192):
    x = torch.empty(4096, n_cols, device=DEVICE)
    ms = triton.testing.do_bench(lambda: softmax(x))
    print(f"N={n_cols:5d}: {ms * 1e3:8.1f} us")
