"""Launch a Gluon copy with two layouts, as a tutorial benchmarks them: four and then eight elements a thread."""
import os
import sys

import torch
from triton.experimental.gluon import language as gl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gluon_layouts import copy_in_layout  # noqa: E402

x = torch.randn(8192, device="cuda")
y = torch.empty_like(x)
for per_thread in (4, 8):
    block = per_thread * 32 * 4
    copy_in_layout[(8192 // block,)](x, y, 8192, block, gl.BlockedLayout([per_thread], [32], [4], [0]), num_warps=4)
print("launched")
