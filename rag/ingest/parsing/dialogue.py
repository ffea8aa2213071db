"""Chat logs: conversations found in JSON/JSONL values and in plain-text chat exports, as one block per turn.

A turn is an object with a text field and a speaker field (``utterances[].text`` + ``interlocutor_id``,
``messages[].content`` + ``role``, ``turns[].utterance`` + ``speaker`` ...), or a line of a text export
(``2024/01/05 12:03 田中: text``, LINE's ``12:03<TAB>田中<TAB>text`` under a date line, WhatsApp's
``[05/01/2024, 12:03:10] Tanaka: text``). Each turn becomes a block ``speaker: text`` carrying its speaker,
time and dialogue id, so chunking can pack consecutive turns without ever splitting one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rag.ingest.metadata import iso_date, writes_japanese
from rag.ingest.parsing.flat import flatten_record
from rag.ingest.text_cleanup import normalize_text
from rag.records import Block, Chunk, ParsedDocument, Scalar

TURN_SPEAKER = "turn_speaker"
"""Block metadata key marking a chat turn: who spoke (chunking packs such blocks into chat chunks)."""
TURN_TIME = "turn_time"
"""Block metadata key: when the turn was said, as written in the log ("" when the log has no times)."""
DIALOGUE_ID = "dialogue_id"
"""Block and chunk metadata key: the conversation a turn belongs to ("" when the log names none)."""
SPEAKERS = "speakers"
"""Chat chunk metadata key: who speaks in the chunk, comma-joined in order of first turn."""
FIRST_TIME = "first_timestamp"
LAST_TIME = "last_timestamp"
"""Chat chunk metadata keys: the times of the chunk's first and last timed turns."""

TEXT_FIELDS = ("text", "content", "utterance", "message", "body", "msg")
# "author" and "name" are left out: records of articles and products carry them beside a text field
SPEAKER_FIELDS = ("speaker", "interlocutor_id", "speaker_id", "role", "user", "username", "user_name", "sender", "from")
TIME_FIELDS = ("timestamp", "time", "ts", "datetime", "date", "created_at", "sent_at")
_ID_FIELDS = ("dialogue_id", "conversation_id", "dialog_id", "session_id", "thread_id", "chat_id", "id")
_MIN_TURNS = 2


@dataclass(frozen=True, slots=True)
class Turn:
    speaker: str
    text: str
    time: str = ""


@dataclass(frozen=True, slots=True)
class Dialogue:
    """A conversation; ``details``: the other fields of the object holding it (its evaluations, participants,
    topic), as ``key: value`` lines."""

    dialogue_id: str
    turns: tuple[Turn, ...]
    details: tuple[str, ...] = ()


def _first(record: dict[str, Any], names: Sequence[str]) -> Any:
    return next((record[name] for name in names if name in record and record[name] not in (None, "")), None)


def _plain(value: Any) -> str:
    """A speaker, time or text value as a string: strings and numbers as they are, ``{"name": ...}`` by name,
    a list of message parts joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, dict):
        return _plain(_first(value, ("name", "display_name", "text", "content", "value")))
    if isinstance(value, list):
        return "\n".join(part for v in value if (part := _plain(v)))
    return ""


def _turn(item: Any) -> Turn | None:
    if not isinstance(item, dict):
        return None
    text, speaker = _first(item, TEXT_FIELDS), _first(item, SPEAKER_FIELDS)
    if text is None or speaker is None:
        return None
    return Turn(normalize_text(_plain(speaker)), normalize_text(_plain(text)), _plain(_first(item, TIME_FIELDS)))


def _turns(items: list[Any]) -> tuple[Turn, ...] | None:
    """The turns of a list, when most of its items are turns (a speaker and a text each)."""
    turns = [turn for item in items if (turn := _turn(item)) is not None]
    if len(turns) < _MIN_TURNS or len(turns) < 0.8 * len(items):
        return None
    return tuple(turn for turn in turns if turn.text)


def _dialogue_in(record: dict[str, Any]) -> Dialogue | None:
    """A conversation held in one of the object's lists (``{"dialogue_id": 4, "utterances": [...]}``)."""
    for key, value in record.items():
        if isinstance(value, list) and (turns := _turns(value)) is not None:
            rest = {k: v for k, v in record.items() if k != key}
            # an id alone says nothing; "evaluations satisfaction: 5" is read as words, "evaluations.satisfaction" not
            details = flatten_record(rest, joiner=" ") if set(rest) - set(_ID_FIELDS) else []
            return Dialogue(_plain(_first(record, _ID_FIELDS)), turns, tuple(details))
    return None


