"""`--args` as a launch is written: None, string and dtype constexprs, torch's dtype names, strided and
transposed tensors, grids of 1 to 3 dimensions; anything else is one line with an example."""
import textwrap

import pytest
from conftest import invoke

from playground.artefact import binder
from playground.artefact.request import Request
from playground.core import bare, dtypes, registry, targets
from playground.errors import UserError

pytestmark = pytest.mark.compile

# One kernel with each kind of argument real projects pass (flash-attention's Bias=None and BIAS_TYPE='none',
# DeepSeek-V3's scale_fmt=None, Liger-Kernel's X_dtype=tl.bfloat16).
KERNEL = textwrap.dedent('''
    import triton
    import triton.language as tl

    @triton.jit
    def scaled_copy(x_ptr, bias_ptr, out_ptr, n, stride, MODE: tl.constexpr, FMT: tl.constexpr,
                    OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs * stride, mask=mask)
        if MODE == "bias":
            x += tl.load(bias_ptr + offs, mask=mask)
        if FMT is not None:
            x = x * 2
        tl.store(out_ptr + offs, x.to(OUT_DTYPE), mask=mask)
''')


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("launch_args") / "scaled_copy.py"
    path.write_text(KERNEL)
    return f"{path}:scaled_copy"


def specialisation(ref, args, target="sm_90"):
    """What the JIT's binder makes of the arguments: the constexprs and the signature Triton compiles."""
    request = Request.of(registry.load(ref, target, args), target)
    signature, constexprs, _, _, _ = binder.specialize(request.spec, targets.resolve(target), request.config)
    return signature, constexprs


def test_none_strings_and_dtypes_reach_the_binder_as_a_launch_passes_them(kernel_file):
    import triton.language as tl
    args = ("x_ptr=float16[4096], bias_ptr=None, out_ptr=torch.bfloat16[4096], n=4096, stride=1, MODE='none', "
            "FMT=None, OUT_DTYPE=tl.bfloat16, BLOCK=256, grid=16")
    signature, constexprs = specialisation(kernel_file, args)
    assert signature["x_ptr"] == "*fp16" and signature["out_ptr"] == "*bf16"
    assert signature["bias_ptr"] == "constexpr"          # a None pointer: Triton makes it a constexpr None
    values = {name: value for name, value in zip(signature, _constexpr_values(signature, constexprs))}
    assert values["bias_ptr"] is None and values["FMT"] is None
    assert values["MODE"] == "none" and values["OUT_DTYPE"] == tl.bfloat16 and values["BLOCK"] == 256
    bare_word = specialisation(kernel_file, args.replace("MODE='none'", "MODE=bias").replace("bias_ptr=None",
                                                                                             "bias_ptr=fp16[4096]"))
    assert "bias" in {v for v in _constexpr_values(*bare_word) if isinstance(v, str)}


def _constexpr_values(signature, constexprs):
    names = list(signature)
    found = {names[path[0]]: value for path, value in constexprs.items()}
    return [found.get(name, "runtime") for name in names]


def test_the_launch_compiles_with_each_form(kernel_file):
    args = ("x_ptr=float16[4096], bias_ptr=None, out_ptr=fp16[4096], n=4096, stride=1, MODE=\"none\", FMT='e8', "
            "OUT_DTYPE=torch.float16, BLOCK=256, grid=(16,)")
    done = invoke("compile", kernel_file, "--args", args, "-t", "sm_90", "--show", "ttir")
    assert done.exit_code == 0, done.stderr
    assert "// meta        MODE=none, FMT=e8, OUT_DTYPE=fp16, BLOCK=256" in done.stdout
    assert "arith.mulf" in done.stdout                   # FMT is not None: the doubling was compiled in


@pytest.mark.parametrize("value,shape,strides,offset", [
    ("fp16[4096,64]", (4096, 64), (64, 1), 0),
    ("float16[64,4096].T", (4096, 64), (1, 4096), 0),
    ("bf16[2,64,4096].T", (2, 4096, 64), (262144, 1, 4096), 0),
    ("fp32[1024,512](1,1024)", (1024, 512), (1, 1024), 0),
    ("fp32[1024,512](1,1024)+3", (1024, 512), (1, 1024), 3),
])
def test_strided_and_transposed_tensors(value, shape, strides, offset):
    kind, dtype, got_shape, got_offset, got_strides = bare.parse(f"x={value}")["x"]
    assert (kind, got_shape, got_offset) == ("tensor", shape, offset)
    stand_in = bare._OffsetTensor(got_shape, dtype, got_offset, got_strides)
    assert stand_in.stride() == strides
    # the bytes the view spans, by its strides: a transposed [64, 4096] fp16 spans the same 512 KiB
    assert stand_in.ptr_range() == (sum((n - 1) * s for n, s in zip(shape, strides)) + 1) * stand_in.element_size()


