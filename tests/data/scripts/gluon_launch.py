"""A script that launches a Gluon kernel (tests/data/gluon_copy.py): compiled and captured on the virtual GPU,
but Triton's interpreter does not run Gluon."""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gluon_copy import copy_kernel  # noqa: E402

x = torch.randn(4096, device="cuda")
y = torch.zeros_like(x)
copy_kernel[(32,)](x, y, 4096, XBLOCK=128)
print("copied:", torch.equal(x, y))
