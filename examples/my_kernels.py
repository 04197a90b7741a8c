"""Your own kernels: a file like this one works wherever a kernel name does.

    playground compile ./examples/my_kernels.py:my_kernel --show ptx
    playground check ./examples/my_kernels.py:my_kernel

Copy it, rename the kernel, and keep the same form: a @triton.jit function, then one
KernelSpec that says how to call it. A file with one spec needs no `:name`.
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def axpy_kernel(
    # pointers
    x_ptr, y_ptr, out_ptr,
    # sizes and scalars
    n_elements, alpha,
    # meta-parameters
    BLOCK_SIZE: tl.constexpr,
):
    """out = alpha * x + y: one multiply-add per element, fused into one pass over memory."""
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


ALPHA = 0.5


# Memory traffic: read x and y, write out: 3 * N * element size. FLOPs: 2 * N.
my_kernel = KernelSpec(
    name="my_kernel",
    kernel=axpy_kernel,
    description="out = alpha * x + y (axpy), an example of a user's own kernel file",
    tensors={"x": Tensor(("N",)), "y": Tensor(("N",)), "out": Tensor(("N",), output=True)},
    args=lambda x, y, out, N: (x, y, out, N, ALPHA),
    grid=lambda shape, meta: (cdiv(shape["N"], meta["BLOCK_SIZE"]),),
    meta={"BLOCK_SIZE": 1024},
    default_shape={"N": 1 << 20},
    dtypes=("fp32", "fp16"),
    reference=lambda x, y: ALPHA * x + y,
    flops=lambda s: 2 * s["N"],
    bytes=lambda s, elem: 3 * s["N"] * elem,
    cases=[{"N": 1 << 16}, {"N": 1}, {"N": 1000 + 17}],
    quick_cases=[{"N": 1}, {"N": 1000 + 17}],
)
