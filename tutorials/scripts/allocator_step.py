"""One training step of a tiny MLP on "cuda", and what PyTorch's caching allocator holds after each phase.

Run on a GPU, the figures are the allocator's own; under `playground run --target ...` they are the virtual GPU's
model of it (playground/virtual/allocator.py), modelled, not measured. Each line: the bytes of live tensors
(memory_allocated), what the allocator holds from the driver (memory_reserved), and the free pieces split off
segments still in use (inactive_split_bytes): reserved memory neither in use nor returnable by empty_cache().
"""
import torch

DEVICE = "cuda"
torch.manual_seed(0)


def report(phase: str) -> None:
    stats = torch.cuda.memory_stats()
    print(f"{phase:<10} allocated {torch.cuda.memory_allocated():>11,} B   reserved {torch.cuda.memory_reserved():>11,} B"
          f"   inactive split {stats['inactive_split_bytes.all.current']:>11,} B")


model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(DEVICE)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(256, 1024, device=DEVICE)
target = torch.randn(256, 1024, device=DEVICE)
report("model")

loss = ((model(x) - target) ** 2).mean()      # the mean squared error, one visible op at a time
report("forward")

loss.backward()
report("backward")

optimizer.step()
report("step")

optimizer.zero_grad(set_to_none=True)
del loss
report("zero_grad")

torch.cuda.empty_cache()
report("emptied")
print(f"peak       allocated {torch.cuda.max_memory_allocated():>11,} B   reserved {torch.cuda.max_memory_reserved():>11,} B")
