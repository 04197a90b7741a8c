"""The command line from a checkout: `python cli.py compile gemm` is `playground compile gemm`.

The code is playground/cli.py: the installed distribution claims the one top-level name `playground`, so that a
project's own `cli` or another package's `kernels` (Hugging Face's, which bitsandbytes imports) is not shadowed.
"""
from playground.cli import main

if __name__ == "__main__":
    main()
