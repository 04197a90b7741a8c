"""The virtual GPU's model of PyTorch's caching allocator (playground/virtual/allocator.py): its rules, held to the
figures CUDACachingAllocator.cpp's arithmetic gives, its feed from real tensors' storages, and a model step run
through `playground run`, whose printed figures are pinned (each derived in a comment)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from playground.virtual import allocator
from playground.virtual.allocator import CachingAllocator

MiB = 1 << 20
ROOT = Path(__file__).resolve().parent.parent


def inactive(model) -> int:
    return model.memory_stats()["inactive_split_bytes.all.current"]


@pytest.mark.parametrize("request_bytes, block, segment, pool", [
    (4, 512, 2 * MiB, "small_pool"),                      # a scalar: one 512-byte block of a 2 MiB segment
    (393_728, 393_728, 2 * MiB, "small_pool"),            # vector_add's x: already 769 x 512
    (4_194_308, 4_194_816, 20 * MiB, "large_pool"),       # just over 4 MiB: 8193 x 512, from a 20 MiB segment
    (32 * MiB, 32 * MiB, 32 * MiB, "large_pool"),         # 10 MiB and more: its own segment, rounded to 2 MiB
])
def test_the_rounding_table(request_bytes, block, segment, pool):
    model = CachingAllocator()
    b = model.malloc(request_bytes)
    assert (b.size, model.reserved, model.allocated) == (block, segment, block)
    stats = model.memory_stats()
    assert stats[f"segment.{pool}.current"] == 1 and stats[f"requested_bytes.{pool}.current"] == request_bytes


def test_the_constants_are_the_ones_torch_ships():
    """kMinBlockSize and the rest, as the CPU wheel's c10/core/AllocatorConfig.h declares them."""
    torch = pytest.importorskip("torch")
    header = (Path(torch.__file__).parent / "include/c10/core/AllocatorConfig.h").read_text()
    k = {n: int(v) for n, v in re.findall(r"constexpr size_t (k\w+) = (\d+);", header)}
    assert (k["kMinBlockSize"], k["kSmallSize"], k["kSmallBuffer"], k["kMinLargeAlloc"], k["kRoundLarge"]) == (
        allocator.K_MIN_BLOCK_SIZE, allocator.K_SMALL_SIZE, allocator.K_SMALL_BUFFER, allocator.K_MIN_LARGE_ALLOC,
        allocator.K_ROUND_LARGE)


def test_a_freed_block_is_split_for_the_next_request_and_reserved_stays():
    model = CachingAllocator()
    four = model.malloc(4 * MiB)
    start = four.ptr
    assert inactive(model) == 16 * MiB               # the 20 MiB segment's remainder, split off
    model.free(four)
    assert (model.allocated, model.reserved, inactive(model)) == (0, 20 * MiB, 0)    # merged back whole
    three = model.malloc(3 * MiB)
    assert three.ptr == start                        # best fit: the same segment, from its start
    assert (model.allocated, model.reserved, inactive(model)) == (3 * MiB, 20 * MiB, 17 * MiB)


def test_when_a_remainder_is_split_off():
    """Small pool: a remainder of at least 512 B; large pool: only one over 1 MiB (kSmallSize)."""
    model = CachingAllocator()
    model.malloc(MiB)                                # the small pool's largest request: half a 2 MiB segment
    model.malloc(MiB - 512)                          # from the other half, leaving 512 B: split off
    assert inactive(model) == 512 and model.reserved == 2 * MiB
    big = model.malloc(19 * MiB)                     # a 20 MiB segment, 1 MiB over: not split, all of it handed out
    assert big.size == 20 * MiB and not big.is_split()
    stats = model.memory_stats()
    assert stats["allocated_bytes.large_pool.current"] == 20 * MiB and stats["requested_bytes.large_pool.current"] == 19 * MiB


