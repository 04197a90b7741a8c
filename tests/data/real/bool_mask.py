import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def masked_copy(x_ptr, keep_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    keep = tl.load(keep_ptr + offs, mask=inside, other=0).to(tl.int1)
    x = tl.load(x_ptr + offs, mask=inside)
    tl.store(out_ptr + offs, tl.where(keep, x, 0.0), mask=inside)


def reference(x, keep):
    import torch
    return torch.where(keep, x, torch.zeros_like(x))


SPEC = KernelSpec(name="masked_copy", kernel=masked_copy, description="out = x where keep, else 0",
                  tensors={"x": Tensor(("N",)), "keep": Tensor(("N",), dtype="i1"), "out": Tensor(("N",), output=True)},
                  args=lambda x, keep, out, N: (x, keep, out, N),
                  grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={"BLOCK": 256}, default_shape={"N": 1000},
                  reference=reference)
