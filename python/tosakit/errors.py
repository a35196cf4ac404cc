"""Exceptions raised by tosakit: one class per kind of failure, with the CLI's exit code.

``str(e)`` is the CLI's one-line report without its ``tosakit: `` prefix (``e.line`` has it), so a failure
reads the same from Python and from the command line.
"""


class Error(Exception):
    """Base class. ``kind`` is the CLI's kind ("invalid argument", "parse error", ...), ``exit_code`` the
    CLI's exit code, ``message`` the reason naming the file/op/tensor. For spec verdicts ``op``,
    ``location`` and ``condition`` say which ERROR_IF/REQUIRE failed where. ``parameter`` names the keyword
    argument the error is about (its message starts with it), else None."""

    exit_code = 6
    default_kind = "internal error"

    def __init__(self, message, kind=None, op=None, location=None, condition=None, parameter=None):
        self.message = message
        self.parameter = parameter
        self.kind = kind or self.default_kind
        self.op = op
        self.location = location
        self.condition = condition
        super().__init__(f"{self.kind}: {message}")

    @property
    def line(self):
        """The line the CLI prints on stderr for the same failure."""
        return f"tosakit: {self}"


class SpecError(Error):
    """The graph is in error: an ERROR_IF or LEVEL_CHECK failed (CLI exit code 1)."""

    exit_code = 1
    default_kind = "error"


class Unpredictable(Error):
    """A REQUIRE failed: the result is unpredictable (exit code 3)."""

    exit_code = 3
    default_kind = "unpredictable"


class BadInput(Error, ValueError):
    """Missing/unreadable/malformed file, unknown or missing name, wrong dtype or shape (exit code 4)."""

    exit_code = 4
    default_kind = "invalid argument"


class Unsupported(Error):
    """An operator or construct tosakit does not support (exit code 5)."""

    exit_code = 5
    default_kind = "unsupported"


class InternalError(Error):
    """A bug in tosakit (exit code 6)."""

    exit_code = 6
    default_kind = "internal error"


def _make(class_name, kind, message, op=None, location=None, condition=None, parameter=None):
    """Called by the C++ bindings to build the exception of a failed Status."""
    return globals()[class_name](message, kind, op, location, condition, parameter)
