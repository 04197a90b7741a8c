"""Launches whose constexprs are not plain numbers: a dtype (as Liger-Kernel's rms_norm backward passes
X_dtype), a @triton.jit function (an activation passed in), a tuple; and a runtime tuple of tensors, which
a trace cannot keep yet."""
import fractions

import torch
import triton
import triton.language as tl


@triton.jit
def relu(x):
    return tl.maximum(x, 0)


@triton.jit
def cast_kernel(x_ptr, y_ptr, n, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(OUT_DTYPE), mask=mask)


@triton.jit
def apply_kernel(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, FN(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, FACTORS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTORS[0], mask=mask)


x = torch.randn(1000, device="cuda")
half = torch.empty(1000, device="cuda", dtype=torch.float16)
cast_kernel[(4,)](x, half, 1000, OUT_DTYPE=tl.float16, BLOCK=256)
assert torch.equal(half, x.half())
y = torch.empty_like(x)
apply_kernel[(4,)](x, y, 1000, FN=relu, BLOCK=256)
assert torch.equal(y, x.relu())
scale_kernel[(4,)](x, y, 1000, FACTORS=(2, 3), BLOCK=256)
assert torch.equal(y, x * 2)
print("launch kinds: ok")


@triton.jit
def pair_kernel(pair, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(pair[0] + offs, mask=mask) + tl.load(pair[1] + offs, mask=mask), mask=mask)


pair_kernel[(4,)]((x, x), y, 1000, BLOCK=256)         # a tuple of tensors: kept item by item
assert torch.equal(y, x + x)
print("tuple argument: ok")


@triton.jit
def tagged_kernel(x_ptr, y_ptr, n, TAG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


tagged_kernel[(4,)](x, y, 1000, TAG=fractions.Fraction(1, 3), BLOCK=256)   # any object: a trace keeps its repr only
assert torch.equal(y, x)
