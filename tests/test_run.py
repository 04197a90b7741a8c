"""`playground run`: scripts written for a CUDA machine, unchanged, on a virtual GPU.

The scripts in data/scripts/ are written the way Triton's tutorials write them. Each runs once per
target (in its own process, as `playground run` runs it); the tests read what it captured.
"""
import functools
import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("torch")
from playground.errors import UserError  # noqa: E402
from playground.virtual import session, text, timeline  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "data" / "scripts"


@functools.cache
def captured(script: str, target: str = "sm_90", execute: bool = True) -> session.Run:
    return session.run_script(str(SCRIPTS / script), [], target, execute=execute)


def cli(*args, cwd=None):
    """The CLI as its own process (a trace is read on a virtual GPU, which patches torch in that process)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd or ROOT)


def test_a_tutorial_style_script_runs_unchanged_and_its_benchmark_is_compiled_not_run():
    run = captured("vector_add_bench.py")
    assert run.exit_code == 0
    checks, timed = run.launches[:2], run.launches[2:]
    assert all(r["executed"] and not r["timed"] for r in checks)
    # perf_report's sweep up to 2**27 elements: six sizes, each compiled, captured and modelled, none executed
    assert [r["grid"][0] for r in timed] == [math.ceil(2**i / 1024) for i in range(12, 28, 3)]
    assert all(r["timed"] and not r["executed"] and r["modelled_seconds"] > 0 for r in timed)
    assert "modelled, not measured" in run.trace["messages"][0]


def test_an_aligned_and_a_misaligned_view_are_two_variants():
    run = captured("vector_add_bench.py")
    aligned, shifted = run.launches[0], run.launches[1]
    assert [a["address_mod_16"] for a in aligned["args"][:3]] == [0, 0, 0]
    assert [a["address_mod_16"] for a in shifted["args"][:2]] == [4, 4]     # x[1:]: 4 bytes in
    assert (aligned["args"][3]["value"], shifted["args"][3]["value"]) == (98432, 98431)
    first, second = run.variants[0], run.variants[1]
    assert aligned["variant"] == 1 and shifted["variant"] == 2 and first["hash"] != second["hash"]
    assert first["specialised"] == ["x_ptr: 16-byte aligned", "y_ptr: 16-byte aligned",
                                    "output_ptr: 16-byte aligned", "n_elements: divisible by 16"]
    assert second["specialised"] == ["output_ptr: 16-byte aligned"]   # the fresh output only


@pytest.mark.parametrize("target, sms", [("sm_90", 132), ("sm_80", 108), ("h100-pcie", 114)])
def test_a_persistent_kernel_sized_from_the_device_gets_one_program_per_sm(target, sms):
    run = captured("persistent.py", target)
    assert run.exit_code == 0 and run.launches[0]["grid"] == [sms, 1, 1]
    if target == "h100-pcie":          # a GPU by name: the trace keeps the name, and its variants reopen on it
        assert (run.trace["target"], run.trace["device"]) == ("h100-pcie", "H100 PCIe")
        assert run.variants[0]["source"]["target"] == "h100-pcie"


def test_a_file_that_asks_the_device_at_import_is_read_on_the_gpu_named(tmp_path):
    """sweep and grid read a user's file on a virtual GPU of --target when it cannot be imported as it is:
    a GPU by name answers with its own SM count (142 on an L40S, 128 on sm_89's RTX 4090)."""
    kernel = tmp_path / "persistent_copy.py"
    kernel.write_text(textwrap.dedent("""\
        import torch
        import triton
        import triton.language as tl

        from playground.core.spec import KernelSpec, Tensor

        NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count


        @triton.jit
        def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
                offs = start + tl.arange(0, BLOCK)
                tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


        SPEC = KernelSpec(
            name="persistent_copy", kernel=copy_kernel, description="a copy, one program per SM",
            tensors={"x": Tensor(("N",)), "out": Tensor(("N",), output=True)},
            args=lambda x, out, N: (x, out, N), grid=lambda shape, meta: (NUM_SMS,),
            meta={"BLOCK": 1024}, num_warps=4, default_shape={"N": 1 << 22}, dtypes=("fp32",),
            reference=lambda x: x, flops=lambda s: 0, bytes=lambda s, e: 2 * s["N"] * e)
        """))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRITON_CACHE_DIR": str(tmp_path / "cache")}   # no kept rows
    for target, sms in (("sm_89", 128), ("l40s", 142)):      # the L40S's binary is in the cache: the parent reads
        done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "sweep", str(kernel), "--target", target,
                               "-m", "num_warps=4", "--json", "--no-progress"], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        (row,) = json.loads(done.stdout)["rows"]
        assert (row["target"], row["grid"]) == (target, sms), row
    # one process reads the file once, on one GPU: several targets there would all get that GPU's answers
    for args in (["sweep", kernel, "--target", "sm_89,l40s"], ["diff", kernel, "--target", "sm_89", "--a", "target=l40s",
                                                               "--b", "num_warps=8"]):
        refused = subprocess.run([sys.executable, str(ROOT / "cli.py"), *map(str, args)], capture_output=True, text=True,
                                 env=env)
        assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1] == (
            f"error: {kernel} asks the device as it loads, and was read on a virtual sm_89: what it defines is that "
            f"GPU's, not l40s's; name one target at a time"), refused.stderr
    # so does the page: opened on the L40S, the file compiles for it, and another target is refused in the pane
    page = subprocess.run([sys.executable, "-c", (
        "import json, sys\nfrom playground.web.workspace import Workspace\n"
        "w = Workspace(sys.argv[1], 'l40s')\n"
        "print(json.dumps([w.compile({'target': t}).get('error', 'compiled') for t in ('l40s', 'sm_90')]))"),
        str(kernel)], capture_output=True, text=True, env=env)
    assert page.returncode == 0, page.stderr
    assert json.loads(page.stdout.splitlines()[-1]) == ["compiled", (
        f"{kernel} asks the device as it loads, and was read on a virtual l40s: what it defines is that GPU's, not "
        f"sm_90's; name one target at a time")]


