"""The commands on real projects' files, each opened where it lies in its own package layout, and on an
installed package named by module.

The copies under tests/third_party/ are not committed (tests/third_party/README.md): a test of a copy runs
where the copy is present and byte-identical to the manifest's, and skips, saying which, elsewhere. The
installed package (Liger-Kernel, from the `test` extra) is tested wherever the suite runs.

Each command runs in a process of its own, as a user's would: two copies of one package (the copy and the
installed Liger-Kernel) cannot share one interpreter.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COPIES = ROOT / "tests" / "third_party"
MANIFEST = json.loads((COPIES / "MANIFEST.json").read_text())
PERMISSIVE = {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0"}

# (copy, kernel, the launch as the project's wrapper makes it, options, what the file needs that is not there:
# None when every command must succeed, else the one line every command must print instead)
KERNELS = [
    ("triton_tutorials/python/tutorials/01-vector-add.py", "add_kernel",
     "x_ptr=fp32[98432], y_ptr=fp32[98432], output_ptr=fp32[98432], n_elements=98432, BLOCK_SIZE=1024, grid=97",
     [], None),
    ("triton_tutorials/python/tutorials/03-matrix-multiplication.py", "matmul_kernel",
     "a_ptr=fp16[512,512], b_ptr=fp16[512,512], c_ptr=fp16[512,512], M=512, N=512, K=512, stride_am=512, "
     "stride_ak=1, stride_bk=512, stride_bn=1, stride_cm=512, stride_cn=1, ACTIVATION='leaky_relu', grid=16", [], None),
    ("triton_tutorials/python/tutorials/05-layer-norm.py", "_layer_norm_fwd_fused",
     "X=fp16[1151,8192], Y=fp16[1151,8192], W=fp16[8192], B=fp16[8192], Mean=fp32[1151], Rstd=fp32[1151], "
     "stride=8192, N=8192, eps=1e-5, BLOCK_SIZE=8192, grid=1151", ["--num-warps", "8"], None),
    ("liger_kernel/src/liger_kernel/ops/rms_norm.py", "_rms_norm_forward_kernel",
     "Y_ptr=bfloat16[8192,4096], Y_row_stride=4096, X_ptr=bfloat16[8192,4096], X_row_stride=4096, "
     "W_ptr=bfloat16[4096], W_row_stride=1, RSTD_ptr=float32[8192], RSTD_row_stride=1, n_cols=4096, eps=1e-6, "
     "offset=0.0, casting_mode=0, BLOCK_SIZE=4096, grid=8192", ["--num-warps", "16"], None),
    ("liger_kernel/src/liger_kernel/ops/rms_norm.py", "_rms_norm_backward_kernel",
     "dY_ptr=bfloat16[8192,4096], dY_row_stride=4096, dX_ptr=bfloat16[8192,4096], dX_row_stride=4096, "
     "X_ptr=bfloat16[8192,4096], X_row_stride=4096, X_dtype=tl.bfloat16, W_ptr=bfloat16[4096], W_row_stride=1, "
     "RSTD_ptr=float32[8192], RSTD_row_stride=1, dW_ptr=float32[132,4096], dW_row_stride=4096, n_rows=8192, "
     "n_cols=4096, offset=0.0, rows_per_program=63, casting_mode=1, BLOCK_SIZE=4096, grid=132",
     ["--num-warps", "16"], None),
    ("attorch/attorch/act_kernels.py", "act_func_forward_kernel",
     "input_pointer=fp32[1048576], output_pointer=fp32[1048576], size=1048576, drop_p=0.0, seed=0, param=None, "
     "act_func='gelu', dropout=false, grid=1024", [], None),
    ("unsloth/unsloth/kernels/swiglu.py", "_fg_kernel",
     "e=fp16[4,2048,11008], g=fp16[4,2048,11008], h=fp16[4,2048,11008], n_elements=90177536, BLOCK_SIZE=1024, "
     "LONG_INDEXING=0, grid=88064", [], "imports unsloth.device_type, which is not in"),
    ("flash_attention/flash_attn/ops/triton/rotary.py", "rotary_kernel",
     "OUT=fp16[2,4096,32,128], X=fp16[2,4096,32,128], COS=fp16[4096,64], SIN=fp16[4096,64], CU_SEQLENS=None, "
     "SEQLEN_OFFSETS=0, seqlen=4096, nheads=32, seqlen_ro=4096, stride_out_batch=16777216, stride_out_seqlen=4096, "
     "stride_out_nheads=128, stride_out_headdim=1, stride_x_batch=16777216, stride_x_seqlen=4096, "
     "stride_x_nheads=128, stride_x_headdim=1, ROTARY_DIM=128, IS_SEQLEN_OFFSETS_TENSOR=false, IS_VARLEN=false, "
     "INTERLEAVED=false, CONJUGATE=false, BLOCK_H=2, BLOCK_M=8, grid=(16,512,2)", [], None),
    ("deepseek_v3/inference/kernel.py", "act_quant_kernel",
     "x_ptr=bfloat16[4096,7168], y_ptr=float8_e4m3fn[4096,7168], s_ptr=float32[4096,56], BLOCK_SIZE=128, "
     "scale_fmt=None, grid=229376", [], None),
    ("deepseek_v3/inference/kernel.py", "weight_dequant_kernel",
     "x_ptr=float8_e4m3fn[7168,7168], s_ptr=float32[56,56], y_ptr=bfloat16[7168,7168], M=7168, N=7168, "
     "BLOCK_SIZE=128, grid=(56,56)", [], None),
    ("lightllm/lightllm/common/basemodel/triton_kernel/destindex_copy_kv.py", "_fwd_kernel_destindex_copy_kv",
     "K=fp16[32768,12,128], Dest_loc=int32[32768], Out=fp16[32768,12,128], stride_k_bs=1536, stride_k_h=128, "
     "stride_k_d=1, stride_o_bs=1536, stride_o_h=128, stride_o_d=1, head_num=12, BLOCK_DMODEL=128, BLOCK_HEAD=16, "
     "grid=32768", ["--num-warps", "1", "--num-stages", "1"], None),
    ("flash_linear_attention/fla/ops/utils/softmax.py", "softmax_fwd_kernel",
     "x=fp32[4096,512], p=fp32[4096,512], D=512, B=512, grid=4096", [], None),
    ("mamba/mamba_ssm/ops/triton/layernorm_gated.py", "_layer_norm_fwd_1pass_kernel",
     "X=bf16[8192,4096], Y=bf16[8192,4096], W=bf16[4096], B=None, Z=bf16[8192,4096], Mean=None, Rstd=fp32[8192], "
     "stride_x_row=4096, stride_y_row=4096, stride_z_row=4096, M=8192, N=4096, eps=1e-5, BLOCK_N=4096, "
     "NORM_BEFORE_GATE=false, IS_RMS_NORM=true, grid=(8192,1)", ["--num-warps", "8"], None),
]

# Liger-Kernel as pip installs it (0.8.5, the `test` extra), named by module
INSTALLED_RMS_NORM = "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel"
INSTALLED_ARGS = ("Y_ptr=bfloat16[8192,4096], Y_row_stride=4096, X_ptr=bfloat16[8192,4096], X_row_stride=4096, "
                  "W_ptr=bfloat16[4096], W_row_stride=1, RSTD_ptr=float32[8192], RSTD_row_stride=1, n_cols=4096, "
                  "eps=1e-6, offset=0.0, casting_mode=0, elementwise_affine=true, BLOCK_SIZE=4096, grid=8192")


def playground(*args, cwd=COPIES):
    """One command in a process of its own, as a user types it in the copies' folder."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", "from cli import main; main()", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


