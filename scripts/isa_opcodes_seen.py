"""Every opcode the shipped kernels compile to, on every target: tests/data/isa_opcodes_seen.json.

Each kernel of kernels/ is compiled for each target `playground targets` lists (sm_80 ... gfx1100), at its
default config and at each config of its spec (`--config N`), through `Request.of(...).compile()`, offline;
the opcodes of its SASS (disasm.sass), PTX and AMDGCN are read by playground.artefact.isa.opcodes. The file
says where each opcode was first seen ("kernel@target", "kernel@target#N" for config N), in the order kernels
(by name), targets (as listed), default then configs, so the same Triton writes the same file. A compile that
fails is listed under "skipped" with its one-line reason. tests/test_isa.py checks that every opcode here has
an entry, and (slow) that a fresh run writes this file again.

usage: .venv/bin/python scripts/isa_opcodes_seen.py [--jobs N] [--default-only] [--out PATH]
(a few minutes on two cores with Triton's cache cold; progress on stderr)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "data" / "isa_opcodes_seen.json"


def jobs(default_only: bool = False) -> list[tuple[str, str, int | None]]:
    """(kernel, target, config index or None for the default) in the file's order."""
    from playground.core import registry, targets
    out = []
    for kernel in sorted(registry.kernel_names()):
        for target in targets.TARGETS:
            out.append((kernel, target, None))
            if not default_only:
                out.extend((kernel, target, i) for i in range(len(registry.load(kernel, target).configs)))
    return out


def where(kernel: str, target: str, config: int | None) -> str:
    return f"{kernel}@{target}" + ("" if config is None else f"#{config}")


def opcodes_of(job: tuple[str, str, int | None]) -> dict[str, list[str]] | str:
    """{language: sorted opcodes} of one compile, or the one-line reason it failed."""
    from playground.artefact import disasm, isa
    from playground.artefact.request import Request
    from playground.core import registry
    from playground.core.spec import split_config
    kernel, target, config = job
    try:
        spec = registry.load(kernel, target)
        if config is None:
            request = Request.of(spec, target)
        else:
            meta, warps, stages = split_config(spec.configs[config])
            request = Request.of(spec, target, meta or None, warps, stages)
        compiled = request.compile()
        if compiled.target.is_nvidia:
            texts = {"sass": disasm.sass(compiled), "ptx": compiled.stage("ptx")}
        else:
            texts = {"amdgcn": compiled.stage("amdgcn")}
    except Exception as e:   # noqa: BLE001 -- a compile that fails is listed, with its reason
        lines = str(e).strip().splitlines()
        return f"{type(e).__name__}: {lines[0] if lines else ''}".strip()[:200]
    return {language: sorted(set(isa.opcodes(language, text))) for language, text in texts.items()}


def collect(default_only: bool = False, workers: int | None = None, progress=None) -> dict:
    """The file's content: {"triton": version, language: {opcode: [first seen]}, "skipped": {where: why}}."""
    import triton
    todo = jobs(default_only)
    seen: dict[str, dict[str, list[str]]] = {"sass": {}, "ptx": {}, "amdgcn": {}}
    skipped: dict[str, str] = {}
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        for n, (job, result) in enumerate(zip(todo, pool.map(opcodes_of, todo, chunksize=4)), 1):
            if progress:
                progress(f"[{n}/{len(todo)}] {where(*job)}" + (f": skipped, {result}" if isinstance(result, str) else ""))
            if isinstance(result, str):
                skipped[where(*job)] = result
                continue
            for language, ops in result.items():
                for op in ops:
                    seen[language].setdefault(op, [where(*job)])
    return {"triton": triton.__version__,
            "configs": "default only" if default_only else "default and every config of the spec",
            **{language: dict(sorted(ops.items())) for language, ops in seen.items()},
            "skipped": dict(sorted(skipped.items()))}


def dump(data: dict) -> str:
    """The file's text: JSON with one opcode (or skipped compile) a line, so a diff shows what changed."""
    blocks = []
    for key, value in data.items():
        if isinstance(value, dict):
            rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            blocks.append(f" {json.dumps(key)}: {{" + ("\n" + ",\n".join(rows) + "\n }" if rows else "}"))
        else:
            blocks.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    parser.add_argument("--default-only", action="store_true", help="only each kernel's default config")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    data = collect(args.default_only, args.jobs, progress=lambda line: print(line, file=sys.stderr, flush=True))
    args.out.write_text(dump(data))
    counts = ", ".join(f"{language} {len(data[language])}" for language in ("sass", "ptx", "amdgcn"))
    print(f"{args.out}: {counts} opcodes; {len(data['skipped'])} compiles skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
