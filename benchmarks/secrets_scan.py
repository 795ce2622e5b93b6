"""Secret scanning speed on a 100 KB memory-like markdown text.

Prints the median scan time (ms) and throughput (MB/s) of memdir's rule table
on clean prose, on the same prose with one planted token per family every
few kilobytes and on a base64 blob (the slow case), and the same for
``detect-secrets`` when it is installed
(``pip install detect-secrets``), plus which planted families each one finds.

    .venv/bin/python benchmarks/secrets_scan.py [--runs N]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import string
import tempfile
import time
from collections.abc import Callable, Iterator

from memdir.team.secrets import redact, scan_text

SIZE = 100_000
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"

_PARAGRAPHS = (
    "The integration tests must hit a real database, not mocks: a mocked "
    "migration hid a broken index in the {n} release. Ask the on-call before "
    "you skip the task; the risk-based rollout plan lives in docs/rollout.md.",
    "Latency dashboard: https://grafana.internal/d/api-latency?var-env=prod&from=now-{n}h. "
    "Check it when editing request-path code. The SKU table is cached for {n} minutes.",
    "Deploys read AWS_REGION and the token from the environment (never commit "
    "them). The aws-cli profile is `deploy-{n}`; secrets come from the vault at "
    "runtime via `vault kv get -field=token secret/ci`.",
    "Fixed in commit {sha} (see #{n}); request id {uuid} reproduced it. "
    "The sha256 of the artifact was {sha256}.",
)
_CODE = (
    "```python\n"
    "def handler(event: dict[str, str]) -> str:\n"
    '    key = os.environ["API_KEY"]  # set by the deploy job\n'
    "    return client.get(f\"/v1/items/{{event['id']}}\", timeout={n})\n"
    "```\n"
)


def concatenated(size: int, seed: int, make: Callable[[random.Random, int], str]) -> str:
    """``size`` characters of ``make(rng, n)`` for n = 1, 2, ... (a seeded, repeatable text)."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        chunk = make(rng, n)
        parts.append(chunk)
        total += len(chunk)
    return "".join(parts)[:size]


def realistic_markdown(size: int = SIZE, seed: int = 7) -> str:
    """Memory files as an agent writes them: frontmatter, prose, links, ids, code."""
    return concatenated(size, seed, _memory_file)


def _memory_file(rng: random.Random, n: int) -> str:
    fields = {
        "n": n,
        "sha": "".join(rng.choice(HEX) for _ in range(40)),
        "sha256": "".join(rng.choice(HEX) for _ in range(64)),
        "uuid": "-".join("".join(rng.choice(HEX) for _ in range(k)) for k in (8, 4, 4, 4, 12)),
    }
    body = "\n\n".join(p.format(**fields) for p in rng.sample(_PARAGRAPHS, 3))
    return (
        f"---\nname: note-{n}\ndescription: a project fact number {n}\ntype: project\n---\n\n"
        f"## Note {n}\n\n{body}\n\n{_CODE.format(n=n)}\n- [Related](note-{n + 1}.md) — more\n\n"
    )


