"""A kernel module that defines its kernels only when torch sees a GPU, with a CPU fallback, as many do."""
import torch

if torch.cuda.is_available():
    import triton
    import triton.language as tl

    @triton.jit
    def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)

    def relu(x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
else:
    relu = torch.relu
