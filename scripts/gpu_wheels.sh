#!/usr/bin/env bash
# The wheels a lent GPU machine needs and its image lacks (scripts/gpu_wheels.txt), downloaded for its Python
# 3.12 on x86-64 into .whl/ (ignored by git; the device tool carries it: carry [".whl"]), then checked complete
# for the image's packages (scripts/gpu_wheels.py). Run it here, where pip reaches the index:
#
#   bash scripts/gpu_wheels.sh          # then scripts/gpu_session.sh installs them there with --no-index
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${PYTHON:-}" ]]; then      # the project's .venv where there is one: its packaging reads the wheels
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
rm -rf .whl && mkdir .whl
# pip matches manylinux tags exactly, so each glibc level a wheel may be built for is named (the device README)
platforms=()
for tag in manylinux_2_39 manylinux_2_35 manylinux_2_34 manylinux_2_31 manylinux_2_28 manylinux_2_27 manylinux_2_24 \
           manylinux_2_17 manylinux2014 manylinux1; do
  platforms+=(--platform "${tag}_x86_64")
done
"$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  "${platforms[@]}" -d .whl -r scripts/gpu_wheels.txt
"$PYTHON" scripts/gpu_wheels.py lock .whl
"$PYTHON" scripts/gpu_wheels.py check .whl
