"""The facade: ``RagService``, the one object the pages and the command line talk to (``rag.service.facade``), with
its quizzes (``quizzes``) and knowledge bases and backups (``bases``) in modules of their own."""

from rag.service.facade import ProgressCallback, RagService

__all__ = ["ProgressCallback", "RagService"]