def copy_or_skip(path: str) -> Path:
    entry = next(e for e in MANIFEST if e["path"] == path)
    file = COPIES / path
    if not file.is_file():
        pytest.skip(f"{path} is not here: the copies are not committed (tests/third_party/README.md)")
    if hashlib.sha256(file.read_bytes()).hexdigest() != entry["sha256"]:
        pytest.skip(f"{path} differs from {entry['repo']} at {entry['commit'][:12]}: not the manifest's copy")
    return file


def test_the_manifest_says_where_every_copy_comes_from_under_a_permissive_licence():
    assert len(MANIFEST) >= 20 and len({e["project"] for e in MANIFEST}) >= 8
    for entry in MANIFEST:
        assert entry["licence"] in PERMISSIVE, entry["path"]
        assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"]) and re.fullmatch(r"[0-9a-f]{64}", entry["sha256"])
        assert entry["repo"].startswith("https://github.com/") and entry["path"].split("/")[0] == entry["project"]
    assert {path for path, *_ in KERNELS} <= {e["path"] for e in MANIFEST}


@pytest.mark.parametrize("path,kernel,args,options,needs", KERNELS, ids=[f"{p.split('/')[0]}:{k}" for p, k, *_ in KERNELS])
def test_compile_grid_occupancy_and_inspect_open_the_kernel_where_it_lies(path, kernel, args, options, needs):
    copy_or_skip(path)
    ref = f"{path}:{kernel}"
    compiled = playground("compile", ref, "--args", args, "-t", "sm_90", *options, "--show", "sass")
    if needs:
        for command in ("compile", "grid", "occupancy", "inspect"):
            done = compiled if command == "compile" else playground(command, ref, "--args", args, "-t", "sm_90")
            assert done.returncode == 2 and needs in done.stderr and len(done.stderr.strip().splitlines()) == 1, \
                (command, done.stderr)
        return
    assert compiled.returncode == 0, compiled.stderr
    header = compiled.stdout.splitlines()
    assert header[0].startswith(f"// kernel      {kernel} ({kernel}) from {path}")
    entry = next(e for e in MANIFEST if e["path"] == path)
    if entry.get("module"):          # a file inside a package: its dotted name, as the package imports it
        assert f", imported as {entry['module']} (" in header[0], header[0]
    registers = int(re.search(r"// registers   (\d+) per thread", compiled.stdout).group(1))
    assert 0 < registers <= 255
    assert re.search(r"^\s+/\*[0-9a-f]{4}\*/\s+\S+", compiled.stdout, re.M), "no SASS instruction shown"

    ctas = 1
    for n in re.search(r"grid=\(?([\d, x]+)\)?", args).group(1).replace("x", ",").split(","):
        ctas *= int(n)
    grid = playground("grid", ref, "--args", args, "-t", "sm_90", *options, "--json")
    assert grid.returncode == 0, grid.stderr
    assert json.loads(grid.stdout)["ctas"] == ctas

    occupancy = playground("occupancy", ref, "--args", args, "-t", "sm_90", *options, "--json")
    assert occupancy.returncode == 0, occupancy.stderr
    figures = json.loads(occupancy.stdout)
    assert figures["registers"] == registers and 0 < figures["occupancy"] <= 1

    inspected = playground("inspect", ref, "--args", args, "-t", "sm_90", *options, "--json")
    assert inspected.returncode == 0, inspected.stderr
    assert json.loads(inspected.stdout)["mix"]["instructions"] > 0