def test_fragmentation_empty_cache_and_merging():
    model = CachingAllocator()
    a, b = model.malloc(4 * MiB), model.malloc(4 * MiB)       # one 20 MiB segment: a, b, 12 MiB free
    model.free(a)                                              # a cannot merge: b, in use, is its neighbour
    assert inactive(model) == 16 * MiB and model.fragmentation() == pytest.approx(0.8)
    model.empty_cache()                                        # the segment is in use: nothing to release
    assert model.reserved == 20 * MiB
    model.free(b)                                              # merges with a and the remainder: whole again
    assert inactive(model) == 0 and model.memory_stats()["inactive_split.all.current"] == 0
    model.empty_cache()
    stats = model.memory_stats()
    assert (model.reserved, stats["segment.all.current"], stats["num_device_free"]) == (0, 0, 1)


def test_peaks_and_their_reset():
    model = CachingAllocator()
    model.free(model.malloc(30 * MiB))
    model.malloc(1000)
    stats = model.memory_stats()
    assert (stats["allocated_bytes.all.peak"], stats["reserved_bytes.all.peak"]) == (30 * MiB, 32 * MiB)
    model.empty_cache()
    model.reset_peak()
    stats = model.memory_stats()
    assert (stats["allocated_bytes.all.peak"], stats["reserved_bytes.all.peak"]) == (1024, 2 * MiB)


def test_a_freed_block_serves_only_its_own_stream():
    model = CachingAllocator()
    model.free(model.malloc(4 * MiB, stream=1))
    model.malloc(4 * MiB, stream=2)
    assert model.memory_stats()["segment.all.current"] == 2 and model.reserved == 40 * MiB


def test_out_of_memory_releases_the_cache_first_then_raises_in_pytorchs_words():
    model = CachingAllocator(capacity=64 * MiB, device="the virtual test GPU")
    model.free(model.malloc(40 * MiB))
    model.malloc(50 * MiB)                           # 40 + 50 > 64: the cached 40 MiB is released, then it fits
    assert (model.reserved, model.counters["num_alloc_retries"]) == (50 * MiB, 1)
    with pytest.raises(allocator.OutOfMemory) as e:
        model.malloc(40 * MiB)
    assert str(e.value).startswith("CUDA out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of "
                                   "64.00 MiB of which 14.00 MiB is free. Of the allocated memory 50.00 MiB is "
                                   "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")
    assert "the virtual test GPU" in str(e.value) and "modelled" in str(e.value)
    assert (model.counters["num_ooms"], model.counters["num_alloc_retries"]) == (1, 2)


def test_memory_stats_has_pytorchs_keys_and_its_summary_reads_them():
    torch = pytest.importorskip("torch")
    tracker = allocator.Tracker(CachingAllocator())
    tracker.model.malloc(4 * MiB)
    answers = allocator.functions(tracker)
    stats = answers["memory_stats"]()
    for key in ("allocated_bytes.all.current", "reserved_bytes.all.current", "inactive_split_bytes.all.current",
                "num_alloc_retries", "segment.all.current", "allocation.large_pool.peak", "requested_bytes.all.freed"):
        assert key in stats, key
    assert list(stats) == sorted(stats)
    summary = answers["memory_summary"]()
    assert summary.startswith("modelled") and "PyTorch CUDA memory summary" in summary
    assert re.search(r"Allocated memory\s+\|\s+4096 KiB", summary)
    assert torch.cuda.memory.memory_stats is not answers["memory_stats"]      # torch's own is put back


def test_storages_are_counted_once_and_freed_with_the_last_view():
    torch = pytest.importorskip("torch")
    tracker = allocator.Tracker(CachingAllocator(), marked=lambda t: True)
    x = torch.empty(1024, 1024)                      # 4 MiB
    view = x[1:]
    tracker.track([x, view])
    tracker.seen(x.t(), (x,), {})
    assert tracker.model.allocated == 4 * MiB
    del x
    tracker.flush()
    assert tracker.model.allocated == 4 * MiB        # the view keeps the storage alive
    del view
    tracker.flush()
    assert tracker.model.allocated == 0


