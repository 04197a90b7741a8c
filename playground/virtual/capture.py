"""Every launch on the virtual GPU, as the JIT made it: the record, the variant, the modelled time.

JITFunction.run is wrapped (install) only to watch: the real method still binds, specialises and
compiles. The stand-in driver's launcher (driver.py) reports the grid and the bound arguments here,
and the kernel then runs in Triton's interpreter (unless it is inside a timing loop or --no-exec).

Each distinct binary (Triton's hash) is a *variant*. On first sight a variant is rebuilt through the
project's own pipeline (launches.request_for -> Request.compile) and its hash compared with the JIT's:
that is the proof that what `compile trace.json#N` shows is what this launch ran. Its registers, spills,
shared memory and occupancy come from that Compiled, as in every other command.

Time. Host: the script's own Python between launches, as measured here, with the time spent
compiling, interpreting and reading figures taken out (the JIT's dispatch stays in). It is the CPU
time of the script's thread (host_time), not the wall clock: another program loading this machine, or
the OS putting the script aside, does not stretch it, so a run's timeline barely moves on a busy
machine (contention for caches still lengthens CPU time a little); time the script spends asleep or
waiting on I/O is not counted either. Each thread that launches keeps its own clock steps (CPU times
of two threads do not compare). GPU: each kernel
is queued on the stream Triton launched it on and placed by gpu.schedule (in order on its stream,
after the events it waits for, beside other streams' kernels only on SMs they leave free), and
lasts its modelled time: the performance model's (model/explain.py, as `bench` and `sweep` use it) for
the variant's binary, with this launch's grid, and FLOPs and bytes from the kernel's own
`launch_metadata` when it has one, else the bytes of its tensor arguments and no FLOPs; the roofline
(figures/roofline.py) when the binary could not be rebuilt. Every such time is modelled, and labelled so wherever it is printed.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

from .. import compat
from ..core import devices
from ..figures import occupancy, roofline
from ..model import explain
from . import launches, repeats

JITFunction = compat.reach("JITFunction")

# the host clock: this thread's CPU time (the module docstring says why not the wall clock)
host_time = time.thread_time

_PACKAGE_DIRS = tuple(str(Path(m.__file__).resolve().parent) for m in (sys.modules["triton"],)) + \
    (str(Path(__file__).resolve().parents[1]),)


class Recorder:
    def __init__(self, gpu, execute: bool = True):
        self.gpu = gpu
        self.execute = execute
        self._compiled: dict = {}       # variant hash -> its rebuilt Compiled, for the performance model
        self.device = devices.get(gpu.target)
        self.launches: list[dict] = []
        self.variants: dict[str, dict] = {}        # hash -> variant (insertion order = first seen)
        self.autotune: list[dict] = []
        self.messages: list[str] = []
        self.timing_depth = 0
        self.current: dict | None = None
        self.host_side = None                       # host_side.HostSide: copies, sync points, ATen ops (run only)
        self.host_clock = 0.0                       # the script's own time, as measured here
        self._marks: dict[int, float] = {}          # thread -> its host_time when a launch last returned to it
        self._mark()
        self._interpreted: dict = {}
        self._repeats = repeats.Repeats()          # the last launch run, and whether its repeat may be skipped
        # a transient status line while a launch runs in the interpreter, the slow part: on a terminal only
        self.status_stream = sys.stderr if sys.stderr.isatty() and os.environ.get("TERM") != "dumb" else None

    def status(self, text: str | None) -> None:
        """Show `text` on the terminal's status line, or clear it (None)."""
        if self.status_stream is not None:
            width = shutil.get_terminal_size().columns - 1          # one row: \r and erase-line clear it whole
            self.status_stream.write("\r\x1b[K" + (f"playground: {text}"[:width] if text else ""))
            self.status_stream.flush()

    def start(self):
        """The script starts now: its host clock counts from here."""
        self._mark()

    def _mark(self) -> None:
        self._marks[threading.get_ident()] = host_time()

    def _since_mark(self) -> float:
        """This thread's CPU time since its last mark: each thread's clock is its own (a thread's first step
        counts from its first launch)."""
        now = host_time()
        return max(0.0, now - self._marks.get(threading.get_ident(), now))

    # --- the JIT's run, watched ---------------------------------------------------------------
    def run(self, original, jit, args, kwargs, grid, warmup):
        if self.current is not None:                # a launch from inside a hook: not the script's
            return original(jit, *args, grid=grid, warmup=warmup, **kwargs)
        kernel, record = self._watched(original, jit, args, kwargs, grid, warmup)
        dispatch = record["host_dispatch_seconds"]
        if kernel is not None:
            if "grid" not in record:     # a warmup: bind the arguments as the JIT did, for the figures
                record["args"] = launches.describe_args(jit, _bound(jit, args, kwargs))
            self._finish(jit, kernel, record)
        record.pop("own_seconds")
        self.host_clock += dispatch
        self._mark()
        return kernel

    def _watched(self, original, jit, args, kwargs, grid, warmup, device: int = 0):
        """The JIT's own run with this launch's record open (the launcher, or the launch hooks, fill it in):
        (the kernel it returned, the record, with the host's dispatch time and whether it compiled)."""
        self.host_clock += self._since_mark()
        cache = jit.device_caches[device][0]
        before = len(cache)
        record = self._record(jit, options={k: v for k, v in kwargs.items() if k not in jit.arg_names})
        self.current = record
        dispatch_start = host_time()
        try:
            kernel = original(jit, *args, grid=grid, warmup=warmup, **kwargs)
        finally:
            self.current = None
        # the JIT's own launch path, as a script on a GPU would pay it: without compiling or interpreting
        record["host_dispatch_seconds"] = max(host_time() - dispatch_start - record["own_seconds"], 0.0)
        record["own_seconds"] = 0.0
        record["new_compile"] = len(cache) > before
        return kernel, record

    def _record(self, jit, **more) -> dict:
        """A launch's record as it starts: what was launched, from where, and when on the host clock."""
        test = _current_test()
        return {"index": len(self.launches), "kernel": jit.__name__,
                "file": str(Path(jit.fn.__code__.co_filename).resolve()), "site": _user_site(),
                "timed": self.timing_depth > 0, "host_start": self.host_clock, "own_seconds": 0.0,
                **({"test": test} if test else {}), **more}

    def own(self, seconds: float, what: str = "own_seconds", wall: float | None = None):
        """Time the virtual GPU spent on its own work (compiling, reading the binary): not the script's.
        `seconds` on the host clock (host_time), taken out of the launch's; `what` also keeps `wall`
        seconds, the work's own duration (a compile's ptxas runs in a process of its own)."""
        if self.current is not None:
            self.current["own_seconds"] += seconds
            if what != "own_seconds":
                self.current[what] = self.current.get(what, 0.0) + (seconds if wall is None else wall)

    def launched(self, src, metadata, grid, values, stream: int = 0):
        """Called by the stand-in launcher: the launch's grid, bound arguments and stream; then run it."""
        record = self.current
        if record is None:          # a compiled kernel launched itself (kernel[grid](...)), not through the JIT
            return self._direct(src, metadata, grid, values, stream)
        start = host_time()     # from here on, the virtual GPU's own work: not the launch's
        jit = src.fn
        record["grid"] = list(grid)
        record["stream"] = int(stream or 0)
        record["args"] = launches.describe_args(jit, values)
        record["_values"] = values
        record["executed"] = False
        if self.execute and self.timing_depth == 0:
            launch_key = repeats.key(jit, grid, values)
            earlier = self._repeats.repeat_of(launch_key, values)
            if earlier is not None:       # the same launch as the last, nothing changed since: nothing to compute
                record["repeat_of"] = earlier
            else:
                self.status(f"launch {len(self.launches) + 1}, {jit.__name__} {tuple(grid)}: running in Triton's "
                            f"interpreter (--no-exec skips this)")
                try:
                    watch = _sanitizer(jit, values)
                    # the sanitizer wraps the interpreter's builder for good the first time: before Accesses
                    # wraps it for the launch, so that Accesses puts back the sanitizer's methods
                    with watch.active(), repeats.Accesses() as accesses:
                        self._interpret(jit, grid, values)
                    record["executed"] = True
                    self._repeats.ran(record["index"], launch_key, values, accesses)
                    if watch.uninitialised_sites:
                        record["masked_loads"] = dict(watch.uninitialised_sites)
                    if watch.findings:
                        record["findings"] = [str(f) for f in watch.findings]
                        for finding in record["findings"]:
                            self.say(f"{jit.__name__}: {finding}")
                except Exception as e:
                    record["error"] = _interpreter_failure(jit, e)
                    self.say(record["error"])
                    self._repeats.forget()
                finally:
                    self.status(None)
        record["own_seconds"] += host_time() - start

    def _direct(self, src, metadata, grid, values, stream=0):
        """`compiled_kernel[grid](...)`: no binder ran, so record it here, as the JIT path would."""
        self.host_clock += self._since_mark()
        jit = src.fn
        record = self._record(jit, options={}, new_compile=False, direct=True)
        self.current = record
        dispatch_start = host_time()
        try:
            self.launched(src, metadata, grid, values, stream)
            record["host_dispatch_seconds"] = max(host_time() - dispatch_start - record["own_seconds"], 0.0)
            self._finish(jit, SimpleNamespace(hash=metadata.hash, metadata=metadata, src=src), record)
        finally:
            self.current = None
        record.pop("own_seconds")
        self.host_clock += record["host_dispatch_seconds"]
        self._mark()

    def _interpret(self, jit, grid, values):
        fn = _interpreted(self._interpreted, jit)
        with callees_interpreted(self._interpreted), _no_device_mode():
            fn[grid](**dict(zip(jit.arg_names, values)))

    def _finish(self, jit, kernel, record):
        start = host_time()
        record["hash"] = kernel.hash
        record["num_warps"], record["num_stages"] = kernel.metadata.num_warps, kernel.metadata.num_stages
        variant = self.variants.get(kernel.hash)
        if variant is None:
            variant = self._new_variant(jit, kernel, record)
        record["variant"] = variant["id"]
        values = record.pop("_values", None)
        if "grid" in record:
            variant["launches"] += 1
            self._model(jit, kernel, record, variant, values)
            self.launches.append(record)
        else:
            variant["warmups"] += 1
            self._figures(jit, variant, dict(record, grid=[1, 1, 1], warmup_only=True))
        record["own_seconds"] += host_time() - start

    def _new_variant(self, jit, kernel, record) -> dict:
        variant = {"id": len(self.variants) + 1, "kernel": jit.__name__, "hash": kernel.hash,
                   "file": str(Path(jit.fn.__code__.co_filename).resolve()), "line": jit.fn.__code__.co_firstlineno,
                   "num_warps": kernel.metadata.num_warps, "num_stages": kernel.metadata.num_stages,
                   "shared": kernel.metadata.shared, "launches": 0, "warmups": 0,
                   "signature": {k: str(v) for k, v in kernel.src.signature.items()},
                   "specialised": launches.specialised(kernel.src), "source": None}
        self.variants[kernel.hash] = variant
        return variant

    def _figures(self, jit, variant, record):
        """The variant through the project's pipeline: prove the same binary, then read its figures."""
        if variant.get("figures_done"):
            if variant.pop("source_from_warmup", False) and variant["source"] and "args" in record:
                variant["source"] = launches.source_of(record, self.gpu.target.label)   # the launch's grid
            return
        variant["figures_done"] = True
        variant["source_from_warmup"] = record.get("warmup_only", False)
        try:
            source = launches.source_of(record, self.gpu.target.label)
            request = launches.request_for(source, jit)
            compiled = request.compile()
        except Exception as e:       # a launch the pipeline cannot rebuild: say so, keep the capture
            variant["rebuild"] = f"not reopenable: {launches.one_line(e)}"
            return
        variant["source"] = source
        variant["same_binary"] = compiled.hash == variant["hash"]
        if not variant["same_binary"]:
            variant["rebuild"] = f"rebuilt as {compiled.hash[:12]}, not {variant['hash'][:12]}: not the same binary"
        res = compiled.resources
        variant.update(registers=res.registers, spill_bytes=res.spill_store_bytes + res.spill_load_bytes,
                       static_shared=res.static_shared)
        try:
            occ = occupancy.of(compiled)
            variant.update(ctas_per_sm=occ.active_blocks_per_sm if occ.launchable else 0,
                           occupancy=round(occ.occupancy, 4) if occ.launchable else 0.0, limiter=occ.limiter)
        except Exception as e:
            variant["occupancy_note"] = launches.one_line(e)
        variant["matrix"] = roofline.matrix_precision(compiled)
        self._compiled[variant["hash"]] = compiled

    def _model(self, jit, kernel, record, variant, values):
        self._figures(jit, variant, record)
        d = self.device
        ctas = record["grid"][0] * record["grid"][1] * record["grid"][2]
        flops, nbytes, basis = launches.work_of(jit, kernel, record, values)
        per_sm = variant.get("ctas_per_sm") or None
        seconds, bound = None, None
        compiled = self._compiled.get(variant["hash"])
        if compiled is not None and per_sm:
            # the performance model (model/explain.py), as bench and sweep use it, with this launch's work
            try:
                e = explain.explain(compiled, d, work=(flops, nbytes, ctas))
                seconds, bound = e.seconds, explain.NAMES[e.bound]
            except Exception as err:        # a binary the model cannot read: the roofline below, said so
                record["model_note"] = f"performance model not applied ({launches.one_line(err)}): roofline"
        peak, roof = roofline.peak_for(d, variant.get("matrix"))
        est = roofline.estimate(flops, nbytes, peak, d.mem_bandwidth_gbs, ctas,
                                per_sm * d.num_sms if per_sm else None, roofline.sms_to_fill_dram(d))
        if compiled is None:
            # no binary went through the pipeline (the launch could not be rebuilt): nothing to model it on,
            # so no time, said so, rather than a roofline of a kernel whose registers and work are unknown
            record["model_note"] = f"not modelled: {variant.get('rebuild', 'the launch could not be rebuilt')}"
        elif seconds is None:
            seconds = est.seconds
        # queued once dispatched; placed on its stream by gpu.schedule's rules (an unmodelled launch takes no time)
        start = self.gpu.schedule(record.get("stream", 0), record["host_start"] + record["host_dispatch_seconds"],
                                  seconds or 0.0, ctas)
        record.update(ctas=ctas, waves=est.waves, modelled_seconds=seconds, model_basis=basis,
                      modelled_bound=bound, gpu_start=start, gpu_end=start + (seconds or 0.0))

    # --- timing on the model -------------------------------------------------------------------
    def do_bench(self, fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean", **_):
        """triton.testing.do_bench on the virtual GPU: fn runs once, its launches are compiled, captured
        and modelled but not executed; the answer is their modelled time in ms (never measured)."""
        first = len(self.launches)
        self.timing_depth += 1
        try:
            fn()
        finally:
            self.timing_depth -= 1
        timed = self.launches[first:]
        if not timed:
            self.say("do_bench: the timed function launched no Triton kernel; torch's own ops are not "
                     "modelled, so its time is nan")
            ms = float("nan")
        elif any(r["modelled_seconds"] is None for r in timed):
            self.say("do_bench: a launch it timed could not be modelled (the launch table says why), so its time "
                     "is nan")
            ms = float("nan")
        else:
            ms = sum(r["modelled_seconds"] for r in timed) * 1e3
        if quantiles is not None:
            return [ms] * len(quantiles)
        return ms

    def host_now(self) -> float:
        """The script's host clock at this moment (as synchronize counts it)."""
        return self.host_clock + self._since_mark()

    @contextlib.contextmanager
    def aside(self):
        """The virtual GPU's own bookkeeping on the script's thread (recording an op, a copy, a sync point): the
        host clock stops for it, as it does for compiling and interpreting."""
        self.host_clock += self._since_mark()
        self._mark()
        try:
            yield
        finally:
            self._mark()

    def synchronize(self, until: float | None = None):
        """The host waits for the GPU: its clock moves to `until` (an event, a stream's end), by default
        the end of everything queued (torch.cuda.synchronize)."""
        self.host_clock += self._since_mark()
        self.host_clock = max(self.host_clock, self.gpu.stream_end if until is None else until)
        self._mark()

    AUTOTUNE_TIMES = "modelled_ms"      # what the autotuner's timings are here: the model's

    def autotuned(self, fn, key, best_config, configs_timings, duration, cache_hit, **_):
        """Triton's autotuning listener (knobs.autotuning.listener, where the Triton has one)."""
        self.autotune.append({"kernel": fn.__name__, "key": [str(k) for k in key], "best": str(best_config),
                              self.AUTOTUNE_TIMES: {str(c): (t[0] if isinstance(t, list) else t)
                                                    for c, t in configs_timings.items()}})
        self.say(f"autotune {fn.__name__}: picked {best_config} {self.picked_by()}")

    def picked_by(self) -> str:
        return f"by modelled time on the virtual {self.device.name} ({self.gpu.target.label}, not measured)"

    def say(self, message: str):
        if message not in self.messages:
            self.messages.append(message)
            self.status(None)
            print(f"playground: {message}", file=sys.stderr, flush=True)

    def as_dict(self) -> dict:
        variants = [{k: v for k, v in var.items() if k not in ("figures_done", "source_from_warmup")}
                    for var in self.variants.values()]
        return {"target": self.gpu.target.label, "device": self.device.name, "executed": self.execute,
                "launches": self.launches, "variants": variants, "autotune": self.autotune,
                "messages": self.messages, "host_seconds": self.host_clock, "gpu_seconds": self.gpu.stream_end,
                **(self.host_side.as_dict() if self.host_side is not None else {})}


def install(recorder: Recorder):
    """Watch every JIT launch, answer do_bench from the model, hear autotune's picks."""
    import triton.testing
    from triton import knobs
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        return recorder.run(original, self, args, kwargs, grid, warmup)

    JITFunction.run = run
    watch_compiles(recorder)
    triton.testing.do_bench = recorder.do_bench
    triton.testing.do_bench_cudagraph = lambda fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean": \
        recorder.do_bench(fn, quantiles=quantiles)
    knobs.autotuning.listener = recorder.autotuned


def watch_compiles(recorder: Recorder):
    """The JIT's compiles are the capture's own time, not the launch's (compile_seconds on the record)."""
    compile_once = JITFunction._do_compile

    def do_compile(self, *args, **kwargs):
        start, wall = host_time(), time.perf_counter()
        try:
            return compile_once(self, *args, **kwargs)
        finally:
            recorder.own(host_time() - start, "compile_seconds", time.perf_counter() - wall)

    JITFunction._do_compile = do_compile


def _interpreted(cache: dict, jit):
    """The interpreter's version of a JITFunction, kept by identity: hashing a JITFunction computes its
    cache key, which fails while the interpreter has triton.language patched."""
    InterpretedFunction = compat.reach("interpreter").InterpretedFunction
    entry = cache.get(id(jit))
    if entry is None:
        entry = cache[id(jit)] = (jit, InterpretedFunction(jit.fn))
    return entry[1]


class callees_interpreted:
    """While a kernel is interpreted, a @triton.jit function it calls runs interpreted too."""

    def __init__(self, cache: dict):
        self.cache = cache

    def __enter__(self):
        cache = self.cache
        self.saved = JITFunction.__call__

        def call(jit, *args, **kwargs):
            # As InterpretedFunction.__call__, which patches the callee's triton.language modules but never
            # restores them (that breaks the next real compile): here the patch is undone on return.
            _patch_lang = compat.reach("interpreter")._patch_lang
            try:
                scope = _patch_lang(jit.fn)
            except AssertionError:       # the callee's module has no triton.language: the kernel's patch serves
                scope = None
            try:
                return _interpreted(cache, jit).rewrite()(*args, **kwargs)
            finally:
                if scope is not None:
                    scope.restore()
        JITFunction.__call__ = call

    def __exit__(self, *exc):
        JITFunction.__call__ = self.saved
        return False


class _no_device_mode:
    """The interpreter reads real CPU tensors: our torch function mode stays out of its way."""

    def __enter__(self):
        self.guard = compat.disable_torch_function()
        self.guard.__enter__()

    def __exit__(self, *exc):
        return self.guard.__exit__(*exc)


def _bound(jit, args, kwargs) -> list:
    """The argument values in parameter order, defaults filled in, as JITFunction.run binds them."""
    bound = jit.signature.bind(*args, **{k: v for k, v in kwargs.items() if k in jit.arg_names})
    bound.apply_defaults()
    return list(bound.arguments.values())


# `check` of real code (check/code/child.py) turns this on: the masked-out lanes of `other`-less loads read poison
# (run/sanitize.py's _poison), as a GPU's hold whatever was in its registers, so a result that depends on them shows
POISON_MASKED_LANES = {"on": False}


def _sanitizer(jit, values):
    """memcheck and racecheck over the launch's tensor arguments (run/sanitize.py), and the `other`-less masked loads
    recorded (initcheck's sites), their lanes poisoned where POISON_MASKED_LANES is on (`check`, not `run`: a run has
    no reference to tell a poisoned answer by)."""
    from ..run.sanitize import Sanitizer
    tensors = {}

    def add(name, value):          # tensors inside tuples and tensor descriptors are the kernel's memory too
        if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):
            tensors[name] = value
        elif isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                add(f"{name}[{i}]", item)
        elif hasattr(value, "base") and type(value).__name__ == "TensorDescriptor":
            add(name, value.base)

    for name, value in zip(jit.arg_names, values):
        add(name, value)
    return Sanitizer.for_tensors(tensors, poison=POISON_MASKED_LANES["on"])


