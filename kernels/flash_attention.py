"""flash_attention: O = softmax(Q K^T / sqrt(D)) V, without ever writing the N x N scores (forward).

Shapes: Q, K, V and O are (Z, H, N_CTX, D): batch, heads, sequence length, head dimension.
CAUSAL=True masks the future: query i attends to keys 0..i only.

Each program owns BLOCK_M queries of one head and streams the keys and values past them in
blocks of BLOCK_N. The softmax is computed online: a running row maximum m_i and running sum
l_i are kept, and when a new block raises the maximum, what was accumulated so far is rescaled
by exp(m_old - m_new). The scores live only in registers, so memory traffic is linear in N_CTX
where the unfused version (scores to VRAM, softmax, read back) is quadratic. The scale 1/sqrt(D)
is folded with log2(e) so the exponentials are exp2, one instruction on the GPU.

For clarity every key block is masked, including those fully below the causal diagonal; the
Triton tutorial splits those off to skip the masking work.
"""
import math

import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv

HEAD_DIMS = (16, 32, 64, 128)   # tl.arange needs a power of two; tl.dot needs at least 16


@triton.jit
def flash_attention_kernel(
    # pointers
    q_ptr, k_ptr, v_ptr, o_ptr,
    # strides of each tensor: batch, head, sequence position, head dimension
    stride_qz, stride_qh, stride_qm, stride_qd,
    stride_kz, stride_kh, stride_kn, stride_kd,
    stride_vz, stride_vh, stride_vn, stride_vd,
    stride_oz, stride_oh, stride_om, stride_od,
    # sizes
    H, N_CTX,
    # 1/sqrt(D) * log2(e): scores in base 2, so exp2 replaces exp
    qk_scale,
    # meta-parameters
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
):
    start_m = tl.program_id(axis=0)          # which block of queries
    off_hz = tl.program_id(axis=1)           # which (batch, head)
    off_z = off_hz // H
    off_h = off_hz % H
    q_ptr += off_z * stride_qz + off_h * stride_qh
    k_ptr += off_z * stride_kz + off_h * stride_kh
    v_ptr += off_z * stride_vz + off_h * stride_vh
    o_ptr += off_z * stride_oz + off_h * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    # This program's queries stay in registers for the whole loop; rows past N_CTX load zeros.
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd,
                mask=offs_m[:, None] < N_CTX, other=0.0)

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)   # running row maximum (base 2)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)                 # running sum of exp2(score - m_i)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)        # running sum of p @ V

    # Causal: keys past this block's last query are never needed.
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        # K^T as a (HEAD_DIM, BLOCK_N) tile: the dot then needs no transpose.
        k = tl.load(k_ptr + offs_d[:, None] * stride_kd + cols[None, :] * stride_kn,
                    mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk, float("-inf"))

        # The online softmax: raise the maximum, rescale what came before, add this block.
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)    # p in the input dtype: tensor cores need 16-bit operands
        m_i = m_new

    o = acc / l_i[:, None]
    tl.store(o_ptr + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od, o.to(o_ptr.dtype.element_ty),
             mask=offs_m[:, None] < N_CTX)


