"""Helpers a script imports: a @triton.jit device function and a host wrapper, as real projects split them."""
import triton
import triton.language as tl  # noqa: F401  (Triton's interpreter wants it in every @jit function's globals)


@triton.jit
def squared(x):
    return x * x


def blocks(n: int, block: int) -> int:
    return triton.cdiv(n, block)