@pytest.mark.parametrize("target, sms", [("sm_90", 132), ("sm_80", 108)])
def test_fused_softmax_is_sized_from_the_registers_warmup_reports(target, sms):
    run = captured("fused_softmax.py", target)
    assert run.exit_code == 0
    (variant,) = run.variants
    assert variant["warmups"] == 1 and variant["launches"] == 1 and variant["same_binary"]
    # the script's own arithmetic, on the registers the binary really uses (cuobjdump, via load_binary)
    occupancy = 65536 // (variant["registers"] * 32 * 8)
    if variant["shared"]:
        occupancy = min(occupancy, {"sm_90": 227, "sm_80": 163}[target] * 1024 // variant["shared"])
    assert run.launches[0]["grid"] == [min(sms * occupancy, 1823), 1, 1]


def test_autotune_picks_the_config_the_model_says_is_fastest():
    run = captured("autotuned_matmul.py")
    assert run.exit_code == 0
    (pick,) = run.trace["autotune"]
    assert pick["best"] == min(pick["modelled_ms"], key=pick["modelled_ms"].get)
    tuning, final = run.launches[:-1], run.launches[-1]
    assert len(tuning) == 2 and all(r["timed"] and not r["executed"] for r in tuning)
    assert final["executed"] and not final["new_compile"]        # the pick, served by the JIT's cache
    assert run.trace["messages"][-1].endswith("by modelled time on the virtual H100 SXM5 80GB (sm_90, not measured)")


def test_tensor_descriptors_host_and_device_side():
    run = captured("descriptors.py")
    assert run.exit_code == 0
    assert [v["kernel"] for v in run.variants] == ["copy_host_desc", "copy_device_desc"]
    assert all(v["same_binary"] for v in run.variants)
    assert run.launches[0]["args"][0]["kind"] == "tensordesc"


def test_cuda_idioms_streams_atomics_do_not_specialize_and_imported_helpers():
    run = captured("mixed.py")
    assert run.exit_code == 0
    assert len(run.launches) == 2 and len(run.variants) == 1    # n=1000 and n=1024: one binary
    assert not any(s.startswith("n:") for s in run.variants[0]["specialised"])


def test_what_run_captured_is_byte_identical_to_what_compile_shows(tmp_path):
    run = captured("vector_add_bench.py")
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(run.trace))
    for variant in run.variants:
        done = cli("compile", f"{trace}#{variant['id']}", "--json")
        assert done.returncode == 0, done.stderr
        shown = json.loads(done.stdout)
        assert shown["hash"] == variant["hash"] and shown["cache_hit"] and shown["target"] == "sm_90"
    # the aligned and the misaligned launch, side by side: 128-bit loads against 32-bit ones
    diff = cli("diff", f"{trace}#1", "--a", f"kernel={trace}#1", "--b", f"kernel={trace}#2", "--show", "ptx")
    assert diff.returncode == 0, diff.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in diff.stdout.splitlines() if line.startswith("global_")}
    assert rows["global_load.128"] == ["4", "0"] and rows["global_load.32"] == ["0", "16"]