def reference(q, k, v, CAUSAL=False):
    import torch
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if CAUSAL:
        n = q.shape[-2]
        future = torch.triu(torch.ones(n, n, dtype=torch.bool, device=q.device), diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


def heuristics(shape):
    """HEAD_DIM follows D; with D=128, half-size key blocks keep K and V tiles within 64 KB of shared memory."""
    return {"HEAD_DIM": shape["D"], "BLOCK_N": 32 if shape["D"] > 64 else 64}


def constraints(shape, dtype, meta):
    if shape["D"] not in HEAD_DIMS:
        return (f"head dimension D={shape['D']} is not supported: D must be one of "
                f"{', '.join(map(str, HEAD_DIMS))} (tl.arange needs a power of two, tl.dot at least 16)")
    if meta["HEAD_DIM"] != shape["D"]:
        return f"HEAD_DIM={meta['HEAD_DIM']} must equal the head dimension D={shape['D']}"
    return None


def _args(q, k, v, o, Z, H, N_CTX, D):
    return (q, k, v, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(),
            H, N_CTX, 1.0 / math.sqrt(D) * 1.4426950408889634)


# FLOPs: two matmuls per head, Q K^T and P V, each 2*N_CTX*N_CTX*D: 4*Z*H*N_CTX^2*D. Counted for
# the non-causal kernel; the causal one does about half (the spec's flops sees sizes, not meta).
# Memory traffic at best: read Q, K, V and write O once: 4*Z*H*N_CTX*D * element size. Each
# program re-reads all of K and V, from L2 when they fit.
# Tolerance: the scores are D-long dot products (reduction_dim), but the output's error comes
# mostly from rounding p to 16 bits before P @ V; see the override in playground/core/tolerances.py.
SPEC = KernelSpec(
    name="flash_attention",
    kernel=flash_attention_kernel,
    description="fused attention forward, online softmax, causal or not (CAUSAL meta)",
    tensors={"q": Tensor(("Z", "H", "N_CTX", "D")), "k": Tensor(("Z", "H", "N_CTX", "D")),
             "v": Tensor(("Z", "H", "N_CTX", "D")), "o": Tensor(("Z", "H", "N_CTX", "D"), output=True)},
    args=_args,
    grid=lambda shape, meta: (cdiv(shape["N_CTX"], meta["BLOCK_M"]), shape["Z"] * shape["H"]),
    meta={"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 64, "CAUSAL": False},
    heuristics=heuristics,
    constraints=constraints,
    num_warps=4,
    num_stages=2,
    default_shape={"Z": 4, "H": 16, "N_CTX": 2048, "D": 64},
    dtypes=("fp16", "bf16"),
    reference=reference,
    reduction_dim="D",
    flops=lambda s: 4 * s["Z"] * s["H"] * s["N_CTX"] * s["N_CTX"] * s["D"],
    bytes=lambda s, elem: 4 * s["Z"] * s["H"] * s["N_CTX"] * s["D"] * elem,
    # each program reads its block of Q rows, and all of K and V for its (batch, head)
    operands=lambda s, meta, elem: [((0, 1), meta["BLOCK_M"] * s["D"] * elem), ((1,), 2 * s["N_CTX"] * s["D"] * elem)],
    special=lambda s: s["Z"] * s["H"] * s["N_CTX"] * s["N_CTX"],      # one exp2 per score (non-causal)
    torch_baseline="F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)",
    cases=[{"Z": 2, "H": 4, "N_CTX": 512, "D": 64}, {"Z": 2, "H": 4, "N_CTX": 512, "D": 64, "meta": {"CAUSAL": True}},
           {"Z": 1, "H": 2, "N_CTX": 256 + 17, "D": 128}, {"Z": 1, "H": 2, "N_CTX": 256 + 17, "D": 16,
                                                          "meta": {"CAUSAL": True}},
           {"Z": 1, "H": 1, "N_CTX": 1, "D": 32}, {"Z": 3, "H": 1, "N_CTX": 100, "D": 32, "meta": {"CAUSAL": True}}],
    # x100 queries and keys make one-hot attention rows, and x100 values push the output's error
    # past the fixed atol tolerances.py gives flash attention (it is sized for N(0, 1) values).
    generators=("randn", "negative", "equal"),
    quick_cases=[{"Z": 1, "H": 2, "N_CTX": 64 + 17, "D": 32}, {"Z": 1, "H": 2, "N_CTX": 64 + 17, "D": 32,
                                                              "meta": {"CAUSAL": True}},
                 {"Z": 1, "H": 1, "N_CTX": 1, "D": 16}],
    configs=[{"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": w, "num_stages": s}
             for bm, bn, w in ((64, 64, 4), (128, 64, 8), (128, 32, 4)) for s in (1, 2, 3)],
)
