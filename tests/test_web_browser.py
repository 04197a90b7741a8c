"""The explorer in a real browser: Debian's headless Chromium driven by selenium (scripts/test.sh installs
both; without them these tests skip). The server is the app `playground serve` runs, on a free port.

PLAYGROUND_SCREENSHOT=docs/explorer.png makes test_screenshot write the README's picture.
"""
import os
import re
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from playground.web import server  # noqa: E402
from playground.web.workspace import Workspace  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
pytestmark = pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)),
                                reason="needs Debian's chromium and chromium-driver (scripts/test.sh installs them)")
ROOT = Path(__file__).resolve().parent.parent
WAIT_S = 60


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--window-size=1600,1000", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic"):
        options.add_argument(flag)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def Served(ref: str, target: str = "sm_90") -> server.Background:
    """`playground serve`'s app for one workspace, on a free loopback port, in a thread of the test."""
    return server.Background(Workspace(ref, target), "browser-token")


@pytest.fixture(scope="module")
def gemm_page():
    served = Served("gemm")
    yield served
    served.close()


def wait_for(driver, script: str, what: str):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def root_data(driver, key):
    return driver.execute_script(f"return document.querySelector('.pg-explorer').dataset.{key}")


def open_page(driver, url, compiles=1):
    driver.get(url)
    wait_for(driver, f"var r = document.querySelector('.pg-explorer'); return r && +r.dataset.compiles >= {compiles}",
             "the first compile")


def chips(driver) -> dict:
    """The header's figures as the page shows them: {figure: value}."""
    return driver.execute_script("var out = {}; document.querySelectorAll('.chip').forEach("
                                 "c => out[c.dataset.figure] = c.lastChild.textContent); return out")


def severe_console_entries(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def source_line_number(driver, text):
    return driver.execute_script(
        "return document.querySelector('.pg-explorer textarea').value.split('\\n')"
        ".findIndex(l => l.indexOf(arguments[0]) >= 0) + 1", text)


def click_source_line(driver, line):
    """Click the editor where line `line` is, as a person would (the textarea lies over the coloured lines)."""
    target = driver.find_element(By.CSS_SELECTOR, f".pane.source .line[data-py='{line}']")
    driver.execute_script("var box = document.querySelector('.pane.source .scroll');"
                          "box.scrollTop = arguments[0].offsetTop - 100;", target)
    # near the line's left end: the line is as wide as the file's widest, often wider than the pane
    x_from_centre = -target.size["width"] // 2 + 90
    ActionChains(driver).move_to_element_with_offset(target, x_from_centre, 0).click().perform()


def selected_lines(driver, stage):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(`.pane.stage[data-stage='${arguments[0]}'] .line.sel`))"
        ".map(n => n.textContent)", stage)


def test_the_page_loads_with_no_console_errors(browser, gemm_page):
    open_page(browser, gemm_page.url)
    assert severe_console_entries(browser) == []
    shown = chips(browser)
    assert shown["registers"] == "122" and shown["occupancy"] == "25%" and shown["spills"] == "none"
    panes = [p.get_attribute("data-stage") for p in browser.find_elements(By.CSS_SELECTOR, ".pane.stage")]
    assert panes == ["ptx", "sass"]


def test_clicking_the_k_loop_dot_lights_its_wgmma_and_hgmma_lines(browser, gemm_page):
    open_page(browser, gemm_page.url)
    dot = source_line_number(browser, "tl.dot(")
    click_source_line(browser, dot)
    assert root_data(browser, "selected") == str(dot)
    ptx, sass = selected_lines(browser, "ptx"), selected_lines(browser, "sass")
    assert any("wgmma.mma_async" in line for line in ptx)
    assert any("HGMMA" in line for line in sass)
    # every lit line is one the mapping gives this Python line, and only those
    mapped = browser.execute_script(
        "return document.querySelectorAll(`.pane.stage[data-stage='sass'] .line[data-py='${arguments[0]}']`).length", dot)
    assert len(sass) == mapped
    assert "sel" in browser.find_element(By.CSS_SELECTOR, f".pane.source .line[data-py='{dot}']").get_attribute("class")


