"""The error raised for user code that dy2st cannot convert."""


class Dy2StError(NotImplementedError):
    """A construct dy2st cannot convert, reported against the user's file and line."""

    def __init__(self, message, filename=None, lineno=None, source_line=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        where = ""
        if filename is not None:
            where = f'\n  File "{filename}", line {lineno}'
            if source_line:
                where += f"\n    {source_line.strip()}"
        super().__init__(message + where)


class Dy2StSyntaxError(Dy2StError, SyntaxError):
    """A Python construct that is valid but not allowed in converted code (yield, global...)."""

    def __init__(self, message, filename=None, lineno=None, source_line=None):
        Dy2StError.__init__(self, message, filename, lineno, source_line)
        self.msg = message
        self.text = source_line
        self.offset = None

    def __str__(self):
        return Dy2StError.__str__(self)


class Dygraph2StaticException(ValueError):
    """Paddle's name (``paddle.jit.dy2static.utils.Dygraph2StaticException``) for converted code Paddle
    also refuses: the branches of a tensor-dependent ``if`` returning different structures. A
    ValueError, as dy2st raised it before the name existed."""
