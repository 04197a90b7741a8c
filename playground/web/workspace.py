"""The kernel a `playground serve` page works on: the user's file, opened and never written but by save.

An edit is compiled from a scratch copy (a fresh folder per text, named after its hash, the file's
own name kept so Triton's locations read as the user's file); the user's file is written only by
`save`, and only when it has not changed on disk since it was opened (or last saved). Everything
else the page asks for is the library's: a Request, `request.compile()`, `view.view`, `passes.log`,
`compare.diff.figures`, `compare.text.show`. One lock serialises compiles: Triton's JIT state is process-wide.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import threading
from pathlib import Path

from ..core import devices, imports, params, registry, targets
from ..artefact.request import Request
from ..errors import KernelFailure, UserError
from . import view


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Workspace:
    def __init__(self, ref: str, target: str | None = None, args: str | None = None):
        self.lock = threading.RLock()
        self.args = args                           # a bare kernel's --args (core/bare.py)
        self._scratch: Path | None = None          # made at the first edit, removed by close()
        self.trace_path: str | None = None
        self.default_target = targets.resolve(target or "native").label
        if ref.endswith(".json") and "#" not in ref:      # a trace: its launches, the first variant opened
            from ..virtual import launches
            trace = launches.load_trace(ref)
            self.trace_path = ref
            self.trace = trace
            first = next((v["id"] for v in trace["variants"] if v.get("source")), None)
            if first is None:
                raise UserError(f"{ref}: no variant of this trace can be reopened")
            ref = f"{ref}#{first}"
            self.default_target = trace.get("target", self.default_target)
        self.open(ref)

    @property
    def scratch(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="playground-serve-"))
        return self._scratch

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)

    # --- what is open --------------------------------------------------------------------------
    def open(self, ref: str) -> None:
        with self.lock:
            spec = registry.load(ref, self.default_target, self.args)
            if registry.trace_target(ref):
                self.default_target = registry.trace_target(ref)
            self.ref = ref
            self.name = spec.name
            self.editable = not spec.loaded_from          # a trace's or a plan's kernel: read, not edited
            self.file = Path(spec.kernel.fn.__code__.co_filename).resolve()
            self.opened = self.file.read_bytes()
            self.digest = _digest(self.opened)

    def state(self) -> dict:
        return {"ref": self.ref, "kernel": self.name, "file": str(self.file), "editable": self.editable,
                "source": self.opened.decode("utf-8", errors="replace"), "target": self.default_target,
                "targets": [*targets.TARGETS, *devices.VARIANTS], "trace": self.launches() if self.trace_path else None,
                "backends": {t: targets.resolve(t).backend for t in [*targets.TARGETS, *devices.VARIANTS]},
                "stages": {backend: view.stages_of(backend) for backend in ("cuda", "hip")}}

    LAUNCHES_SHOWN = 1000     # a timed sweep launches thousands of times; the table keeps the first ones

    def launches(self) -> dict:
        """The trace as the page lists it: every launch (the first LAUNCHES_SHOWN), and the variants."""
        ref_of = {v["id"]: f"{self.trace_path}#{v['id']}" if v.get("source") else None for v in self.trace["variants"]}
        launches = [{"index": r["index"], "kernel": r["kernel"], "site": r.get("site", ""),
                     "grid": "x".join(str(g) for g in r.get("grid", [])), "variant": r.get("variant"),
                     "compile": "new compile" if r.get("new_compile") else "cache hit",
                     "modelled_us": round(r["modelled_seconds"] * 1e6, 2) if r.get("modelled_seconds") else None,
                     "ref": ref_of.get(r.get("variant"))}
                    for r in self.trace["launches"][:self.LAUNCHES_SHOWN]]
        return {"launches": launches, "total_launches": len(self.trace["launches"]), "variants": self.variants()}

    def variants(self) -> list[dict]:
        rows = []
        for v in self.trace["variants"]:
            rows.append({"id": v["id"], "kernel": v["kernel"], "where": f"{Path(v['file']).name}:{v['line']}",
                         "launches": v.get("launches", 0), "num_warps": v.get("num_warps"),
                         "num_stages": v.get("num_stages"), "registers": v.get("registers"),
                         "occupancy": v.get("occupancy"), "specialised": v.get("specialised", []),
                         "ref": f"{self.trace_path}#{v['id']}" if v.get("source") else None,
                         "note": v.get("rebuild", "")})
        return rows

    # --- compiling -----------------------------------------------------------------------------
    def request(self, settings: dict) -> Request:
        """A Request from the page's controls and, when edited, its source."""
        source = settings.get("source")
        kernel = self.ref
        if source is not None and self.editable and source.encode() != self.opened:
            kernel = f"{self._scratch_copy(source)}:{self.name}"
        meta = params.parse_assignments(_items(settings.get("meta")), "meta", strings=True) or None
        shape = params.parse_assignments(_items(settings.get("shape")), "shape") or None
        request = Request.of(kernel, settings.get("target") or self.default_target, meta,
                             _int(settings.get("num_warps"), "num_warps"), _int(settings.get("num_stages"), "num_stages"),
                             shape, settings.get("dtype") or None, self.args)
        # a file read on a virtual GPU holds that GPU's answers for as long as this process runs: another target
        # on the page would be given them (sweep and diff refuse the same)
        registry.check_one_gpu(request.spec, [request.target.label])
        return request

    def compile(self, settings: dict) -> dict:
        """The page's data for these settings, or {"error", "line"} for what Triton or Python said."""
        with self.lock:
            try:
                c = self.request(settings).compile()
                asked = [s for s in settings.get("stages") or [] if s in view.pane_stages(c.target)]
                stages = list(dict.fromkeys(asked + list(view.FIRST_PANES[c.target.backend])))
                data = view.view(c, stages, source=settings.get("source"), display_file=str(self.file))
                have = settings.get("have") or {}
                for stage, lines in data["stages"].items():
                    if have.get(stage) == lines["digest"]:      # the page shows these lines already
                        data["stages"][stage] = {"digest": lines["digest"], "same": True}
                return data
            except (UserError, KernelFailure) as e:
                return self.error(e)

    def error(self, e: Exception) -> dict:
        """What the page shows for a failed compile: the message, naming the user's file rather than the
        scratch copy, and the line it points at."""
        message = str(e)
        if self._scratch is not None:
            message = re.sub(re.escape(str(self._scratch)) + r"/[0-9a-f]{16}/", str(self.file.parent) + "/", message)
        return {"error": message, "line": error_line(e, self.file.name)}

    def passes(self, settings: dict, number: int | None = None, find: str | None = None) -> dict:
        from ..artefact import passes
        with self.lock:
            try:
                log = passes.log(self.request(settings).compile())
                out = log.as_dict()
                if number is not None:
                    shown = log.pick(str(number))
                    out["shown"] = {"number": shown.number, "diff": shown.diff()}
                if find:
                    out["found"] = log.find(find)
                return out
            except (UserError, KernelFailure) as e:
                return self.error(e)

    def diff(self, a: dict, b: dict, stage: str) -> dict:
        from ..compare import diff
        from ..compare import text as compare_text
        with self.lock:
            try:
                ca, cb = self.request(a).compile(), self.request(b).compile()
            except (UserError, KernelFailure) as e:
                return self.error(e)
            sides, figures = [], []
            for c in (ca, cb):
                shown = stage if stage in view.pane_stages(c.target) else view.FIRST_PANES[c.target.backend][0]
                sides.append({"target": c.target.label, "stage": shown, "figures": view.figures(c),
                              "lines": view.stage_lines(c, shown)})
                figures.append(diff.figures(c, shown))
            (res_a, mix_a), (res_b, mix_b) = figures
            rows = []
            for name in list(dict.fromkeys([*res_a, *res_b, *mix_a, *mix_b])):
                va, vb = {**res_a, **mix_a}.get(name), {**res_b, **mix_b}.get(name)
                rows.append({"name": name, "a": compare_text.show(name, va), "b": compare_text.show(name, vb),
                             "changed": va != vb})
            return {"a": sides[0], "b": sides[1], "figures": rows}

    def save(self, source: str) -> dict:
        """Write the editor's text to the user's file, unless the file changed on disk since it was read."""
        with self.lock:
            if not self.editable:
                raise UserError(f"{self.ref} is not a file of yours: nothing to save")
            try:
                current = self.file.read_bytes()
            except OSError as e:
                raise UserError(f"cannot read {self.file}: {e.strerror}") from None
            if _digest(current) != self.digest:
                raise UserError(f"{self.file} changed on disk since it was opened; not saved (reload to see it)")
            from ..files import write_atomically
            write_atomically(self.file, source)
            self.opened = source.encode()
            self.digest = _digest(self.opened)
            return {"saved": str(self.file), "bytes": len(self.opened)}

    def _scratch_copy(self, source: str) -> Path:
        folder = self.scratch / _digest(source.encode())[:16]
        copy = folder / self.file.name
        if not copy.exists():
            folder.mkdir(parents=True, exist_ok=True)
            copy.write_text(source)
        imports.edit_of(copy, self.file)         # a file inside a package: the copy imports from that package
        return copy


def error_line(error: BaseException, file_name: str) -> int | None:
    """The line of the user's file an error points at: a SyntaxError's, or `NAME.py:LINE` in the message."""
    seen = error
    while seen is not None:
        if isinstance(seen, SyntaxError) and seen.lineno:
            return seen.lineno
        seen = seen.__cause__
    m = re.search(re.escape(file_name) + r"(?:\", line |:)(\d+)", str(error))
    return int(m.group(1)) if m else None


def _items(text) -> tuple:
    return tuple(part for part in [str(text or "").strip()] if part)


def _int(value, name: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(f"{name}: expected a whole number, got {value!r}") from None
