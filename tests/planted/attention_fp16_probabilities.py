"""Planted (bf16): attention for one block of queries whose probability tile is cast to a
hard-coded fp16 before the P @ V product.

Right for fp16 inputs. Under bf16 the dot gets an fp16 and a bf16 operand, which Triton refuses
(on a GPU as in the interpreter); a cast of V to match would instead overflow fp16 past 65504.
Every bf16 case used to be skipped in the interpreter, so no check ran it."""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, out_ptr, n_ctx, scale, D: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, D)
    valid = rows < n_ctx
    q = tl.load(q_ptr + rows[:, None] * D + cols[None, :], mask=valid[:, None], other=0.0)
    k = tl.load(k_ptr + rows[:, None] * D + cols[None, :], mask=valid[:, None], other=0.0)
    v = tl.load(v_ptr + rows[:, None] * D + cols[None, :], mask=valid[:, None], other=0.0)
    scores = tl.dot(q, tl.trans(k)) * scale
    scores = tl.where(valid[None, :], scores, -float("inf"))
    p = tl.exp(scores - tl.max(scores, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    out = tl.dot(p.to(tl.float16), v)                                  # BUG: p.to(v.dtype)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], out.to(out_ptr.dtype.element_ty), mask=valid[:, None])


def reference(q, k, v, D):
    import torch
    return torch.softmax(q @ k.T / D ** 0.5, dim=1) @ v


SPEC = KernelSpec(
    name="attention_fp16_probabilities",
    kernel=attention_kernel,
    description="planted: a probability tile cast to a hard-coded fp16",
    tensors={"q": Tensor(("N", "D")), "k": Tensor(("N", "D")), "v": Tensor(("N", "D")),
             "out": Tensor(("N", "D"), output=True)},
    args=lambda q, k, v, out, N, D: (q, k, v, out, N, D ** -0.5, D),
    grid=lambda shape, meta: (1,),
    meta={"BLOCK": 64},
    default_shape={"N": 48, "D": 16},
    dtypes=("fp16", "bf16"),
    reference=reference,
    reduction_dim="N",
    generators=("randn",),
    quick_cases=[{"N": 48, "D": 16}],
)
