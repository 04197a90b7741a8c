"""Launches as real code writes them: through torch.library.wrap_triton and a triton_op (flash-attention's
rotary does this), and with extern_libs naming libdevice for a kernel that calls libdevice.asin."""
import pathlib

import torch
import triton
import triton.backends.nvidia
import triton.language as tl
from torch.library import triton_op, wrap_triton
from triton.language.extra import libdevice


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def asin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, libdevice.asin(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@triton_op("playground_test::add", mutates_args={})
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    wrap_triton(add_kernel)[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
    return out


x, y = torch.randn(1000, device="cuda"), torch.randn(1000, device="cuda")
out = torch.empty_like(x)
wrap_triton(add_kernel)[(4,)](x, y, out, 1000, BLOCK=256)
assert torch.equal(out, x + y) and torch.equal(add(x, y), x + y)
libdevice_file = pathlib.Path(triton.backends.nvidia.__file__).parent / "lib" / "libdevice.10.bc"
angles = torch.empty_like(x)
asin_kernel[(4,)](x.clamp(-1, 1), angles, 1000, BLOCK=256, extern_libs={"libdevice": str(libdevice_file)})
torch.testing.assert_close(angles, torch.asin(x.clamp(-1, 1)))
print("launch options: ok")
