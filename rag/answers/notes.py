"""The one-line notes an answer carries, in the question's language: why the reader sees evidence instead of the
model's answer, what the engine changed in it (citations moved or attached, a repeating reply cut off), and what it
worked out itself. ``rag.answers.draft`` picks them; the QA page and ``ask --json`` show them as the answer's message.
"""

from __future__ import annotations

from rag.answers.prompts import Language

_NOTES: dict[str, dict[Language, str]] = {
    "no_basis": {"ja": "文書に根拠が見つかりませんでした。", "en": "No basis in the documents."},
    "llm_failed": {
        "ja": "LLM の応答に失敗したため、関連する箇所だけを表示します。原因と対処: {error}",
        "en": "The LLM backend failed, so only the most relevant passages are shown. Cause and fix: {error}",
    },
    "empty": {
        "ja": "LLM の回答が空（または出典番号だけ）だったため、最も関連する箇所をそのまま示します（答えが含まれていない"
        "こともあります）。",
        "en": "The LLM returned no answer (an empty reply, or citation marks alone), so the passages' most relevant "
        "sentences are shown as they stand (they may not hold the answer either).",
    },
    "replaced": {
        "ja": "LLM の回答は資料で裏付けられなかったため（{reasons}）、資料の該当箇所をそのまま示します。",
        "en": "The LLM's answer is not supported by the passages ({reasons}), so their own sentences are shown.",
    },
    "attributed": {
        "ja": "LLM が出典番号を付けなかった文に、その文を裏付ける資料を出典として付けました。",
        "en": "The LLM cited no passage for some sentences, so the passages that support them were attached.",
    },
    "moved": {
        "ja": "出典番号の誤りを、その文を裏付ける資料の番号に直しました。",
        "en": "Citations were moved to the passages that support each sentence.",
    },
    "extractive": {
        "ja": "LLM を使わず、文書の該当箇所をそのまま抜き出しました。",
        "en": "No LLM in use: these are the documents' own sentences.",
    },
    "unsupported": {
        "ja": "{count} 文は引用した資料で裏付けられていません。",
        "en": "{count} sentence(s) are not supported by the passages they cite.",
    },
    "dropped": {
        "ja": "存在しない資料番号 {numbers} への引用を取り除きました。",
        "en": "Removed citations to passages that do not exist: {numbers}.",
    },
    "contradicted": {
        "ja": "{verdict}下の資料は LLM の回答と逆のことを述べています。",
        "en": "{verdict}The passage below says the opposite of the LLM's answer.",
    },
    "echoed": {
        "ja": "LLM が回答の代わりに資料をそのまま書き写したため、最も関連する箇所を示します（答えが含まれていない"
        "こともあります）。",
        "en": "The LLM copied out the passages instead of answering, so their most relevant sentences are shown as "
        "they stand (they may not hold the answer either).",
    },
    "looped": {
        "ja": "LLM が同じ文を繰り返し始めたため、そこで回答を打ち切りました。",
        "en": "The LLM began repeating itself, so its reply was cut off there.",
    },
    "computed": {
        "ja": "最後の行は、引用した資料からエンジンが計算した（数えた）ものです（資料にその値は書かれていません）。",
        "en": "The last line is worked out (a sum, a difference, a count or a length of time) by the engine from the "
        "cited passages; no passage states its result.",
    },
    "yes": {"ja": "はい。", "en": "Yes. "},
    "no": {"ja": "いいえ。", "en": "No. "},
    "unknown": {
        "ja": "LLM は資料の中に回答を見つけられませんでした。最も関連する箇所をそのまま示します（答えが含まれていない"
        "こともあります）。",
        "en": "The LLM found no answer in the passages, so their most relevant sentences are shown as they stand "
        "(they may not hold the answer either).",
    },
}


def note(key: str, language: Language, **fields: object) -> str:
    """The note ``key`` in ``language``, its ``{placeholders}`` filled from ``fields``."""
    text = _NOTES[key][language]
    return text.format(**fields) if fields else text
