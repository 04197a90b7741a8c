"""@triton.heuristics as cut-cross-entropy stacks them: the outer one picks the tile and the launch options
(num_warps, num_stages), the inner one reads the tile the outer one chose. Triton's Heuristics.run sets its own
values before it calls the object it wraps, so the outer one runs first; and what it sets for num_warps and
num_stages is the launch's, not a constexpr."""
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: 1024, "num_warps": lambda args: 8, "num_stages": lambda args: 2})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def nested_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))
    else:
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


# one level: a heuristic that sets the launch's warps and a register cap, as a launch's keywords would
@triton.heuristics({"num_warps": lambda args: 8, "maxnreg": lambda args: 128})
@triton.jit
def warps_by_heuristic(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
