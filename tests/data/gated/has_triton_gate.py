"""Written as torchao writes its kernel modules (torchao/prototype/moe_training/kernels/float8_rowwise.py): every
kernel under `if has_triton():`, torch's own check for a CUDA device Triton can use (cached once asked)."""
import torch
from torch.utils._triton import has_triton

if has_triton():
    import triton
    import triton.language as tl

    configs = [triton.Config({"BLOCK_SIZE": 128}, num_warps=4), triton.Config({"BLOCK_SIZE": 256}, num_warps=8)]

    @triton.autotune(configs=configs, key=["n"])
    @triton.jit
    def _scale_kernel(x_ptr, out_ptr, scale, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)

    def scale(x: torch.Tensor, s: float) -> torch.Tensor:
        out = torch.empty_like(x)
        _scale_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK_SIZE"]),)](x, out, s, x.numel())
        return out

else:

    def scale(x: torch.Tensor, s: float) -> torch.Tensor:
        return x * s
