"""What goes wrong in real scripts: a kernel the interpreter cannot run, an API the virtual GPU lacks,
and the script's own bug."""
import torch
import triton
import triton.language as tl


@triton.jit
def asm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


x = torch.arange(64, dtype=torch.int32, device="cuda")
y = torch.zeros_like(x)
asm_kernel[(1,)](x, y, 64, BLOCK=64)
print("the script went on after the kernel the interpreter cannot run")
try:
    torch.cuda.get_sync_debug_mode()
except RuntimeError as e:
    print(f"unsupported: {e}")


def compute_total(values):
    return sum(values) / len([])


compute_total([1, 2])