def test_clicking_a_stage_line_goes_back_to_its_python_line(browser, gemm_page):
    open_page(browser, gemm_page.url)
    dot = source_line_number(browser, "tl.dot(")
    hgmma = browser.find_element(By.XPATH, f"//section[@data-stage='sass']//div[@data-py='{dot}']"
                                           "[contains(., 'HGMMA')]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", hgmma)
    hgmma.click()
    assert root_data(browser, "selected") == str(dot)
    source = browser.find_element(By.CSS_SELECTOR, f".pane.source .line[data-py='{dot}']")
    assert "sel" in source.get_attribute("class")
    # the editor scrolled to it: the line is inside the source pane's visible box
    assert browser.execute_script("var box = document.querySelector('.pane.source .scroll');"
                                  "var top = arguments[0].offsetTop; return top >= box.scrollTop && "
                                  "top < box.scrollTop + box.clientHeight", source)


def test_changing_block_size_k_changes_registers_and_occupancy(browser, gemm_page):
    open_page(browser, gemm_page.url)
    before = chips(browser)
    meta = browser.find_element(By.NAME, "meta")
    meta.clear()
    meta.send_keys("BLOCK_SIZE_K=128", Keys.ENTER)
    wait_for(browser, "return +document.querySelector('.pg-explorer').dataset.compiles >= 2", "the recompile")
    after = chips(browser)
    assert after["shared"] == "192 KB" and before["shared"] == "96 KB"
    assert after["occupancy"] == "12.5%" and after["registers"] != before["registers"]
    changed = browser.find_elements(By.CSS_SELECTOR, ".chip.changed")
    assert {c.get_attribute("data-figure") for c in changed} >= {"shared", "occupancy", "registers"}


@pytest.fixture()
def own_kernel(tmp_path):
    copy = tmp_path / "vector_add.py"
    text = (ROOT / "kernels" / "vector_add.py").read_text()
    copy.write_text(text.replace('"""vector_add:', '"""vector_add </script><script>window.pwned = 1</script>:', 1)
                    .replace("    tl.store(", "    # <script>window.pwned = 2</script> <b>bold?</b>\n    tl.store(", 1))
    served = Served(str(copy))
    yield served, copy
    served.close()


def test_a_syntax_error_shows_at_its_line_and_fixing_it_recompiles(browser, own_kernel):
    served, copy = own_kernel
    open_page(browser, served.url)
    store = source_line_number(browser, "tl.store(")
    editor = browser.find_element(By.CSS_SELECTOR, ".pane.source textarea")
    # put the caret at the end of the store line and break it
    browser.execute_script("var t = arguments[0]; var lines = t.value.split('\\n'); var at = 0;"
                           "for (var i = 0; i < arguments[1]; i++) at += lines[i].length + 1;"
                           "t.focus(); t.setSelectionRange(at - 1, at - 1);", editor, store)
    editor.send_keys(" (")
    wait_for(browser, "return document.querySelector('.pg-explorer').dataset.error", "the error")
    assert root_data(browser, "error") == str(store)
    box = browser.find_element(By.CSS_SELECTOR, ".pane.source .error")
    assert box.is_displayed() and box.text.startswith(f"line {store}: ") and "SyntaxError" in box.text
    assert "errline" in browser.find_element(By.CSS_SELECTOR, f".pane.source .line[data-py='{store}']").get_attribute("class")
    compiles = int(root_data(browser, "compiles"))
    editor.send_keys(Keys.BACKSPACE, Keys.BACKSPACE)
    wait_for(browser, f"var r = document.querySelector('.pg-explorer'); return !r.dataset.error && +r.dataset.compiles > {compiles}",
             "the recompile")
    assert not box.is_displayed()
    assert copy.read_text().count("tl.store(") == 1 and " (" not in copy.read_text().splitlines()[store - 1][-3:]
    stats = browser.execute_script("return document.querySelector('.pg-explorer').explorer.stats")
    assert stats["lastEditToUpdateMs"] > 0


def test_script_tags_in_a_kernel_are_text(browser, own_kernel):
    served, _ = own_kernel
    open_page(browser, served.url)
    assert browser.execute_script("return window.pwned") is None
    assert "<script>window.pwned = 2</script>" in browser.find_element(By.CSS_SELECTOR, "textarea").get_attribute("value")
    assert browser.find_elements(By.CSS_SELECTOR, ".pg-explorer b") == [] or all(
        b.text in ("registers", "spills", "shared", "occupancy", "limiter", "waves", "what-if")
        for b in browser.find_elements(By.CSS_SELECTOR, ".pg-explorer b"))
    assert severe_console_entries(browser) == []


