"""Resource usage from the artefact: registers and spills as ptxas itself reports them for the same
PTX, the reserved shared memory sm_90+ cubins fold into their shared section, AMD's metadata."""
import inspect
import re
import subprocess

import pytest

from playground import tools
from playground.artefact import disasm, resources
from playground.core import registry
from playground.artefact.request import Request

pytestmark = pytest.mark.compile


def ptxas_report(c) -> dict:
    """Run ptxas -v on the kernel's PTX with the flags Triton's make_cubin uses, and parse its report."""
    from triton.backends.nvidia import compiler as nv
    arch = c.target.arch
    tool = nv.get_ptxas(arch).path if hasattr(nv, "get_ptxas") else tools.tool("ptxas")
    flags = ["-lineinfo", "-v"]
    if "regAllocOptLevel" in inspect.getsource(nv.CUDABackend.make_cubin):
        flags.append("--regAllocOptLevel=2")
    gpu = nv.sm_arch_from_capability(arch) if hasattr(nv, "sm_arch_from_capability") else f"sm_{arch}"
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        src = f"{tmp}/k.ptx"
        with open(src, "w") as f:
            f.write(c.kernel.asm["ptx"])
        done = subprocess.run([tool, *flags, f"--gpu-name={gpu}", src, "-o", f"{tmp}/k.cubin"],
                              capture_output=True, text=True, check=True)
    log = done.stderr + done.stdout

    def number(pattern):
        m = re.search(pattern, log)
        return int(m.group(1)) if m else 0
    return {"registers": number(r"Used (\d+) registers"), "stores": number(r"(\d+) bytes spill stores"),
            "loads": number(r"(\d+) bytes spill loads"), "smem": number(r"(\d+) bytes smem"), "log": log}


@pytest.fixture(scope="module")
def spilling():
    """softmax with one warp for an 8192-wide row: 256 fp32 values a thread, more than the 255 registers."""
    spec = registry.load("softmax")
    return {t: Request.of(spec, t, shape={"M": 64, "N": 8192}, num_warps=1).compile()
            for t in ("sm_80", "sm_90")}


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_spill_bytes_match_ptxas(spilling, target):
    c = spilling[target]
    r = c.resources
    expected = ptxas_report(c)
    assert expected["stores"] > 0 and expected["loads"] > 0, expected["log"]
    assert (r.spill_store_bytes, r.spill_load_bytes) == (expected["stores"], expected["loads"])
    assert r.registers == expected["registers"]
    assert r.spills


@pytest.fixture(scope="module")
def softmax_default():
    spec = registry.load("softmax")
    return {t: Request.of(spec, t).compile()
            for t in ("sm_80", "sm_90", "gfx942")}


def test_sm90_shared_section_holds_the_reserved_kilobyte(softmax_default):
    """softmax's only shared memory is Triton's dynamic buffer (16 B for the cross-warp reduction); on sm_90
    cuobjdump still says SHARED:1024, while ptxas -v reports no shared memory of the kernel's own."""
    c90, c80 = softmax_default["sm_90"], softmax_default["sm_80"]
    assert "SHARED:1024 " in disasm.resource_usage_dump(c90.kernel.asm["cubin"])
    assert "SHARED:0 " in disasm.resource_usage_dump(c80.kernel.asm["cubin"])
    assert ptxas_report(c90)["smem"] == 0
    assert (c90.resources.static_shared, c90.resources.reserved_shared) == (0, 1024)
    assert (c80.resources.static_shared, c80.resources.reserved_shared) == (0, 0)
    assert c90.resources.shared_total == c90.metadata.shared == 16


