"""A kernel that runs for hours in Triton's interpreter: for the tests that stop a check
(--timeout, SIGINT, SIGTERM). On a GPU it would take a second or two; in the interpreter every
loop step is Python. Its one case is small: the slowness is the loop, not the data.
"""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def count_kernel(out_ptr, steps, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(steps):          # `steps` is a runtime argument: the loop is not unrolled
        total += 1.0
    tl.store(out_ptr + offs, total)


def reference(steps):
    import torch
    return torch.full((16,), float(steps), dtype=torch.float64)


SPEC = KernelSpec(
    name="slow",
    kernel=count_kernel,
    description="out[i] = steps, counted one step at a time",
    tensors={"out": Tensor((16,), output=True)},
    args=lambda out, S: (out, S),
    grid=lambda shape, meta: (1,),
    meta={"BLOCK": 16},
    default_shape={"S": 10 ** 9},
    reference=reference,
    cases=[{"S": 10 ** 9}],
)
