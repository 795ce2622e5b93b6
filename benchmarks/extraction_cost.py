"""What session notes cost: tokens sent per update, against re-sending the whole chat.

Each LoCoMo DEV conversation is replayed as a chat (speaker A as ``user``,
speaker B as ``assistant``, ``"Speaker: text"``). After every assistant turn the
session-notes trigger runs with the default thresholds (4,000 / 2,000 / 5); when
it fires, one notes update runs against a scripted model (one edit that appends
a worklog line, then a final answer), wrapped in a ``CountingProvider`` that
counts the estimated tokens of every request.

The baseline is the same update with the whole conversation in the prompt
instead of only the messages since the last update: for each model call of the
update, the conversation tokens before the cursor are added back. Printed:
updates, tokens sent per update, the baseline's, and the ratio.

    .venv/bin/python benchmarks/extraction_cost.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from memdir.agents.runner import format_conversation
from memdir.agents.session.notes import SessionNotes, turns_since
from memdir.agents.session.template import DEFAULT_TEMPLATE, parse_sections
from memdir.api import Memdir
from memdir.llm import Completion
from memdir.testing import CountingProvider, ScriptedProvider, tool_use
from memdir.transcripts.turns import Role, Turn, estimate_tokens

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "bench" / "locomo_dev.json"


def conversation_turns(sample: dict[str, Any]) -> list[Turn]:
    """The sample's sessions in order, as one chat."""
    conv = sample["conversation"]
    speaker_a = conv["speaker_a"]
    numbers = sorted(
        int(key.split("_")[1])
        for key, value in conv.items()
        if key.startswith("session_") and key.count("_") == 1 and isinstance(value, list)
    )
    turns: list[Turn] = []
    for number in numbers:
        for item in conv[f"session_{number}"]:
            role: Role = "user" if item["speaker"] == speaker_a else "assistant"
            text = f"{item['speaker']}: {item['text']}"
            if item.get("blip_caption"):
                text += f" [shares {item['blip_caption']}]"
            turns.append(
                Turn(index=len(turns), uuid=item["dia_id"], parent_uuid=None, role=role, text=text)
            )
    return turns


def worklog_edit(path: Path, number: int, last: Turn) -> Completion:
    """The scripted model's edit: one worklog line under the Worklog instruction."""
    section = next(s for s in parse_sections(DEFAULT_TEMPLATE) if s.title == "Worklog")
    anchor = f"# Worklog\n{section.instruction}\n"
    line = f"- update {number}: up to {last.uuid}: {last.text[:80]}\n"
    return tool_use(
        "edit_file", {"file_path": str(path), "old_string": anchor, "new_string": anchor + line}
    )


def replay(sample: dict[str, Any], home: Path) -> dict[str, int]:
    """Replay one conversation; return its counts."""
    project = home / sample["sample_id"]
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    mem = Memdir.open(project, home=home / "memdir")
    scripted = ScriptedProvider()
    counting = CountingProvider(scripted)
    notes = SessionNotes.for_session(
        layout=mem.layout, settings=mem.settings, provider=counting, session_id="bench"
    )
    turns = conversation_turns(sample)
    totals = {"turns": len(turns), "updates": 0, "sent": 0, "baseline": 0, "calls": 0}
    totals["conversation"] = estimate_tokens(format_conversation(turns))
    for end in range(1, len(turns) + 1):
        seen = turns[:end]
        if seen[-1].role != "assistant" or not notes.should_update(seen):
            continue
        fresh = turns_since(seen, notes.state().summarized_cursor)
        hidden = estimate_tokens(format_conversation(seen)) - estimate_tokens(
            format_conversation(fresh)
        )
        scripted.add(worklog_edit(notes.path, totals["updates"] + 1, seen[-1]), "updated")
        before_tokens, before_calls = counting.tokens_sent, counting.calls
        result = notes.update(seen)
        if not result.accepted:
            raise SystemExit(f"update {totals['updates'] + 1} was not accepted: {result}")
        sent, calls = counting.tokens_sent - before_tokens, counting.calls - before_calls
        totals["updates"] += 1
        totals["sent"] += sent
        totals["calls"] += calls
        totals["baseline"] += sent + calls * hidden
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    print(f"{'conversation':<12} {'turns':>6} {'tokens':>7} {'updates':>7} "
          f"{'sent/update':>11} {'baseline/update':>15} {'ratio':>6}")  # fmt: skip
    grand = {"updates": 0, "sent": 0, "baseline": 0}
    with tempfile.TemporaryDirectory(prefix="memdir-bench-") as tmp:
        os.environ["MEMDIR_HOME"] = str(Path(tmp) / "memdir")
        for sample in samples:
            t = replay(sample, Path(tmp))
            for key in grand:
                grand[key] += t[key]
            updates = max(t["updates"], 1)
            print(
                f"{sample['sample_id']:<12} {t['turns']:>6} {t['conversation']:>7} "
                f"{t['updates']:>7} {t['sent'] // updates:>11} "
                f"{t['baseline'] // updates:>15} {t['sent'] / max(t['baseline'], 1):>6.3f}"
            )
    updates = max(grand["updates"], 1)
    print(
        f"{'all':<12} {'':>6} {'':>7} {grand['updates']:>7} {grand['sent'] // updates:>11} "
        f"{grand['baseline'] // updates:>15} {grand['sent'] / max(grand['baseline'], 1):>6.3f}"
    )
    print(
        f"\n{grand['updates']} notes updates; incremental updates send "
        f"{grand['sent'] / max(grand['baseline'], 1):.1%} of the tokens that re-sending the "
        "whole conversation would (estimated tokens, chars/4)."
    )


if __name__ == "__main__":
    main()
