"""A kernel with inline PTX: it compiles for NVIDIA targets, and the interpreter cannot run it."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def asm_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


def reference(x):
    return x.clone()


SPEC = KernelSpec(name="asm_copy", kernel=asm_copy, description="y = x through inline PTX",
                  tensors={"x": Tensor(("N",), dtype="i32"), "y": Tensor(("N",), dtype="i32", output=True)},
                  args=lambda x, y, N: (x, y, N), grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={"BLOCK": 256}, default_shape={"N": 1000}, dtypes=("i32",), reference=reference)
