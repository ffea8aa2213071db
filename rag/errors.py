"""The engine's error tree.

Every failure a person can meet is a ``RagError`` whose message says what happened and what to do::

    RagError
    ├── ConfigError              a setting has a value the engine cannot use
    ├── ModelUnavailableError    an embedding / reranker model cannot be loaded or built offline
    ├── UnsupportedFileError     a file kind the engine does not read
    ├── DocumentReadError        a file could not be read (corrupt, encrypted, empty, unreadable)
    ├── UploadNameError          an uploaded file's name has nothing a file can be stored under
    ├── IndexError_              the index is in a state the operation cannot use
    │   ├── EmptyIndexError      nothing indexed yet
    │   ├── ModelMismatchError   the index was built with another embedding model
    │   ├── IndexBusyError       another process holds the writer lock
    │   └── VectorStoreUnavailableError  the Chroma server cannot be reached (down, or not answering)
    ├── SourceNotFoundError      a named source is not in the index
    │   └── AmbiguousSourceError a bare file name that several indexed sources share
    ├── LLMError
    │   ├── LLMUnavailableError  the backend cannot be reached / the model is missing
    │   └── LLMOutputError       the backend answered something unusable
    ├── QuizError                a quiz could not be generated to the asked count
    ├── KnowledgeBaseError       a knowledge base cannot be created, renamed, deleted or opened
    │   ├── BaseNameError        a name a base cannot have (also a ValueError)
    │   └── BaseNotFoundError    no base by that name
    ├── EvaluationError          an evaluation set is malformed
    ├── BackupError              an archive cannot be exported, or cannot be imported here
    └── MonitoringError          the monitoring log cannot be read

Adapters translate library errors with ``raise OurError(...) from err``.
"""

from __future__ import annotations


class RagError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(RagError):
    """A setting has a value the engine cannot use."""


class ModelUnavailableError(RagError):
    """A model cannot be loaded or built offline."""


class UnsupportedFileError(RagError):
    """The file kind is not one the engine reads."""


class DocumentReadError(RagError):
    """A file could not be read: corrupt, encrypted, empty or unreadable."""


class UploadNameError(RagError):
    """An uploaded file's name has nothing usable to store it under (``..``, ``/``, only control characters)."""


class IndexError_(RagError):  # noqa: N801 - trailing underscore avoids shadowing the builtin IndexError
    """The index is in a state the operation cannot use."""


class EmptyIndexError(IndexError_):
    """Nothing is indexed yet."""


class ModelMismatchError(IndexError_):
    """The index was built with another embedding model."""


class IndexBusyError(IndexError_):
    """Another process holds the writer lock."""


class VectorStoreUnavailableError(IndexError_):
    """The ``chroma run`` server cannot be reached or stopped answering; the message names it and how to start it."""


class SourceNotFoundError(RagError):
    """A named source is not in the index."""


class AmbiguousSourceError(SourceNotFoundError):
    """A bare file name matches several indexed sources; the message lists them."""


class LLMError(RagError):
    """Base of LLM backend failures."""


class LLMUnavailableError(LLMError):
    """The LLM backend cannot be reached or lacks the model."""


class LLMOutputError(LLMError):
    """The LLM answered something the engine cannot use."""


class QuizError(RagError):
    """A quiz could not be generated to the requested count."""


class EvaluationError(RagError):
    """An evaluation set is malformed."""


class BackupError(RagError):
    """An archive cannot be written, or cannot be imported here (corrupt, foreign, another model, storage not empty)."""


class MonitoringError(RagError):
    """The monitoring log cannot be read."""


class KnowledgeBaseError(RagError):
    """A knowledge base cannot be created, renamed, deleted or opened as asked."""


class BaseNameError(KnowledgeBaseError, ValueError):
    """A name a knowledge base cannot have; the message names what is allowed."""


class BaseNotFoundError(KnowledgeBaseError):
    """No knowledge base has that name; the message lists those that exist."""