def test_reserved_region_beside_a_static_array(tmp_path):
    """A 16-byte __shared__ array: ptxas -v says "16 bytes smem", cuobjdump says 1040 on sm_90a and 16 on
    sm_80; the 1024 are the reserved region (the cubin refers to .nv.reservedSmem)."""
    from triton.backends.nvidia import compiler as nv
    sizes = {}
    for gpu, tool in (("sm_80", nv.get_ptxas(80).path), ("sm_90a", nv.get_ptxas(90).path)):
        ptx = tmp_path / f"{gpu}.ptx"
        ptx.write_text(f""".version 8.0
.target {gpu}
.address_size 64
.shared .align 16 .b8 buf[16];
.visible .entry k(.param .u64 p)
{{
.reg .b32 %r<4>; .reg .b64 %rd<2>;
ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
mov.u32 %r2, buf;
st.shared.u32 [%r2], %r1;
bar.sync 0;
ld.shared.u32 %r3, [%r2+4];
st.global.u32 [%rd1], %r3;
ret;
}}
""")
        cubin = tmp_path / f"{gpu}.cubin"
        log = subprocess.run([tool, "-v", f"--gpu-name={gpu}", str(ptx), "-o", str(cubin)],
                             capture_output=True, text=True, check=True).stderr
        assert "16 bytes smem" in log
        data = cubin.read_bytes()
        section = int(re.search(r"SHARED:(\d+)", disasm.resource_usage_dump(data)).group(1))
        sizes[gpu] = (section, resources.reserved_in_section(data, section))
    assert sizes == {"sm_80": (16, 0), "sm_90a": (1040, 1024)}


def test_registers_match_ptxas(softmax_default):
    c = softmax_default["sm_80"]
    assert c.resources.registers == ptxas_report(c)["registers"]
    assert not c.resources.spills


def test_amd_fields_come_from_the_assembly(softmax_default):
    c = softmax_default["gfx942"]
    r = c.resources
    asm = c.kernel.asm["amdgcn"]

    def meta(name):
        return int(re.search(rf"\.{name}:\s+(\d+)", asm).group(1))
    assert r.vgprs == meta("vgpr_count") - r.agprs and r.agprs == meta("agpr_count")
    assert r.sgprs == meta("sgpr_count")
    assert r.static_shared == meta("group_segment_fixed_size") == 0
    assert r.dynamic_shared == c.metadata.shared
    assert r.compiler_occupancy == int(re.search(r"; Occupancy: (\d+)", asm).group(1))
    assert (r.spill_store_bytes, r.spill_load_bytes) == (0, 0)


def test_amd_spills_are_scratch_traffic():
    """What LLVM emits for spills: flat-scratch accesses (gfx940+, gfx11) or MUBUF ones through the private
    segment buffer s[0:3]; global buffer ops and SGPR spills to VGPR lanes move no scratch memory."""
    asm = """
    scratch_store_b32 off, v3, off offset:828 ; 4-byte Folded Spill
    scratch_store_dwordx4 off, v[0:3], s33 offset:16
    scratch_load_b32 v7, off, off offset:828 ; 4-byte Folded Reload
    buffer_store_dword v1, off, s[0:3], 0 offset:4 ; 4-byte Folded Spill
    buffer_load_dwordx2 v[4:5], off, s[0:3], 0 offset:8
    buffer_store_dwordx4 v[0:3], v4, s[44:47], 0 offen
    v_writelane_b32 v255, s4, 0 ; SGPR spill to VGPR lane
    """
    # stores: 4 + 16 + 4; loads: 4 + 8.
    assert resources.amd_spill_bytes(asm) == (24, 12)
    # gfx90a's prologue copies the private segment buffer to s[96:99] and gives s[0:3] to a tensor
    moved = """
    s_mov_b64 s[98:99], s[2:3]
    s_mov_b64 s[96:97], s[0:1]
    s_mov_b64 s[0:1], s[6:7]
    buffer_store_dword v2, off, s[96:99], 0 offset:720 ; 4-byte Folded Spill
    buffer_load_dword v9, off, s[96:99], 0 offset:720 ; 4-byte Folded Reload
    buffer_store_dwordx4 v[0:3], v4, s[0:3], 0 offen
    buffer_load_dwordx4 v[4:7], off, s[8:11], 0
    """
    assert resources.amd_spill_bytes(moved) == (4, 4)
    # adding the wave's offset to s[0:1] adjusts the buffer; a copy made after s[0:3] became a tensor's is not it
    adjusted = "    s_add_u32 s0, s0, s15\n    s_addc_u32 s1, s1, 0\n" + moved
    assert resources.amd_spill_bytes(adjusted) == (4, 4)
    late = """
    s_mov_b64 s[0:1], s[6:7]
    s_mov_b64 s[96:97], s[0:1]
    buffer_store_dword v2, off, s[96:99], 0 offset:720
    buffer_load_dword v9, off, s[0:3], 0 offset:16
    """
    assert resources.amd_spill_bytes(late) == (0, 0)


