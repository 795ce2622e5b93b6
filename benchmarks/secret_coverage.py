"""Secret scanner: coverage on the corpus, near misses flagged, and scan speed.

Prints, for the corpus of ``tests/secret_corpus.py`` (secrets as people write
them in notes, with random bodies, and near misses that must pass):

* coverage: the share of secret samples with at least one finding, and the
  families with misses;
* near misses flagged (the goal is 0);
* throughput in MB/s of ``scan_text`` and ``scan_bytes`` over a few MB of
  ordinary markdown notes (median and best of N runs), clean and with one
  planted secret every ~20 KB.

    .venv/bin/python benchmarks/secret_coverage.py [--mb 4] [--runs 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

# The corpus lives in tests/.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from memdir.team.secret_rules import RULES, render_example
from memdir.team.secrets import scan_bytes, scan_text
from secret_corpus import FAMILIES, NEAR_MISSES, near_miss_samples, secret_samples
from secrets_scan import concatenated

_SENTENCES = (
    "The integration tests hit a real database; a mocked migration once hid a broken index.",
    "Ask the on-call before skipping the canary stage of the rollout.",
    "The billing service retries webhooks three times with exponential backoff.",
    "Deploys read credentials from the environment, never from the repository.",
    "The token refresh happens five minutes before expiry, see auth/refresh.py.",
    "Passwords are rotated every 90 days by the platform team.",
    "We keep secrets in Vault; the CI job reads them at runtime.",
    "The cache key is the tenant id plus the request path.",
    "Latency budget for the search endpoint is 200 ms at p99.",
    "Feature flags live in LaunchDarkly; clean them up after the launch.",
    "The nightly export writes Parquet files to the analytics bucket.",
    "Prefer small pull requests; reviewers are asked to answer within a day.",
    "Alice owns the payments integration; Bob owns the ledger.",
    "The old API key format is deprecated; new keys are issued from the console.",
    "Run `make check` before pushing: it runs ruff, mypy and the fast tests.",
    "The staging database is refreshed from a masked snapshot every Sunday.",
    "Error budgets reset on the first of the month.",
    "Use the shared dashboard for incident timelines, not screenshots.",
)
_HEX = "0123456789abcdef"


def ordinary_markdown(size: int, seed: int = 7) -> str:
    """Memory files as agents and people write them: frontmatter, prose, lists, code, links."""
    return concatenated(size, seed, _note)


def _note(rng: random.Random, n: int) -> str:
    sha = "".join(rng.choice(_HEX) for _ in range(40))
    uuid = "-".join("".join(rng.choice(_HEX) for _ in range(k)) for k in (8, 4, 4, 4, 12))
    prose = " ".join(rng.sample(_SENTENCES, 4))
    bullets = "\n".join(f"- {s}" for s in rng.sample(_SENTENCES, 3))
    return (
        f"---\nname: note-{n}\ndescription: a project fact, number {n}\ntype: project\n---\n\n"
        f"## Note {n}\n\n{prose}\n\n{bullets}\n\n"
        f"Fixed in commit {sha} (request id {uuid}); see "
        f"https://git.internal/acme/api/pull/{n} and docs/runbooks/deploy-{n % 7}.md.\n\n"
        "| env | region | owner |\n|---|---|---|\n"
        f"| staging | eu-west-1 | team-{n % 5} |\n\n"
        "```python\n"
        'token = os.environ["API_TOKEN"]  # set by the deploy job\n'
        f"client.get('/v1/items', timeout={n % 30 + 1})\n"
        "```\n\n"
    )


def with_planted(text: str, every: int = 20_000) -> str:
    """``text`` with one corpus secret inserted every ``every`` characters."""
    samples = secret_samples(per_template=1)
    pieces = []
    for i, start in enumerate(range(0, len(text), every)):
        pieces.append(text[start : start + every])
        pieces.append("\n" + samples[i % len(samples)].text + "\n")
    return "".join(pieces)


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """Median and best wall-clock seconds, and median CPU seconds, of ``runs`` calls.

    CPU time is the fairer number on a shared machine: it leaves out the time
    other processes hold the core.
    """
    fn()  # warm the compiled patterns and the automaton's cache
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), min(wall), statistics.median(cpu)


def report_speed(name: str, data: bytes, fn: Callable[[], object], runs: int) -> None:
    median, best, cpu = timed(fn, runs)
    mb = len(data) / 1e6
    print(
        f"  {name:38} {mb / median:6.1f} MB/s median, {mb / best:6.1f} best, "
        f"{mb / cpu:6.1f} per CPU second  ({mb:.1f} MB, {runs} runs)"
    )


def report_coverage() -> None:
    samples = secret_samples()
    missed = Counter(s.family for s in samples if not scan_text(s.text))
    caught = len(samples) - sum(missed.values())
    print(f"rules: {len(RULES)}")
    print(
        f"corpus: {len(FAMILIES)} families, {len(samples)} secret samples; "
        f"caught {caught}/{len(samples)} = {100 * caught / len(samples):.1f} %"
    )
    for family, count in sorted(missed.items()):
        print(f"  missed {count}x: {family}")
    near = near_miss_samples()
    flagged = [s for s in near if scan_text(s.text)]
    print(f"near misses: {len(NEAR_MISSES)} templates, {len(near)} samples; flagged {len(flagged)}")
    for sample in flagged:
        rules = ", ".join(f.rule_id for f in scan_text(sample.text))
        print(f"  flagged by {rules}: {render_example(sample.text)[:60]!r}")


def report_hostile(runs: int) -> None:
    """Scan time of inputs shaped to make a backtracking scanner blow up."""
    from test_secrets import HOSTILE

    print("hostile shapes (a teammate's file is untrusted):")
    for name, text in HOSTILE.items():
        data = text.encode()
        _, best, _ = timed(lambda text=text: scan_text(text), runs)  # type: ignore[misc]
        print(f"  {name:38} {best * 1000:7.1f} ms for {len(data) / 1e3:.0f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="size of the markdown text")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    report_coverage()
    clean = ordinary_markdown(int(args.mb * 1e6))
    dirty = with_planted(clean)
    clean_bytes, dirty_bytes = clean.encode(), dirty.encode()
    utf16 = clean.encode("utf-16")
    print(f"throughput over {len(clean_bytes) / 1e6:.1f} MB of ordinary markdown:")
    report_speed("scan_text, clean", clean_bytes, lambda: scan_text(clean), args.runs)
    report_speed("scan_bytes, clean", clean_bytes, lambda: scan_bytes(clean_bytes), args.runs)
    report_speed(
        f"scan_bytes, {len(scan_bytes(dirty_bytes))} planted secrets",
        dirty_bytes,
        lambda: scan_bytes(dirty_bytes),
        args.runs,
    )
    report_speed("scan_bytes, the same text in UTF-16", utf16, lambda: scan_bytes(utf16), args.runs)
    report_hostile(args.runs)


if __name__ == "__main__":
    main()
