"""The launch's parameter block (artefact/launch_params.py): offsets and sizes as the binary records them, held
to cuobjdump's own decoding of the cubin's .nv.info records, to the PTX's .param list and the SASS's reads, and on
AMD to the AMDGCN text's .amdgpu_metadata; names in the launcher's order, constants absent."""
import re
import subprocess

import pytest

from playground import tools
from playground.artefact import hsaco, launch_params
from playground.artefact.request import Request
from playground.core import registry

pytestmark = pytest.mark.compile


def compiled(kernel="vector_add", target="sm_90", **kw):
    return Request.of(registry.load(kernel), target, **kw).compile()


@pytest.fixture(scope="module")
def vector_add():
    return compiled()


def cuobjdump_kparams(cubin: bytes, tmp_path) -> tuple[list[tuple[int, int, int]], str]:
    """(ordinal, offset, size) of each EIATTR_KPARAM_INFO record, and the EIATTR_PARAM_CBANK value, as cuobjdump
    -elf prints them."""
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    out = subprocess.run([tools.tool("cuobjdump"), "-elf", str(path)], capture_output=True, text=True,
                         check=True).stdout
    records = [tuple(int(x, 16) for x in m.groups()) for m in
               re.finditer(r"Ordinal\s*:\s*(0x[0-9a-f]+)\s+Offset\s*:\s*(0x[0-9a-f]+)\s+Size\s*:\s*(0x[0-9a-f]+)", out)]
    cbank = re.search(r"EIATTR_PARAM_CBANK\s+Format:\s+EIFMT_SVAL\s+Value:\s+(0x[0-9a-f]+ 0x[0-9a-f]+)", out)
    return sorted(records), cbank.group(1)


def test_vector_add_on_sm90_is_the_cubins_own_layout(vector_add, tmp_path):
    block = launch_params.read(vector_add, (97,))
    assert [(p.name, p.size, p.offset) for p in block.params] == [
        ("x_ptr", 8, 0x00), ("y_ptr", 8, 0x08), ("out_ptr", 8, 0x10), ("n_elements", 4, 0x18),
        ("(global scratch)", 8, 0x20), ("(profile scratch)", 8, 0x28)]
    assert (block.buffer, block.base, block.buffer_bytes) == ("c[0x0][0x210]", 0x210, 0x30)
    # what this module decodes is what cuobjdump decodes, record for record
    records, cbank = cuobjdump_kparams(vector_add.kernel.asm["cubin"], tmp_path)
    assert records == [(p.ordinal, p.offset, p.size) for p in block.params]
    assert int(cbank.split()[1], 16) == block.buffer_bytes << 16 | block.base
    assert block.absent == [{"name": "BLOCK_SIZE", "why": "constexpr = 1024"}]


def test_each_name_sits_on_its_own_bytes_an_off_by_one_would_not(vector_add):
    """The one 4-byte parameter is n_elements, the PTX's _param_N has the width the cubin records for ordinal N,
    and the SASS reads each pointer at the bank address of the name it is shown with."""
    block = launch_params.read(vector_add)
    by_name = {p.name: p for p in block.params}
    assert [p.name for p in block.params if p.size == 4] == ["n_elements"]
    assert all(launch_params.ptx_bytes(p.declared) == p.size for p in block.params)
    assert [p.declared for p in block.params] == [".u64 .ptr .global .align 1"] * 3 + [".u32"] + \
        [".u64 .ptr .global .align 1"] * 2
    sass = vector_add.stage("sass")
    for name, p in by_name.items():
        for read in p.read_by:
            address = read.split()[0].strip("/*")
            line = next(l for l in sass.splitlines() if f"/*{address}*/" in l)
            assert f"c[0x0][0x{block.base + p.offset:x}]" in line, (name, line)
    assert by_name["x_ptr"].read_by and by_name["n_elements"].read_by
    assert not by_name["(profile scratch)"].read_by      # vector_add never profiles


def test_the_record_layout():
    """EIATTR_KPARAM_INFO: u32 index, u16 ordinal, u16 offset, size in the top 14 bits; PARAM_CBANK's second word
    offset | size << 16 (the bytes of vector_add's n_elements record and of its window)."""
    assert launch_params.kparam_info(bytes.fromhex("000000000300180000f01100")) == (3, 0x18, 4)
    assert launch_params.param_cbank(bytes.fromhex("0c00000010023000")) == (0x210, 0x30)


def test_an_argument_specialised_to_one_is_not_passed():
    block = launch_params.read(compiled(shape={"N": 1}), (1,))
    assert [p.name for p in block.params] == ["x_ptr", "y_ptr", "out_ptr", "(global scratch)", "(profile scratch)"]
    assert [p.offset for p in block.params] == [0, 8, 16, 24, 32]
    assert block.absent[0] == {"name": "n_elements", "why": "specialised to the constant 1: compiled in"}


def test_block_threads_shared_bytes_and_scratch_follow_the_metadata():
    c = compiled("gemm_tma")
    block = launch_params.read(c, (4, 1))
    assert block.block == (c.metadata.num_warps * 32, 1, 1) == (256, 1, 1) and block.binary_threads == 256
    assert block.shared_bytes == c.metadata.shared > 48 * 1024
    assert block.global_scratch_bytes == c.metadata.global_scratch_size > 0
    assert [p.name for p in block.params][-2:] == list(launch_params.SCRATCH)
    assert [p.offset for p in block.params] == [0, 8, 16, 24, 28, 32, 40, 48]    # 4 bytes of padding before 40


def test_vector_add_block_is_num_warps_times_32(vector_add):
    assert launch_params.read(vector_add).block == (128, 1, 1)


def test_a_cluster_multiplies_grid_x():
    block = launch_params.read(compiled(meta={"num_ctas": 2}), (97,))
    assert (block.grid, block.grid_dims, block.cluster) == ((97, 1, 1), (194, 1, 1), (2, 1, 1))


def test_amd_reads_the_kernarg_layout_from_the_code_objects_note():
    c = compiled(target="gfx942")
    block = launch_params.read(c, (97,))
    text = c.stage("amdgcn")
    listed = text[text.index(".args:"):text.index(".group_segment_fixed_size")]
    offsets = [int(x) for x in re.findall(r"\.offset:\s+(\d+)", listed)]
    sizes = [int(x) for x in re.findall(r"\.size:\s+(\d+)", listed)]
    assert [(p.offset, p.size) for p in block.params] == list(zip(offsets, sizes)) == \
        [(0, 8), (8, 8), (16, 8), (24, 4), (32, 8), (40, 8)]
    assert [p.name for p in block.params][3] == "n_elements"
    assert block.block == (256, 1, 1) and block.api == "hipModuleLaunchKernel" and block.not_shown
    assert hsaco.kernel(c.kernel.asm["hsaco"], "vector_add_kernel")[".kernarg_segment_size"] == block.buffer_bytes


def test_inspect_params_prints_the_block(cli):
    r = cli("inspect", "vector_add", "--target", "sm_90", "--params")
    assert r.exit_code == 0, r.output
    assert "blockDim (128, 1, 1): num_warps 4 x 32 threads" in r.stdout
    assert re.search(r"3\s+n_elements\s+i32\s+0x18\s+4\s+c\[0x0\]\[0x228\]\s+\.u32", r.stdout)
    assert "absent      BLOCK_SIZE: constexpr = 1024" in r.stdout
