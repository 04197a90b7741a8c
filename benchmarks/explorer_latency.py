"""How fast the explorer page answers an edit, against the library doing the same compile, in one run.

The page: `playground serve`'s app (in a thread) and headless Chromium, gemm on sm_90 with its PTX
and SASS panes. Two kinds of edit, each undone the next round so that Triton's cache answers, as
it does for most edits that are tried and taken back:
- outside the kernel (a comment at the end of the file): the binary is the same, and the panes,
  told "same" by their digest, are not redrawn;
- inside the kernel (the epilogue scaled by 2, then not): another binary, both panes redrawn.
The page's figure is its own: from the input event to the panes drawn
(`explorer.stats.lastEditToUpdateMs`), less the debounce it waits on purpose (DEBOUNCE_MS, explorer.js).

The library: the same request in-process, `Request.of(copy).compile()` on a fresh copy of the edited
file (a new module, as the page's scratch copy is), plus `view.view` for the same two panes.

Goal: each within 2x the library's compile-and-view (issue 16: a cache hit comes back fast; what
is left over is HTTP, JSON and drawing). Medians of ROUNDS.
"""
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ROUNDS = int(os.environ.get("ROUNDS", "9"))
DEBOUNCE_MS = 450          # explorer.js
GOAL = 2.0


EPILOGUE = "    c = accumulator.to(c_ptr.dtype.element_ty)\n"
SCALED = "    c = (accumulator * 2).to(c_ptr.dtype.element_ty)\n"


def edited(text: str, kind: str, i: int) -> str:
    """Round i's text: odd rounds carry the edit, even ones are back to the start."""
    if i % 2 == 0:
        return text
    return text + "#\n" if kind == "outside" else text.replace(EPILOGUE, SCALED)


def library_ms(folder: Path, text: str, kind: str, rounds: int, tag: str) -> list[float]:
    from playground.artefact.request import Request
    from playground.web import view
    times = []
    for i in range(rounds):
        copy = folder / f"lib-{tag}-{kind}-{i}" / "gemm.py"
        copy.parent.mkdir()
        copy.write_text(edited(text, kind, i + 1))
        start = time.perf_counter()
        c = Request.of(f"{copy}:gemm", "sm_90").compile()
        view.view(c, ["ptx", "sass"], source=copy.read_text())
        times.append((time.perf_counter() - start) * 1000)
    return times


def page_ms(folder: Path, text: str, rounds: int) -> dict[str, list[float]]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from playground.web import server
    from playground.web.workspace import Workspace
    kernel = folder / "gemm.py"
    kernel.write_text(text)
    served = server.Background(Workspace(str(kernel), "sm_90"))
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--window-size=1600,1000"):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    times = {"outside": [], "inside": []}
    compiles = 1
    try:
        driver.get(served.url)
        wait(driver, compiles)
        for kind in times:
            for i in range(1, rounds + 1):
                # the whole text replaced, then one input event: the page's own edit path
                driver.execute_script("var t = document.querySelector('.pane.source textarea'); t.value = arguments[0];"
                                      "t.dispatchEvent(new Event('input'));", edited(text, kind, i))
                compiles += 1
                wait(driver, compiles)
                stats = driver.execute_script("return document.querySelector('.pg-explorer').explorer.stats")
                times[kind].append(stats["lastEditToUpdateMs"] - DEBOUNCE_MS)
                print("debug", kind, stats) if os.environ.get("DEBUG") else None
    finally:
        driver.quit()
        served.close()
    return times


def wait(driver, compiles: int):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if driver.execute_script(f"return +document.querySelector('.pg-explorer').dataset.compiles >= {compiles}"):
            return
        time.sleep(0.01)
    raise SystemExit("the page did not update")


def main():
    with tempfile.TemporaryDirectory(prefix="playground-bench-") as tmp:
        folder = Path(tmp)
        text = (ROOT / "kernels" / "gemm.py").read_text()
        assert EPILOGUE in text
        for kind in ("outside", "inside"):
            library_ms(folder, text, kind, 2, "warm")     # Triton's cache holds both texts' binaries
        page = page_ms(folder, text, ROUNDS)
        library = {kind: library_ms(folder, text, kind, ROUNDS, "timed") for kind in page}
    print(f"gemm on sm_90, PTX and SASS panes, each edit a Triton cache hit; medians of {ROUNDS}; "
          f"the page's time less its {DEBOUNCE_MS} ms debounce")
    for kind, what in (("outside", "edit outside the kernel (same binary, panes kept)"),
                       ("inside", "edit inside the kernel (another binary, panes redrawn)")):
        p, lib = statistics.median(page[kind]), statistics.median(library[kind])
        ratio = p / lib
        print(f"  {what}: page {p:6.1f} ms, library {lib:6.1f} ms, "
              f"ratio {ratio:.2f}x (goal <= {GOAL:.1f}x): {'met' if ratio <= GOAL else 'NOT MET'}")


if __name__ == "__main__":
    main()
