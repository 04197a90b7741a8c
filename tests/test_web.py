"""The explorer's data and server, without a browser: the mapping, the guards, edits, save, export."""
import json
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import outcome

from playground.artefact import sourcemap
from playground.report import render
from playground.web import page, view

starlette = pytest.importorskip("starlette")
try:
    from starlette.testclient import TestClient
except (ImportError, RuntimeError):      # its HTTP client (httpx2) is a test extra: the compile-only venv lacks it
    pytest.skip("starlette's test client needs httpx2: pip install -e '.[test]'", allow_module_level=True)

from playground.web import server  # noqa: E402
from playground.web.workspace import Workspace  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token"


def text_of(stage: dict) -> str:
    """A stage pane's lines as text, its tokens joined."""
    return "\n".join("".join(t[1] for t in tokens) for tokens in stage["lines"])


@pytest.fixture(scope="module")
def gemm_view(gemm_sm90):
    return view.view(gemm_sm90, ["ttir", "ptx", "sass"])


def test_each_stage_line_carries_the_python_line_interleave_files_it_under(gemm_sm90, gemm_view):
    """The page's mapping is --interleave's: regroup the page's lines by Python line and compare."""
    file, first, last = sourcemap.kernel_lines(gemm_sm90.spec.kernel)
    for stage in ("ttir", "ptx"):
        groups = sourcemap.interleave(stage, gemm_sm90.stage(stage), file, first, last)
        expected = {}
        for g in groups:
            if g.line is not None and g.stage_lines:
                expected.setdefault(g.line, []).extend(l.rstrip() for l in g.stage_lines)
        shown = gemm_view["stages"][stage]
        got = {}
        for tokens, py in zip(shown["lines"], shown["map"]):
            if py is not None:
                got.setdefault(py, []).append("".join(t[1] for t in tokens))
        assert got == expected


def test_the_k_loop_dot_maps_to_wgmma_in_ptx_and_hgmma_in_sass(gemm_view):
    dot_line = next(i for i, l in enumerate(gemm_view["source"].splitlines(), 1) if "tl.dot(" in l)
    for stage, op in (("ptx", "wgmma.mma_async"), ("sass", "HGMMA")):
        lines = ["".join(t[1] for t in toks) for toks, py in zip(gemm_view["stages"][stage]["lines"],
                                                                  gemm_view["stages"][stage]["map"]) if py == dot_line]
        assert any(op in l for l in lines), stage
    assert str(dot_line) in gemm_view["colors"]


def test_the_figures_are_the_headers(gemm_sm90, gemm_view):
    chips = {c["name"]: c["value"] for c in gemm_view["figures"]}
    assert chips["registers"] == "122" and chips["spills"] == "none" and chips["shared"] == "96 KB"
    assert chips["occupancy"] == "25%" and chips["limiter"] == "registers, shared memory"
    assert chips["waves"] == "4 waves"
    assert gemm_view["header"] == render.header_lines(gemm_sm90)[:-1] + [gemm_view["header"][-1]]


