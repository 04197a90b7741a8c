"""Errors the user can act on. The CLI prints their message as one line; no traceback."""


class UserError(Exception):
    """Bad input: an unknown kernel, a malformed --meta or --shape, a stage the target lacks."""
    exit_code = 2


class KernelFailure(Exception):
    """The kernel itself failed: it does not compile, or it crashes or mismatches when run."""
    exit_code = 1
