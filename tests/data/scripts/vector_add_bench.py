"""Vector addition as Triton's tutorial 01 writes it: a kernel, a wrapper, a check, a perf_report sweep."""
import torch
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


torch.manual_seed(0)
size = 98432                                   # divisible by 16
x = torch.rand(size, device=DEVICE)
y = torch.rand(size, device=DEVICE)
assert torch.equal(add(x, y), x + y)
# One element in: the pointers are 4 bytes past a 16-byte boundary and the length is 98431.
assert torch.equal(add(x[1:], y[1:]), x[1:] + y[1:])
print("vector add: ok")


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=["size"], x_vals=[2**i for i in range(12, 28, 3)], x_log=True,
        line_arg="provider", line_vals=["triton"], line_names=["Triton"],
        ylabel="GB/s", plot_name="vector-add-performance", args={},
    ))
def benchmark(size, provider):
    x = torch.empty(size, device=DEVICE, dtype=torch.float32)
    y = torch.empty(size, device=DEVICE, dtype=torch.float32)
    quantiles = [0.5, 0.2, 0.8]
    ms, min_ms, max_ms = triton.testing.do_bench(lambda: add(x, y), quantiles=quantiles)
    gbps = lambda ms: 3 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
    return gbps(ms), gbps(max_ms), gbps(min_ms)


benchmark.run(print_data=True, show_plots=False)
