"""A persistent kernel whose grid is the device's SM count, as launchers size them."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


@triton.jit
def persistent_copy(x_ptr, y_ptr, n_tiles, BLOCK: tl.constexpr):
    for tile in tl.range(tl.program_id(0), n_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


SPEC = KernelSpec(name="persistent_copy", kernel=persistent_copy, description="y = x, one program per SM",
                  tensors={"x": Tensor(("N",)), "y": Tensor(("N",), output=True)},
                  args=lambda x, y, N: (x, y, N // 256),
                  grid=lambda shape, meta, device: (min(device.num_sms, shape["N"] // meta["BLOCK"]),),
                  meta={"BLOCK": 256}, default_shape={"N": 1 << 20}, reference=lambda x: x.clone(),
                  cases=[{"N": 65536}], quick_cases=[{"N": 65536}])
