"""Liger-Kernel's RMSNorm module, forward and backward, as a model uses it. Its backward picks its grid by the
device its saved input is on: one program per SM on a GPU."""
import torch

from liger_kernel.transformers.rms_norm import LigerRMSNorm

torch.manual_seed(0)
norm = LigerRMSNorm(256).to("cuda")
x = torch.randn(4, 64, 256, device="cuda", requires_grad=True)
norm(x).sum().backward()
xc = x.detach().cpu().requires_grad_()
torch.nn.functional.rms_norm(xc, (256,), norm.weight.detach().cpu(), eps=norm.variance_epsilon).sum().backward()
print("grad max difference", (x.grad.cpu() - xc.grad).abs().max().item())
