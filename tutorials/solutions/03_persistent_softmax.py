"""Solution to lesson 03's exercise: the persistent softmax, its grid sized by every limit an SM has.

Triton's fused-softmax tutorial counts registers and shared memory only, and counts them loosely. A GPU holds a
program only if all four of these allow it (the rules of cuda_occupancy.h, the header behind CUDA's occupancy
calculator; playground/figures/occupancy.py writes them out):

- warps: an SM holds max_threads_per_multi_processor / 32 warps: 64 on an A100 or an H100, 48 on an RTX 4090
  (the CUDA C++ Programming Guide's table per compute capability). At 8 warps a program, 8 or 6 programs.
- registers: a warp's registers are handed out in units of 256, from one of the SM's 4 sub-partitions, each a
  quarter of the register file.
- shared memory: the block's own plus the 1 KB CUDA reserves per block, in units of 128 bytes, out of the SM's
  shared memory (shared_memory_per_multiprocessor), not the per-block maximum.
- blocks: at most 16 to 32 resident blocks per SM; at 8 warps a block the warp limit always binds first.

    playground run tutorials/solutions/03_persistent_softmax.py --target sm_89
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


PROPS = torch.cuda.get_device_properties(DEVICE)
MAX_WARPS = PROPS.max_threads_per_multi_processor // WARP_SIZE
SMEM_PER_SM = PROPS.shared_memory_per_multiprocessor
REG_UNIT = 256          # cuda_occupancy.h: registers are allocated per warp, 256 at a time
SUB_PARTITIONS = 4      # cuda_occupancy.h: an SM's register file is split among its 4 sub-partitions
SMEM_RESERVED = 1024    # CUDA Guide table: 1 KB of shared memory reserved by CUDA per block (8.0 and later)
SMEM_UNIT = 128         # cuda_occupancy.h: shared memory is allocated 128 bytes at a time


def cdiv_up(n, unit):
    return -(-n // unit) * unit


def programs_per_sm(kernel, num_warps):
    """How many programs of `kernel` one SM holds at once: the smallest of what each limit allows."""
    by_warps = MAX_WARPS // num_warps
    regs_per_warp = cdiv_up(kernel.n_regs * WARP_SIZE, REG_UNIT)
    by_registers = (NUM_REGS // SUB_PARTITIONS // regs_per_warp) * SUB_PARTITIONS // num_warps
    by_shared = SMEM_PER_SM // cdiv_up(kernel.metadata.shared + SMEM_RESERVED, SMEM_UNIT)
    return min(by_warps, by_registers, by_shared)


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
