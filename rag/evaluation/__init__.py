"""Evaluation: how well search finds and how well answers hold, measured through the facade's own calls.

``retrieval`` scores search on a BEIR folder or a golden QA file with the ranking measures of ``metrics``
(nDCG, recall, MRR); ``answers`` answers a golden file's questions and scores correctness, refusals, supported
sentences and citation validity. The service hands in what they run on (its search, its answers, a factory for a
service over a corpus's own storage), so nothing here imports ``rag.service``.
"""
