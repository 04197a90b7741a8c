"""Solution to lesson 13's exercise, part 2: kernels/vector_add.py compiled once for every size.

The lines marked CHANGED are the whole difference. `do_not_specialize` tells the JIT not to
specialise `n_elements`: no "divisible by 16", no "== 1", so every N shares one binary and a
benchmark never recompiles inside its timed region. The price: the compiler can no longer
prove that a group of four elements is all in or all out of the mask, so the 128-bit loads and
stores become 32-bit ones (`playground inspect ./my_add.py --target sm_90`).

vector_add: out = x + y, the "hello world" of GPU kernels.

Shapes: x, y, out are vectors of N elements.
Each program (one CTA) adds one block of BLOCK_SIZE elements; the grid has
cdiv(N, BLOCK_SIZE) programs, and a mask switches off the lanes past the end.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit(do_not_specialize=["n_elements"])  # CHANGED: one binary for every size
def vector_add_kernel(
    # pointers to the vectors
    x_ptr, y_ptr, out_ptr,
    # size
    n_elements,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(axis=0)                        # which block this program owns
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements                        # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def reference(x, y):
    return x + y


# Memory traffic: read x and y, write out, once each: 3 * N * element size bytes.
# One addition per element: N FLOPs. At ~1/12 FLOP per byte (fp32) this kernel is memory-bound
# on every GPU.
SPEC = KernelSpec(
    name="vector_add_any_n",  # CHANGED
    kernel=vector_add_kernel,
    description="out = x + y, one block of elements per program",
    tensors={"x": Tensor(("N",)), "y": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, y, out, N: (x, y, out, N),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 1024},
    num_warps=4,
    default_shape={"N": 98432},
    dtypes=("fp32", "fp16", "bf16"),
    reference=reference,
    flops=lambda s: s["N"],
    bytes=lambda s, elem: 3 * s["N"] * elem,
    torch_baseline="torch.add",
    cases=[{"N": 98432}, {"N": 1}, {"N": 1024 + 17}, {"N": 4096}, {"N": 1 << 20}],
    quick_cases=[{"N": 1}, {"N": 1024 + 17}, {"N": 4096}],
    configs=[{"BLOCK_SIZE": b, "num_warps": w} for b in (256, 512, 1024, 2048, 4096) for w in (2, 4, 8)],
)
