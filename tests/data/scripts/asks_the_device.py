"""A script that asks where its tensors are, as Triton's tutorials 02 and 07 and their forks do."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


assert DEVICE.type == "cuda", DEVICE
x = torch.randn(1000, device=torch.device(DEVICE.type))
out = torch.empty_like(x)
assert x.is_cuda and out.is_cuda and x.device == DEVICE and x.get_device() == 0
stream = getattr(torch, DEVICE.type).Stream()
getattr(torch, DEVICE.type).set_stream(stream)            # tutorial 02's benchmark does this
double_kernel[(4,)](x, out, 1000, BLOCK=256)
assert out.is_cuda and (out + 1).is_cuda
host = out.cpu()
assert not host.is_cuda and host.device.type == "cpu"
assert torch.equal(host, x.cpu() * 2)
plain = torch.ones(3)
assert not plain.is_cuda and plain.cuda().is_cuda and plain.to(DEVICE).device == DEVICE and not plain.is_cuda
# a module moved to the GPU: nn.Module.to sets each parameter's .data, and autograd's engine makes the grads
layer = torch.nn.Linear(4, 4).to(DEVICE)
assert layer.weight.is_cuda and layer.weight.device == DEVICE and layer.bias.is_cuda
layer(torch.randn(2, 4, device=DEVICE)).sum().backward()
assert layer.weight.grad.is_cuda
optimizer = torch.optim.Adam(layer.parameters())
optimizer.step()
assert optimizer.state[layer.weight]["exp_avg"].is_cuda
assert not torch.nn.Linear(4, 4).weight.is_cuda
print("the script saw a GPU")
