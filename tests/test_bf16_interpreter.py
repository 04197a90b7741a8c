"""bf16 in Triton's interpreter: our fp32-and-round workaround against torch's bf16 CPU operations,
and a test that fails the day Triton's own interpreter gets bf16 right (then the workaround goes)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.core import registry
from playground.check import kernel as check
from playground.run import bf16_interpreter, worker

torch = pytest.importorskip("torch")     # running kernels needs it; the Triton 3.6 stage has none


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False))
def test_narrow_rounds_to_nearest_even_as_torch_does(value):
    f32 = np.array([value], dtype=np.float32)
    assert bf16_interpreter.narrow(f32)[0] == torch.tensor(f32).to(torch.bfloat16).view(torch.int16).item() & 0xFFFF


def test_narrow_keeps_nan_and_widen_is_exact():
    assert np.isnan(bf16_interpreter.widen(bf16_interpreter.narrow(np.array([np.nan], np.float32))))[0]
    bits = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = ~np.isnan(bf16_interpreter.widen(bits))
    assert (bf16_interpreter.narrow(bf16_interpreter.widen(bits))[finite] == bits[finite]).all()


@pytest.mark.parametrize("seed", [0, 1])
def test_bf16_operations_match_torchs_in_the_interpreter(seed):
    ulps = worker.call(bf16_interpreter.ops_against_torch, worker.INTERPRETER, seed=seed)
    # every operation that produces a bf16 rounds one fp32 result once, as torch's CPU ops do: bit-identical
    assert {k: v for k, v in ulps.items() if k != "dot"} == dict.fromkeys(
        ("add", "mul", "div", "max", "exp", "sum", "rowmax", "cast"), 0.0)
    # the dot keeps its fp32 accumulator; numpy and torch may add the 16 products in different orders (numpy 2.4
    # adds them as torch does, so they can agree to the bit), within a few ulps either way
    assert 0 <= ulps["dot"] <= 4


def test_triton_interpreter_still_computes_bf16_on_its_bits():
    """When this fails, Triton's interpreter does bf16 arithmetic itself: remove bf16_interpreter.py."""
    assert worker.call(bf16_interpreter.triton_still_broken, worker.INTERPRETER) is True


def test_bf16_cases_run_and_pass_in_the_interpreter():
    result = check.check_case(registry.load("gemm"), {"M": 40, "N": 24, "K": 300}, "bf16")
    assert result.status == "pass" and result.outputs[0].max_abs > 0, result.summary()
    assert 0.005 < result.outputs[0].worst < 0.1        # of the table at 10x its width (check/margin.py)
    assert result.outputs[0].margin["multiple"] <= 2  # rounded as PyTorch's bf16 matmul rounds
