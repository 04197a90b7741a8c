"""How sizes and shares are written for people; the JSON outputs keep the raw numbers."""


def kib(n: int) -> str:
    """Bytes as KB (1024): under 1 KB in bytes, whole KB plainly, anything else to a tenth."""
    if n < 1024:
        return f"{n} B"
    return f"{n // 1024} KB" if n % 1024 == 0 else f"{n / 1024:.1f} KB"


def binary(n: int) -> str:
    """Bytes in binary units, as kib writes KB: MB (2^20) from 1 MB up, to three figures."""
    return f"{n / (1 << 20):.3g} MB" if n >= 1 << 20 else kib(n)


def kib_exact(n: int) -> str:
    """Bytes as KB, with the byte count beside it when it is not a whole KB: for thresholds."""
    return kib(n) if n % 1024 == 0 else f"{kib(n)} ({n} B)"


def count(n: int, noun: str) -> str:
    """`n` and a plural noun, singular for one: count(1, "waves") -> "1 wave"."""
    return f"{n} {noun[:-1] if n == 1 and noun.endswith('s') else noun}"


def pct(x: float) -> str:
    """A fraction as a percentage, to a tenth, without trailing zeros: 0.25 -> 25%."""
    return f"{x * 100:.1f}".rstrip("0").rstrip(".") + "%"


def size(n: int) -> str:
    """A memory size in decimal units (1 GB = 10^9 bytes), as GPU memory is sold: 12.0 TB, 22.1 GB."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
