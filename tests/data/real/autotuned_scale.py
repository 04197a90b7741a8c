"""An elementwise kernel as projects write it: autotuned, with its configs pruned to the problem, and a
heuristic that drops the mask when the size divides the block."""
import triton
import triton.language as tl

from playground.core.spec import KernelSpec, Tensor


def keep_blocks_that_fit(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= max(64, named_args["n"])]


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 256, 1024, 4096) for w in (2, 4)],
                 key=["n"], prune_configs_by={"early_config_prune": keep_blocks_that_fit})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs))
    else:
        tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


SPEC = KernelSpec(name="scale", kernel=scale, description="y = 2x, autotuned",
                  tensors={"x": Tensor(("N",)), "y": Tensor(("N",), output=True)},
                  args=lambda x, y, N: (x, y, N), grid=lambda shape, meta: (triton.cdiv(shape["N"], meta["BLOCK"]),),
                  meta={}, default_shape={"N": 2048}, reference=lambda x: 2 * x,
                  cases=[{"N": 2048}, {"N": 1000}], quick_cases=[{"N": 1000}])