@pytest.mark.slow      # a 35 s compile; the hand-written form above is the quick one
def test_gfx90a_spills_are_counted_where_its_prologue_moves_the_scratch_buffer():
    """A 32768-wide softmax row in one wave spills on gfx90a: LLVM marks each spill and reload, and the
    count by width equals what those marks say (every one a 4-byte dword here)."""
    from playground.core import registry
    from playground.core import targets as targets_
    from playground.sweep.space import request_for
    c = request_for(registry.load("softmax"), targets_.resolve("gfx90a"), {"num_warps": 1, "BLOCK_SIZE": 32768},
                    {"M": 4096, "N": 32768}, "fp32").compile()
    asm = c.kernel.asm["amdgcn"]
    spills, reloads = asm.count("4-byte Folded Spill"), asm.count("4-byte Folded Reload")
    assert spills > 100 and reloads > 100
    assert (c.resources.spill_store_bytes, c.resources.spill_load_bytes) == (4 * spills, 4 * reloads)
    from playground.model import explain
    e = explain.explain(c)            # the model charges them, and says it counts each once (no loop read)
    assert e.figures.local_bytes == 4 * (spills + reloads) * 64 * 4096
    assert any("counted once, not once per loop trip" in n for n in e.notes)


def test_resource_usage_is_kept_beside_the_cubin_and_equals_a_fresh_dump(tmp_path, monkeypatch):
    """A warm run reads cuobjdump's answer from Triton's cache instead of starting cuobjdump again."""
    from playground.core import registry
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    c = Request.of(registry.load("vector_add"), "sm_90").compile()
    first = disasm.resource_usage(c)
    assert (c.cache_dir() / disasm.RES_USAGE_FILE).read_text() == first == \
        disasm.resource_usage_dump(c.kernel.asm["cubin"])
    monkeypatch.setattr(disasm, "_run_on_cubin", lambda *a: (_ for _ in ()).throw(AssertionError("ran the tool")))
    assert disasm.resource_usage(c) == first


COUNTED = [("gemm", "sm_90", {}),
           ("softmax", "sm_80", {"num_warps": 1, "shape": {"M": 8, "N": 8192}}),      # spills: STL/LDL counted
           ("flash_attention", "sm_90", {}),
           ("gemm_tma", "sm_100", {})]    # BRA.U, BSSY, CALL.REL.NOINC and RET.REL.NODEC name code addresses


@pytest.mark.parametrize("kernel,target,overrides", COUNTED[:3])
def test_sass_read_without_the_dataflow_pass_has_the_readers_instructions(kernel, target, overrides):
    """A binary raw reading cannot serve is read whole without nvdisasm's dataflow pass (disasm.keep_counted);
    the reader's SASS has the same instructions, loops and spills, in the same order."""
    from playground.model import program
    c = Request.of(kernel, target, **overrides).compile()
    counted = disasm._run_on_cubin(c.kernel.asm["cubin"], [tools.tool("nvdisasm"), "-c", "-ndf"])
    shown = disasm.sass(c)
    assert _operations(counted) == _operations(shown) and len(_operations(shown)) > 50
    assert program.sass_instructions(counted) == program.sass_instructions(shown)
    assert resources.spill_bytes(counted) == resources.spill_bytes(shown)
    assert (resources.spill_bytes(shown) != (0, 0)) == (kernel == "softmax")


def test_code_read_raw_and_together_has_each_binarys_instructions_and_branch_targets():
    """The counted SASS: code sections of several binaries laid end to end and read in one raw nvdisasm run per
    architecture, each given back its own addresses. Every instruction, loop, spill and branch target is the
    one the reader's SASS of that binary shows (there, a target is a label)."""
    from playground.artefact import cubin
    from playground.model import program
    binaries = [Request.of(kernel, target, **overrides).compile() for kernel, target, overrides in COUNTED]
    by_arch: dict[str, list] = {}
    for c in binaries:
        by_arch.setdefault(disasm._raw_arch(c), []).append(c)
    assert sorted(by_arch) == ["SM100a", "SM80", "SM90a"] and len(by_arch["SM90a"]) == 2
    for arch, group in by_arch.items():
        code = [next(iter(cubin.code_sections(c.kernel.asm["cubin"]).items())) for c in group]
        for c, counted in zip(group, disasm._disassemble_raw(arch, code)):
            shown = disasm.sass(c)
            assert _operations(counted) == _operations(shown) and len(_operations(shown)) > 50
            assert _branch_targets(counted) == _branch_targets(shown) and _branch_targets(shown)
            assert program.sass_instructions(counted) == program.sass_instructions(shown)
            assert program.sass_local_bytes(counted) == program.sass_local_bytes(shown)
            assert resources.spill_bytes(counted) == resources.spill_bytes(shown)
    kinds = {op.split()[0].split(".")[0] for c in binaries for op, _ in _branch_targets(disasm.sass(c))}
    assert kinds == {"BRA", "BSSY", "CALL", "RET"}      # every kind of instruction that names a code address