def test_a_request_without_the_token_gets_403(gemm_page):
    bare = gemm_page.url.split("?")[0]
    for path in ("", "api/state"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare + path, timeout=10)
        assert refused.value.code == 403


def test_the_static_export_opens_from_a_file_url_and_links_the_same_lines(browser, gemm_page, tmp_path, gemm_sm90):
    open_page(browser, gemm_page.url)
    dot = source_line_number(browser, "tl.dot(")
    click_source_line(browser, dot)
    served_sass = selected_lines(browser, "sass")
    from playground.web import export
    page = export.write_html(gemm_sm90, str(tmp_path / "gemm.html"))
    browser.get(page.resolve().as_uri())
    wait_for(browser, "return document.querySelector('.pane.stage[data-stage=sass] .line')", "the static page")
    click_source_line(browser, dot)
    assert root_data(browser, "selected") == str(dot)
    assert selected_lines(browser, "sass") == served_sass and served_sass
    assert severe_console_entries(browser) == []


def test_compare_sets_two_targets_side_by_side_with_their_deltas(browser, gemm_page):
    open_page(browser, gemm_page.url)
    browser.find_element(By.CSS_SELECTOR, "button[data-tab='compare']").click()
    from selenium.webdriver.support.ui import Select
    Select(browser.find_element(By.NAME, "target_b")).select_by_value("sm_80")
    Select(browser.find_element(By.CSS_SELECTOR, "select[aria-label='compared stage']")).select_by_value("sass")
    wait_for(browser, "var t = document.querySelectorAll('.pane .pane-head span'); return Array.from(t)"
                      ".some(s => s.textContent === 'B: sm_80 SASS')", "the comparison")
    rows = browser.execute_script("var out = {}; document.querySelectorAll('tr[data-figure]').forEach("
                                  "r => out[r.dataset.figure] = [r.children[1].textContent, r.children[2].textContent]);"
                                  "return out")
    assert rows["registers"][0] == "122" and rows["registers"][1] != "122"
    assert rows["HGMMA" if "HGMMA" in rows else "wgmma"][0] != "0"
    text = browser.execute_script("return Array.from(document.querySelectorAll('.pane pre.code')).map(p => p.textContent)")
    assert any("HGMMA" in t for t in text) and any("HMMA.16816" in t for t in text)


def test_the_passes_tab_finds_the_pass_and_shows_its_diff(browser, gemm_page):
    open_page(browser, gemm_page.url)
    browser.find_element(By.CSS_SELECTOR, "button[data-tab='passes']").click()
    wait_for(browser, "return document.querySelectorAll('tr[data-pass]').length > 50", "the pass list")
    find = browser.find_element(By.CSS_SELECTOR, "input[placeholder^='find']")
    find.send_keys("ttng.warp_group_dot", Keys.ENTER)
    wait_for(browser, "return document.querySelector('tr[data-pass].on')", "the found pass")
    row = browser.find_element(By.CSS_SELECTOR, "tr[data-pass].on")
    assert "tritongpu-accelerate-matmul" in row.text
    wait_for(browser, "return Array.from(document.querySelectorAll('.line.add'))"
                      ".some(l => l.textContent.indexOf('ttng.warp_group_dot') >= 0)", "the pass's diff")


def test_a_third_pane_shows_another_stage(browser, gemm_page):
    open_page(browser, gemm_page.url)
    browser.find_element(By.XPATH, "//button[text()='+ pane']").click()
    wait_for(browser, "return document.querySelectorAll('.pane.stage[data-stage]').length === 3", "a third pane")
    stages = [p.get_attribute("data-stage") for p in browser.find_elements(By.CSS_SELECTOR, ".pane.stage")]
    assert stages == ["ptx", "sass", "ttir"]
    dot = source_line_number(browser, "tl.dot(")
    click_source_line(browser, dot)
    assert any("tt.dot" in line for line in selected_lines(browser, "ttir"))


