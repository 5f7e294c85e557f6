"""User-facing errors: each carries a one-line message the CLI prints without a traceback.

The tree tells a caller (the CLI, the lab, a notebook) what kind of thing went wrong:

    KgvizError
    ├── InputError        what the user typed, chose or set (a question, an argument, a setting)
    │   ├── OptionError   a method's option or preset that does not fit
    │   └── UnknownNameError   a dataset, method, entity or backend that does not exist
    ├── DataError         a dataset, its KG or its question files
    │   ├── DataFormatError    a line that cannot be parsed (file and line named)
    │   └── MissingDataError   files not where they were looked for
    ├── StoreError        a store beside kgviz's own files: a SPARQL endpoint, Milvus, a disk
    ├── CheckpointError   a learned part's weights and card, and their training
    ├── LLMError          the language model (`kgviz.llm.errors`)
    └── RunStoreError     what kgviz keeps of runs: kept runs, traces, results files

>>> issubclass(OptionError, InputError) and issubclass(DataFormatError, DataError)
True
>>> str(DataFormatError("kb.tsv", 3, "expected head<TAB>relation<TAB>tail"))
'kb.tsv:3: expected head<TAB>relation<TAB>tail'
"""


class KgvizError(Exception):
    """An expected failure (bad input, missing data, unreachable service) with a clear message."""


class InputError(KgvizError):
    """What the user typed, chose or set: a question, a command's argument, an environment
    setting, the lab's inputs."""


class OptionError(InputError):
    """A method's option or preset that does not fit (unknown, of the wrong type, out of range,
    or not with the others)."""


class UnknownNameError(InputError):
    """A dataset, method, entity or backend name that does not exist."""


class DataError(KgvizError):
    """A dataset, its KG or its question files."""


class DataFormatError(DataError):
    """A data file has a line that cannot be parsed."""

    def __init__(self, path: object, line_number: int, problem: str) -> None:
        self.path = str(path)
        self.line_number = line_number
        self.problem = problem
        where = f"{self.path}:{line_number}" if line_number else self.path
        super().__init__(f"{where}: {problem}")


class MissingDataError(DataError):
    """A dataset's files are not where they were looked for."""


class StoreError(KgvizError):
    """A store beside kgviz's own files: a SPARQL endpoint, a Milvus server, a disk that refuses
    a write, a lock another process holds."""


class CheckpointError(KgvizError):
    """A learned part's checkpoint (missing, of another model, unreadable) or its training."""


class RunStoreError(KgvizError):
    """What kgviz keeps of runs: kept runs and their index, saved traces, results files."""
