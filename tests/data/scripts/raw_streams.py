"""The raw stream as libraries take it to launch: bitsandbytes' wrappers read
`torch._C._cuda_getCurrentRawStream(A.device.index)` into a ctypes pointer for their C functions, others
`torch.cuda.current_stream().cuda_stream`, and some wrap a handle back with `torch.cuda.ExternalStream`.

Prints one line per check; the test reads them, and which stream each launch went to.
"""
import ctypes

import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def _get_tensor_stream(tensor: torch.Tensor) -> ctypes.c_void_p:      # as bitsandbytes/functional.py writes it
    return ctypes.c_void_p(torch._C._cuda_getCurrentRawStream(tensor.device.index))


x = torch.arange(1000, device="cuda", dtype=torch.float32)
y = torch.empty_like(x)
print("default stream raw:", torch._C._cuda_getCurrentRawStream(x.device.index),
      torch.cuda.current_stream().cuda_stream, _get_tensor_stream(x).value)
side = torch.cuda.Stream()
with torch.cuda.stream(side):
    raw = torch._C._cuda_getCurrentRawStream(x.device.index)
    print("side stream raw matches:", raw == side.cuda_stream == torch.cuda.current_stream().cuda_stream != 0)
with torch.cuda.stream(torch.cuda.ExternalStream(raw)):
    print("external stream is the side stream:", torch.cuda.current_stream() == side)
    scale[(4,)](x, y, x.numel(), BLOCK=256)
scale[(4,)](x, y, x.numel(), BLOCK=256)
torch.cuda.synchronize()
print("doubled:", bool((y == 2 * x).all()))
