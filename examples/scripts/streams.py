"""Independent work on two CUDA streams, timed with CUDA events, written for a machine with a GPU.

Nothing in this file knows about playground. It sums the rows of two matrices, once one after the
other on one stream and once side by side on two, and prints how long each took between two events
on the default stream. First with few rows (a program per row leaves most SMs idle), then with many.

    python streams.py                                    # on a GPU machine
    playground run streams.py --target sm_90 --no-exec   # anywhere: a virtual H100, times modelled
"""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
NUM_SM = torch.cuda.get_device_properties(DEVICE).multi_processor_count


@triton.jit
def row_sums(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # One program per row: it walks its whole row, BLOCK columns at a time.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sums_of(x, out):
    # 512 columns a step: each program keeps few bytes in flight, so a row takes a while, and 4 programs
    # keep 4 SMs busy that long while the rest sit idle.
    row_sums[(x.shape[0],)](x, out, x.shape[1], BLOCK=512)


def timed(work) -> float:
    """Milliseconds between an event before `work` and one after it, both on the default stream."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    work()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def one_stream(a, b, sums_a, sums_b):
    row_sums_of(a, sums_a)
    row_sums_of(b, sums_b)


def two_streams(a, b, sums_a, sums_b, side=[torch.cuda.Stream(), torch.cuda.Stream()]):
    default = torch.cuda.current_stream()
    for stream, x, out in zip(side, (a, b), (sums_a, sums_b)):
        stream.wait_stream(default)          # start after what the default stream has queued so far
        with torch.cuda.stream(stream):
            row_sums_of(x, out)
    for stream in side:
        default.wait_stream(stream)          # the end event must wait for both side streams


for rows, cols in ((4, 1 << 24), (4 * NUM_SM, 1 << 20)):
    # Only the time matters here, not the sums: the matrices are left uninitialised.
    a, b = (torch.empty(rows, cols, device=DEVICE) for _ in range(2))
    sums_a, sums_b = (torch.empty(rows, device=DEVICE) for _ in range(2))
    two_streams(a, b, sums_a, sums_b)        # warm up: the first launch compiles
    serial, side_by_side = timed(lambda: one_stream(a, b, sums_a, sums_b)), \
        timed(lambda: two_streams(a, b, sums_a, sums_b))
    print(f"{rows:4d} rows of {cols}: one stream {serial:.3f} ms, two streams {side_by_side:.3f} ms "
          f"({side_by_side / serial:.2f}x)")