def find_dialogues(data: Any) -> list[Dialogue]:
    """Conversations in a parsed JSON value: a list of turns, an object holding one, or a list of such objects.

    Args:
        data: what ``json.loads`` returned (for JSON Lines: the list of line values).

    Returns:
        The conversations in order; empty when the value is not a chat log.
    """
    if isinstance(data, dict):
        found = _dialogue_in(data)
        return [found] if found else []
    if not isinstance(data, list) or not data:
        return []
    if (turns := _turns(data)) is not None:
        return [Dialogue("", turns)]
    dialogues = [d for item in data if isinstance(item, dict) and (d := _dialogue_in(item)) is not None]
    return dialogues if len(dialogues) >= 0.8 * len(data) else []


def dialogue_blocks(dialogues: Iterable[Dialogue]) -> list[Block]:
    """One ``speaker: text`` block per turn, tagged with speaker, time and dialogue id; then, as a block of its own,
    the conversation's other fields ("evaluations.satisfaction: 5") and when it took place, which a question may ask
    about too."""
    blocks = []
    for dialogue in dialogues:
        for turn in dialogue.turns:
            meta: dict[str, Scalar] = {
                TURN_SPEAKER: turn.speaker,
                TURN_TIME: turn.time,
                DIALOGUE_ID: dialogue.dialogue_id,
            }
            blocks.append(Block(text=f"{turn.speaker}: {turn.text}", metadata=meta))
        if dialogue.details:
            details = [*dialogue.details, *_time_line(dialogue.turns)]
            blocks.append(Block(text="\n".join(details), metadata={DIALOGUE_ID: dialogue.dialogue_id}))
    return blocks


def _time_line(turns: Sequence[Turn]) -> list[str]:
    """When the conversation took place, as a line of its details in the conversation's language ("会話の日時:
    2022-08-06 15:17 – 15:25", "conversation time: …"), so that a question about its date finds it in the text and
    shares its words; [] when its turns carry no times. A conversation without details keeps its times in its
    chunks' metadata only (``FIRST_TIME``, ``LAST_TIME``): a block of its own would be a chunk of one line."""
    times = [_short_time(turn.time) for turn in turns if turn.time]
    if not times:
        return []
    first, last = times[0], times[-1]
    span = first if first == last else f"{first} – {last.removeprefix(first[:11])}"
    japanese = any(writes_japanese(turn.text) for turn in turns)
    return [f"会話の日時: {span}" if japanese else f"conversation time: {span}"]


def chat_metadata(turns: Sequence[Block]) -> dict[str, Scalar]:
    """Chunk metadata of consecutive turn blocks: dialogue id, speakers, first and last timestamps."""
    speakers = dict.fromkeys(str(b.metadata[TURN_SPEAKER]) for b in turns)
    times = [str(b.metadata.get(TURN_TIME, "")) for b in turns if b.metadata.get(TURN_TIME)]
    return {
        DIALOGUE_ID: turns[0].metadata.get(DIALOGUE_ID, "") if turns else "",
        SPEAKERS: ",".join(speakers),
        FIRST_TIME: times[0] if times else "",
        LAST_TIME: times[-1] if times else "",
    }


