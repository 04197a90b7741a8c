"""Two tiny fp32 matmuls. fp32_dot's tl.dot asks for IEEE precision: no tensor core computes fp32 at
full precision, so it becomes FFMA on every NVIDIA target (tests/test_codeinspect.py checks that the
static read says "tl.dot lowered without tensor cores"). tf32_dot keeps tl.dot's default, tf32: the
tensor cores (tests/test_roofline.py reads the precision from the PTX and from the SASS).
"""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def fp32_dot_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], c)


SPEC = KernelSpec(
    name="fp32_dot",
    kernel=fp32_dot_kernel,
    description="one 32x32 fp32 tile product at IEEE precision",
    tensors={"a": Tensor(("M", "M")), "b": Tensor(("M", "M")), "c": Tensor(("M", "M"), output=True)},
    args=lambda a, b, c, M: (a, b, c),
    grid=lambda shape, meta: (1,),
    meta={"BLOCK": 32},
    default_shape={"M": 32},
    dtypes=("fp32",),
    flops=lambda s: 2 * s["M"] ** 3,
    bytes=lambda s, elem: 3 * s["M"] ** 2 * elem,
)


@triton.jit
def tf32_dot_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], tl.dot(a, b))


TF32_SPEC = KernelSpec(
    name="tf32_dot",
    kernel=tf32_dot_kernel,
    description="one 32x32 fp32 tile product through the tensor cores as tf32",
    tensors=SPEC.tensors,
    args=SPEC.args,
    grid=SPEC.grid,
    meta={"BLOCK": 32},
    default_shape={"M": 32},
    dtypes=("fp32",),
    flops=SPEC.flops,
    bytes=SPEC.bytes,
)
