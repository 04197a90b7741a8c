"""--interleave: known lines of the kernels own known instructions, in every stage."""
import pytest

from playground.artefact import disasm, sourcemap
from playground.core import registry
from playground.artefact.request import Request

pytestmark = pytest.mark.compile


def groups(kernel, target, stage):
    spec = registry.load(kernel)
    c = Request.of(spec, target).compile()
    text = disasm.sass_with_line_info(c) if stage == "sass" else c.stage(stage)
    file, first, last = sourcemap.kernel_lines(spec.kernel)
    ptx = c.stage("ptx") if stage == "sass" else None
    return {g.python.strip(): "\n".join(g.stage_lines)
            for g in sourcemap.interleave(stage, text, file, first, last, ptx) if g.line is not None}


def owner(groups_by_line, needle):
    """The Python lines whose stage lines contain `needle`."""
    return [line for line, body in groups_by_line.items() if needle in body]


DOT = "accumulator = tl.dot(a, b, accumulator)"


@pytest.mark.parametrize("target,stage,instruction", [
    ("sm_90", "ttir", "tt.dot"),
    ("sm_90", "ttgir", "ttng.warp_group_dot %"),   # the dot itself; the pipeliner's final wait sits on the loop
    ("sm_90", "llir", "wgmma.mma_async"),
    ("sm_90", "ptx", "wgmma.mma_async"),
    ("sm_90", "sass", "HGMMA"),
    ("sm_80", "ptx", "mma.sync"),
    ("sm_80", "sass", "HMMA"),
    ("gfx942", "amdgcn", "v_mfma"),
])
def test_the_dot_line_owns_the_tensor_core_instructions(target, stage, instruction):
    by_line = groups("gemm", target, stage)
    counts = {line: body.count(instruction) for line, body in by_line.items() if instruction in body}
    assert DOT in counts
    # ptxas's line table is the binary's own word, and after scheduling it can file an
    # instruction under a neighbour in the loop (with Triton 3.6, two of sm_90's four HGMMAs
    # sit under the load of b). The dot line must own at least half, and nothing outside the
    # loop body may own any.
    assert counts[DOT] * 2 >= sum(counts.values()), counts
    loop_body = {DOT, "a = tl.load(a_ptrs, mask=offs_k[None, :] < k_remaining, other=0.0)",
                 "b = tl.load(b_ptrs, mask=offs_k[:, None] < k_remaining, other=0.0)"}
    assert set(counts) <= loop_body, counts


@pytest.mark.parametrize("stage,instruction", [("ptx", "mov.u32"), ("sass", "S2R"), ("ttir", "tt.get_program_id")])
def test_program_id_line_reads_the_block_index(stage, instruction):
    body = groups("gemm", "sm_90", stage)["pid = tl.program_id(axis=0)"]
    assert instruction in body and ("ctaid.x" in body or "CTAID.X" in body or stage == "ttir")


@pytest.mark.parametrize("stage", ["ttgir", "llir", "ptx", "sass"])
def test_inlined_library_code_belongs_to_the_calling_line(stage):
    # tl.cdiv lives in triton/language/standard.py; its add-127 must land on the user's line.
    by_line = groups("gemm", "sm_90", stage)
    body = by_line["num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)"]
    assert body, f"tl.cdiv's code was not attributed to the calling line in {stage}"
    assert not any("standard.py" in line for line in by_line)


def test_vector_loads_belong_to_the_load_lines():
    by_line = groups("vector_add", "sm_90", "ptx")
    assert owner(by_line, "ld.global.v4.b32") == ["x = tl.load(x_ptr + offsets, mask=mask)",
                                                 "y = tl.load(y_ptr + offsets, mask=mask)"]
    assert owner(by_line, "st.global.v4.b32") == ["tl.store(out_ptr + offsets, x + y, mask=mask)"]


def test_attribution_rule():
    lib = "/x/site-packages/triton/language/standard.py"
    assert sourcemap.attribute([(lib, 43), ("/k/gemm.py", 34)], "/k/gemm.py") == 34
    assert sourcemap.attribute([("/k/gemm.py", 50)], "/k/gemm.py") == 50
    assert sourcemap.attribute([(lib, 43)], "/k/gemm.py") is None


def test_a_copied_kernel_file_maps_through_the_cached_artefact(tmp_path):
    # Triton's cache key has the kernel's text and first line but not its path: a learner's copy
    # is served the artefact compiled from the original, whose locations name the original.
    # A comment unique to this run keeps other checkouts' artefacts out of the way.
    import uuid
    text = (registry.KERNELS_DIR / "vector_add.py").read_text().replace(
        "    pid = tl.program_id(axis=0)", f"    # run {uuid.uuid4().hex}\n    pid = tl.program_id(axis=0)")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    original, copy = tmp_path / "a" / "vector_add.py", tmp_path / "b" / "my_add.py"
    original.write_text(text)
    copy.write_text(text)
    first = Request.of(registry.load(f"{original}:vector_add"), "sm_90").compile()
    spec = registry.load(f"{copy}:vector_add")
    c = Request.of(spec, "sm_90").compile()
    assert c.hash == first.hash and c.cache_hit
    assert str(tmp_path / "a") in c.stage("ptx") and str(tmp_path / "b") not in c.stage("ptx")
    file, first_line, last_line = sourcemap.kernel_lines(spec.kernel)
    assert file == str(copy)
    by_line = {g.python.strip(): "\n".join(g.stage_lines)
               for g in sourcemap.interleave("ptx", c.stage("ptx"), file, first_line, last_line) if g.line is not None}
    assert "ld.global.v4.b32" in by_line["x = tl.load(x_ptr + offsets, mask=mask)"]
