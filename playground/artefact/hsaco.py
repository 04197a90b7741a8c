"""The kernel metadata an AMD code object (hsaco) carries: its NT_AMDGPU_METADATA note, a MessagePack map.

An hsaco is a 64-bit little-endian ELF (cubin.sections reads its section headers). Its `.note` section holds ELF
notes (System V gABI, "Note Section": u32 namesz, u32 descsz, u32 type, the name and the descriptor each padded to
4 bytes); the one named "AMDGPU" with type 32 (NT_AMDGPU_METADATA) is the code object's metadata, encoded with
MessagePack (LLVM's AMDGPUUsage, "Code Object V3 and Above Metadata"): `amdhsa.kernels`, one map a kernel, whose
`.args` give each kernel argument's `.offset` and `.size` in the kernarg segment. The assembler writes it from the
AMDGCN text's `.amdgpu_metadata` block; a test holds what this reads to that text.

MessagePack is decoded here by its specification (github.com/msgpack/msgpack, spec.md): the metadata uses maps,
arrays, strings, integers and booleans only, which is smaller than a dependency.
"""
from __future__ import annotations

import struct

from .cubin import sections

NT_AMDGPU_METADATA = 32


def metadata(hsaco: bytes) -> dict:
    """The code object's metadata map (`amdhsa.kernels`, `amdhsa.target`, ...). Raises ValueError when the file
    has no AMDGPU metadata note."""
    notes = sections(hsaco).get(".note", b"")
    at = 0
    while at + 12 <= len(notes):
        name_size, desc_size, kind = struct.unpack_from("<III", notes, at)
        at += 12
        name = notes[at:at + name_size].rstrip(b"\0")
        at += -(-name_size // 4) * 4
        desc = notes[at:at + desc_size]
        at += -(-desc_size // 4) * 4
        if name == b"AMDGPU" and kind == NT_AMDGPU_METADATA:
            value, _ = _unpack(desc, 0)
            return value
    raise ValueError("no NT_AMDGPU_METADATA note in the code object")


def kernel(hsaco: bytes, name: str) -> dict:
    """One kernel's map from the metadata (`.args`, `.kernarg_segment_size`, `.group_segment_fixed_size`, ...)."""
    for k in metadata(hsaco).get("amdhsa.kernels", []):
        if k.get(".name") == name:
            return k
    raise ValueError(f"no kernel {name} in the code object's metadata")


_FIXED = {0xc0: None, 0xc2: False, 0xc3: True}
_SIZED = {0xcc: "B", 0xcd: ">H", 0xce: ">I", 0xcf: ">Q", 0xd0: "b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q",
          0xca: ">f", 0xcb: ">d"}
_LENGTH = {0xd9: ("str", "B"), 0xda: ("str", ">H"), 0xdb: ("str", ">I"), 0xc4: ("bin", "B"), 0xc5: ("bin", ">H"),
           0xc6: ("bin", ">I"), 0xdc: ("array", ">H"), 0xdd: ("array", ">I"), 0xde: ("map", ">H"),
           0xdf: ("map", ">I")}


def _unpack(data: bytes, at: int):
    """One MessagePack value at `at`: (value, the offset after it)."""
    b = data[at]
    at += 1
    if b <= 0x7f:
        return b, at
    if b >= 0xe0:
        return b - 0x100, at
    if b in _FIXED:
        return _FIXED[b], at
    if b in _SIZED:
        (v,), size = struct.unpack_from(_SIZED[b], data, at), struct.calcsize(_SIZED[b])
        return v, at + size
    if 0xa0 <= b <= 0xbf:
        kind, n = "str", b & 0x1f
    elif 0x90 <= b <= 0x9f:
        kind, n = "array", b & 0x0f
    elif 0x80 <= b <= 0x8f:
        kind, n = "map", b & 0x0f
    elif b in _LENGTH:
        kind, fmt = _LENGTH[b]
        (n,) = struct.unpack_from(fmt, data, at)
        at += struct.calcsize(fmt)
    else:
        raise ValueError(f"MessagePack type 0x{b:02x} is not used by AMDGPU metadata")
    if kind in ("str", "bin"):
        raw = data[at:at + n]
        return (raw.decode() if kind == "str" else raw), at + n
    items = []
    for _ in range(n * (2 if kind == "map" else 1)):
        v, at = _unpack(data, at)
        items.append(v)
    return (dict(zip(items[::2], items[1::2])) if kind == "map" else items), at
