"""PyTorch's CUDA caching allocator, modelled for the virtual GPU: what torch.cuda.memory_allocated, memory_reserved,
memory_stats and memory_summary would answer for the script's GPU tensors. Every figure is modelled, not measured:
the tensors really live in the CPU's memory, and this counts what the allocator would have handed out and held.

The rules are c10/cuda/CUDACachingAllocator.cpp's, read at pytorch/pytorch commit
001074d25084fdb87a799823e395a50f5ec044d3 (DeviceCachingAllocator: malloc, alloc_found_block, free, free_block,
try_merge_blocks, should_split, get_allocation_size, get_free_block, alloc_block, release_cached_blocks,
release_blocks, round_size, format_size), with the defaults c10/core/AllocatorConfig.h (torch 2.13's
torch/include) gives when PYTORCH_CUDA_ALLOC_CONF is unset:
- a request is rounded up to a multiple of kMinBlockSize (512 B); roundup_power2_divisions is off by default;
- requests of at most kSmallSize (1 MiB) come from the small pool, whose segments are kSmallBuffer (2 MiB); larger
  ones from the large pool: below kMinLargeAlloc (10 MiB) a kLargeBuffer (20 MiB) segment, else the request rounded
  up to kRoundLarge (2 MiB);
- each pool is searched best fit: the smallest free block of the same stream that is large enough, the lowest
  address among equals (BlockComparatorSize: stream, size, address); a block freed is reused only by its stream;
- a block found is split when the remainder is at least kMinBlockSize (small pool) or more than kSmallSize (large
  pool); max_split_size is unlimited by default, so no block is "oversize" and those rules never apply;
- a freed block goes back to its pool and merges with free neighbours of its segment;
- when a new segment would not fit in the GPU's memory, every free unsplit segment is released and the segment tried
  once more (num_alloc_retries); failing that, torch.OutOfMemoryError in PyTorch's words; empty_cache() releases the
  free unsplit segments too.
Not modelled: expandable segments, recordStream (a block used on another stream is reusable at once here), CUDA
graph pools, the memory fraction, garbage collection thresholds, and memory the CUDA context itself takes.

Which tensors count (the tracker at the end): a storage the device mode makes for the GPU (torch_device.py: a
factory given a GPU device, an op on GPU tensors, `.to("cuda")` of a CPU tensor, whose storage is shared here, so its
GPU copy counts until both are gone), an op's new storage when an input's storage is on the GPU, and every new
storage an op makes on GPU inputs inside autograd's backward (a dispatch mode, pushed only while torch.autograd
computes gradients, sees the engine's ops, which no function mode does). A view shares its storage: counted once.
A storage's bytes are freed when it is (weakref.finalize). The sizes are the CPU build's storages, which are a CUDA
build's for nearly every op (an op whose CPU kernel allocates differently counts the CPU's). Not seen: intermediate
results inside one torch call outside backward (a composite op's temporaries), and a storage grown in place
(`resize_`, an `out=` tensor), which keeps the size it was counted at.
"""
from __future__ import annotations

import bisect
import itertools
import threading
import weakref
from dataclasses import dataclass, field

# CUDACachingAllocator.cpp's constants (the commit above)
K_MIN_BLOCK_SIZE = 512               # every size is rounded up to a multiple of this
K_SMALL_SIZE = 1 << 20               # the largest "small" request: 1 MiB
K_SMALL_BUFFER = 2 << 20             # small requests are packed in 2 MiB segments
K_MIN_LARGE_ALLOC = 10 << 20         # requests from 1 to 10 MiB take a kLargeBuffer segment
K_LARGE_BUFFER = 20 << 20            # ... of 20 MiB
K_ROUND_LARGE = 2 << 20              # larger requests are rounded up to 2 MiB

POOLS = ("large_pool", "small_pool")
STATS = ("allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes", "active_bytes",
         "inactive_split_bytes", "requested_bytes")
COUNTERS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free")
_CPU_VIEW = "_playground_cpu_view"   # a view the script moved to the CPU (`.cpu()`): its storage is no GPU input
MODELLED = "modelled: the virtual GPU's model of PyTorch's caching allocator, not measured"


