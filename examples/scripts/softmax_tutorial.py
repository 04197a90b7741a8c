"""A fused softmax written the way Triton's tutorial 02 writes it, for a machine with a CUDA GPU.

Nothing in this file knows about playground. It asks the GPU for its SM count, its registers and its
shared memory; compiles once to learn how many registers the kernel takes; sizes a persistent grid
from that; checks the result against torch; then times the kernel over a range of row lengths.

    python softmax_tutorial.py                          # on a GPU machine
    playground run softmax_tutorial.py --target sm_90   # anywhere: a virtual H100
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
    # A persistent kernel: each program walks rows start, start + programs, start + 2 * programs, ...
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf"))
        numerator = tl.exp(row - tl.max(row, axis=0))
        softmax_output = numerator / tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    # Compile without launching, to ask the binary how many registers it needs.
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    occupancy = NUM_REGS // (kernel.n_regs * WARP_SIZE * num_warps)
    if kernel.metadata.shared:
        occupancy = min(occupancy, SIZE_SMEM // kernel.metadata.shared)
    num_programs = min(NUM_SM * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


torch.manual_seed(0)
x = torch.randn(1823, 781, device=DEVICE)
torch.testing.assert_close(softmax(x), torch.softmax(x, axis=1))
print(f"{NUM_SM} SMs; softmax matches torch")

# Timing: many small launches, then a few large ones.
for n_cols in (128, 256, 512, 1024, 2048, 4096, 8192):
    x = torch.empty(4096, n_cols, device=DEVICE)
    ms = triton.testing.do_bench(lambda: softmax(x))
    print(f"N={n_cols:5d}: {ms * 1e3:8.1f} us, {2 * x.numel() * x.element_size() / ms * 1e-6:7.1f} GB/s")

# Ten large softmaxes queued back to back: each kernel takes longer than its launch, so the host runs
# ahead of the GPU and the queue grows until the script waits for it.
x = torch.empty(65536, 8192, device=DEVICE)
ms = triton.testing.do_bench(lambda: [softmax(x) for _ in range(10)])
torch.cuda.synchronize()
print(f"10 x 65536x8192: {ms * 1e3:8.1f} us")
