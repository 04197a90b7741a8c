import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def ws_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


SPEC = KernelSpec(name="ws_matmul", kernel=ws_matmul, description="warp-specialised matmul",
                  tensors={"a": Tensor(("M", "K")), "b": Tensor(("N", "K")), "c": Tensor(("M", "N"), output=True)},
                  args=lambda a, b, c, M, N, K: (a, b, c, M, N, K),
                  grid=lambda shape, meta: (shape["M"] // meta["BLOCK_M"], shape["N"] // meta["BLOCK_N"]),
                  meta={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, default_shape={"M": 1024, "N": 1024, "K": 1024},
                  dtypes=("fp16",), num_warps=4, num_stages=3)
