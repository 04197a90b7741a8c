"""Two steps of a tiny model, written for a machine with a CUDA GPU: what the host does around the kernels.

Nothing in this file knows about playground. Each step copies its batch to the GPU, runs a linear layer and a ReLU
in PyTorch, scales the result with a Triton kernel and reads the loss back, as a training loop does. Beside it, the
next batch travels to the GPU on a stream of its own, as a data loader with pin_memory=True sends it: from
page-locked (pinned) memory with non_blocking=True, so the host does not wait for it. This step's batch comes from
ordinary (pageable) memory, so the host does.

    python host_side.py                                                   # on a GPU machine
    playground run --ops --target sm_90 tutorials/scripts/host_side.py    # anywhere: a virtual H100
"""
import torch
import triton
import triton.language as tl

device = "cuda"


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    # One program scales one block of BLOCK elements; the mask switches off the lanes past the end.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def scale(x, factor):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, factor, BLOCK=1024)
    return out


torch.manual_seed(0)
weight = torch.randn(256, 128, device=device) / 16     # the model's one layer, made on the GPU
batch = torch.randn(1024, 256)                          # this step's inputs, in pageable host memory (1 MB)
next_batch = torch.empty(8192, 8192, pin_memory=True)  # a page-locked buffer for the next step's (256 MB)
side = torch.cuda.Stream()                              # the copies' own stream

for step in range(2):                                   # step 0 also compiles the kernel
    x = batch.to(device)                                # pageable: the host waits until the copy is done
    with torch.cuda.stream(side):
        x_next = next_batch.to(device, non_blocking=True)   # pinned: queued, and the host goes on
    h = torch.relu(x @ weight)                          # two ATen ops, queued on the default stream
    y = scale(h, 0.5)                                   # a Triton kernel, queued behind them
    loss = (y * y).mean()
    print(f"step {step}: loss {loss.item():.4f}")       # the host needs the value: it waits for the default stream
    torch.cuda.current_stream().wait_stream(side)       # the next step may use x_next only once it has arrived
torch.cuda.synchronize()                                # the end: the host waits for every stream
print(f"next batch: {tuple(x_next.shape)} on {x_next.device}")