def test_diff_and_sweep_on_a_tutorials_autotuned_matmul():
    path, kernel, args, _, _ = KERNELS[1]
    copy_or_skip(path)
    ref = f"{path}:{kernel}"
    diff = playground("diff", ref, "--args", args, "-t", "sm_90", "--a", "num_warps=4", "--b", "num_warps=8", "--json")
    assert diff.returncode == 0, diff.stderr
    sides = json.loads(diff.stdout)
    assert (sides["a"]["num_warps"], sides["b"]["num_warps"]) == (4, 8) and not sides["identical"]
    # the file asks the device as it loads (a script written for a GPU): one target at a time, said in one line
    across = playground("diff", ref, "--args", args, "--a", "target=sm_80", "--b", "target=sm_90")
    assert across.returncode == 2 and "name one target at a time" in across.stderr.splitlines()[-1]
    sweep = playground("sweep", ref, "--args", args, "-t", "sm_90", "--jobs", "2", "--json")
    assert sweep.returncode == 0, sweep.stderr
    rows = json.loads(sweep.stdout)["rows"]
    assert len(rows) >= 4 and all(r["status"] == "ok" for r in rows)
    assert sorted(r["rank"] for r in rows if r["rank"])[0] == 1


def test_an_installed_package_opens_by_module_name_in_every_command():
    installed = playground("compile", INSTALLED_RMS_NORM, "--args", INSTALLED_ARGS, "-t", "sm_90",
                           "--num-warps", "16", cwd=ROOT)
    assert installed.returncode == 0, installed.stderr
    assert ", imported as liger_kernel.ops.rms_norm (installed module, root " in installed.stdout.splitlines()[0]
    for command in ("grid", "occupancy", "inspect"):
        done = playground(command, INSTALLED_RMS_NORM, "--args", INSTALLED_ARGS, "-t", "sm_90", "--num-warps", "16",
                          cwd=ROOT)
        assert done.returncode == 0, (command, done.stderr)
    diff = playground("diff", INSTALLED_RMS_NORM, "--args", INSTALLED_ARGS, "--a", "target=sm_80", "--b",
                      "target=sm_90", "--num-warps", "16", cwd=ROOT)
    assert diff.returncode == 0, diff.stderr
    missing = playground("compile", "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel", "--args", "Y_ptr=fp32[4]",
                         "-t", "sm_90", cwd=ROOT)
    assert missing.returncode == 2 and missing.stderr.startswith("error: --args: _rms_norm_forward_kernel needs ")


@pytest.mark.parametrize("path,says", [
    ("triton_tutorials/python/tutorials/01-vector-add.py", "The maximum difference between torch and triton is 0.0"),
    ("triton_tutorials/python/tutorials/07-extern-functions.py", "The maximum difference between torch and triton is 0.0"),
])
def test_run_takes_a_tutorial_script_as_published(path, says):
    copy_or_skip(path)
    done = playground("run", path, "-t", "sm_90", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert says in done.stderr                                     # --json: the script's own output on stderr
    trace = json.loads(done.stdout)
    assert trace["launches"] and all(v["same_binary"] for v in trace["variants"] if v.get("source"))


@pytest.mark.slow
def test_lightllms_hand_rolled_timing_loops_run_each_distinct_launch_once():
    """Its self-test times 1,000 identical KV-cache copies twice (2,020 launches of 32,768 programs): each distinct
    launch runs once in the interpreter, every launch is counted and modelled (about 6 minutes on 2 cores)."""
    path = "lightllm/lightllm/common/basemodel/triton_kernel/destindex_copy_kv.py"
    copy_or_skip(path)
    done = playground("run", path, "-t", "sm_90", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    launches = json.loads(done.stdout)["launches"]
    assert len(launches) == 2020
    assert sum(1 for launch in launches if launch["executed"]) == 2
    assert all(launch["modelled_seconds"] > 0 for launch in launches)
