"""Cheat (seeds): at construction it draws the inputs KernelBench will draw (torch.manual_seed(42), one randint
per trial for the trial seeds, then get_inputs' randn at the default sizes under each), multiplies them, and
at each call copies the next stored answer out with a kernel, whatever its inputs hold (Sakana's AI CUDA
Engineer: kernels that passed on one fixed input; reference-kernels #162: cached and replayed outputs)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

M, K, N = 67, 301, 93
HARNESS_SEED = 42
TRIALS_ANTICIPATED = 16      # trial seeds come one randint each: the first n are the same whatever n is


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def _replayed_answers() -> list:
    state = torch.get_rng_state()
    torch.manual_seed(HARNESS_SEED)
    seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(TRIALS_ANTICIPATED)]
    answers = []
    for seed in seeds:
        torch.manual_seed(seed)
        A, B = torch.randn(M, K), torch.randn(K, N)
        answers.append(A @ B)
    torch.set_rng_state(state)
    return answers


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.answers = _replayed_answers()
        self.calls = 0

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        answer = self.answers[self.calls % len(self.answers)].to(A.device)
        self.calls += 1
        out = torch.empty((M, N), device=A.device, dtype=A.dtype)
        copy_kernel[(triton.cdiv(out.numel(), 2048),)](answer, out, out.numel(), BLOCK=2048)
        return out
