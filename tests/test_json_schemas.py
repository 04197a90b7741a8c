"""Every command's --json output against its documented schema (playground/report/schemas/COMMAND.json)."""
import importlib.util
import json

import pytest
from conftest import invoke

from playground.cli import main
from playground import report

jsonschema = pytest.importorskip("jsonschema")
pytestmark = pytest.mark.compile
HAS_TORCH = importlib.util.find_spec("torch") is not None


def validate(command: str, data) -> None:
    jsonschema.Draft202012Validator(report.schema(command)).validate(data)


def json_commands() -> list[str]:
    commands = {name: main.get_command(None, name) for name in main.list_commands(None)}
    return sorted(name for name, cmd in commands.items() if any(p.name == "as_json" for p in cmd.params))


def test_every_command_with_json_has_a_schema_and_every_schema_a_command():
    assert json_commands() == report.commands_with_schema()
    assert {"compile", "sweep", "bench", "check"} <= set(json_commands())     # the commands were read at all


def properties(schema, path=""):
    """Every (path, property schema) in a schema, through items and anyOf."""
    for name, sub in schema.get("properties", {}).items():
        yield f"{path}.{name}", sub
        yield from properties(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from properties(schema[key], f"{path}[]")
    for i, alternative in enumerate(schema.get("anyOf", [])):
        yield from properties(alternative, f"{path}|{i}")


@pytest.mark.parametrize("command", report.commands_with_schema())
def test_each_schema_is_valid_and_documents_every_field(command):
    schema = report.schema(command)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["description"]
    undocumented = [path for path, sub in properties(schema) if not sub.get("description")]
    assert not undocumented


# One or more invocations per command: each vendor, and the outputs that have a different shape
# (a calculator question, a sweep with failed rows, a check that fails).
INVOCATIONS = [
    ("targets",), ("list",),
    ("compile", "vector_add", "-t", "sm_90", "--expect", "registers < 100"),
    ("compile", "gemm", "-t", "gfx942", "--show", "amdgcn,hsaco"),
    ("compile", "softmax", "-t", "gfx1100", "--show", "all"),
    ("diff", "gemm", "-t", "sm_90", "--a", "num_warps=4", "--b", "num_warps=8"),
    ("diff", "vector_add", "--a", "target=sm_80", "--b", "target=gfx942"),
    ("sweep", "gemm", "-t", "sm_90,gfx942", "-m", "BLOCK_SIZE_M=64,128", "-m", "num_warps=3,4", "--jobs", "1"),
    ("bench", "softmax", "-t", "sm_90", "--sweep", "N=256..512"),
    ("bench", "gemm", "-t", "gfx942"),
    ("inspect", "gemm", "-t", "sm_90"), ("inspect", "softmax", "-t", "gfx942", "--shape", "N=781"),
    ("inspect", "vector_add", "-t", "sm_90", "--params"), ("inspect", "vector_add", "-t", "gfx942", "--params"), ("inspect", "--explain", "HGMMA.64x128x16.F32"),
    ("grid", "gemm", "-t", "sm_90"), ("grid", "softmax", "-t", "gfx942", "--shape", "M=1823,N=781"),
    ("occupancy", "gemm", "-t", "sm_90"), ("occupancy", "softmax", "-t", "gfx942"),
    ("occupancy", "--arch", "gfx942", "--threads", "256", "--regs", "96", "--smem", "65536", "--sgprs", "90"),
    ("occupancy", "--arch", "sm_86", "--threads", "256", "--regs", "96", "--smem", "65536", "--grid", "1000"),
    # a config that cannot launch: no last wave, and a reason in sweep's row
    ("compile", "gemm", "-t", "sm_80", "-m", "BLOCK_SIZE_N=256,BLOCK_SIZE_K=128", "--num-stages", "4"),
    ("grid", "gemm", "-t", "sm_80", "-m", "BLOCK_SIZE_N=256,BLOCK_SIZE_K=128", "--num-stages", "4"),
    ("sweep", "gemm", "-t", "sm_80", "-m", "BLOCK_SIZE_N=256", "-m", "BLOCK_SIZE_K=128", "-m", "num_stages=3,4",
     "--jobs", "1"),
]


@pytest.mark.parametrize("args", INVOCATIONS, ids=" ".join)
def test_json_output_matches_its_schema(args):
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.stderr
    validate(args[0], json.loads(result.stdout))


@pytest.mark.skipif(not HAS_TORCH, reason="check runs kernels through torch")
def test_check_json_matches_its_schema_when_cases_pass_and_when_they_fail(tmp_path):
    from pathlib import Path
    source = (Path(__file__).resolve().parent.parent / "kernels" / "vector_add.py").read_text()
    broken = tmp_path / "broken_add.py"
    broken.write_text(source.replace("x + y, mask=mask)", "x - y, mask=mask)"))
    passing = invoke("check", "vector_add", "--quick", "--json")
    failing = invoke("check", str(broken), "--quick", "--json")
    assert (passing.exit_code, failing.exit_code) == (0, 1)
    for result in (passing, failing):
        validate("check", json.loads(result.stdout))
    statuses = {r["status"] for r in json.loads(failing.stdout)["results"]}
    assert "fail" in statuses


def test_a_schema_rejects_what_it_does_not_document():
    data = json.loads(invoke("occupancy", "gemm", "-t", "sm_90", "--json").stdout)
    validate("occupancy", data)
    with pytest.raises(jsonschema.ValidationError, match="Additional properties"):
        validate("occupancy", {**data, "surprise": 1})
    with pytest.raises(jsonschema.ValidationError, match="is not of type 'integer'"):
        validate("occupancy", {**data, "registers": "many"})
    with pytest.raises(jsonschema.ValidationError, match="'kind' is a required property|is not valid under any"):
        validate("bench", {k: v for k, v in json.loads(invoke("bench", "gemm", "-t", "sm_90", "--json").stdout).items()
                           if k != "kind"})


def test_schema_command_prints_a_schema_and_lists_them():
    listed = invoke("schema")
    assert listed.exit_code == 0 and listed.stdout.split() == report.commands_with_schema()
    shown = invoke("schema", "sweep")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["title"] == "playground sweep --json"
    unknown = invoke("schema", "nope")
    assert unknown.exit_code == 2 and "commands with --json: bench, check" in unknown.stderr