def test_a_trace_opens_as_its_launches_and_each_opens_in_explore(browser, vector_add_trace):
    trace = vector_add_trace
    served = Served(str(trace), None)
    try:
        open_page(browser, served.url)
        browser.find_element(By.CSS_SELECTOR, "button[data-tab='launches']").click()
        assert "add_kernel" in browser.find_element(By.CSS_SELECTOR, "tr[data-variant='1']").text
        row = browser.find_element(By.CSS_SELECTOR, "tr[data-launch='0']")
        assert "add_kernel" in row.text and "new compile" in row.text
        row.click()
        wait_for(browser, "return +document.querySelector('.pg-explorer').dataset.compiles >= 2", "the variant")
        assert browser.find_element(By.CSS_SELECTOR, "button[data-tab='explore']").get_attribute("class") == "on"
        assert browser.find_element(By.CSS_SELECTOR, "textarea").get_attribute("readonly") == "true"
        assert chips(browser)["registers"].isdigit()
    finally:
        served.close()


def test_switching_to_an_amd_target_shows_its_stages_and_back(browser, gemm_page):
    from selenium.webdriver.support.ui import Select
    open_page(browser, gemm_page.url)
    shown = lambda: [p.get_attribute("data-stage") for p in browser.find_elements(By.CSS_SELECTOR, ".pane.stage")]
    Select(browser.find_element(By.NAME, "target")).select_by_value("gfx942")
    wait_for(browser, "return +document.querySelector('.pg-explorer').dataset.compiles >= 2", "the AMD compile")
    assert shown() == ["ttgir", "amdgcn"]
    assert browser.execute_script("return document.querySelectorAll(\".pane.stage[data-stage='amdgcn'] .line\").length") > 100
    Select(browser.find_element(By.NAME, "target")).select_by_value("sm_80")
    wait_for(browser, "return +document.querySelector('.pg-explorer').dataset.compiles >= 3", "the sm_80 compile")
    assert shown() == ["ptx", "sass"]


def test_a_clicked_stage_line_stays_in_view(browser, gemm_page):
    open_page(browser, gemm_page.url)
    dot = source_line_number(browser, "tl.dot(")
    lines = browser.find_elements(By.XPATH, f"//section[@data-stage='sass']//div[@data-py='{dot}'][contains(., 'HGMMA')]")
    last = lines[-1]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", last)
    last.click()
    assert browser.execute_script("var box = arguments[0].closest('.scroll'); var top = arguments[0].offsetTop;"
                                  "return top >= box.scrollTop && top < box.scrollTop + box.clientHeight", last)


def test_screenshot(browser, gemm_page):
    """The README's picture (only when PLAYGROUND_SCREENSHOT names where): the K loop's dot selected."""
    target = os.environ.get("PLAYGROUND_SCREENSHOT")
    if not target:
        pytest.skip("set PLAYGROUND_SCREENSHOT=docs/explorer.png to write the README's screenshot")
    open_page(browser, gemm_page.url)
    click_source_line(browser, source_line_number(browser, "tl.dot("))
    browser.save_screenshot(target)
    assert Path(target).stat().st_size > 10_000


def test_a_sass_line_explains_itself_and_the_control_column_toggles(browser, gemm_page):
    """Hovering an instruction shows its control codes, the registers live at it and what its opcode does; the
    "control codes" button shows the column; each source line carries its live registers (peak · last)."""
    open_page(browser, gemm_page.url)
    dot = source_line_number(browser, "tl.dot(")
    hgmma = browser.find_element(By.XPATH, f"//section[@data-stage='sass']//div[@data-py='{dot}'][contains(., 'HGMMA')]")
    title = hgmma.get_attribute("title")
    assert re.search(r"^control S\d\d [Y-] W[0-5-] R[0-5-] B[0-5-]{6} [a-d-]{4}$", title, re.M), title
    assert re.search(r"^\d+ registers live$", title, re.M) and "HGMMA: " in title
    column = hgmma.find_element(By.CSS_SELECTOR, ".cc")
    assert not column.is_displayed()
    browser.find_element(By.XPATH, "//button[text()='control codes']").click()
    assert column.is_displayed() and column.text.startswith("[S")
    badge = browser.find_element(By.CSS_SELECTOR, f".pane.source .line[data-py='{dot}'] .live")
    peak, last = (int(n) for n in re.findall(r"\d+", badge.text))
    assert 64 <= last <= peak <= 122          # the 128x128 fp32 accumulator over 256 threads is 64 registers