def who_and_when(chunk: Chunk, quote: str = "") -> str:
    """For a chat chunk, who said it and when: ``AA · 2022-08-06 15:17 – 15:25`` ("" for other chunks).

    With ``quote``, the speaker is the one whose turn holds the quote; otherwise every speaker in the chunk.
    """
    if chunk.chunk_type != "chat":
        return ""
    speakers = str(chunk.extra.get(SPEAKERS, "")).replace(",", ", ")
    if quote:
        quoted = next((line for line in chunk.text.split("\n") if quote[:40] in line), "")
        speakers = next((s for s in speakers.split(", ") if quoted.startswith(f"{s}: ")), speakers)
    first, last = (_short_time(str(chunk.extra.get(key, ""))) for key in (FIRST_TIME, LAST_TIME))
    when = first if first == last or not last else f"{first} – {last.removeprefix(first[:11])}"
    return " · ".join(part for part in (speakers, when) if part)


def _short_time(stamp: str) -> str:
    """``2022-08-06T15:17:10.526000`` -> ``2022-08-06 15:17``; other forms as written."""
    match = re.match(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})", stamp)
    return f"{match[1]} {match[2]}" if match else stamp


def dialogue_document(dialogues: Sequence[Dialogue], date: str, warnings: Sequence[str] = ()) -> ParsedDocument:
    """A parsed chat log: turn blocks, dated by its first timestamp (else ``date``)."""
    first_time = next((t.time for d in dialogues for t in d.turns if t.time), "")
    return ParsedDocument(
        blocks=tuple(dialogue_blocks(dialogues)), date=iso_date(first_time) or date, warnings=tuple(warnings)
    )


# ---- plain-text chat exports -----------------------------------------------------------------------------

_DATE = r"\d{4}[/.-]\d{1,2}[/.-]\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}"
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[APap][Mm])?"
# "2024/01/05 12:03 name: text", "[05/01/2024, 12:03:10] name: text", "05/01/2024, 12:03 - name: text"
_STAMPED_LINE = re.compile(
    rf"^\[?(?:(?P<date>{_DATE})(?:\([^)]{{1,3}}\))?[,\s]\s*)?(?P<time>{_TIME})\]?\s*(?:[-–]\s*)?"
    r"(?P<name>[^:：\t\n]{1,40}?)\s*[:：]\s?(?P<text>.*)$"
)
# LINE: "12:03<TAB>name<TAB>text" below a "2024/01/05(金)" date line
_LINE_APP_LINE = re.compile(rf"^(?P<time>{_TIME})\t(?P<name>[^\t]{{1,40}})\t(?P<text>.*)$")
_LINE_APP_DATE = re.compile(rf"^(?P<date>{_DATE})(?:\([^)]{{1,3}}\))?\s*$")
_CHAT_SHARE = 0.5


def parse_chat_lines(text: str) -> tuple[str, list[Turn]] | None:
    """The preamble and turns of a plain-text chat export, or None when the text does not read as one.

    Lines that do not start a turn continue the previous turn's text (multi-line messages); lines before
    the first turn (an export's title and save date) are the preamble; a LINE date line sets the date of
    the turns below it. At least half of the non-empty lines must start a turn.
    """
    lines = [line for line in text.split("\n") if line.strip()]
    preamble: list[str] = []
    turns: list[Turn] = []
    day = ""
    starts = 0
    for line in lines:
        if (dated := _LINE_APP_DATE.match(line)) is not None:
            day = dated["date"]
            starts += 1
            continue
        match = _STAMPED_LINE.match(line) or _LINE_APP_LINE.match(line)
        if match is not None:
            stamp = f"{match.groupdict().get('date') or day} {match['time']}".strip()
            turns.append(Turn(match["name"].strip(), match["text"].strip(), stamp))
            starts += 1
        elif turns:
            last = turns[-1]
            turns[-1] = Turn(last.speaker, f"{last.text}\n{line.strip()}".strip(), last.time)
        else:
            preamble.append(line.strip())
    if len(turns) < _MIN_TURNS or starts < _CHAT_SHARE * len(lines):
        return None
    chat = [Turn(normalize_text(t.speaker), normalize_text(t.text), t.time) for t in turns]
    return normalize_text("\n".join(preamble)), [turn for turn in chat if turn.text]
