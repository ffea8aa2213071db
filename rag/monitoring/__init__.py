"""Monitoring: every search and answer leaves one row (per-stage latencies, hits, top score, basis, backend).

``query_log.QueryLog`` keeps the rows in their own SQLite file under storage (``monitoring.sqlite3``, WAL), apart
from the manifest so a busy log never holds up the index; a failure to record is logged, never raised, so
monitoring cannot break a search. No question text is stored, not even hashed: a hash of a short question is
found again by hashing guesses. ``summary.summarize`` turns rows into p50/p95 per stage, the hit and no-basis
ratios and questions by hour.
"""
