"""Streams, events and waits as a script on a GPU uses them: each rule of the virtual GPU's schedule once.

Prints one line per check; the test reads them, and the trace.
"""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def copy_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + row * n_cols + cols, tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols),
                 mask=cols < n_cols)


x, y = torch.empty(2, 1 << 24, device=DEVICE), torch.empty(2, 1 << 24, device=DEVICE)
first, second = torch.cuda.Stream(), torch.cuda.Stream()
copy_rows[(2,)](x, y, x.shape[1], BLOCK=1024)          # compile outside what is checked
torch.cuda.synchronize()

# 1. independent: the kernel on `second` runs beside the one on `first`
with torch.cuda.stream(first):
    copy_rows[(2,)](x, y, x.shape[1], BLOCK=1024)
with torch.cuda.stream(second):
    copy_rows[(2,)](x, y, x.shape[1], BLOCK=1024)
torch.cuda.synchronize()

# 2. `second` waits for an event recorded on `first` after its kernel
done = torch.cuda.Event()
with torch.cuda.stream(first):
    copy_rows[(2,)](x, y, x.shape[1], BLOCK=1024)
    done.record()
second.wait_event(done)
with torch.cuda.stream(second):
    copy_rows[(2,)](x, y, x.shape[1], BLOCK=1024)

# 3. the host waits for `first` only, then for everything
first.synchronize()
print("first done, second busy:", first.query(), second.query())
torch.cuda.synchronize()
print("after synchronize:", second.query())
