"""User-facing errors: each carries a one-line message the CLI prints without a traceback."""


class KgvizError(Exception):
    """An expected failure (bad input, missing data, unreachable service) with a clear message."""


class DataFormatError(KgvizError):
    """A data file has a line that cannot be parsed."""

    def __init__(self, path: object, line_number: int, problem: str) -> None:
        self.path = str(path)
        self.line_number = line_number
        self.problem = problem
        where = f"{self.path}:{line_number}" if line_number else self.path
        super().__init__(f"{where}: {problem}")


class MissingDataError(KgvizError):
    """A dataset's files are not where they were looked for."""


class UnknownNameError(KgvizError):
    """A dataset, method, entity or backend name that does not exist."""
