"""How many verified claims stay verified once turned false: a mutation test of the claim checks on real replies.

Each claim a recorded run's answers show as verified is turned false the way the quiz makes false statements
(``rag.quiz.perturbation.perturb``: one number, date, version, identifier or name changed for another of the
document, a comparison turned round, or the polarity flipped), several times with different seeds, and checked
again against the same passages, with the embedding model's cosines as the engine checks them. A mutant still
verified is a claim the checks would show as true against its cited sentence: the figure to drive to zero. It
prints the mutants by kind and every survivor with the sentence it was checked against::

    .venv/bin/python bench/answers_realdocs.py --json /tmp/run.json   # once: the model's replies
    .venv/bin/python bench/claim_mutations.py /tmp/run.json

A mutant may be true by chance (a swapped name the passage gives for the same thing): read the survivors.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.answers_replay import ReplayBackend, recorded_run  # noqa: E402
from rag.answers.verification import check_answer  # noqa: E402
from rag.quiz.perturbation import perturb  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a JSON file of bench/answers_realdocs.py --json")
    parser.add_argument("--seeds", type=int, default=3, help="mutants tried per verified claim (default 3)")
    parser.add_argument(
        "--backend", default="embedded", help="the backend the run used: it sizes the passages (default embedded)"
    )
    args = parser.parse_args()

    recorded, replies = recorded_run(args.run)
    rows = recorded["per_query"]
    settings = Settings.from_env(
        storage_dir=ROOT / "storage" / "bench" / "realdocs",
        model_dir=ROOT / "storage" / "models",
        llm_backend=args.backend,
    )
    service = RagService(settings, llm=ReplayBackend(settings.llm_backend, replies))

    claims = 0
    tried: Counter[str] = Counter()
    survived: Counter[str] = Counter()
    survivors: list[str] = []
    for row in rows:
        draft = service.prepare_answer(row["question"])
        if not draft.passages:
            continue
        texts = [p.chunk.text for p in draft.passages]
        for claim in draft.finish().claims:
            if not claim.supported or not claim.cited:
                continue
            claims += 1
            mutants = {
                m.statement: m.kind
                for seed in range(args.seeds)
                if (m := perturb(claim.sentence, texts, random.Random(seed)))
            }
            for statement, kind in mutants.items():
                tried[kind] += 1
                checked = check_answer(
                    f"{statement} [{claim.cited[0]}]", draft.query, draft.passages, service.sentence_relevance
                )
                verdict = checked.claims[0] if checked.claims else None
                if verdict is not None and verdict.supported:
                    survived[kind] += 1
                    quote = next((c.quote for c in checked.citations), "")
                    survivors.append(
                        f"{row['id']} [{kind}] {claim.sentence!r}\n    -> {statement!r}\n    on {quote[:200]!r}"
                    )

    print(f"verified claims: {claims}   mutants: {sum(tried.values())}   still verified: {sum(survived.values())}")
    print("| kind | mutants | still verified |\n| --- | --- | --- |")
    for kind, count in tried.most_common():
        print(f"| {kind} | {count} | {survived[kind]} |")
    print("\n".join(["", "Still verified:", *survivors]) if survivors else "")


if __name__ == "__main__":
    main()
