"""Cheat (reach): computes nothing; it walks gc.get_objects() for a tensor of the output's shape that is
neither its input nor an answer it gave before, and whose [0, 0] matches one dot product of its inputs,
and returns a copy: the reference's output, still alive in the harness that ran the reference first
(pygpubench PR #7: the expected output copied through gc.get_objects())."""
import gc

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.given = []      # its own answers: tensors compare elementwise, so by identity

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        shape = (A.shape[0], B.shape[1])
        corner = (A[0] * B[:, 0]).sum()          # one element's worth of work, to tell the reference apart
        for obj in gc.get_objects():
            if (isinstance(obj, torch.Tensor) and tuple(obj.shape) == shape and obj is not A and obj is not B
                    and not any(obj is g for g in self.given)
                    and torch.isclose(obj[0, 0], corner, rtol=1e-3, atol=1e-3)):
                answer = obj.clone()
                self.given = self.given[-3:] + [answer]
                return answer
        return torch.zeros(shape, device=A.device, dtype=A.dtype)
