"""Tutorial 09's pattern: host-side tensor descriptors made with a dummy block shape, which each autotune
config's pre_hook sets to the config's tile before the launch."""
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from playground.core.spec import KernelSpec, Tensor


def set_block_shape(nargs):
    nargs["x_desc"].block_shape = [nargs["BLOCK"], 32]
    nargs["y_desc"].block_shape = [nargs["BLOCK"], 32]


@triton.autotune(configs=[triton.Config({"BLOCK": 16}, pre_hook=set_block_shape),
                          triton.Config({"BLOCK": 32}, pre_hook=set_block_shape)], key=["M"])
@triton.jit
def triple_rows(x_desc, y_desc, M, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    y_desc.store([off, 0], x_desc.load([off, 0]) * 3)


def args(x, y, M):
    dummy = [1, 1]
    return (TensorDescriptor.from_tensor(x, dummy), TensorDescriptor.from_tensor(y, dummy), M)


def reference(x):
    return 3 * x


SPEC = KernelSpec(name="triple_rows", kernel=triple_rows, description="y = 3x through descriptors",
                  tensors={"x": Tensor(("M", 32)), "y": Tensor(("M", 32), output=True)}, args=args,
                  grid=lambda shape, meta: (triton.cdiv(shape["M"], meta["BLOCK"]),), meta={},
                  default_shape={"M": 64}, reference=reference, cases=[{"M": 64}], quick_cases=[{"M": 64}])
