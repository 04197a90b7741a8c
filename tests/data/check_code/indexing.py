"""Real code's shapes of input that plain N(0, 1) tensors do not cover (tests/test_check_code.py): indices into a
table, a dtype given as an argument, and a kernel Triton's interpreter cannot run."""
import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(ids_ptr, w_ptr, out_ptr, D, stride_w, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    index = tl.load(ids_ptr + row)          # no bounds check: the caller promises 0 <= index < V
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    tl.store(out_ptr + row * D + cols, tl.load(w_ptr + index * stride_w + cols, mask=mask), mask=mask)


def embedding(ids, w):
    """F.embedding(ids, w): the rows of w that ids name."""
    flat = ids.reshape(-1)                  # contiguous, a copy where ids is a strided view
    out = torch.empty(ids.numel(), w.shape[1], dtype=w.dtype, device=w.device)
    _embedding_kernel[(ids.numel(),)](flat, w, out, w.shape[1], w.stride(0), BLOCK=triton.next_power_of_2(w.shape[1]))
    return out.reshape(*ids.shape, w.shape[1])


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, (x * scale).to(y_ptr.dtype.element_ty), mask=offs < n)


def scaled(x, scale, dtype, causal):
    """x * scale in `dtype` (a torch.dtype, as callers pass one); `causal` must arrive as the bool it was."""
    if not isinstance(dtype, torch.dtype) or causal is not True:
        raise TypeError(f"dtype {dtype!r} and causal {causal!r}: not a torch.dtype and True")
    y = torch.empty(x.shape, dtype=dtype, device=x.device)
    _scale_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), scale, BLOCK=256)
    return y


@triton.jit
def _asm_copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


def asm_copy(x):
    """A copy through inline PTX: it compiles for an NVIDIA target, and the interpreter cannot run it."""
    y = torch.empty_like(x)
    _asm_copy_kernel[(1,)](x, y, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))
    return y
