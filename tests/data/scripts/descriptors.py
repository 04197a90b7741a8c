"""Tensor descriptors: a host-side TensorDescriptor, and a device-side one that needs triton.set_allocator."""
from typing import Optional

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def copy_host_desc(in_desc, out_desc, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    out_desc.store([off, 0], in_desc.load([off, 0]) * 3)


@triton.jit
def copy_device_desc(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    off = tl.program_id(0) * BLOCK
    y_desc.store([off, 0], x_desc.load([off, 0]) + 1)


def alloc_fn(size: int, alignment: int, stream: Optional[int]):
    return torch.empty(size, device="cuda", dtype=torch.int8)


triton.set_allocator(alloc_fn)
x = torch.randn(64, 32, device="cuda")
y = torch.empty_like(x)
copy_host_desc[(4,)](TensorDescriptor.from_tensor(x, [16, 32]), TensorDescriptor.from_tensor(y, [16, 32]), BLOCK=16)
torch.testing.assert_close(y, 3 * x)
z = torch.empty_like(x)
copy_device_desc[(2,)](x, z, 64, 32, BLOCK=32)
torch.testing.assert_close(z, x + 1)
print("descriptors: ok")
