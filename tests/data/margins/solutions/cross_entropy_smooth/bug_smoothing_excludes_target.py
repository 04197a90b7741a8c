"""Bug: label smoothing spread over the C - 1 wrong classes only (eps / (C - 1) each, the target getting
exactly 1 - eps), the convention of some papers, where PyTorch gives every class eps / C and the target
1 - eps + eps / C. Each row's loss moves by eps * (mean_j x_j - x_t) / (C - 1): at most about 1e-4, tens of
times fp32 rounding on losses near 9."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(x_ptr, t_ptr, loss_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    sx = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.where(new_m == float("-inf"), 0.0, tl.exp(m - new_m)) \
            + tl.where(x == float("-inf"), 0.0, tl.exp(x - new_m))
        m = new_m
        sx += tl.where(cols < n_cols, x, 0.0)
    row_max = tl.max(m, axis=0)
    lse = row_max + tl.log(tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max)), axis=0))
    x_t = tl.load(x_ptr + row * stride + tl.load(t_ptr + row))
    # BUG: PyTorch spreads eps over all C classes (target included)
    loss = lse - (1.0 - eps) * x_t - eps * (tl.sum(sx, axis=0) - x_t) / (n_cols - 1)
    tl.store(loss_ptr + row, loss)


class ModelNew(nn.Module):
    def __init__(self, label_smoothing: float):
        super().__init__()
        self.label_smoothing = label_smoothing

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        x = predictions.contiguous()
        losses = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        cross_entropy_kernel[(x.shape[0],)](x, targets.contiguous(), losses, x.shape[1], x.stride(0),
                                            self.label_smoothing, BLOCK=1024)
        return losses
