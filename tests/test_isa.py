"""Every opcode explained (artefact/isa.py): the tables cover every opcode the shipped kernels compile to,
lines are read into opcodes as a learner would point at them, and lookups land on the right entry.

tests/data/isa_opcodes_seen.json is what scripts/isa_opcodes_seen.py wrote: every opcode of every shipped
kernel on every listed target, at its default config and each config of its spec. A quick real compile checks
the file is not stale; the slow test writes it again and compares."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest
import triton

from playground.artefact import disasm, isa
from playground.artefact.instruction_mix import gcn_mix, sass_mix
from playground.artefact.request import Request

pytestmark = pytest.mark.compile

ROOT = Path(__file__).resolve().parents[1]
SEEN_FILE = ROOT / "tests" / "data" / "isa_opcodes_seen.json"
SEEN = json.loads(SEEN_FILE.read_text())
SAME_TRITON = SEEN["triton"] == triton.__version__


def script():
    """scripts/isa_opcodes_seen.py as a module, registered by name so its process pool can find its worker."""
    if "isa_opcodes_seen" not in sys.modules:
        spec = importlib.util.spec_from_file_location("isa_opcodes_seen", ROOT / "scripts" / "isa_opcodes_seen.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["isa_opcodes_seen"]


# --- (a) the committed file: every opcode has an entry -----------------------------------------------------

@pytest.mark.parametrize("language", isa.LANGUAGES)
def test_every_opcode_seen_has_an_entry(language):
    assert SEEN[language], f"no {language} opcodes in {SEEN_FILE.name}"
    assert isa.missing(language, "") == []
    unknown = [op for op in SEEN[language] if isa.describe(language, op) is None]
    assert unknown == [], f"{language} opcodes with no entry in isa/{language}.toml: {unknown}"


def test_the_file_is_sorted_and_complete():
    assert list(SEEN) == ["triton", "configs", "sass", "ptx", "amdgcn", "skipped"]
    for language in isa.LANGUAGES:
        assert list(SEEN[language]) == sorted(SEEN[language])
        assert all(len(where) == 1 and "@" in where[0] for where in SEEN[language].values())
    assert SEEN_FILE.read_text() == script().dump(SEEN), "not as the script writes it"


@pytest.mark.parametrize("language", isa.LANGUAGES)
def test_every_entry_is_one_sourced_line(language):
    entries = isa.table(language)
    assert len(entries) > 100
    for key, entry in entries.items():
        assert set(entry) <= {"does", "see", "url"}, key
        assert entry["does"].strip() and "\n" not in entry["does"] and len(entry["does"]) <= 200, key
        assert entry["see"].strip() and "\n" not in entry["see"], key
        assert entry.get("url", "https://").startswith("https://"), key


def test_sources_name_their_document_and_version():
    assert all(e["see"].startswith(("CUDA Binary Utilities (CUDA 13.1), §", "not in NVIDIA's tables"))
               for e in isa.table("sass").values())
    assert all(e["see"].startswith("PTX ISA 9.1, §9.7.") for e in isa.table("ptx").values())
    assert all(e["see"].startswith(("AMD Instinct MI300 (CDNA3)", "AMD Instinct CDNA4", "RDNA3 ISA"))
               for e in isa.table("amdgcn").values())
    assert isa.describe("sass", "F2FP.PACK_AB R1, R2, R3 ;").see.startswith("not in NVIDIA's tables; inferred")


# --- (b) a quick real compile: its opcodes are in the file and described ----------------------------------

def test_gemm_on_sm_90_is_in_the_file_and_described(gemm_sm90):
    for language, text in (("sass", disasm.sass(gemm_sm90)), ("ptx", gemm_sm90.stage("ptx"))):
        ops = set(isa.opcodes(language, text))
        assert ops and isa.missing(language, text) == []
        if SAME_TRITON:
            assert ops <= set(SEEN[language]), f"stale {SEEN_FILE.name}: {sorted(ops - set(SEEN[language]))}"


def test_softmax_on_gfx942_is_in_the_file_and_described():
    text = Request.of("softmax", "gfx942").compile().stage("amdgcn")
    ops = set(isa.opcodes("amdgcn", text))
    assert ops and isa.missing("amdgcn", text) == []
    if SAME_TRITON:
        assert ops <= set(SEEN["amdgcn"]), f"stale {SEEN_FILE.name}: {sorted(ops - set(SEEN['amdgcn']))}"


def test_the_readers_count_what_instruction_mix_counts(gemm_sm90):
    """Two readers of one stage agree: an instruction a line (AMDGCN's dual issue is one line, two opcodes)."""
    sass = disasm.sass(gemm_sm90)
    assert len(isa.opcodes("sass", sass)) == sass_mix(sass)[0]["instructions"]
    gcn = Request.of("softmax", "gfx942").compile().stage("amdgcn")
    assert sum(1 for line in gcn.splitlines() if isa.opcode("amdgcn", line)) == gcn_mix(gcn)[0]["instructions"]


# --- (c) slow: the whole file, written again --------------------------------------------------------------

@pytest.mark.slow
def test_a_fresh_run_writes_the_committed_file():
    if not SAME_TRITON:
        pytest.skip(f"{SEEN_FILE.name} was written with Triton {SEEN['triton']}, this is {triton.__version__}")
    fresh = script().collect()
    assert fresh == SEEN, "run scripts/isa_opcodes_seen.py and commit tests/data/isa_opcodes_seen.json"


# --- (d) real values ---------------------------------------------------------------------------------------

def test_ldgsts_line():
    entry = isa.describe("sass", "/*0a40*/ @!P0 LDGSTS.E.BYPASS.LTC128B.128 [R1], [R2.64] ;")
    assert (entry.key, entry.opcode) == ("LDGSTS", "LDGSTS.E.BYPASS.LTC128B.128")
    assert "shared memory" in entry.does and "synchronous" in entry.does.lower()
    assert "§4.2 NVIDIA Ampere GPU and Ada Instruction Set" in entry.see
    assert dict(entry.modifiers).keys() == {"E", "BYPASS", "LTC128B", "128"}
    assert entry.as_dict()["modifiers"][1] == ["BYPASS", dict(entry.modifiers)["BYPASS"]]


def test_hgmma():
    entry = isa.describe("sass", "HGMMA.64x128x16.F32")
    assert entry.key == "HGMMA" and "warpgroup" in entry.does.lower() and "Hopper" in entry.see
    assert [m for m, _ in entry.modifiers] == ["64x128x16", "F32"]
    assert "M x N x K" in dict(entry.modifiers)["64x128x16"]


def test_sass_guards_and_uniform_predicates():
    assert isa.opcode("sass", "        /*0450*/              @!UP1 UIADD3 UR4, UR4, 0x1, URZ ;") == "UIADD3"
    assert isa.opcode("sass", "/*0010*/ @PT BRA `(.L_x_1) ;") == "BRA"
    assert isa.opcode("sass", "        /*0a50*/                   EXIT ;") == "EXIT"


def test_tma_load_is_its_own_entry_not_cp_async():
    line = "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r3, %r4}], [%r5];"
    entry = isa.describe("ptx", line)
    assert entry.key == "cp.async.bulk.tensor" and entry.opcode.startswith("cp.async.bulk.tensor.2d.")
    assert "9.7.9.27.1.2" in entry.see and entry.url.endswith("#data-movement-and-conversion-instructions-cp-async-bulk-tensor")
    assert isa.describe("ptx", "cp.async.cg.shared.global [%r1], [%rd1], 16;").key == "cp.async"


@pytest.mark.parametrize("op, key", [
    ("ld.global.v4.b32", "ld.global"), ("ld.param.b64", "ld.param"), ("ld.global.nc.v4.b32", "ld.global.nc"),
    ("st.shared::cta.b32", "st.shared"), ("tcgen05.wait::ld.sync.aligned", "tcgen05.wait"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma"), ("add.s32", "add"), ("add.f32", "add.f32"),
    ("add.f32x2", "add.f32x2"), ("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "wgmma.mma_async"),
    ("mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.try_wait"), ("fence.proxy.async.shared::cta", "fence"),
])
def test_ptx_longest_prefix(op, key):
    assert isa.key_of("ptx", op) == key


def test_ptx_guards_labels_and_statements():
    assert isa.opcode("ptx", "\t@%p1 bra \t$L__BB0_3;") == "bra"
    assert isa.opcode("ptx", "\t@!%p2 st.global.v4.b32 [ %rd1 + 0 ], { %r1, %r2, %r3, %r4 };") == "st.global.v4.b32"
    assert isa.opcode("ptx", "$L__BB0_2:  ld.shared.b32 %r1, [%r2];") == "ld.shared.b32"
    assert isa.opcodes("ptx", "{ .reg .pred p; setp.ne.b32 p, %r1, 0; @p bra $L1; }") == ["setp.ne.b32", "bra"]
    wgmma = ("\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%r1, %r2,\n\t%r3, %r4},\n"
             "\t%rd1, %rd2, p, 1, 1, 0, 1;\n\tadd.s32 %r5, %r6, 1;\n")
    assert isa.opcodes("ptx", wgmma) == ["wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "add.s32"]


def test_mfma_family():
    entry = isa.describe("amdgcn", "\tv_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[4:5], a[0:15]")
    assert (entry.key, entry.opcode) == ("v_mfma_*", "v_mfma_f32_32x32x8_f16")
    assert "§7.1 Matrix fused-multiply-add (MFMA)" in entry.see and "MI300" in entry.see
    assert isa.key_of("amdgcn", "v_mfma_f32_32x32x8f16") == "v_mfma_*"          # gfx90a's spelling


@pytest.mark.parametrize("line, key", [
    ("\tv_add_u32_e32 v1, v2, v3", "v_add_u32"), ("\tv_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2]", "v_mov_b32"),
    ("\tv_cmp_gt_i32_e64 s[0:1], s9, v6", "v_cmp_*"), ("\tds_read_b64_tr_b16 v[0:1], v2", "ds_read_b64_tr_b16"),
    ("\tds_read2st64_b32 v[0:1], v2", "ds_read2st64_b*"), ("\ts_load_dwordx2 s[2:3], s[0:1], 0x0", "s_load_*"),
    ("\ts_load_b64 s[2:3], s[0:1], 0x0", "s_load_b*"), ("\ts_waitcnt vmcnt(0) lgkmcnt(0)", "s_waitcnt"),
])
def test_amdgcn_lookup_order(line, key):
    assert isa.describe("amdgcn", line).key == key


def test_amdgcn_dual_issue_is_two_opcodes():
    line = "\tv_dual_mul_f32 v1, v2, v3 :: v_dual_add_f32 v4, v5, v6"
    assert isa.opcodes("amdgcn", line) == ["v_dual_mul_f32", "v_dual_add_f32"]
    assert isa.describe("amdgcn", line).key == "v_dual_*"


@pytest.mark.parametrize("language, line", [
    ("sass", ""), ("sass", "   "), ("sass", ".L_x_3:"), ("sass", "gemm_kernel:"), ("sass", "\t.section\t.text.k,\"ax\",@progbits"),
    ("sass", "        .global         gemm_kernel"), ("sass", "//--------------------- .text.gemm_kernel ------"),
    ("sass", "        //## File \"kernel.py\", line 12"),
    ("ptx", ""), ("ptx", "$L__BB0_3:"), ("ptx", "\t.loc\t1 33 11   // gemm.py:33:11"), ("ptx", "\t.reg .b32 \t%r<337>;"),
    ("ptx", "// %bb.0:"), ("ptx", "{"), ("ptx", "}"), ("ptx", ".b8 1   // Abbreviation Code"), ("ptx", "\t.param .u64 .ptr .global .align 1 k_param_0,"),
    ("amdgcn", ""), ("amdgcn", ".LBB0_0:"), ("amdgcn", "softmax_kernel:   ; @softmax_kernel"), ("amdgcn", "\t.p2align\t8"),
    ("amdgcn", "; %bb.1:"), ("amdgcn", "amdhsa.target:   amdgcn-amd-amdhsa--gfx942"), ("amdgcn", "      - .address_space:  global"),
    ("llvm", "  %1 = add i32 %0, 1"),
])
def test_no_opcode_there(language, line):
    assert isa.opcode(language, line) is None
    assert isa.describe(language, line) is None


@pytest.mark.parametrize("language, line", [
    ("sass", "/*0010*/ FROBNICATE R1, R2 ;"), ("ptx", "frobnicate.b32 %r1, %r2;"), ("amdgcn", "\tv_frobnicate_b32 v1, v2"),
])
def test_an_unknown_opcode_has_no_entry(language, line):
    assert isa.opcode(language, line) is not None
    assert isa.describe(language, line) is None
    assert isa.missing(language, [line, ""]) == [isa.opcode(language, line)]


def test_amdgcn_metadata_block_holds_no_opcodes():
    text = "\ts_endpgm\n\t.amdgpu_metadata\n---\namdhsa.kernels:\n  - .name: k\n    wavefront_size: 64\n...\n\t.end_amdgpu_metadata\n"
    assert isa.opcodes("amdgcn", text) == ["s_endpgm"]
