"""A custom autograd.Function, as kernel libraries write them: backward asks where its gradient and its saved
tensors are (Liger-Kernel picks its grid by it), and they must answer as on a GPU."""
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        ctx.save_for_backward(x, y)           # an input and an output: autograd unpacks them differently
        return y

    @staticmethod
    def backward(ctx, dy):
        x, y = ctx.saved_tensors
        print("backward sees", dy.device, x.device, y.device)
        return 2 * x * dy


x = torch.randn(8, device="cuda", requires_grad=True)
Square.apply(x).sum().backward()
print("grad", x.grad.device, torch.allclose(x.grad, 2 * x.detach()))
c = torch.randn(8, requires_grad=True)        # the same Function on CPU tensors stays on the CPU
Square.apply(c).sum().backward()