@pytest.mark.parametrize("script", ["vector_add_bench.py", "descriptors.py"])
def test_bench_models_a_traced_variant_as_run_modelled_its_launch(tmp_path, script):
    """A variant reopened from a trace has no spec to count its work: bench counts it by run's rule (its
    tensors' bytes, a descriptor's by the tensor it describes, no FLOPs) and so gives the time run gave
    the launch the variant was rebuilt from."""
    import torch
    run = captured(script)
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(run.trace))
    for variant in run.variants:
        launch = next(r for r in run.launches
                      if r["variant"] == variant["id"] and r["grid"] == variant["source"]["grid"])
        done = cli("bench", f"{trace}#{variant['id']}", "--json")
        assert done.returncode == 0, done.stderr
        point = json.loads(done.stdout)["points"][0]
        assert point["explained"]["seconds"] == pytest.approx(launch["modelled_seconds"], rel=1e-9)
        tensors = [a if a["kind"] == "tensor" else a["base"] for a in variant["source"]["args"]
                   if a["kind"] in ("tensor", "tensordesc")]
        assert len(tensors) >= 2 and point["estimate"]["flops"] == 0
        assert point["estimate"]["bytes"] == sum(getattr(torch, a["dtype"]).itemsize * math.prod(a["shape"])
                                                 for a in tensors)
        assert point["notes"][0] == f"FLOPs and bytes: {launch['model_basis']} (no KernelSpec counts them)"


def test_failures_are_one_line_and_the_script_goes_on(capfd):
    run = session.run_script(str(SCRIPTS / "rough_edges.py"), [], "sm_90")
    out, err = capfd.readouterr()
    assert run.exit_code == 1                                  # the script's own ZeroDivisionError
    assert run.launches[0]["error"].startswith("asm_kernel: the interpreter cannot run this kernel: "
                                               "NotImplementedError: inline_asm")
    assert f"playground: {run.launches[0]['error']}" in err.splitlines()
    assert "the script went on after the kernel the interpreter cannot run" in out
    assert "unsupported: torch.cuda.get_sync_debug_mode is not provided by the virtual sm_90" in out
    # the traceback is the script's: its two frames, none of runpy's, Triton's or playground's
    trace = err[err.index("Traceback"):].splitlines()
    assert [line.strip() for line in trace if line.strip().startswith("File")] == [
        f'File "{SCRIPTS / "rough_edges.py"}", line 30, in <module>',
        f'File "{SCRIPTS / "rough_edges.py"}", line 27, in compute_total']
    assert trace[-1] == "ZeroDivisionError: division by zero"


def test_the_timeline_has_a_host_track_and_a_modelled_gpu_stream():
    run = captured("vector_add_bench.py")
    events = timeline.events(run.trace)["traceEvents"]
    host = [e for e in events if e.get("ph") == "X" and e["tid"] == timeline.HOST_TID and e["cat"] == "host"]
    gpu = [e for e in events if e.get("ph") == "X" and e["tid"] == timeline.GPU_TID]
    assert len(host) == len(gpu) == len(run.launches)
    for earlier, later in zip(gpu, gpu[1:]):           # one stream: each kernel queues behind the last
        assert later["ts"] >= earlier["ts"] + earlier["dur"] - 1e-6
    for launch, kernel in zip(host, gpu):              # a kernel never starts before its launch
        assert kernel["ts"] >= launch["ts"]
    # the first sizes are launch-bound: the host's dispatch takes longer than the modelled kernel
    assert any(h["dur"] > g["dur"] for h, g in zip(host, gpu))
    assert "modelled" in json.dumps(events[:3])


