"""The exceptions of the runlimit package."""


class RunlimitError(Exception):
    """runlimit could not do what was asked (the base of every error here)."""


class RunlimitNotFound(RunlimitError):
    """No runlimit binary was found (the message says where the API looked)."""


class RunlimitTooOld(RunlimitError):
    """The runlimit found is older than an option asked needs."""


class RunFailed(RunlimitError):
    """With check=True: the command did not exit with 0.  .result is the whole result."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class TimedOut(RunFailed):
    """With check=True: a limit ran out (.result.timed_out_by says which)."""
