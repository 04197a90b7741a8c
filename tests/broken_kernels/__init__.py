"""Known-wrong kernels: each has one realistic bug (marked `BUG:`), and tests/test_check.py asserts
that `check` rejects it with a clear reason. If one of them ever passes, the checker is broken."""
