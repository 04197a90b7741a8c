"""Shared-memory bank conflicts read from the PTX: the rule on hand-written PTX, then Triton's own
swizzle on the transpose, shown by taking its XORs out."""
import re

import numpy as np
import pytest

from playground.artefact import bank_conflicts

pytestmark = pytest.mark.compile


def ptx(address_lines: str, access: str = "st.shared.b32 \t[%r9], %r1;") -> str:
    return f"\tmov.u32 \t%r1, %tid.x;\n{address_lines}\n\t{access}\n"


@pytest.mark.parametrize("address, ways", [
    ("\tshl.b32 \t%r9, %r1, 2;", 1),                          # thread t -> word t: one word per bank
    ("\tshl.b32 \t%r9, %r1, 7;", 32),                         # word 32*t: a column of a 32-float row-major tile
    ("\tshl.b32 \t%r9, %r1, 3;", 2),                          # every other word: two words per bank
    ("\tand.b32 \t%r9, %r1, 0;", 1),                          # one word for all: a broadcast
    ("\tshl.b32 \t%r2, %r1, 7;\n\tshl.b32 \t%r3, %r1, 2;\n\txor.b32 \t%r4, %r2, %r3;\n\tand.b32 \t%r9, %r4, 4095;", 1),
])
def test_the_rule_on_hand_written_ptx(address, ways):
    report = bank_conflicts.analyse(ptx(address), threads=32)
    (access,) = report.accesses
    assert (access.kind, access.bits, access.ways) == ("store", 32, ways)


def test_unknown_and_wide_accesses_are_said_not_analysed():
    unknown = bank_conflicts.analyse("\tld.param.b32 \t%r9, [p];\n\tld.shared.b32 \t%r2, [%r9];\n", threads=32)
    assert unknown.accesses[0].ways is None and "not known from the thread index" in unknown.summary("load")
    wide = bank_conflicts.analyse(ptx("\tshl.b32 \t%r9, %r1, 4;", "st.shared.v4.b32 \t[%r9], {%r1, %r1, %r1, %r1};"),
                                  threads=32)
    assert wide.accesses[0].bits == 128 and wide.summary("store").startswith("1 wider than 32 bits")


def test_bfe_s32_sign_extends_its_field():
    report = bank_conflicts.analyse("\tmov.u32 \t%r1, %tid.x;\n\tbfe.s32 \t%r2, %r1, 4, 1;\n"
                                    "\tand.b32 \t%r9, %r2, 544;\n\tst.shared.b32 \t[%r9], %r1;\n", threads=32)
    assert report.accesses[0].ways == 1      # threads 0-15 share word 0, 16-31 word 136 (bank 8): two broadcasts
    values = bank_conflicts._evaluate("bfe.s32", ["%r1", "4", "1"], {"%r1": np.array([0, 16, 31])}, np.arange(3))
    assert values.tolist() == [0, 0xFFFFFFFF, 0xFFFFFFFF]


def test_a_64_bit_immediate_is_its_bit_pattern():
    """fla's Gluon cross-entropy reduction masks with 0xFFFFFFFFFFFFFFFF: -1 as an int64, not an overflow."""
    values = bank_conflicts._evaluate("and.b64", ["%rd1", "0xFFFFFFFFFFFFFFFF"], {"%rd1": np.array([5, -7])},
                                      np.arange(2))
    assert values.tolist() == [5, -7]
    assert bank_conflicts._evaluate("add.s64", ["%rd1", "0x8000000000000000"], {"%rd1": np.array([0])},
                                    np.arange(1)).tolist() == [-2**63]


def test_triton_swizzles_the_transpose_and_without_its_xors_the_stores_conflict():
    from playground.artefact.request import Request
    compiled = Request.of("transpose", "sm_90").compile()
    report = bank_conflicts.analyse(compiled.stage("ptx"), threads=128)
    assert len(report.accesses) == 64 and all(a.ways == 1 for a in report.accesses)
    unswizzled = re.sub(r"xor\.b32(\s+)(%r\d+), (%r\d+), (%r\d+|\d+);", r"or.b32\1\2, \3, 0;", compiled.stage("ptx"))
    stores = [a for a in bank_conflicts.analyse(unswizzled, threads=128).accesses if a.kind == "store"]
    assert len(stores) == 32 and {a.ways for a in stores} == {8}