def test_embedded_json_cannot_end_its_script_element():
    text = page.embed_json({"source": "# </script><script>alert(1)</script> & <!--"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["source"] == "# </script><script>alert(1)</script> & <!--"


# --- the server ---------------------------------------------------------------------------------

@pytest.fixture()
def kernel_copy(tmp_path):
    copy = tmp_path / "vector_add.py"
    shutil.copy(ROOT / "kernels" / "vector_add.py", copy)
    return copy


@pytest.fixture()
def client(kernel_copy):
    workspace = Workspace(str(kernel_copy), "sm_90")
    yield TestClient(server.create_app(workspace, TOKEN)), workspace
    workspace.close()


def api(client, path, body=None, **headers):
    headers = {"X-Playground-Token": TOKEN, **headers}
    if body is None:
        return client.get(path, headers=headers)
    return client.post(path, json=body, headers=headers)


def test_every_route_wants_the_token(client):
    c, _ = client
    for path in ("/", "/api/state"):
        assert c.get(path).status_code == 403
        assert c.get(path, headers={"X-Playground-Token": "wrong"}).status_code == 403
    assert c.post("/api/compile", json={}).status_code == 403
    page_response = c.get(f"/?token={TOKEN}")
    assert page_response.status_code == 200 and "PlaygroundExplorer.mount" in page_response.text
    assert "playground_token" in page_response.headers["set-cookie"]
    assert "samesite=strict" in page_response.headers["set-cookie"].lower()
    assert c.get("/api/state").status_code == 200        # the cookie now carries it


def test_other_origins_and_hosts_and_forms_are_refused(client):
    c, _ = client
    assert api(c, "/api/compile", {}, Origin="http://evil.example").status_code == 403
    assert api(c, "/api/state", **{"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert c.get(f"/?token={TOKEN}", headers={"Host": "evil.example:80"}).status_code == 403
    form = c.post("/api/save", data={"source": "x"}, headers={"X-Playground-Token": TOKEN})
    assert form.status_code == 403 and "JSON" in form.text
    assert api(c, "/api/state", Origin="http://testserver").status_code == 200


def test_an_edit_compiles_from_a_scratch_copy_and_leaves_the_file_alone(client, kernel_copy):
    c, workspace = client
    original = kernel_copy.read_text()
    edited = original.replace("x + y", "x * y")
    data = api(c, "/api/compile", {"target": "sm_90", "source": edited, "stages": ["ptx"]}).json()
    assert "error" not in data and "mul.f32" in text_of(data["stages"]["ptx"])
    assert data["file"] == str(kernel_copy.resolve()) and data["source"] == edited
    assert kernel_copy.read_text() == original
    plain = api(c, "/api/compile", {"target": "sm_90", "stages": ["ptx"]}).json()
    assert "add.f32" in text_of(plain["stages"]["ptx"]) and "mul.f32" not in text_of(plain["stages"]["ptx"])


def test_a_syntax_error_and_a_compile_error_come_back_at_their_line(client, kernel_copy):
    c, _ = client
    lines = kernel_copy.read_text().splitlines()
    store = next(i for i, l in enumerate(lines, 1) if "tl.store(" in l)
    broken = "\n".join(l.replace("x + y", "x + (y") if i == store else l for i, l in enumerate(lines, 1))
    data = api(c, "/api/compile", {"target": "sm_90", "source": broken}).json()
    assert data["line"] == store and "SyntaxError" in data["error"]
    undefined = "\n".join(l.replace("x + y", "x + yy") if i == store else l for i, l in enumerate(lines, 1))
    data = api(c, "/api/compile", {"target": "sm_90", "source": undefined}).json()
    assert data["line"] == store and "yy is not defined" in data["error"]
    assert "playground-serve-" not in data["error"] and f"{kernel_copy.name}:{store}" in data["error"]


def test_a_scratch_folder_is_made_only_for_an_edit(kernel_copy):
    workspace = Workspace(str(kernel_copy), "sm_90")
    try:
        workspace.compile({"target": "sm_90"})
        assert workspace._scratch is None
        workspace.compile({"target": "sm_90", "source": kernel_copy.read_text() + "# edit\n"})
        scratch = workspace._scratch
        assert scratch is not None and scratch.is_dir()
    finally:
        workspace.close()
    assert not scratch.exists()


def test_the_page_offers_the_gpus_by_name_and_their_backends(kernel_copy):
    workspace = Workspace(str(kernel_copy), "l40s")
    try:
        state = workspace.state()
        assert state["target"] == "l40s" and {"l40s", "h100-pcie", "mi325x"} <= set(state["targets"])
        assert (state["backends"]["l40s"], state["backends"]["mi325x"], state["backends"]["gfx942"]) == \
            ("cuda", "hip", "hip")
    finally:
        workspace.close()


def test_the_controls_change_the_compile(client):
    c, _ = client
    data = api(c, "/api/compile", {"target": "sm_80", "num_warps": "8", "meta": "BLOCK_SIZE=2048"}).json()
    assert data["target"] == "sm_80" and data["config"]["num_warps"] == 8
    assert data["config"]["meta"]["BLOCK_SIZE"] == 2048
    bad = api(c, "/api/compile", {"target": "sm_80", "num_warps": "eight"}).json()
    assert bad["error"] == "num_warps: expected a whole number, got 'eight'"


def test_save_writes_the_file_and_refuses_when_it_changed_on_disk(client, kernel_copy):
    c, _ = client
    kernel_copy.chmod(0o640)
    text = kernel_copy.read_text() + "\n# saved from the page\n"
    assert api(c, "/api/save", {"source": text}).json() == {"saved": str(kernel_copy.resolve()), "bytes": len(text)}
    assert kernel_copy.read_text() == text and kernel_copy.stat().st_mode & 0o777 == 0o640
    kernel_copy.write_text(text + "# someone else's edit\n")       # changed behind the page's back
    refused = api(c, "/api/save", {"source": text + "# the page's edit\n"})
    assert refused.status_code == 400 and "changed on disk since it was opened" in refused.json()["error"]
    assert kernel_copy.read_text() == text + "# someone else's edit\n"


def test_diff_compares_two_targets_with_deltas(client):
    c, _ = client
    data = api(c, "/api/diff", {"a": {"target": "sm_90"}, "b": {"target": "gfx942"}, "stage": "ptx"}).json()
    assert data["a"]["stage"] == "ptx" and data["b"]["stage"] == "ttgir"     # gfx942 has no PTX: its first pane
    rows = {r["name"]: r for r in data["figures"]}
    assert rows["registers"]["changed"] or rows["blocks per SM"]["changed"]


def test_a_trace_lists_its_variants_and_opens_one(vector_add_trace):
    trace = vector_add_trace
    workspace = Workspace(str(trace), None)
    try:
        state = workspace.state()
        assert state["target"] == "sm_80" and not state["editable"]
        assert state["trace"]["variants"][0]["ref"] == f"{trace}#1"
        launches = state["trace"]["launches"]
        assert state["trace"]["total_launches"] == len(launches) > 1
        assert launches[0]["compile"] == "new compile" and launches[0]["variant"] == 1 and launches[0]["grid"]
        assert {l["compile"] for l in launches[1:]} >= {"cache hit"}
        data = workspace.compile({"stages": ["sass"]})
        assert data["target"] == "sm_80" and data["stages"]["sass"]["lines"]
    finally:
        workspace.close()


# --- the command --------------------------------------------------------------------------------

def test_serve_prints_a_tokened_url_refuses_without_it_and_stops_on_one_ctrl_c(kernel_copy):
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "serve", str(kernel_copy), "--target", "sm_90"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{20,}", url), url
        bare = url.split("?")[0]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare, timeout=10)
        assert refused.value.code == 403
        with urllib.request.urlopen(url, timeout=10) as ok:
            assert ok.status == 200 and b"PlaygroundExplorer" in ok.read()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) in (0, 130)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in proc.stderr.read()


def test_serve_warns_when_it_listens_beyond_this_machine(kernel_copy):
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "serve", str(kernel_copy), "--target", "sm_90",
                             "--host", "0.0.0.0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = proc.stdout.readline().strip()
        with urllib.request.urlopen(url, timeout=10) as ok:       # loopback still answers; the token still counts
            assert ok.status == 200
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url.split("?")[0], timeout=10)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read()
    assert "warning: --host 0.0.0.0: the page runs Python in this process" in err


def test_serve_an_unknown_kernel_is_one_line():
    code, out, err = outcome("serve", "no_such_kernel")
    assert code == 2 and err.startswith("error: unknown kernel 'no_such_kernel'") and len(err.splitlines()) == 1


def test_compile_html_writes_one_page_and_never_overwrites(tmp_path, gemm_sm90):
    target = tmp_path / "gemm.html"
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--html", str(target))
    assert code == 0 and target.exists() and "wrote" in err
    html = target.read_text()
    assert html.startswith("<!DOCTYPE html>") and "PlaygroundExplorer.mount" in html
    assert "http://" not in html.split("<script>")[0] and "src=" not in html     # nothing loaded from anywhere
    config = json.loads(re.search(r'<script type="application/json" id="[\w-]+">(.*?)</script>', html).group(1))
    assert set(config["data"]["stages"]) == {"ttir", "ttgir", "llir", "ptx", "sass"}
    target.write_text("mine")
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--html", str(target))
    assert code == 2 and "exists; use --force" in err and target.read_text() == "mine"


def test_a_compiled_kernel_shows_itself_in_a_notebook(gemm_sm90):
    html = gemm_sm90._repr_html_()
    assert html.startswith('<div class="pg-explorer" id="pg-') and "PlaygroundExplorer.mount" in html
    assert "<!DOCTYPE" not in html


def test_amd_figures_name_vgprs_and_wave_slots():
    from playground.artefact.request import Request
    c = Request.of("softmax", "gfx942").compile()
    chips = {chip["name"]: chip for chip in view.figures(c)}
    assert chips["registers"]["value"] == f"{c.resources.vgprs} VGPR + {c.resources.agprs} AGPR"
    assert chips["registers"]["title"].endswith("SGPRs per wave")
    assert chips["limiter"]["value"] == "wave slots" and chips["occupancy"]["value"] == "100%"
    data = view.view(c)
    assert list(data["stages"]) == ["ttgir", "amdgcn"] and any(p is not None for p in data["stages"]["amdgcn"]["map"])


def test_html_refuses_options_it_would_ignore_and_serve_a_port_out_of_range(tmp_path):
    code, out, err = outcome("compile", "gemm", "--target", "sm_90", "--html", str(tmp_path / "g.html"), "--passes")
    assert code == 2 and err.strip() == "error: --html writes the page and prints nothing else; drop --passes"
    assert not (tmp_path / "g.html").exists()
    code, out, err = outcome("serve", "gemm", "--port", "99999")
    assert code == 2 and "99999 is not in the range" in err and len(err.splitlines()) == 1


def test_serve_opens_an_installed_modules_bare_kernel_with_its_args():
    """`serve MODULE:KERNEL --args ...`: the kernel of a package pip installed (Liger-Kernel), opened by name."""
    args = ("Y_ptr=bfloat16[8192,4096], Y_row_stride=4096, X_ptr=bfloat16[8192,4096], X_row_stride=4096, "
            "W_ptr=bfloat16[4096], W_row_stride=1, RSTD_ptr=float32[8192], RSTD_row_stride=1, n_cols=4096, eps=1e-6, "
            "offset=0.0, casting_mode=0, elementwise_affine=true, BLOCK_SIZE=4096, grid=8192")
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), "serve",
                             "liger_kernel.ops.rms_norm:_rms_norm_forward_kernel", "--args", args, "--target", "sm_90"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{20,}", url), proc.stderr.read()
        base, _, token = url.partition("/?token=")
        with urllib.request.urlopen(f"{base}/api/state?token={token}", timeout=10) as ok:
            state = json.loads(ok.read())
        assert state["kernel"] == "_rms_norm_forward_kernel" and state["file"].endswith("liger_kernel/ops/rms_norm.py")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_page_data_carries_control_codes_live_registers_and_opcode_words(gemm_view):
    """SASS lines carry their control codes and live registers; every pane's instructions their opcode's entry;
    the source its live registers by line, the same as the terminal's profile."""
    from playground.artefact import live_registers
    sass = gemm_view["stages"]["sass"]
    instructions = [i for i, c in enumerate(sass["control"]) if c]
    assert len(instructions) > 500 and all(sass["control"][i].startswith("S") for i in instructions)
    assert sum(sass["live"][i] is not None for i in instructions) >= 0.95 * len(instructions)
    hgmma = [i for i, op in enumerate(sass["ops"]) if op == "HGMMA"]
    assert len(hgmma) == 4 and all(sass["control"][i] for i in hgmma)
    assert "warpgroup" in sass["explained"]["HGMMA"].lower()
    assert gemm_view["stages"]["ptx"]["explained"]
    assert gemm_view["live"] and gemm_view["live_note"].startswith("live registers")
