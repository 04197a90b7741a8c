"""The sections of a cubin, read from its ELF section header table.

A cubin is a 64-bit little-endian ELF file (nvdisasm prints `.elftype @"ET_EXEC"` and EF_CUDA_64BIT_ADDRESS
for it). Only the section header table is read, by the layout of the System V gABI, "Sections" (ELF-64
Object File Format, version 1.5: e_shoff at byte 0x28, e_shentsize, e_shnum and e_shstrndx at 0x3A; each
header's sh_name, sh_type, sh_flags, sh_addr, sh_offset and sh_size first). A table of fixed-size records
needs no library; tests compare what this reads with nvdisasm's own listing of the sections.
"""
from __future__ import annotations

import struct

_ELF_MAGIC = b"\x7fELF"
_ELFCLASS64, _ELFDATA2LSB = 2, 1


def sections(cubin: bytes) -> dict[str, bytes]:
    """Every section's contents by name, in the file's order. Raises ValueError for a file that is not a
    64-bit little-endian ELF."""
    if cubin[:4] != _ELF_MAGIC or cubin[4] != _ELFCLASS64 or cubin[5] != _ELFDATA2LSB:
        raise ValueError("not a 64-bit little-endian ELF file")
    (table,) = struct.unpack_from("<Q", cubin, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", cubin, table + i * entry_size) for i in range(count)]
    names_at = headers[names_index][4]

    def name(offset: int) -> str:
        start = names_at + offset
        return cubin[start:cubin.index(b"\0", start)].decode()

    # sh_type 8 (SHT_NOBITS, .nv.shared.*) occupies no bytes in the file
    return {name(h[0]): (b"" if h[1] == 8 else cubin[h[4]:h[4] + h[5]]) for h in headers}


def code_sections(cubin: bytes) -> dict[str, bytes]:
    """The `.text.<function>` sections: each function's instructions, as they lie in instruction memory."""
    return {n: data for n, data in sections(cubin).items() if n.startswith(".text.")}


def code_is_relocated(cubin: bytes) -> bool:
    """Whether any instruction is patched at load time (a non-empty `.rel.text.*` or `.rela.text.*`): such code
    disassembled raw would show the unpatched fields."""
    return any(data for n, data in sections(cubin).items() if n.startswith((".rel.text.", ".rela.text.")))


# EIFMT_* formats of a `.nv.info` record: u8 format, u8 attribute, then a u16 that is the value itself (NVAL, BVAL,
# HVAL) or, for SVAL, the length of the payload that follows. The layout is the one cuobjdump -elf decodes
# ("Attribute", "Format", "Value"); tests hold what this reads to cuobjdump's own printout of the same cubin.
EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4


def kernel_attributes(cubin: bytes, function: str) -> list[tuple[int, int | bytes]]:
    """The `.nv.info.<function>` section's records in order, as (EIATTR code, value): an int for NVAL, BVAL and
    HVAL records, the payload's bytes for SVAL ones. Raises KeyError when the cubin has no such section."""
    data = sections(cubin)[f".nv.info.{function}"]
    records, at = [], 0
    while at + 4 <= len(data):
        fmt, attr, value = struct.unpack_from("<BBH", data, at)
        at += 4
        if fmt == EIFMT_SVAL:
            records.append((attr, data[at:at + value]))
            at += value
        else:
            records.append((attr, value))
    return records


EIATTR_REGCOUNT = 0x2F   # in `.nv.info`: SVAL (function's symbol index u32, registers u32)


def with_register_count(cubin: bytes, registers: int) -> bytes:
    """A copy of the cubin whose `.nv.info` EIATTR_REGCOUNT records say `registers`; nothing else changes. For
    nvdisasm 13.1 and 12.8, which refuse to analyse a function that uses all 255 registers."""
    if cubin[:4] != _ELF_MAGIC:
        raise ValueError("not an ELF file")
    (table,) = struct.unpack_from("<Q", cubin, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", cubin, table + i * entry_size) for i in range(count)]
    names_at = headers[names_index][4]
    out = bytearray(cubin)
    for h in headers:
        start = names_at + h[0]
        if cubin[start:cubin.index(b"\0", start)] != b".nv.info":
            continue
        at, end = h[4], h[4] + h[5]
        while at + 4 <= end:
            fmt, attr, value = struct.unpack_from("<BBH", cubin, at)
            if fmt == EIFMT_SVAL and attr == EIATTR_REGCOUNT and value == 8:
                struct.pack_into("<I", out, at + 8, registers)
            at += 4 + (value if fmt == EIFMT_SVAL else 0)
    return bytes(out)
