#!/usr/bin/env bash
# A lent GPU's few minutes in one command, from any directory (it works in the repository root):
#
#   bash scripts/gpu_session.sh OUT                  # on the GPU machine: measure, judge, test; all in OUT
#   bash scripts/gpu_session.sh OUT --dry-run        # anywhere: every step's command, the format, the judge
#   bash scripts/gpu_session.sh OUT --only lessons   # run some steps again into the same OUT
#
# scripts/gpu_session.py does the work and says how; this only picks the Python: $PYTHON, else the project's
# .venv where there is one (the dry run here), else python3 (the device machine's, which has torch). Then, back
# here: python scripts/gpu_intake.py OUT. docs/gpu_session.md has it all.
cd "$(dirname "$0")/.." || exit 2
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
exec "$PYTHON" -u scripts/gpu_session.py "$@"