def test_the_cli_prints_the_table_and_saves_the_trace_and_the_timeline(tmp_path):
    trace, tl = tmp_path / "t.json", tmp_path / "tl.json"
    done = cli("run", SCRIPTS / "persistent.py", "--target", "sm_80", "--trace", trace, "--timeline", tl)
    assert done.returncode == 0, done.stderr
    assert "persistent: 108 programs, ok" in done.stdout
    assert "1 launch of 1 compiled variant on the virtual sm_80" in done.stdout
    assert "running in Triton's interpreter" not in done.stderr        # the status line is a terminal's only
    assert json.loads(trace.read_text())["launches"][0]["grid"] == [108, 1, 1]
    assert "traceEvents" in json.loads(tl.read_text())
    again = cli("run", SCRIPTS / "persistent.py", "--trace", trace)      # never overwrite without --force
    assert again.returncode == 2 and again.stderr.strip().endswith("exists; pass --force to overwrite it")


def test_run_json_matches_its_schema_and_keeps_stdout_for_the_report():
    jsonschema = pytest.importorskip("jsonschema")
    from playground import report
    done = cli("run", "--json", SCRIPTS / "mixed.py")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)            # the script's prints went to stderr
    jsonschema.Draft202012Validator(report.schema("run")).validate(data)
    assert "mixed: ok" in done.stderr and data["format"] == "playground-trace/1"


def test_arguments_after_the_script_are_the_scripts_own(tmp_path):
    script = tmp_path / "args.py"
    script.write_text("import sys\nprint('argv', sys.argv[1:])\n")
    done = cli("run", script, "--size", "7", "-t", "sm_80", "--", "--target", "x")
    assert done.returncode == 0 and "argv ['--size', '7', '--target', 'x']" in done.stdout
    assert "on the virtual sm_80" in done.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    done = cli("run", tmp_path / "missing.py")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: no such script: {tmp_path / 'missing.py'}"]
    done = cli("run", SCRIPTS / "mixed.py", "--target", "sm_12")
    assert done.returncode == 2 and "unknown target 'sm_12'" in done.stderr


