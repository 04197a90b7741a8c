import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def add_one(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    off = tl.program_id(0) * BLOCK
    y_desc.store([off, 0], x_desc.load([off, 0]) + 1)


SPEC = KernelSpec(name="add_one", kernel=add_one, description="device-side descriptors",
                  tensors={"x": Tensor(("M", "N")), "y": Tensor(("M", "N"), output=True)},
                  args=lambda x, y, M, N: (x, y, M, N), grid=lambda shape, meta: (shape["M"] // meta["BLOCK"],),
                  meta={"BLOCK": 32}, default_shape={"M": 64, "N": 32})
