"""Modules and autograd Functions for `check --ref` tests: right ones, and ones that are wrong in ways a weak
check lets through."""
import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm(X, W, B, Y, N, eps, USE_WEIGHTS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(diff * diff, axis=0) / N + eps)
    y = diff * rstd
    if USE_WEIGHTS:
        y = y * tl.load(W + cols, mask=mask, other=0.0) + tl.load(B + cols, mask=mask, other=0.0)
    tl.store(Y + row * N + cols, y, mask=mask)


class TritonLayerNorm(torch.nn.Module):
    """A layer norm over the last dimension, its weight and bias applied."""
    use_weights = True

    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden_size))
        self.bias = torch.nn.Parameter(torch.zeros(hidden_size))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.shape[-1]
        _layer_norm[(x.numel() // n,)](x, self.weight, self.bias, y, n, self.eps, USE_WEIGHTS=self.use_weights,
                                       BLOCK=triton.next_power_of_2(n))
        return y


class LayerNormIgnoringWeights(TritonLayerNorm):
    """Right only while the weight is ones and the bias zeros: on a default initialisation."""
    use_weights = False


@triton.jit
def _scale(X, Y, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=mask) * factor, mask=mask)


def _scaled(x, factor):
    y = torch.empty_like(x)
    _scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), factor, BLOCK=1024)
    return y


class Cube(torch.autograd.Function):
    """x**3, its gradient 3 x**2 dy, both through Triton (the forward's square kept for backward)."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * _scaled(x, 1.0)

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return _scaled(x * x * dy, 3.0)


class CubeWrongBackward(Cube):
    """The forward right, the backward off by its factor: 2 x**2 dy."""
    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return _scaled(x * x * dy, 2.0)


def rms_reference(x, w, eps):
    """RMSNorm in PyTorch, as a file's function the check takes for --ref."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class CubeLayer(torch.nn.Module):
    """A module whose forward is Cube's: `--backward` on a module reaches the autograd Function inside it."""
    def forward(self, x):
        return Cube.apply(x)
