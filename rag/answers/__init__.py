"""Answers: hits become a cited answer whose every claim is checked against the passage it cites.

``draft.AnswerDraft`` picks the passages and the evidence sentences, fits them into the prompt's budget, streams
the LLM's answer and then verifies it sentence by sentence (claims, faithfulness, verification); citations quote
verbatim chunk text chosen in code, never by the model. Follow-up rewriting and the rendering of a cited PDF page
with its quote highlighted live here too.
"""
