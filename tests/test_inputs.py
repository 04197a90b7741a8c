"""The input generators: each draws the class of values it names, seeded, on the CPU."""
import pytest

from playground.core import registry
from playground.errors import UserError
from playground.check import variants
from playground.run import inputs

torch = pytest.importorskip("torch")     # running kernels needs it; the Triton 3.6 stage has none

SOFTMAX = registry.load("softmax")


def draw(generator, dtype="fp32", spec=SOFTMAX, shape=None):
    return inputs.values(spec, shape or {"M": 64, "N": 100}, dtype, seed=3, generator=generator)


def test_randn_keeps_the_numbers_check_always_drew():
    assert torch.equal(draw("randn")["x"], torch.randn(64, 100, generator=torch.Generator().manual_seed(3)))


def test_each_class_draws_what_it_names():
    assert draw("large")["x"].abs().max() > 200                        # x100: exp overflows fp32 past 88.7
    assert (draw("negative")["x"] <= -1).all()
    equal = draw("equal")["x"]
    assert (equal == equal[:, :1]).all() and equal[:, 0].unique().numel() == 64
    holes = torch.isinf(draw("neg_inf")["x"])
    assert 0.15 < holes.float().mean() < 0.35 and not holes.all(dim=1).any() and not holes[:, 0].any()
    huge = draw("huge", "fp16")["x"]
    assert torch.isfinite(huge).all() and huge.abs().max() > 10000     # a quarter of fp16's 65504


def test_integer_extremes_reach_both_limits():
    x = inputs.draw("extremes", (1000,), torch.int32, torch.Generator().manual_seed(0))
    assert x.min() == torch.iinfo(torch.int32).min and x.max() == torch.iinfo(torch.int32).max


def test_defaults_come_from_the_dtypes_and_a_spec_may_name_its_own():
    assert inputs.names_for(registry.load("vector_add"), "fp32") == inputs.FLOAT_DEFAULT
    assert inputs.names_for(registry.load("gemm"), "fp16") == ("randn", "negative", "equal")
    with pytest.raises(UserError, match="unknown input generator 'wild'"):
        draw("wild")


def test_layouts_follow_the_strides_the_kernel_is_given():
    assert variants.strided_dims(registry.load("gemm")) == {"a": {0, 1}, "b": {0, 1}, "c": {0, 1}}
    assert variants.strided_dims(SOFTMAX) == {"x": {0}, "y": {0}}
    names = [v.name for v in variants.layouts(SOFTMAX, {"M": 17, "N": 145})]
    assert names == ["sliced x,y", "offset by 1 element"]
    assert [v.name for v in variants.layouts(registry.load("gemm_tma"), {"M": 9, "N": 8, "K": 8})] == []


def test_the_probe_is_the_smallest_case_with_the_most_sizes_above_one():
    assert variants.probe_case(SOFTMAX, SOFTMAX.quick_cases) == {"M": 17, "N": 145}
    attention = registry.load("flash_attention")
    assert variants.probe_case(attention, attention.quick_cases)["N_CTX"] == 81


def test_quick_samples_three_configs_by_seed():
    spec = registry.load("vector_add")
    quick = [v.name for v in variants.configs(spec, quick=True, seed=0)]
    assert len(quick) == 3 and quick == [v.name for v in variants.configs(spec, quick=True, seed=0)]
    assert len(variants.configs(spec, quick=False, seed=0)) == len(spec.configs) == 15