def test_autograd_gradients_are_counted_through_the_watch():
    torch = pytest.importorskip("torch")
    tracker = allocator.Tracker(CachingAllocator(), marked=lambda t: False)
    w = torch.randn(512, 512, requires_grad=True)    # 1 MiB: a parameter the model already counts
    tracker.track([w])
    y = w * 2
    tracker.seen(y, (w,), {})                        # as the device mode reports each call: its inputs are the GPU's
    loss = y.sum()
    tracker.seen(loss, (y,), {})
    del y                                            # the graph does not keep it (a product by a constant)
    with tracker.watching_backward():
        loss.backward()
    tracker.flush()
    assert w.grad is not None and tracker.is_gpu(w.grad)
    assert tracker.model.allocated == 2 * MiB + 512  # w, its gradient, the loss; the backward's temporaries are gone


def test_a_storage_beyond_the_gpus_memory_raises_torchs_out_of_memory_error():
    torch = pytest.importorskip("torch")
    tracker = allocator.Tracker(CachingAllocator(capacity=4 * MiB, device="the virtual test GPU"))
    with pytest.raises(torch.OutOfMemoryError, match=r"Tried to allocate 20\.00 MiB.*virtual test GPU.*modelled"):
        tracker.track([torch.empty(3 * MiB, dtype=torch.uint8)])


@pytest.mark.stack     # an optimizer's step asks torch.accelerator for the current stream on torch 2.14
def test_a_model_step_through_playground_run():
    """tutorials/scripts/allocator_step.py on the virtual H100. The model: W1, W2 16 MiB each (their own segments), b1
    16 KiB and b2 4 KiB, x and target 1 MiB each (small pool: two 2 MiB segments) = 35,672,064 B allocated; forward
    keeps ReLU's 4 MiB output and the 1 MiB difference (pow saves it), and the 512 B loss; backward leaves the four
    gradients (33,574,912 B) and the loss; AdamW's step adds two states per parameter (67,149,824 B); zero_grad and
    `del loss` free the gradients and the loss; empty_cache gives back every whole free segment."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", str(ROOT / "tutorials/scripts/allocator_step.py"),
                           "--target", "sm_90"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: [int(n.replace(",", "")) for n in re.findall(r"[\d,]{3,}", line)]
            for line in done.stdout.splitlines() if re.match(r"^(model|forward|backward|step|zero_grad|emptied|peak) ", line)}
    params = 2 * 16 * MiB + 16384 + 4096
    grads = params
    assert rows["model"] == [params + 2 * MiB, 36 * MiB, (2 * MiB - 16384 - 4096 - MiB) + (2 * MiB - MiB)]
    assert rows["forward"][0] == params + 2 * MiB + 4 * MiB + MiB + 512
    assert rows["backward"][0] == params + 2 * MiB + grads + 512
    assert rows["step"][0] == params + 2 * MiB + grads + 512 + 2 * params
    assert rows["zero_grad"][0] == params + 2 * MiB + 2 * params
    assert rows["emptied"][0] == rows["zero_grad"][0] and rows["emptied"][1] < rows["zero_grad"][1]
    assert rows["peak"][1] == max(r[1] for r in rows.values() if len(r) == 3)
    assert (rows["model"], rows["forward"], rows["backward"], rows["step"], rows["zero_grad"], rows["emptied"],
            rows["peak"]) == ([35_672_064, 37_748_736, 2_076_672], [40_915_456, 60_817_408, 19_901_952],
                              [69_247_488, 96_468_992, 2_055_680], [136_397_312, 180_355_072, 6_209_024],
                              [102_821_888, 180_355_072, 6_230_016], [102_821_888, 109_051_904, 6_230_016],
                              [169_972_224, 180_355_072])   # AdamW's temporaries of GPU parameters at the peak
    assert (f"GPU memory peak {rows['peak'][0]:,} B allocated, {rows['peak'][1]:,} B reserved (modelled"
            in done.stdout)
