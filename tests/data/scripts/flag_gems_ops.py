"""FlagGems as its README has it: `flag_gems.enable()`, then plain PyTorch. On a GPU, the ops it covers run its
Triton kernels; so they must here, on the virtual GPU, each launch captured and interpreted."""
import flag_gems
import torch

flag_gems.enable()
torch.manual_seed(0)
x = torch.randn(64, 300, device="cuda")
for name, op in [("softmax", lambda t: torch.softmax(t, -1)), ("sum", lambda t: t.sum(dim=1)),
                 ("layer_norm", lambda t: torch.nn.functional.layer_norm(t, (300,)))]:
    got = op(x)
    print(name, got.device, "max difference", (got.cpu() - op(x.cpu())).abs().max().item())
