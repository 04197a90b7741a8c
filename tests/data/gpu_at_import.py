"""A kernel file written for a GPU machine: it asks the device for its properties at import, and ends
with demo code that launches the kernel and leaves a mark (MARKER) when it runs."""
from pathlib import Path

import torch
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor

DEVICE = triton.runtime.driver.active.get_active_torch_device()
MAJOR, MINOR = torch.cuda.get_device_capability()


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


SPEC = KernelSpec(name="double", kernel=double, description="y = 2x",
                  tensors={"x": Tensor(("N",)), "y": Tensor(("N",), output=True)},
                  args=lambda x, y, N: (x, y, N), grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={"BLOCK": 1024}, default_shape={"N": 4096})

x = torch.rand(4096, device=DEVICE)
y = torch.empty_like(x)
double[(4,)](x, y, 4096, BLOCK=1024)
Path("MARKER").write_text(f"the demo ran on sm_{MAJOR}{MINOR}")
