#!/usr/bin/env bash
# The whole test suite on a fresh machine: the README's test command, and what .ci/run calls.
#
# 1. .venv: the newest supported Triton with torch's CPU build, for every test.
# 2. .venv-stack: torch 2.14.1's CUDA build and its Triton 3.8 (what a plain `pip install torch` gives), for the
#    tour's smoke suite (-m stack).
# 3. .venv-triton36: the oldest supported Triton (no torch), for the compile-path tests.
# Each is created on first use and reused after; pass --fresh to rebuild them. Other arguments
# go to pytest. Every stage runs even when one before it failed; each is reported, and the script
# fails at the end if any did.
set -uo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if [[ "${1:-}" == "--fresh" ]]; then rm -rf .venv .venv-stack .venv-triton36; shift; fi

make_venv() {  # make_venv DIR PIP_ARGS...
  local dir=$1; shift
  if [[ ! -x "$dir/bin/python" ]]; then
    "$PYTHON" -m venv "$dir" && "$dir/bin/python" -m pip install -q --upgrade pip || return 1
  fi
  "$dir/bin/python" -m pip install -q "$@"
}

declare -a results=()
failed=0
stage() {  # stage NAME COMMAND...: run it, remember how it ended
  local name=$1; shift
  echo "== $name"
  if "$@"; then results+=("passed  $name"); else results+=("FAILED  $name (exit $?)"); failed=1; fi
}

# The explorer's browser tests drive Debian's chromium through its chromedriver (nothing downloads a
# browser). Installed when missing and we may (root, apt); otherwise those tests skip and say why.
install_chromium() {
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then return 0; fi
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "chromium and chromium-driver are not installed (needs root and apt): the browser tests will skip"
    return 0
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null; }
}

# torch is pinned to 2.13.0: its CPU build is what these machines carry (a plain `torch` would
# pull a multi-GB CUDA build). Triton is pinned to the versions the suite covers.
stage "install chromium and chromium-driver (the browser tests)" install_chromium
# `check --ref` runs untrusted code under bubblewrap where it is installed (check/code/sandbox.py): read-only file
# system, no network, a process namespace. Installed as chromium is; without it those protections are reported
# missing and the test that needs them skips.
install_bubblewrap() {
  if command -v bwrap >/dev/null; then return 0; fi
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "bubblewrap is not installed (needs root and apt): the sandbox's kernel-enforced test will skip"
    return 0
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null; }
}
stage "install bubblewrap (check's sandbox)" install_bubblewrap
stage "install .venv (triton 3.9, torch 2.13 CPU)" make_venv .venv torch==2.13.0 triton==3.9.0 -e ".[test]"
# Real projects' own test suites, as their source distributions ship them (tests/third_party/suites.txt pins each
# by version and sha256); tests/test_third_party_suites.py runs them under `playground run -m pytest`.
unpack_suites() {
  local dir=tests/third_party/suites
  mkdir -p "$dir/sdists" && .venv/bin/python -m pip download -q --no-deps --no-binary :all: --require-hashes \
    -r tests/third_party/suites.txt -d "$dir/sdists" || return 1
  local sdist
  for sdist in "$dir"/sdists/*.tar.gz; do tar -xzf "$sdist" -C "$dir" || return 1; done
}
stage "download two real projects' test suites (tests/third_party/suites.txt)" unpack_suites
# Real projects' kernel packages, opened where pip puts them (tests/test_installed_kernels.py). --no-deps: FlagGems
# pins numpy and friends to versions that would move the suite's; their runtime needs are in the `test` extra.
stage "install real projects' kernel packages (tests/third_party/packages.txt)" \
  .venv/bin/python -m pip install -q --no-deps --require-hashes -r tests/third_party/packages.txt
# pytest-xdist runs the tests on every core (tests/conftest.py's scheduler keeps each file, and each lesson,
# on one worker): the suite spends most of its time in compilers and child processes, and halves on two cores.
PARALLEL=(-n auto --dist loadgroup)
stage "triton 3.9 (newest supported): the whole suite" .venv/bin/python -m pytest "${PARALLEL[@]}" "$@"
# The stack a user gets from a plain `pip install torch`: torch 2.14.1's CUDA build (several GB; pip's cache keeps it)
# with the Triton 3.8 it pins, on this machine with no GPU. The tour's smoke suite runs on it (tests/test_stack.py).
stage "install .venv-stack (torch 2.14.1, the CUDA build, and the triton it pins)" \
  make_venv .venv-stack torch==2.14.1 -e ".[stack-tests]"
stage "torch 2.14.1 (what pip gives): the tour's smoke suite" .venv-stack/bin/python -m pytest "${PARALLEL[@]}" -m stack "$@"
stage "install .venv-triton36 (triton 3.6, no torch)" make_venv .venv-triton36 triton==3.6.0 -e ".[compile-tests]"
stage "triton 3.6 (oldest supported): the compile path" .venv-triton36/bin/python -m pytest "${PARALLEL[@]}" -m "compile and not slow" "$@"

echo "== summary"
printf '%s\n' "${results[@]}"
passed_count=$(printf '%s\n' "${results[@]}" | grep -c '^passed')
echo "stages: $passed_count passed, $(( ${#results[@]} - passed_count )) failed"
exit $failed