def test_a_kernel_file_that_queries_the_gpu_at_import_opens_on_the_virtual_device(tmp_path):
    marker = tmp_path / "demo_ran"
    kernel_file = tmp_path / "gpu_at_import.py"
    kernel_file.write_text((ROOT / "tests" / "data" / "gpu_at_import.py").read_text().replace("MARKER", str(marker)))
    done = cli("compile", kernel_file, "--target", "sm_80", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target"] == "sm_80"
    assert "without running its top-level demo code" in done.stderr
    assert not marker.exists()                 # the demo at the bottom of the file did not run


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_main_process_stops_the_script(tmp_path, signum):
    script = tmp_path / "forever.py"
    script.write_text("import time\nimport torch\nx = torch.ones(4, device='cuda')\nprint('started', flush=True)\n"
                      "while True:\n    time.sleep(0.05)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "run", str(script)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "started\n"           # the script is running in its child process
    children = psutil.Process(proc.pid).children(recursive=True)
    assert children
    sent = time.monotonic()
    os.kill(proc.pid, signum)                              # the main process alone
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum and time.monotonic() - sent < 10
    assert err.strip().splitlines()[-1] == (f"error: interrupted ({signal.Signals(signum).name}); stopped with "
                                            f"every process it started")
    time.sleep(0.5)
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_the_virtual_device_reports_a_kernels_thread_limit_as_the_driver_would():
    """CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: registers are allocated per warp in units of 256 from the
    65536 a block may have, warps rounded down to the 4 sub-partitions (cuda_occupancy.h's rules)."""
    from playground.virtual.gpu import VirtualGPU
    h100 = VirtualGPU("sm_90")
    assert h100.max_threads_for(32) == 1024                # 64 warps fit: the block limit binds
    assert h100.max_threads_for(255) == 256                # 8192 registers a warp: 8 warps
    assert h100.max_threads_for(168) == 384                # 5376 a warp: 12 warps
    assert (h100.capability, VirtualGPU("sm_80").capability, VirtualGPU("gfx942").capability) == \
        ((9, 0), (8, 0), (9, 4))
    assert h100.triton_properties()["multiprocessor_count"] == 132
    with pytest.raises(KeyError, match="'mem_bus_width' is not provided by the virtual sm_90"):
        h100.triton_properties()["mem_bus_width"]


def test_bf16_kernels_compute_as_a_gpu_does(capfd):
    # Triton's interpreter alone computes on bf16's raw bits (triton-lang/triton#11584): the script's
    # assert_close would fail; the virtual GPU runs check's fp32-and-round workaround (run/bf16_interpreter.py)
    run = session.run_script(str(SCRIPTS / "bf16_math.py"), [], "sm_90")
    assert run.exit_code == 0 and "bf16 matches torch" in capfd.readouterr().out


def test_a_script_that_asks_where_its_tensors_are_is_told_the_gpu(capfd):
    """DEVICE.type == "cuda", getattr(torch, DEVICE.type).set_stream, x.is_cuda, x.device == DEVICE, and
    .cpu() giving a CPU tensor: as on a CUDA machine, while the data lives on the CPU."""
    run = captured("asks_the_device.py")
    assert run.exit_code == 0, capfd.readouterr().err
    assert "the script saw a GPU" in capfd.readouterr().out
    assert len(run.trace["launches"]) == 1


def test_grid_dependency_control_runs_as_what_it_means_between_launches(capfd):
    """gdc_wait / gdc_launch_dependents (programmatic dependent launch, with launch_pdl=True) only order launches;
    the interpreter lacks them, and runs launches one after another anyway."""
    run = captured("dependent_launch.py")
    assert run.exit_code == 0, capfd.readouterr().err
    assert "dependent launches: ok" in capfd.readouterr().out
    assert [launch.get("error") for launch in run.trace["launches"]] == [None, None]


def test_dtype_function_and_tuple_constexprs_reopen_and_what_cannot_is_not_modelled(tmp_path, capfd):
    run = captured("launch_kinds.py")
    assert run.exit_code == 0, capfd.readouterr().err
    variants = run.trace["variants"]
    assert [v["kernel"] for v in variants] == ["cast_kernel", "apply_kernel", "scale_kernel", "pair_kernel",
                                               "tagged_kernel"]
    for v in variants[:4]:
        assert v["source"] and v["same_binary"] and v["registers"] > 0, v
    assert variants[4]["source"] is None and variants[4]["rebuild"].startswith("not reopenable: UserError: argument TAG")
    tagged = run.trace["launches"][4]
    assert tagged["modelled_seconds"] is None and tagged["model_note"].startswith("not modelled: not reopenable")
    assert all(launch["modelled_seconds"] > 0 for launch in run.trace["launches"][:4])
    trace = tmp_path / "kinds.json"
    trace.write_text(json.dumps(run.trace))
    for n, meta in [(1, "OUT_DTYPE=fp16, BLOCK=256"), (2, "FN=JITFunction("), (3, "FACTORS=(2, 3), BLOCK=256"),
                    (4, "BLOCK=256")]:
        shown = cli("compile", f"{trace}#{n}")
        assert shown.returncode == 0, shown.stderr
        assert meta in next(line for line in shown.stdout.splitlines() if line.startswith("// meta"))
    assert "variant 5 (tagged_kernel) is not reopenable" in cli("compile", f"{trace}#5").stderr


PROJECT_TESTS = textwrap.dedent('''
    import pytest
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


    @pytest.mark.parametrize("n", [100, 1000])
    def test_double(n):
        x = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        assert x.is_cuda
        double_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        torch.testing.assert_close(out, x * 2)


    def test_a_wrong_expectation():
        x = torch.randn(10, device="cuda")
        out = torch.empty_like(x)
        double_kernel[(1,)](x, out, 10, BLOCK=16)
        torch.testing.assert_close(out, x * 3)
''')


def test_a_projects_own_tests_run_under_pytest_each_launch_attributed_to_its_test(tmp_path, capfd, monkeypatch):
    """`playground run -m pytest FILE`: pytest runs the file unchanged on the virtual GPU; its exit status is the
    run's, and every launch names the test it ran in."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_double.py").write_text(PROJECT_TESTS)
    monkeypatch.chdir(tmp_path)
    run = session.run_script("pytest", ["tests/test_double.py", "-q", "-p", "no:cacheprovider"], "sm_90", module=True)
    out = capfd.readouterr().out
    assert run.exit_code == 1 and "1 failed, 2 passed" in out
    assert run.trace["module"] == "pytest" and "script" not in run.trace
    assert [launch["test"] for launch in run.trace["launches"]] == [
        "tests/test_double.py::test_double[100]", "tests/test_double.py::test_double[1000]",
        "tests/test_double.py::test_a_wrong_expectation"]
    shown = text.lines(run.trace)
    assert any(line.startswith("tests/test_double.py::test_a_wrong_expectation") and line.split()[1:] == ["1", "2", "0", "0"]
               for line in shown), shown
    with pytest.raises(UserError, match="no module named 'no_such_test_runner'"):
        session.run_script("no_such_test_runner", [], "sm_90", module=True)


def test_a_gluon_launch_is_compiled_and_captured_and_says_in_one_line_that_it_is_not_run(capfd):
    run = captured("gluon_launch.py")
    captured_io = capfd.readouterr()
    assert run.exit_code == 0 and "copied: False" in captured_io.out
    assert ("copy_kernel: a Gluon kernel (@gluon.jit): Triton's interpreter does not run Gluon, so it was compiled, "
            "captured and modelled but not run; its outputs are left unwritten") in captured_io.err
    variant = run.trace["variants"][0]
    assert variant["registers"] > 0 and variant["same_binary"]


def test_wrap_triton_triton_op_and_extern_libs_launch_as_written_and_libdevice_runs(capfd):
    run = captured("launch_options.py")
    assert run.exit_code == 0, capfd.readouterr().err
    assert "launch options: ok" in capfd.readouterr().out
    assert [launch["kernel"] for launch in run.trace["launches"]] == ["add_kernel", "add_kernel", "asin_kernel"]


def test_a_launch_repeated_with_nothing_changed_runs_once_and_is_counted_and_modelled_each_time(capfd):
    """lightllm's hand-rolled timing loop: 50 identical copies run once in the interpreter; the copy after the
    script changes an input runs again; a kernel that reads what it writes runs every time."""
    run = captured("timing_loop.py")
    assert run.exit_code == 0, capfd.readouterr().err
    launches = run.trace["launches"]
    assert len(launches) == 50 + 1 + 5
    copies, again, counts = launches[:50], launches[50], launches[51:]
    assert copies[0]["executed"] and all(c.get("repeat_of") == 0 and not c["executed"] for c in copies[1:])
    assert again["executed"] and again.get("repeat_of") is None
    assert all(c["executed"] and c.get("repeat_of") is None for c in counts)
    assert all(launch["modelled_seconds"] > 0 for launch in launches)
    table = text.lines(run.trace)
    assert sum("as #1: skipped" in line for line in table) == text.LAUNCH_ROWS - 1     # the rows listed


def test_memcheck_and_racecheck_watch_every_interpreted_launch(capfd):
    run = captured("sanitized.py")
    err = capfd.readouterr().err
    assert run.exit_code == 0, err
    no_mask, racy = run.trace["launches"]
    assert len(no_mask["findings"]) == 1 and re.fullmatch(
        r"memcheck: (\S*/)?sanitized\.py:11: store of 24 lane\(s\) outside every tensor, the first lane \[232\] of "
        r"program \(3, 0, 0\): 1 element\(s\) past the end of 'y_ptr'", no_mask["findings"][0]), no_mask["findings"]
    assert re.match(r"racecheck: (\S*/)?sanitized\.py:16: programs \(0, 0, 0\) and \(1, 0, 0\) both store y_ptr\[0\] "
                    r"with tl\.store \(64 element\(s\)", racy["findings"][0]), racy["findings"]
    assert "playground: no_mask: memcheck: " in err
    assert any("interpreted: 1 sanitizer finding" in line for line in text.lines(run.trace))


def test_on_a_terminal_each_interpreted_launch_shows_a_status_line_and_clears_it():
    # the interpreter is the slow part of `run`: a terminal sees which launch it is on, then the line is erased
    import pty
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm"}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "run", str(SCRIPTS / "bf16_math.py"), "-t", "sm_90"],
                          stdout=subprocess.PIPE, stderr=follower, env=env, cwd=ROOT, timeout=300)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:          # the terminal's other end is closed and drained
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0
    text = shown.decode()
    assert "playground: launch 1, " in text and "running in Triton's interpreter" in text
    assert text.count("\r\x1b[K") >= 2           # shown, then cleared


def test_racecheck_takes_a_spin_lock_for_what_it_is(capfd):
    """Stores under one lock every program takes are ordered by it; a lock per program orders nothing, and neither
    does one program that skips the lock."""
    run = captured("locked_merge.py")
    assert run.exit_code == 0, capfd.readouterr().err
    one_lock, lock_each, one_skips = run.trace["launches"]
    assert "findings" not in one_lock and one_lock["executed"]
    for racy, other in ((lock_each, r"\(1, 0, 0\)"), (one_skips, r"\(2, 0, 0\)")):
        stores, loads = racy["findings"]
        assert re.match(rf"racecheck: (\S*/)?locked_merge\.py:19: programs \(0, 0, 0\) and {other} both store "
                        r"total_ptr\[0\] with tl\.store \(1 element\(s\) stored by more than one program", stores)
        assert re.match(rf"racecheck: (\S*/)?locked_merge\.py:19: program \(0, 0, 0\) loads total_ptr\[0\], which "
                        rf"program {other} stores at", loads)


def test_a_float_argument_and_libdevice_imported_by_name_run_as_compiled(capfd):
    """`eps.to(tl.float32)` on a float argument, `rsqrt` imported from libdevice by name, its scalar result stored
    through a scalar pointer (Liger-Kernel's RMSNorm): the interpreter runs them as the compiled kernel would."""
    run = captured("scalar_libdevice.py")
    out = capfd.readouterr()
    assert run.exit_code == 0, out.err
    (launch,) = run.trace["launches"]
    assert launch["executed"] and "error" not in launch
    difference = float(re.search(r"max difference (\S+)", out.out).group(1))
    assert difference < 1e-6, out.out


def test_a_library_that_registers_cuda_kernels_for_torchs_ops_has_them_run(capfd):
    """torch.library's CUDA kernels (FlagGems' enable()) run for the script's GPU tensors: the CPU build takes the
    registration but would never dispatch to it. A loop index turned to int32 runs as compiled; nvidia-smi answers
    for the virtual GPU, saying so."""
    run = captured("torch_library_kernels.py")
    out = capfd.readouterr().out
    assert run.exit_code == 0, out
    (launch,) = run.trace["launches"]
    assert launch["kernel"] == "relu_kernel" and launch["executed"] and "error" not in launch
    assert "gpu tensor: cuda:0 max difference 0.0" in out and "cpu tensor: cpu" in out
    assert "GPU 0: H100 SXM5 80GB (virtual: playground's stand-in nvidia-smi for the sm_90 target; there is no GPU " \
           "here)" in out


def test_a_tuple_of_tensors_argument_is_captured_reopened_as_the_same_binary_and_modelled(capfd):
    run = captured("tuple_argument.py")
    out = capfd.readouterr().out
    assert run.exit_code == 0 and "max difference 0.0" in out, out
    (launch,) = run.trace["launches"]
    assert [item["kind"] for item in launch["args"][0]["items"]] == ["tensor", "tensor"]
    assert launch["modelled_seconds"] > 0 and "model_note" not in launch
    (variant,) = run.trace["variants"]
    assert variant["same_binary"] and "16-byte aligned: pair[0], pair[1], out_ptr" in " ".join(text.lines(run.trace))


def test_a_gluon_layout_passed_to_a_launch_reopens_from_the_trace_as_the_same_binary(tmp_path, capfd):
    run = captured("gluon_layouts.py")
    assert run.exit_code == 0, capfd.readouterr().err
    variants = run.trace["variants"]
    assert len(variants) == 2 and all(v["same_binary"] and v["source"] for v in variants)
    assert all(launch["modelled_seconds"] > 0 for launch in run.trace["launches"])
    trace = tmp_path / "layouts.json"
    trace.write_text(json.dumps(run.trace))
    shown = cli("compile", f"{trace}#2", "--show", "ttgir")
    assert shown.returncode == 0, shown.stderr
    assert "#ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>" in shown.stdout


def test_a_custom_functions_backward_sees_its_gradient_and_saved_tensors_on_the_gpu(capfd):
    """torch's engine runs backward with no function mode on and makes the gradient in C++: both must still answer
    as on a GPU when the forward took GPU tensors, and stay on the CPU when it did not."""
    run = captured("autograd_on_gpu.py")
    out = capfd.readouterr().out
    assert run.exit_code == 0, out
    assert out.splitlines() == ["backward sees cuda:0 cuda:0 cuda:0", "grad cuda:0 True", "backward sees cpu cpu cpu"]
