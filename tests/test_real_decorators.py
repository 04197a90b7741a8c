"""Decorators as installed packages write them (tests/data/decorators/): a project's own subclass of Triton's
Autotuner, a pass-through KernelInterface in front of it, @triton.heuristics stacked two deep and heuristics
that set the launch's num_warps, and unsigned tensors. Each once failed on a real package (fla,
FlagGems, cut-cross-entropy, gemlite); the tools must read them as Triton's own launch does."""
from pathlib import Path

import pytest
from conftest import invoke

from playground.artefact import binder
from playground.artefact.request import Request
from playground.core import bare, dtypes, registry, targets
from playground.errors import UserError

pytestmark = pytest.mark.compile

DATA = Path(__file__).resolve().parent / "data" / "decorators"
WRAPPERS = str(DATA / "project_wrappers.py")
HEURISTICS = str(DATA / "heuristic_launch.py")
COPY_ARGS = "x_ptr=fp32[4096], y_ptr=fp32[4096], n=4096, grid=4"


def header(*args) -> dict:
    """The compile header's lines by their first word."""
    result = invoke("compile", *args)
    assert result.exit_code == 0, result.stderr
    return {line[3:15].strip(): line[15:] for line in result.stdout.splitlines() if line.startswith("// ")}


# --- a project's own Autotuner (fla's CachedAutotuner, FlagGems' LibTuner) and pass-through entry (LibEntry)

@pytest.mark.parametrize("name", ["tuned_scale", "tuned_even_scale", "entry_scale"])
def test_a_subclassed_autotuner_and_a_pass_through_entry_are_kernels(name):
    spec = registry.load(f"{WRAPPERS}:{name}", "sm_90", COPY_ARGS)
    assert type(spec.kernel).__name__ == "JITFunction"
    assert type(spec.autotuner).__name__ == "CachedTuner"
    assert spec.configs[0] == {"BLOCK": 256, "num_warps": 2, "num_stages": 3}
    config = Request.of(spec, "sm_90").config
    assert config.meta["BLOCK"] == 256 and config.num_warps == 2     # config 0, the default


def test_a_subclassed_autotuner_is_listed_beside_the_plain_kernels():
    with pytest.raises(UserError) as raised:
        registry.load(f"{WRAPPERS}:not_there", "sm_90", COPY_ARGS)
    assert "kernels there: entry_scale, tuned_even_scale, tuned_scale" in str(raised.value)


def test_a_heuristic_over_a_subclassed_autotuner_compiles_with_its_config():
    lines = header(f"{WRAPPERS}:tuned_even_scale", "--args", COPY_ARGS, "-t", "sm_90")
    assert lines["launch"].startswith("num_warps=2 ") and lines["meta"] == "BLOCK=256, EVEN=True"


# --- @triton.heuristics two deep (cut-cross-entropy's indexed_dot and cce_lse_forward)

def test_the_outer_heuristic_runs_first_as_triton_runs_it():
    spec = registry.load(f"{HEURISTICS}:nested_copy", "sm_90", COPY_ARGS)
    assert list(spec.heuristics_values) == ["BLOCK", "num_warps", "num_stages", "EVEN"]
    assert Request.of(spec, "sm_90").config.meta == {"BLOCK": 1024, "EVEN": True}
    odd = registry.load(f"{HEURISTICS}:nested_copy", "sm_90", COPY_ARGS.replace("n=4096", "n=4000"))
    assert Request.of(odd, "sm_90").config.meta["EVEN"] is False


# --- launch options a heuristic sets are the launch's (Heuristics.run puts them in JITFunction.run's kwargs)

def test_warps_and_stages_a_heuristic_sets_are_the_launch_and_the_binary():
    spec = registry.load(f"{HEURISTICS}:nested_copy", "sm_90", COPY_ARGS)
    compiled = Request.of(spec, "sm_90").compile()
    assert (compiled.config.num_warps, compiled.config.num_stages) == (8, 2)
    assert "num_warps" not in compiled.config.meta and "num_stages" not in compiled.config.meta
    assert compiled.metadata.num_warps == 8 and compiled.options["num_stages"] == 2
    lines = header(HEURISTICS + ":nested_copy", "--args", COPY_ARGS, "-t", "sm_90")
    assert lines["launch"].startswith("num_warps=8 (256 threads), num_stages=2")
    assert lines["meta"] == "BLOCK=1024, EVEN=True"


def test_a_heuristic_sets_warps_over_the_default_and_a_backend_option_beside_them():
    args = COPY_ARGS + ", BLOCK=1024"
    lines = header(HEURISTICS + ":warps_by_heuristic", "--args", args, "-t", "sm_90")
    assert lines["launch"].startswith("num_warps=8 (256 threads)")
    assert "maxnreg=128" in lines["options"]
    compiled = Request.of(registry.load(f"{HEURISTICS}:warps_by_heuristic", "sm_90", args), "sm_90").compile()
    assert compiled.metadata.num_warps == 8 and compiled.options["maxnreg"] == 128


def test_a_heuristic_that_overrides_the_warps_asked_for_says_so_in_one_line():
    done = invoke("compile", HEURISTICS + ":warps_by_heuristic", "--args", COPY_ARGS + ", BLOCK=1024", "-t", "sm_90",
                  "--num-warps", "4")
    assert done.exit_code == 0, done.stderr
    assert "// launch      num_warps=8 (256 threads)" in done.stdout
    assert "warning: warps_by_heuristic: its @triton.heuristics set num_warps=8 over the 4 asked for, as Triton's " \
           "launch does" in done.stderr.splitlines()
    quiet = invoke("compile", HEURISTICS + ":warps_by_heuristic", "--args", COPY_ARGS + ", BLOCK=1024", "-t", "sm_90",
                   "--num-warps", "8")
    assert "warning" not in quiet.stderr


# --- unsigned tensors (cut-cross-entropy's uint32 locks, gemlite's uint8 packed weights)

@pytest.mark.parametrize("written,short,pointer", [
    ("uint8", "u8", "*u8"), ("uint16", "u16", "*u16"), ("uint32", "u32", "*u32"), ("uint64", "u64", "*u64"),
    ("u32", "u32", "*u32"), ("torch.uint32", "u32", "*u32"), ("tl.uint8", "u8", "*u8")])
def test_unsigned_tensors_are_triton_unsigned_pointers(written, short, pointer):
    assert dtypes.canonical(written) == short
    given = bare.parse(f"locks={written}[64]")
    assert given["locks"] == ("tensor", short, (64,), 0, None)
    spec = registry.load(f"{HEURISTICS}:warps_by_heuristic", "sm_90",
                         f"x_ptr={written}[4096], y_ptr={written}[4096], n=4096, BLOCK=1024, grid=4")
    request = Request.of(spec, "sm_90")
    signature, *_ = binder.specialize(request.spec, targets.resolve("sm_90"), request.config)
    assert signature["x_ptr"] == signature["y_ptr"] == pointer
    assert f"!tt.ptr<i{pointer[2:]}>" in request.compile().stage("ttir")     # the IR's integers are signless


def test_the_unknown_dtype_line_names_the_unsigned_types():
    with pytest.raises(UserError, match=r"known: .*i64, .*u8, u16, u32, u64"):
        dtypes.canonical("uint12")
    assert dtypes.size("uint32") == 4 and dtypes.get("u64").triton == "uint64"