def round_size(size: int) -> int:
    """round_size: at least kMinBlockSize, else up to a multiple of it."""
    return K_MIN_BLOCK_SIZE if size < K_MIN_BLOCK_SIZE else -(-size // K_MIN_BLOCK_SIZE) * K_MIN_BLOCK_SIZE


def allocation_size(size: int) -> int:
    """get_allocation_size: the segment a (rounded) request that finds no free block makes."""
    if size <= K_SMALL_SIZE:
        return K_SMALL_BUFFER
    if size < K_MIN_LARGE_ALLOC:
        return K_LARGE_BUFFER
    return -(-size // K_ROUND_LARGE) * K_ROUND_LARGE


def format_size(size: int) -> str:
    """format_size, as PyTorch's out-of-memory message writes sizes."""
    if size <= 1024:
        return f"{size} bytes"
    if size <= 1 << 20:
        return f"{size / 1024:.2f} KiB"
    if size <= 1 << 30:
        return f"{size / (1 << 20):.2f} MiB"
    return f"{size / (1 << 30):.2f} GiB"


@dataclass
class Stat:
    current: int = 0
    peak: int = 0
    allocated: int = 0
    freed: int = 0

    def increase(self, amount: int) -> None:
        self.current += amount
        self.peak = max(self.peak, self.current)
        self.allocated += amount

    def decrease(self, amount: int) -> None:
        self.current -= amount
        self.freed += amount


@dataclass(eq=False)
class Block:
    size: int
    stream: int
    small: bool                      # which pool
    ptr: int                         # its address (segments are laid out one after another, 2 MiB aligned)
    allocated: bool = False
    requested: int = 0               # the bytes asked for
    prev: "Block | None" = None      # neighbours in its segment, when it was split from one
    next: "Block | None" = None

    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None

    def key(self) -> tuple:
        return (self.stream, self.size, self.ptr)


class OutOfMemory(Exception):
    """Raised by the model; the tracker turns it into torch.OutOfMemoryError."""


@dataclass
class CachingAllocator:
    """One device's allocator (DeviceCachingAllocator): malloc(bytes, stream) -> Block, free(Block)."""
    capacity: int = 0                        # the GPU's memory in bytes; 0: unlimited
    device: str = "the virtual GPU"
    stats: dict = field(default_factory=lambda: {s: {p: Stat() for p in ("all",) + POOLS} for s in STATS})
    counters: dict = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))
    _free: dict = field(default_factory=lambda: {True: [], False: []})     # per pool: free blocks by key()
    _next_address: int = 0

    # -- the statistics, as get_stat_types_for_pool selects them: "all" and the block's pool
    def _up(self, stat: str, small: bool, amount: int) -> None:
        for pool in ("all", POOLS[small]):
            self.stats[stat][pool].increase(amount)

    def _down(self, stat: str, small: bool, amount: int) -> None:
        for pool in ("all", POOLS[small]):
            self.stats[stat][pool].decrease(amount)

    def _insert(self, block: Block) -> None:
        bisect.insort(self._free[block.small], block, key=Block.key)

    def _remove(self, block: Block) -> None:
        blocks = self._free[block.small]
        del blocks[bisect.bisect_left(blocks, block.key(), key=Block.key)]

    def malloc(self, orig_size: int, stream: int = 0) -> Block:
        size = round_size(orig_size)
        small = size <= K_SMALL_SIZE
        alloc_size = allocation_size(size)
        block = self._free_block(size, stream, small)
        if block is None:
            block = self._alloc_block(alloc_size, stream, small, retry=False)
        if block is None:
            self._release_cached_blocks()
            block = self._alloc_block(alloc_size, stream, small, retry=True)
        if block is None:
            self.counters["num_ooms"] += 1
            raise OutOfMemory(self.oom_message(alloc_size))
        remaining = block.size - size
        split = remaining >= K_MIN_BLOCK_SIZE if small else remaining > K_SMALL_SIZE     # should_split
        return self._alloc_found_block(block, size, orig_size, split)

    def _free_block(self, size: int, stream: int, small: bool) -> Block | None:
        """get_free_block: the first block at or after (stream, size) in the pool's order, if it is this stream's."""
        blocks = self._free[small]
        i = bisect.bisect_left(blocks, (stream, size, -1), key=Block.key)
        if i == len(blocks) or blocks[i].stream != stream:
            return None
        return blocks.pop(i)

    def _alloc_block(self, size: int, stream: int, small: bool, retry: bool) -> Block | None:
        """alloc_block: a new segment (cudaMalloc), unless it would not fit in the GPU's memory."""
        if retry:
            self.counters["num_alloc_retries"] += 1
        if self.capacity and self.reserved + size > self.capacity:
            return None
        block = Block(size, stream, small, self._next_address)
        self._next_address += -(-size // K_SMALL_BUFFER) * K_SMALL_BUFFER
        self._up("segment", small, 1)
        self._up("reserved_bytes", small, size)
        self.counters["num_device_alloc"] += 1
        return block

    def _alloc_found_block(self, block: Block, size: int, orig_size: int, split: bool) -> Block:
        already_split = block.is_split()
        if split:
            remaining = block
            block = Block(size, remaining.stream, remaining.small, remaining.ptr, prev=remaining.prev, next=remaining)
            if block.prev:
                block.prev.next = block
            remaining.prev = block
            remaining.ptr += size
            remaining.size -= size
            self._insert(remaining)
            if already_split:        # an inactive split block shrinks by `size`
                self._down("inactive_split_bytes", block.small, block.size)
            else:                    # a new inactive split block: the remainder
                self._up("inactive_split_bytes", block.small, remaining.size)
                self._up("inactive_split", block.small, 1)
        elif already_split:          # a split block becomes active whole
            self._down("inactive_split_bytes", block.small, block.size)
            self._down("inactive_split", block.small, 1)
        block.allocated, block.requested = True, orig_size
        for stat, amount in (("allocation", 1), ("allocated_bytes", block.size), ("active", 1),
                             ("active_bytes", block.size), ("requested_bytes", orig_size)):
            self._up(stat, block.small, amount)
        return block

    def free(self, block: Block) -> None:
        """free, then free_block: back to the pool, merged with its free neighbours."""
        block.allocated = False
        self._down("allocation", block.small, 1)
        self._down("allocated_bytes", block.small, block.size)
        original, requested = block.size, block.requested
        net_blocks = net_bytes = 0
        for candidate in (block.prev, block.next):
            subsumed = self._merge(block, candidate)
            if subsumed:
                net_blocks -= 1
                net_bytes -= subsumed
        self._insert(block)
        if block.is_split():
            net_blocks += 1
            net_bytes += block.size
        for stat, net in (("inactive_split", net_blocks), ("inactive_split_bytes", net_bytes)):
            if net > 0:
                self._up(stat, block.small, net)
            elif net < 0:
                self._down(stat, block.small, -net)
        self._down("active", block.small, 1)
        self._down("active_bytes", block.small, original)
        self._down("requested_bytes", block.small, requested)

    def _merge(self, dst: Block, src: Block | None) -> int:
        """try_merge_blocks: src (a neighbour) into dst when it is free; the bytes it brings, or 0."""
        if src is None or src.allocated:
            return 0
        self._remove(src)
        if dst.prev is src:
            dst.ptr, dst.prev = src.ptr, src.prev
            if dst.prev:
                dst.prev.next = dst
        else:
            dst.next = src.next
            if dst.next:
                dst.next.prev = dst
        dst.size += src.size
        return src.size

    def _release_cached_blocks(self) -> None:
        """release_cached_blocks: synchronise, then release every free block that is a whole segment."""
        self.counters["num_sync_all_streams"] += 1
        for small in (False, True):
            for block in [b for b in self._free[small] if not b.is_split()]:
                self._remove(block)
                self.counters["num_device_free"] += 1
                self._down("segment", small, 1)
                self._down("reserved_bytes", small, block.size)

    def empty_cache(self) -> None:
        self._release_cached_blocks()

    def reset_peak(self) -> None:
        for pools in self.stats.values():
            for s in pools.values():
                s.peak = s.current

    def reset_accumulated(self) -> None:
        for pools in self.stats.values():
            for s in pools.values():
                s.allocated = s.freed = 0
        self.counters = dict.fromkeys(COUNTERS, 0)

    @property
    def allocated(self) -> int:
        return self.stats["allocated_bytes"]["all"].current

    @property
    def reserved(self) -> int:
        return self.stats["reserved_bytes"]["all"].current

    def memory_stats(self) -> dict:
        """torch.cuda.memory_stats' flat dict, sorted by key as PyTorch sorts it, for what is modelled. The oversize
        counts are zero by the default rule (max_split_size unlimited: no block is oversize)."""
        out = {f"{stat}.{pool}.{metric}": getattr(s, metric)
               for stat, pools in self.stats.items() for pool, s in pools.items()
               for metric in ("current", "peak", "allocated", "freed")}
        out.update({f"{o}.{metric}": 0 for o in ("oversize_allocations", "oversize_segments")
                    for metric in ("current", "peak", "allocated", "freed")})
        out.update(self.counters)
        return dict(sorted(out.items()))

    def fragmentation(self) -> float:
        """Reserved memory that is neither allocated nor releasable (free blocks split off segments in use, the
        `inactive_split_bytes`), over reserved: what empty_cache() cannot give back. 0 when nothing is reserved."""
        return self.stats["inactive_split_bytes"]["all"].current / self.reserved if self.reserved else 0.0

    def oom_message(self, alloc_size: int) -> str:
        """malloc's TORCH_CHECK_WITH(OutOfMemoryError, ...) message, for the model."""
        free = max(self.capacity - self.reserved, 0)
        return (f"CUDA out of memory. Tried to allocate {format_size(alloc_size)}. GPU 0 has a total capacity of "
                f"{format_size(self.capacity)} of which {format_size(free)} is free. Of the allocated memory "
                f"{format_size(self.allocated)} is allocated by PyTorch, and {format_size(self.reserved - self.allocated)}"
                f" is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
                f"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
                f"Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables) "
                f"[{self.device}; {MODELLED}: the tensors live in the CPU's memory]")


class Tracker:
    """Feeds the model with the script's GPU storages: one Block per storage, freed when the storage is."""

    def __init__(self, model: CachingAllocator, stream=lambda: 0, marked=lambda tensor: False):
        self.model = model
        self.stream = stream                      # the current stream's id
        self.marked = marked                      # whether the device mode marked a tensor a GPU tensor
        self.blocks: dict[int, Block] = {}        # a live storage (its StorageImpl's address) -> its block
        self._freed: list[int] = []               # storages gone since the model last ran (finalizers only append)
        self._lock = threading.RLock()

    def flush(self) -> None:
        """Apply the frees the finalizers queued (they run at any moment, even inside malloc, so they only queue)."""
        with self._lock:
            while self._freed:
                block = self.blocks.pop(self._freed.pop(0), None)
                if block is not None:
                    self.model.free(block)

    def track(self, tensors) -> None:
        """Allocate a block for each tensor's storage the model has not seen yet."""
        import torch
        self.flush()
        for t in tensors:
            try:
                storage = t.untyped_storage()
                key, size = storage._cdata, storage.nbytes()
            except (RuntimeError, NotImplementedError, TypeError):     # meta, sparse, wrapper subclasses
                continue
            if size == 0 or key in self.blocks:
                continue
            with self._lock:
                try:
                    self.blocks[key] = self.model.malloc(size, self.stream())
                except OutOfMemory as e:
                    raise torch.OutOfMemoryError(str(e)) from None
            weakref.finalize(storage, self._freed.append, key).atexit = False

    def is_gpu(self, tensor) -> bool:
        try:
            return tensor.untyped_storage()._cdata in self.blocks and not getattr(tensor, _CPU_VIEW, False)
        except (RuntimeError, NotImplementedError, TypeError):
            return False

    def seen(self, result, args, kwargs) -> None:
        """After a torch call under the device mode: its result's new storages are the GPU's when it is marked a GPU
        tensor, or when one of its inputs' storages is (a module's parameter, moved without a mark)."""
        import torch
        outputs = [t for t in _tensors(result) if isinstance(t, torch.Tensor)]
        if not outputs:
            return
        self.flush()      # a storage freed since: its address may be a new one's now
        if self.marked(outputs[0]) or any(isinstance(t, torch.Tensor) and self.is_gpu(t)
                                          for t in _tensors((*args, *kwargs.values()))):
            self.track(outputs)

    def placed(self, tensor, gpu: bool) -> None:
        """`.to("cuda")`/`.cuda()` of a CPU tensor: its storage is now the GPU's; `.cpu()`: the view is the CPU's."""
        if gpu:
            self.track([tensor])
        else:
            setattr(tensor, _CPU_VIEW, True)

    def watching_backward(self):
        """A dispatch mode that tracks each op's new storages on GPU inputs: autograd's engine makes gradients in
        C++, where the device's function mode does not see them."""
        from .. import compat
        TorchDispatchMode = compat.reach("TorchDispatchMode")
        tracker = self

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                import torch
                tracker.flush()
                inputs = _tensors((*args, *(kwargs or {}).values()))
                if any(isinstance(t, torch.Tensor) and tracker.is_gpu(t) for t in inputs):
                    tracker.track([t for t in _tensors(out) if isinstance(t, torch.Tensor)])
                return out
        return Watch()


def _tensors(value):
    if isinstance(value, (list, tuple)):
        return itertools.chain.from_iterable(_tensors(v) for v in value)
    return (value,)


_TRACKER: list[Tracker] = []


def install(capacity: int, device: str, stream, on_gpu) -> Tracker:
    """The model for this process (the script's child): torch.autograd computes gradients under the watch, and
    torch.cuda's memory functions answer from the model (torch_device.install puts them in torch.cuda)."""
    import torch
    tracker = Tracker(CachingAllocator(capacity, device), stream, on_gpu)
    _TRACKER[:] = [tracker]
    for name in ("backward", "grad"):
        original = getattr(torch.autograd, name)
        if getattr(original, "_playground_watched", False):
            original = original.__wrapped__

        def watched(*args, _original=original, **kwargs):
            with tracker.watching_backward():
                return _original(*args, **kwargs)
        watched._playground_watched, watched.__wrapped__ = True, original
        setattr(torch.autograd, name, watched)
    return tracker


def current() -> Tracker | None:
    return _TRACKER[0] if _TRACKER else None


def functions(tracker: Tracker) -> dict:
    """torch.cuda's memory functions, answered by the model (each figure modelled)."""
    model = tracker.model

    def flushed(f):
        def answer(*args, **kwargs):
            tracker.flush()
            return f(*args, **kwargs)
        return answer

    def summary(device=None, abbreviated=False):
        import torch.cuda.memory as memory
        real, memory.memory_stats = memory.memory_stats, lambda device=None: model.memory_stats()
        try:
            table = real_summary(device=0 if device is None else device, abbreviated=abbreviated)
        finally:
            memory.memory_stats = real
        return f"{MODELLED}\n{table}"

    import torch.cuda.memory as memory
    real_summary = memory.memory_summary
    return {name: flushed(f) for name, f in {
        "memory_allocated": lambda device=None: model.allocated,
        "max_memory_allocated": lambda device=None: model.stats["allocated_bytes"]["all"].peak,
        "memory_reserved": lambda device=None: model.reserved,
        "max_memory_reserved": lambda device=None: model.stats["reserved_bytes"]["all"].peak,
        "memory_stats": lambda device=None: model.memory_stats(),
        "reset_peak_memory_stats": lambda device=None: model.reset_peak(),
        "reset_max_memory_allocated": lambda device=None: model.reset_peak(),
        "reset_max_memory_cached": lambda device=None: model.reset_peak(),
        "reset_accumulated_memory_stats": lambda device=None: model.reset_accumulated(),
        "empty_cache": model.empty_cache,
        "memory_summary": summary,
        "mem_get_info": lambda device=None: (max(model.capacity - model.reserved, 0), model.capacity),
    }.items()}


def figures() -> dict:
    """What the run's trace keeps of the model (script_child.py): {"memory": ...} once the script made a GPU
    storage, else nothing. Every figure modelled."""
    tracker = current()
    if tracker is None or not tracker.model.counters["num_device_alloc"]:
        return {}
    tracker.flush()
    m = tracker.model
    return {"memory": {"peak_allocated_bytes": m.stats["allocated_bytes"]["all"].peak,
                       "peak_reserved_bytes": m.stats["reserved_bytes"]["all"].peak,
                       "allocated_bytes": m.allocated, "reserved_bytes": m.reserved,
                       "inactive_split_bytes": m.stats["inactive_split_bytes"]["all"].current,
                       "num_alloc_retries": m.counters["num_alloc_retries"], "num_ooms": m.counters["num_ooms"],
                       "modelled": True}}
