"""A helper module a kernel file imports from beside it."""
import triton
import triton.language as tl  # noqa: F401  (the interpreter wants it in every @jit function's globals)


@triton.jit
def doubled(x):
    return x * 2
