#!/usr/bin/env bash
# A lent GPU's few minutes in one command, from any directory (it works in the repository root):
#
#   bash scripts/gpu_session.sh OUT                  # on the GPU machine: measure, judge, test; all in OUT
#   bash scripts/gpu_session.sh OUT --dry-run        # anywhere: every step's command, the format, the judge
#   bash scripts/gpu_session.sh OUT --only lessons   # run some steps again into the same OUT
#
# scripts/gpu_session.py does the work and says how; this only picks the Python (the one with torch: python3 on
# the device machine, or $PYTHON). Then, back here: python scripts/gpu_intake.py OUT. docs/gpu_session.md has it all.
cd "$(dirname "$0")/.." || exit 2
exec "${PYTHON:-python3}" -u scripts/gpu_session.py "$@"
