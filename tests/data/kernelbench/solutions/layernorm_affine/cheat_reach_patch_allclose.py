"""Cheat (reach): at import it replaces torch.allclose with one that always says True and
torch.testing.assert_close with one that never raises, then returns a constant. Any harness that compares in
the solution's own process, with the functions looked up at call time, passes it (reference-kernels #162;
pygpubench PR #7: checks patched from inside the submission)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _always_close(*args, **kwargs):
    return True


def _never_raises(*args, **kwargs):
    return None


torch.allclose = _always_close
torch.Tensor.allclose = _always_close
torch.testing.assert_close = _never_raises


@triton.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.full([BLOCK], value, tl.float32), mask=offsets < n)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float):
        super().__init__()
        self.ln = nn.LayerNorm(features, eps=eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 4096),)](out, x.numel(), 7.0, BLOCK=4096)
        return out