_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;", re.M)
_TARGET = re.compile(r"\s*(`\((.+?)\)|0x([0-9a-f]+))$")


def _operations(sass: str) -> list[str]:
    """Each instruction, a code address it names left out (a label in a whole binary's SASS, a number in raw)."""
    return [_TARGET.sub("", text) if _is_branch(text) else text for _, text in _INSTRUCTION.findall(sass)]


def _is_branch(text: str) -> bool:
    return bool(re.search(r"\b(BRA|BSSY|CALL\.REL|RET\.REL)\b", text))


def _branch_targets(sass: str) -> list[tuple[str, int]]:
    """(instruction, the address of the instruction its target names), for every instruction that names one: a
    label is the address of the instruction after it."""
    labels, waiting, found = {}, [], []
    for line in sass.splitlines():
        label = re.match(r"^\s*([^\s/][^\s:]*):\s*$", line)
        if label:
            waiting.append(label.group(1))
        instruction = _INSTRUCTION.match(line)
        if instruction:
            address = int(instruction.group(1), 16)
            labels.update((name, address) for name in waiting)
            waiting = []
            if _is_branch(instruction.group(2)):
                found.append(instruction.group(2))
    out = []
    for text in found:
        target = _TARGET.search(text)
        body = re.sub(r"^@!?U?P\w+\s+", "", _TARGET.sub("", text))
        out.append((body, labels[target.group(2)] if target.group(2) else int(target.group(3), 16)))
    return out


def test_binaries_are_read_together_once_per_architecture_and_kept(tmp_path, monkeypatch):
    """keep_counted starts one nvdisasm for the binaries of one architecture; what it keeps serves the model
    without starting another."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    binaries = [Request.of("vector_add", "sm_80").compile(),
                Request.of("vector_add", "sm_90", {"BLOCK_SIZE": 256}).compile(),
                Request.of("vector_add", "sm_90", {"BLOCK_SIZE": 1024}).compile()]
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: runs.append(command) or real_run(command, **kw))
    disasm.keep_counted(binaries)
    assert [command[command.index("-b") + 1] for command in runs] == ["SM80", "SM90a"]
    runs.clear()
    for c in binaries:
        assert _operations(disasm.instructions(c)) == _operations(disasm.sass(c))
    assert len(runs) == len(binaries), "the reader's SASS ran nvdisasm; the counted SASS was kept"


def test_an_architecture_raw_reading_does_not_name_reads_the_binary_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    c = Request.of("vector_add", "sm_90").compile()
    monkeypatch.setattr(disasm, "_raw_arch", lambda compiled: "SM9000")
    disasm.keep_counted([c])
    assert disasm.instructions(c) == disasm._run_on_cubin(c.kernel.asm["cubin"],
                                                          [tools.tool("nvdisasm"), "-c", "-ndf"])


def test_a_cubins_code_sections_are_the_functions_nvdisasm_lists():
    from playground.artefact import cubin
    c = Request.of("gemm", "sm_90").compile()
    code = cubin.code_sections(c.kernel.asm["cubin"])
    shown = disasm.sass(c)
    assert list(code) == re.findall(r"^\s*\.section\s+(\.text\.\w+)", shown, re.M) == [".text.gemm_kernel"]
    assert len(code[".text.gemm_kernel"]) == 16 * len(_INSTRUCTION.findall(shown))   # 128-bit instructions
    assert not cubin.code_is_relocated(c.kernel.asm["cubin"])
    with pytest.raises(ValueError, match="not a 64-bit"):
        cubin.sections(c.kernel.asm["ptx"].encode())
