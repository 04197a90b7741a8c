"""Partial sums merged into one total under a spin lock, as cut-cross-entropy merges its log-sum-exp: correct with
one lock for every program, a race with a lock per program (each takes its own, so none waits for another), and a
race when one program skips the lock."""
import torch
import triton
import triton.language as tl


@triton.jit
def locked_sum(x_ptr, total_ptr, lock_ptr, n, BLOCK: tl.constexpr, LOCK_PER_PROGRAM: tl.constexpr,
               UNLOCKED_PROGRAM: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    part = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0))
    lock = lock_ptr + pid if LOCK_PER_PROGRAM else lock_ptr
    if pid != UNLOCKED_PROGRAM:
        while tl.atomic_cas(lock, 0, 1) == 1:
            pass
    tl.store(total_ptr, tl.load(total_ptr) + part)
    if pid != UNLOCKED_PROGRAM:
        tl.atomic_xchg(lock, 0)


x = torch.randn(1000, device="cuda")
for per_program, unlocked in ((False, -1), (True, -1), (False, 2)):
    total, locks = torch.zeros(1, device="cuda"), torch.zeros(4, dtype=torch.int32, device="cuda")
    locked_sum[(4,)](x, total, locks, 1000, BLOCK=256, LOCK_PER_PROGRAM=per_program, UNLOCKED_PROGRAM=unlocked)
    print("total", round(total.item(), 3), "expected", round(x.sum().item(), 3))