def _current_test() -> str | None:
    """The pytest test running now (`run -m pytest`): pytest names it in PYTEST_CURRENT_TEST while each test's
    setup, call and teardown run (`tests/test_x.py::test_y (call)`), the phase dropped."""
    import os
    running = os.environ.get("PYTEST_CURRENT_TEST")
    return running.rsplit(" (", 1)[0] if running else None


def _user_site() -> str:
    """file:line of the innermost frame outside Triton and playground: where the script launched."""
    for frame in reversed(traceback.extract_stack()):
        path = str(Path(frame.filename).resolve()) if not frame.filename.startswith("<") else frame.filename
        if not path.startswith(_PACKAGE_DIRS) and "/torch/" not in path and not frame.filename.startswith("<frozen"):
            return f"{Path(frame.filename).name}:{frame.lineno}"
    return "?"


def _interpreter_failure(jit, e: Exception) -> str:
    if type(jit).__name__ == "GluonJITFunction":
        return (f"{jit.__name__}: a Gluon kernel (@gluon.jit): Triton's interpreter does not run Gluon, so it was "
                f"compiled, captured and modelled but not run; its outputs are left unwritten")
    cause = e.__cause__ or e
    text = launches.one_line(cause)
    return f"{jit.__name__}: the interpreter cannot run this kernel: {text}; its outputs are left unwritten"
