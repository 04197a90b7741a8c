"""Histogram: counts[b] = how many x[i] equal b, counted with tl.atomic_add.

Prepares lesson 07 (the memory hierarchy: where atomics happen, and why many programs updating
a few addresses wait on each other).

Shapes: x is a vector of N int32 values, each in 0 .. B - 1; counts is (B,), int32. The grid is
cdiv(N, BLOCK_SIZE) programs, a block of x each. Every lane adds 1 to the bin its value names, so
the addresses come from the data (counts_ptr + x), and many lanes, of one program or of many, add to
the same bin: only an atomic add counts every one. counts starts at zero (the @triton.autotune
line's reset_to_zero, as in puzzle 08). Lanes past N must add nothing.

Use: tl.load(..., mask=), tl.atomic_add(counts_ptr + x, 1, mask=).
Check: playground puzzle 9
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 256})], key=[], reset_to_zero=["counts_ptr"])
@triton.jit
def histogram_kernel(
    # pointers
    x_ptr, counts_ptr,
    # size
    n_elements,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    # Your code: load this program's block of x, add 1 to the bin each value names, atomically.
    # This stub adds nothing: counts stays at the zeros it starts with.
    pass


def make_inputs(shape, dtype, seed):
    import torch
    gen = torch.Generator().manual_seed(seed)
    return {"x": torch.randint(0, shape["B"], (shape["N"],), generator=gen, dtype=torch.int32)}


def reference(x, B):
    import torch
    return torch.bincount(x.long(), minlength=B).to(torch.int32)


SPEC = KernelSpec(
    name="09_histogram",
    kernel=histogram_kernel,
    description="counts[b] = number of x equal to b, by tl.atomic_add",
    tensors={"x": Tensor(("N",), dtype="int32"), "counts": Tensor(("B",), dtype="int32", output=True)},
    args=lambda x, counts, N, B: (x, counts, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={},
    default_shape={"N": 100000, "B": 64},
    dtypes=("int32",),
    reference=reference,
    make_inputs=make_inputs,
    cases=[{"N": 1, "B": 1}, {"N": 1000, "B": 7}, {"N": 1024 + 17, "B": 64}, {"N": 20000, "B": 256}],
    quick_cases=[{"N": 1, "B": 1}, {"N": 1024 + 17, "B": 64}],
)
