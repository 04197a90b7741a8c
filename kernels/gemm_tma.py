"""gemm_tma: C = A @ B, its tiles moved by tensor descriptors: the TMA unit on sm_90 and later.

Shapes: A is (M, K), B is (K, N), C is (M, N), all row-major (contiguous).

The same tiled GEMM as gemm.py, with one difference: instead of computing a pointer for every
element of a tile, the kernel describes each matrix once (`tl.make_tensor_descriptor`: base,
shape, strides, tile shape) and asks for whole tiles by their coordinates. On Hopper and
Blackwell a descriptor load becomes one `cp.async.bulk.tensor` instruction per tile, issued by
one thread: the Tensor Memory Accelerator copies the tile into shared memory by itself, out of
bounds filled with zeros, and counts the bytes that arrived on an mbarrier that the consumers
wait on. On older GPUs Triton rewrites the descriptor back into pointers (`cp.async` per thread).

A device-side descriptor lives in global memory that the launcher asks `triton.set_allocator` for
(a few hundred bytes per program; the compile header's `scratch` line).
"""
import triton
import triton.language as tl

from playground import KernelSpec, Tensor, cdiv


@triton.jit
def gemm_tma_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,   # split the warps into a loading and a multiplying group (sm_100)
):
    # Describe each matrix once: where it is, its shape and strides, and the tile we will ask for.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])

    # Grouped ordering, as in gemm.py: neighbouring programs share rows of A and columns of B in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # The K loop: tiles asked for by coordinates; no masks, the copy engine zero-fills past the edges.
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
        b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
        accumulator = tl.dot(a, b, accumulator)

    # The tile goes back the same way; rows and columns past C's edges are not written.
    c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], accumulator.to(c_desc.dtype))


# The problem is gemm's: the same product, FLOP and byte counts and shape (kernels/gemm.py).
from playground.kernels.gemm import DEFAULT_SHAPE, bytes_moved, flops, reference  # noqa: E402


# A descriptor's strides other than the last must be multiples of 16 bytes (the TMA's rule, which
# Triton checks at launch): with fp16, K and N are multiples of 8. The cases keep to that, and so must
# every shape `check` tries.
def constraints(shape, dtype, meta):
    step = 8                     # 16 bytes of fp16 or bf16, the two dtypes this kernel takes
    bad = [f"{d}={shape[d]}" for d in ("K", "N") if shape[d] % step]
    if bad:
        return (f"{' and '.join(bad)}: a tensor descriptor's row stride must be a multiple of 16 bytes, so K and N "
                f"must be multiples of {step} in {dtype}")
    return None


SPEC = KernelSpec(
    name="gemm_tma",
    kernel=gemm_tma_kernel,
    description="C = A @ B with tensor descriptors: whole tiles by the TMA on sm_90+, mbarrier-counted",
    tensors={"a": Tensor(("M", "K")), "b": Tensor(("K", "N")), "c": Tensor(("M", "N"), output=True)},
    args=lambda a, b, c, M, N, K: (a, b, c, M, N, K),
    grid=lambda shape, meta: (cdiv(shape["M"], meta["BLOCK_SIZE_M"]) * cdiv(shape["N"], meta["BLOCK_SIZE_N"]),),
    meta={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "WARP_SPECIALIZE": False},
    num_warps=8,
    num_stages=3,
    default_shape=DEFAULT_SHAPE,
    dtypes=("fp16", "bf16"),
    reference=reference,
    reduction_dim="K",
    constraints=constraints,
    flops=flops,
    bytes=bytes_moved,
    torch_baseline="torch.matmul",
    cases=[{"M": 512, "N": 512, "K": 512}, {"M": 256 + 17, "N": 128 + 8, "K": 64 + 8}, {"M": 1, "N": 8, "K": 8}],
    # A GEMM is linear in each operand: x100 inputs only scale the outputs, and past fp16's range.
    generators=("randn", "negative", "equal"),
    # A tensor descriptor needs 16-byte aligned bases and row strides (cuTensorMapEncodeTiled's rule,
    # asserted by Triton): an offset or sliced operand is refused, not wrong.
    layouts=(),
    quick_cases=[{"M": 256 + 17, "N": 128 + 8, "K": 64 + 8}],
)