@pytest.mark.parametrize("text,grid", [("97", (97,)), ("32x32", (32, 32)), ("4x8x2", (4, 8, 2)),
                                       ("(97,)", (97,)), ("(4, 8, 2)", (4, 8, 2)), ("(8,4)", (8, 4))])
def test_grids_of_one_to_three_dimensions(text, grid):
    assert bare.parse(f"grid={text}")["grid"] == grid


@pytest.mark.parametrize("name,short", [("float16", "fp16"), ("torch.bfloat16", "bf16"), ("bool", "i1"),
                                        ("float8_e4m3fn", "fp8e4nv"), ("int32", "i32"), ("tl.float32", "fp32"),
                                        ("half", "fp16"), ("long", "i64"), ("fp16", "fp16")])
def test_dtypes_as_torch_and_triton_spell_them(name, short):
    assert dtypes.canonical(name) == short


def test_a_spec_may_name_dtypes_as_torch_does():
    from playground import KernelSpec, Tensor
    spec = registry.load("vector_add")
    import dataclasses
    written = KernelSpec(**{f.name: getattr(spec, f.name) for f in dataclasses.fields(spec) if f.init}
                         | {"dtypes": ("float32", "float16"), "tensors": {"x": Tensor(("N",), "bfloat16")}})
    assert written.dtypes == ("fp32", "fp16") and written.tensors["x"].dtype == "bf16"


@pytest.mark.parametrize("args,message", [
    ("x=fp33[4]", "args x=fp33[4]: unknown dtype; known: fp8e4nv"),
    ("x=@", "args x=@: not a tensor, number, None, string or dtype; as in x=fp16[1024,64], w=float16[64,1024].T"),
    ("x=fp16[4,4](1)", "args x=fp16[4,4](1): 2 dimensions but 1 strides"),
    ("x=fp16[4].T", "args x=fp16[4].T: .T transposes the last two dimensions"),
    ("grid=1x2x3x4", "args grid=1x2x3x4: expected 1 to 3 whole numbers: grid=97, grid=32x32, grid=(4, 8, 2)"),
    ("x", "args 'x': expected NAME=VALUE, as in x=fp16[1024,64]"),
])
def test_anything_else_is_one_line_with_an_example(args, message):
    with pytest.raises(UserError) as e:
        bare.parse(args)
    assert str(e.value).startswith(message) and e.value.param == "args"


def test_the_launchs_own_keywords_in_args_are_its_options_and_a_missing_grid_is_said(kernel_file):
    """`kernel[grid](..., num_warps=8, enable_fp_fusion=False)`, as fla's sinkhorn launches: both reach the binary."""
    args = ("x_ptr=fp32[4096], bias_ptr=None, out_ptr=fp32[4096], n=4096, stride=1, MODE='none', FMT=None, "
            "OUT_DTYPE=tl.float32, BLOCK=256, grid=16")
    plain = Request.of(registry.load(kernel_file, "sm_90", args), "sm_90").compile()
    keyed = Request.of(registry.load(kernel_file, "sm_90", args + ", num_warps=8, enable_fp_fusion=False"),
                       "sm_90").compile()
    assert (plain.metadata.num_warps, keyed.metadata.num_warps) == (4, 8)
    assert plain.options["enable_fp_fusion"] is True and keyed.options["enable_fp_fusion"] is False
    flag_wins = invoke("compile", kernel_file, "--args", args + ", num_warps=8", "-t", "sm_90", "--num-warps", "2")
    assert "// launch      num_warps=2 (64 threads)" in flag_wins.stdout
    no_grid = invoke("compile", kernel_file, "--args", args.removesuffix(", grid=16"), "-t", "sm_90")
    assert no_grid.exit_code == 0 and no_grid.stderr.strip().splitlines() == [
        "warning: scaled_copy: --args names no grid=: one program (grid=1), so waves and the model see one CTA"]
