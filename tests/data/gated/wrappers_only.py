"""A package's front module: the launch wrappers, with the kernels imported from the module that defines them."""
import torch
import triton

from plain_kernels import add_kernel


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out
