"""Kernels for AMD GPUs only, as a package with a separate CUDA path gates them: defined on a ROCm build of torch."""
import torch

if torch.version.hip is not None and torch.cuda.is_available():
    import triton
    import triton.language as tl

    @triton.jit
    def wave64_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