def _rand(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def planted_tokens(seed: int = 11) -> dict[str, str]:
    """One made-up token per family, assembled from parts."""
    rng = random.Random(seed)
    b64 = "\n".join(_rand(rng, 64, ALNUM + "+/") for _ in range(5))
    return {
        "cloud/aws": "AKIA" + _rand(rng, 16, string.ascii_uppercase + "234567"),
        "cloud/gcp": "AIza" + _rand(rng, 35),
        "cloud/digitalocean": "dop_v1_" + _rand(rng, 64, HEX),
        "ai/anthropic": "sk-ant-api03-" + _rand(rng, 93) + "AA",
        "ai/openai-project": "sk-proj-" + _rand(rng, 74) + "T3BlbkFJ" + _rand(rng, 74),
        "ai/huggingface": "hf_" + _rand(rng, 34, string.ascii_letters),
        "git/github": "ghp_" + _rand(rng, 36),
        "git/github-fine-grained": "github_pat_" + _rand(rng, 22) + "_" + _rand(rng, 59),
        "git/gitlab": "glpat-" + _rand(rng, 20),
        "messaging/slack": "xoxb-"
        + _rand(rng, 11, string.digits)
        + "-"
        + _rand(rng, 12, string.digits)
        + "-"
        + _rand(rng, 24),
        "messaging/sendgrid": "SG." + _rand(rng, 22) + "." + _rand(rng, 43),
        "dev/npm": "npm_" + _rand(rng, 36),
        "dev/databricks": "dapi" + _rand(rng, 32, HEX),
        "dev/postman": "PMAK-" + _rand(rng, 24, HEX) + "-" + _rand(rng, 34, HEX),
        "observability/grafana": "glsa_" + _rand(rng, 32) + "_" + _rand(rng, 8, HEX),
        "observability/sentry": "sntryu_" + _rand(rng, 64, HEX),
        "commerce/stripe": "sk_live_" + _rand(rng, 32),
        "commerce/shopify": "shpat_" + _rand(rng, 32, HEX),
        "keys/rsa": f"-----BEGIN RSA PRIVATE KEY-----\n{b64}\n-----END RSA PRIVATE KEY-----",
    }


def with_planted(text: str, tokens: dict[str, str]) -> str:
    step = len(text) // (len(tokens) + 1)
    pieces = [text[i * step : (i + 1) * step] for i in range(len(tokens))]
    planted = [f"{p}\ncredential: {tok}\n" for p, tok in zip(pieces, tokens.values(), strict=True)]
    return "".join(planted) + text[len(tokens) * step :]


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm caches and compiled patterns
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def report(name: str, text: str, fn: Callable[[str], object], runs: int) -> None:
    ms = median_ms(lambda: fn(text), runs)
    mb_s = len(text.encode()) / 1e6 / (ms / 1000)
    print(f"{name:44} {ms:9.2f} ms {mb_s:9.1f} MB/s  (median of {runs})")


@contextlib.contextmanager
def _as_file(text: str) -> Iterator[str]:
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as f:
        f.write(text)
    try:
        yield f.name
    finally:
        os.unlink(f.name)


def detect_secrets_scanner() -> Callable[[str], set[str]] | None:
    """A text -> secret types function over detect-secrets' default plugins, if installed."""
    try:
        from detect_secrets.core.secrets_collection import (  # type: ignore[import-not-found,unused-ignore]
            SecretsCollection,
        )
        from detect_secrets.settings import (  # type: ignore[import-not-found,unused-ignore]
            default_settings,
        )
    except ImportError:
        return None

    def scan(text: str) -> set[str]:
        with _as_file(text) as path, default_settings():
            collection = SecretsCollection()
            collection.scan_file(path)
            return {secret.type for _, secret in collection}

    return scan


def coverage(name: str, scan: Callable[[str], object]) -> None:
    tokens = planted_tokens()
    found = [family for family, tok in tokens.items() if scan(f"credential: {tok}\n")]
    missed = [family for family in tokens if family not in found]
    print(f"{name}: finds {len(found)}/{len(tokens)} planted families; misses: {missed or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=51)
    args = parser.parse_args()
    clean = realistic_markdown()
    dirty = with_planted(clean, planted_tokens())
    print(f"text: {len(clean.encode()) / 1000:.1f} KB markdown, {clean.count(chr(10))} lines\n")
    report("memdir scan_text, clean prose", clean, scan_text, args.runs)
    report("memdir scan_text, 19 planted tokens", dirty, scan_text, args.runs)
    report("memdir redact, 19 planted tokens", dirty, redact, args.runs)
    # Worst case for the run prefilter: the whole text is one run of token
    # characters (a pasted base64 blob), so every anchor is searched in all of it.
    blob = "".join(random.Random(3).choice(ALNUM + "+/") for _ in range(SIZE))
    report("memdir scan_text, 100 KB base64 blob", blob, scan_text, args.runs)
    ds_scan = detect_secrets_scanner()
    if ds_scan is None:
        print("detect-secrets not installed: skipped")
    else:
        ds_runs = max(3, args.runs // 10)
        report("detect-secrets default plugins, clean prose", clean, ds_scan, ds_runs)
        report("detect-secrets default plugins, 19 planted", dirty, ds_scan, ds_runs)
    print()
    coverage("memdir", scan_text)
    if ds_scan is not None:
        coverage("detect-secrets", ds_scan)


if __name__ == "__main__":
    main()
