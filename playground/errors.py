"""Errors the user can act on. The CLI prints their message as one line; no traceback.

The library speaks of its own parameters (`shape`, `meta`, `num_sms`), not of the command line's flags: an
error about one names it first and says which (`param`), and names any other in backquotes (`show`). The CLI
shows each as the flag the user types (`--num-sms`, `--show`); the page and a notebook show the names."""
import re


class UserError(Exception):
    """Bad input: an unknown kernel, a malformed meta or shape, a stage the target lacks.

    `param`: the parameter the message starts with, when it is about one."""
    exit_code = 2

    def __init__(self, message: str = "", param: str | None = None):
        super().__init__(message)
        self.param = param

    def naming(self, flag_of) -> str:
        """The message with each parameter it names shown as `flag_of(name)` ("--num-sms 0: ..."), where that
        is not None."""
        message = str(self)
        if self.param and message.startswith(self.param) and flag_of(self.param):
            message = flag_of(self.param) + message[len(self.param):]
        return re.sub(r"`(\w+)`", lambda m: flag_of(m.group(1)) or m.group(0), message)


class KernelFailure(Exception):
    """The kernel itself failed: it does not compile, or it crashes or mismatches when run."""
    exit_code = 1
