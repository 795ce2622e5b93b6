"""Retrieval over a project's own memory: short notes with descriptions, and daily logs.

A third corpus shape beside LoCoMo (a chat of short turns) and the coding
sessions (short user turns, long replies): what memdir itself writes for a
developer. Each of 12 workspaces holds about 20 memory files (a name, a one-line
description, a body of two or three sentences; ``Memdir.store(...).write``) and
six weeks of daily logs (``Memdir.log``: one bullet per entry, three to six a
working day, a sentence or two each). A workspace states 12 facts once, six in
a note and six in a log entry (a port, a deadline, who covers whom, why a
library was picked, what a flaky test shares), among notes and entries that
use the same words without stating them; each fact is asked about with a
question a person would ask of their notes, which does not contain the answer.

The questions were written with the templates, before any ranking ran on
them, and are not tuned to it. The corpus is generated deterministically
(``generate``, seed 31) and written in LoCoMo's format
(``benchmarks/data/notes_logs.json``: session 1 holds the notes, session n + 1
the log of the n-th day, a turn's ``speaker`` is ``note`` or ``log``; notes carry
``name``, ``description`` and ``type``, entries ``time``), so ``locomo_eval.py``
scores it as it scores the others. memdir answers each question with
``Memdir.search(question, kinds=("memory", "log"))``; the hits map back to
the items' dia_ids.

The baseline is plain BM25 over one document per item (a note's name,
description and body; an entry's text), Lucene's defaults, memdir's analyser:
``coding_sessions.bm25_run``'s, as the coding sessions are scored.

    .venv/bin/python benchmarks/notes_logs.py [--out RUN.jsonl] [--baseline MAIN.jsonl]
        [locomo.py flags: --lexical, ranking options]

It prints memdir's table, the baseline's, and the paired bootstrap of each k
against plain BM25 and, with ``--baseline``, against another run.

The corpus: 240 notes (118 characters of body on average), 1,698 log entries
(49), 144 questions, 72 of them answered by a note; no workspace holds two notes
of one name (memdir's store keeps one file per name: an earlier corpus had three
such pairs, and the second note replaced the first). Turn recall@1/@5/@10 in %,
one run each, paired bootstrap (95 %) against plain BM25 (85.4 / 95.8 / 96.5):

    memdir, BM25 alone (--lexical)                        84.0/96.5/97.2  @1 -1.4 [-4.9, +2.1]
                                                          @5 +0.7 [0.0, +2.1], @10 +0.7 [0.0, +2.1]
    memdir, hybrid (the default with the embeddings extra) 91.0/97.2/100.0 @1 +5.6 [+1.4, +9.7]
                                                          @5 +1.4 [0.0, +3.5], @10 +3.5 [+0.7, +6.9]

BM25 alone loses four questions at @1 to plain BM25 and wins two. Three are
"Where do the <service> secrets live now?", where the note named "vault" (its
description "Where secrets are kept") outranks the log entry that moved them:
a note's name and description weigh 3 and 2, and the question's words are the
note's subject; the fourth is a note about a service above the log entry that
deployed it. Plain BM25 leaves little room at @10 here (96.5): the "hybrid 8
points above it at @10" shape cannot be met on this corpus.

Variants tried for the coding sessions' @1 (``benchmarks/coding_sessions.py``),
against the default of each: ``--window-text-b 1`` changes no question, lexical
or hybrid; ``--dense-weight 0.5`` (hybrid) 88.2 / 95.8 / 96.5, @1 -2.1 [-4.9, 0.0],
@10 -2.8 [-5.6, -0.7]. Neither is kept.
"""

# ruff: noqa: E501  (the templates are data: one per line reads best)
from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
from coding_sessions import MONTHS, bm25_ranked, score
from memdir.api import Memdir
from memdir.kinds import MemoryType, Scope
from memdir.model import Memory
from memdir.search.catalog import Catalog, Hit, SearchQuery
from memdir.storage.dailylog import read_log

DATA = Path(__file__).resolve().parent / "data" / "notes_logs.json"
SEED = 31
DAYS = 30  # working days of logs per workspace
KINDS = ("memory", "log")

WORKSPACES = [
    ("orbit", "checkout", ["cart-api", "payment-gateway", "order-worker", "price-service"]),
    ("lumen", "analytics", ["event-collector", "query-engine", "report-builder", "ingest-queue"]),
    ("harbor", "logistics", ["route-planner", "tracking-api", "label-printer", "depot-sync"]),
    ("fennel", "recipes app", ["recipe-api", "image-store", "search-indexer", "meal-planner"]),
    ("granite", "banking core", ["ledger-service", "fx-rates", "statement-job", "kyc-checker"]),
    ("pixel", "photo editor", ["filter-engine", "upload-service", "thumbnailer", "share-links"]),
    ("tempo", "music streaming", ["playlist-api", "audio-cdn", "royalty-job", "recommender"]),
    ("sable", "HR portal", ["leave-tracker", "payroll-export", "org-chart", "onboarding-flow"]),
    ("willow", "clinic booking", ["slot-finder", "reminder-sender", "patient-api", "billing-sync"]),
    (
        "copper",
        "IoT fleet",
        ["device-registry", "telemetry-ingest", "firmware-push", "alert-router"],
    ),
    ("prism", "design system", ["token-builder", "icon-pipeline", "docs-site", "component-lint"]),
    ("quartz", "ticketing", ["seat-map", "queue-service", "refund-handler", "venue-sync"]),
]
PEOPLE = [
    "Priya",
    "Tomasz",
    "Lena",
    "Kwame",
    "Aiko",
    "Mateo",
    "Sofia",
    "Ibrahim",
    "Noor",
    "Jonas",
    "Elif",
    "Ravi",
]
TEAMS = ["platform", "payments", "data", "mobile", "security", "infra", "growth", "support"]
ROLES = ["tech lead", "product manager", "staff engineer", "engineering manager", "security lead"]
AREAS = [
    "the database schema",
    "the public API",
    "the CI pipeline",
    "the auth flow",
    "the billing rules",
    "the mobile release",
    "the Terraform modules",
    "the data retention jobs",
]
DEPS = [
    ("Postgres", "postgres"),
    ("Redis", "redis"),
    ("Kafka", "kafka"),
    ("MinIO", "minio"),
    ("RabbitMQ", "rabbitmq"),
    ("Elasticsearch", "elastic"),
]
VENDORS = ["Stripe", "Twilio", "SendGrid", "Datadog", "Sentry", "Algolia", "Mapbox", "Auth0"]
ENVS = ["staging", "production", "the demo cluster", "the QA environment"]
CHANNELS = ["ops-alerts", "oncall-pager", "team-noise", "incident-room", "sre-bridge"]
LIBS = [
    ("httpx", "requests"),
    ("pydantic", "attrs"),
    ("zod", "yup"),
    ("polars", "pandas"),
    ("structlog", "loguru"),
    ("vitest", "jest"),
    ("sqlx", "diesel"),
    ("tenacity", "backoff"),
]
COMPONENTS = [
    "retry logic",
    "config loader",
    "CSV export",
    "rate limiter",
    "webhook handler",
    "cache layer",
    "date parsing",
    "audit log",
]
REASONS = [
    "it handles timeouts without extra code",
    "the other one is unmaintained",
    "its licence is allowed here",
    "it halves the cold start time",
    "the team already knows it",
    "it validates at the edge instead of deep inside",
]
FEATURES = [
    "bulk export",
    "dark mode",
    "SSO login",
    "audit trail",
    "saved searches",
    "offline mode",
    "two-factor setup",
    "usage dashboard",
]
WHY_FIRST = [
    "the sales team promised it to a customer",
    "support gets the most tickets about it",
    "legal needs it before the audit",
    "it unblocks the mobile team",
]
CAUSES = [
    "a certificate expired on the load balancer",
    "a migration locked the orders table",
    "the disk filled up with debug logs",
    "a bad config push disabled the cache",
    "DNS for the internal registry stopped resolving",
]
TESTS = ["upload", "checkout", "login", "export", "sync", "search", "refund", "invite"]
SHARED = [
    "a temp directory",
    "the same Redis database",
    "a fixed port",
    "the system clock",
    "one global config object",
]
SETTINGS = [
    ("worker pool size", "workers"),
    ("request timeout", "seconds"),
    ("batch size", "rows"),
    ("connection limit", "connections"),
]
ERRORS = ["timeouts under load", "a memory spike", "a backlog of jobs", "dropped connections"]
OPS = [
    "the search query",
    "the nightly export",
    "the login request",
    "the PDF render",
    "the cart update",
]
MACHINES = ["the staging box", "a laptop", "the c5.large runner", "the shared VM"]
CHANGES = [
    "adding an index",
    "caching the lookups",
    "batching the writes",
    "dropping the ORM layer",
]
JOBS = [
    ("cleanup-tmp", "purge-scratch"),
    ("nightly-sync", "ledger-reconcile"),
    ("weekly-digest", "summary-mailer"),
    ("cache-warm", "prefill-hot-keys"),
]


def _values(rng: random.Random, ws: tuple[str, str, list[str]]) -> dict[str, Any]:
    """The slot values one fact or filler is written with."""
    project, product, services = ws
    svc, svc2 = rng.sample(services, 2)
    person, person2 = rng.sample(PEOPLE, 2)
    dep, dep_cmd = rng.choice(DEPS)
    lib_a, lib_b = rng.choice(LIBS)
    setting, unit = rng.choice(SETTINGS)
    old_job, new_job = rng.choice(JOBS)
    test, test2 = rng.sample(TESTS, 2)
    feature, feature2 = rng.sample(FEATURES, 2)
    a = rng.randint(2, 30)
    return {
        "project": project,
        "product": product,
        "svc": svc,
        "svc2": svc2,
        "person": person,
        "person2": person2,
        "team": rng.choice(TEAMS),
        "role": rng.choice(ROLES),
        "area": rng.choice(AREAS),
        "dep": dep,
        "dep_cmd": dep_cmd,
        "port": rng.randint(5400, 9900),
        "env_var": f"{svc.split('-')[0].upper()}_OFFLINE",
        "vendor": rng.choice(VENDORS),
        "env": rng.choice(ENVS),
        "month": rng.choice(MONTHS),
        "day": rng.randint(2, 28),
        "quarter": rng.choice(["Q1", "Q2", "Q3", "Q4"]),
        "channel": rng.choice(CHANNELS),
        "n": rng.randint(3, 90),
        "m": rng.randint(100, 900),
        "lib_a": lib_a,
        "lib_b": lib_b,
        "component": rng.choice(COMPONENTS),
        "reason": rng.choice(REASONS),
        "feature": feature,
        "feature2": feature2,
        "why": rng.choice(WHY_FIRST),
        "cause": rng.choice(CAUSES),
        "test": test,
        "test2": test2,
        "shared": rng.choice(SHARED),
        "setting": setting,
        "unit": unit,
        "a": a,
        "b": a * rng.choice([2, 3, 4]),
        "error": rng.choice(ERRORS),
        "op": rng.choice(OPS),
        "machine": rng.choice(MACHINES),
        "change": rng.choice(CHANGES),
        "old_job": old_job,
        "new_job": new_job,
        "ver": f"{rng.randint(1, 4)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}",
        "old": rng.choice(["MySQL", "a cron box", "the monolith", "Heroku"]),
        "new": rng.choice(["Postgres", "Kubernetes jobs", "its own service", "Fly.io"]),
        "folder": rng.choice(["Services", "Backend", "Prod boards", "Team dashboards"]),
    }


# Facts stated in a memory note: (type, name, description, body, question).
NOTE_FACTS = [
    (
        "reference",
        "{svc} dashboards",
        "Where the {svc} dashboards and alerts live",
        "The {svc} board is in Grafana under {folder}/{svc}. Its alerts page the #{channel} channel, not the general one.",
        "Which channel do the {svc} alerts go to?",
    ),
    (
        "feedback",
        "database in tests",
        "How integration tests of {svc} should treat the database",
        "Integration tests for {svc} run against a real {dep} in Docker, never a mock of the database layer: a mocked test hid a broken migration in {month}.",
        "Why shouldn't the {svc} tests mock the database?",
    ),
    (
        "reference",
        "running {svc} locally",
        "Steps to start {svc} on a laptop",
        "Start {dep} first with docker compose up {dep_cmd}; it has to listen on port {port}. Then make dev in the {svc} folder, with {env_var}=1 so it skips the real {vendor} API.",
        "What port does {dep} need when I run {svc} on my laptop?",
    ),
    (
        "user",
        "{person}",
        "Who {person} is and when to ask them",
        "{person} is the {role} of the {team} team. Ask {person} before changing anything in {area}; written proposals work better than meetings.",
        "Who do I have to ask before changing {area}?",
    ),
    (
        "project",
        "{quarter} release freeze",
        "Dates of the {project} release cut",
        "Code freeze for the {quarter} release starts on {day} {month}. After that only fixes tagged release-blocker get merged.",
        "When does the code freeze for the {quarter} release begin?",
    ),
    (
        "feedback",
        "commit messages",
        "The commit message format the team expects",
        "Commit subjects start with the component in brackets, like [{svc}], and stay under {n} characters: the merge bot rejects longer ones.",
        "What is the longest commit subject the merge bot accepts?",
    ),
    (
        "reference",
        "{vendor} account",
        "Billing and support contacts for {vendor}",
        "The {vendor} account is paid from the {team} team's budget and the contract renews in {month}. Support tickets with {vendor} go through {person2}.",
        "Who files the support tickets with {vendor}?",
    ),
    (
        "project",
        "{svc} migration",
        "Plan for moving {svc} off {old}",
        "{svc} moves from {old} to {new} in three steps: dual writes, a backfill, then the cut-over. The cut-over needs a maintenance window of {n} minutes.",
        "How long a maintenance window does the {svc} cut-over need?",
    ),
]

# Facts stated in a daily-log entry: (text, question).
LOG_FACTS = [
    (
        "Deployed {svc} {ver} to {env}; the {feature} flag stays off until {person} signs off.",
        "Which version of {svc} did I put on {env}?",
    ),
    (
        "Found why the {test} test flakes: it shares {shared} with the {test2} test when the suite runs in parallel.",
        "What makes the {test} test flaky?",
    ),
    (
        "Call with {person} about the roadmap: {feature} comes before {feature2}, because {why}.",
        "Why does {feature} come before {feature2}?",
    ),
    (
        "Benchmarked {op} on {machine}: {n} ms at p95, down from {m} ms after {change}.",
        "How fast is {op} at p95 now?",
    ),
    (
        "{svc} was down for {n} minutes this morning: {cause}. Wrote up the postmortem for {person}.",
        "What took {svc} down?",
    ),
    (
        "Went with {lib_a} instead of {lib_b} for the {component} in {svc}: {reason}.",
        "Why did I pick {lib_a} for the {component}?",
    ),
    (
        "{person} is on leave until {day} {month}; {person2} reviews changes to {area} meanwhile.",
        "Who reviews {area} changes while {person} is away?",
    ),
    (
        "Renamed the {old_job} job to {new_job} so the scheduler names match {svc}.",
        "What is the {old_job} job called now?",
    ),
    (
        "Raised the {setting} of {svc} from {a} to {b} {unit} after {error} on {env}.",
        "What did I set the {setting} of {svc} to?",
    ),
    (
        "Moved the {svc} secrets to the {team} vault path; the old environment file is deleted.",
        "Where do the {svc} secrets live now?",
    ),
]

# Notes that share the facts' words without stating them: (type, name, description, body).
NOTE_FILLERS = [
    (
        "project",
        "{svc} overview",
        "What {svc} does and who owns it",
        "{svc} handles the {product} side of {project}. The {team} team owns it; on-call rotates weekly.",
    ),
    (
        "reference",
        "{svc} runbook",
        "What to do when {svc} misbehaves",
        "Check the {svc} dashboards first, then the logs in {vendor}. Restart with make restart; never scale below two pods.",
    ),
    (
        "feedback",
        "code review",
        "How the team reviews pull requests",
        "Small pull requests, one reviewer from the owning team. Tests in the same pull request as the change.",
    ),
    (
        "feedback",
        "tests",
        "What the team expects from tests",
        "Every bug fix comes with a test that failed before it. Slow tests go behind the slow marker.",
    ),
    (
        "reference",
        "{dep} notes",
        "How {dep} is used in {project}",
        "{project} runs {dep} in Docker for development and a managed instance in {env}. Backups are nightly.",
    ),
    (
        "user",
        "{person2}",
        "Who {person2} is",
        "{person2} works on the {team} team, mostly on {svc2}. Good person to ask about {vendor}.",
    ),
    (
        "project",
        "{quarter} goals",
        "What {project} aims for this quarter",
        "Ship {feature}, cut the {svc} error rate in half, and retire {old}. The release plan is in the wiki.",
    ),
    (
        "reference",
        "deploys",
        "How {project} deploys",
        "Deploys go through the pipeline: merge to main, build, {env}, then production after a smoke test. Versions are tagged by the pipeline.",
    ),
    (
        "feedback",
        "meetings",
        "How I like meetings run",
        "An agenda in the invite, notes in the shared doc, decisions written at the end. No meeting without a purpose.",
    ),
    (
        "reference",
        "vault",
        "Where secrets are kept",
        "Secrets live in the vault, one path per team. Never commit an environment file; the pre-commit hook checks.",
    ),
    (
        "project",
        "on-call",
        "The on-call rotation for {project}",
        "On-call rotates every Monday. The pager goes to the primary first, then the {team} lead after fifteen minutes.",
    ),
    (
        "reference",
        "{svc2} API",
        "Endpoints of {svc2}",
        "{svc2} exposes a REST API on the internal network; the OpenAPI file is in the repo. Timeouts default to thirty seconds.",
    ),
    (
        "feedback",
        "commit hygiene",
        "How I want the history to read",
        "Rebase before merging, squash fixups, and keep unrelated changes out of a commit.",
    ),
    (
        "project",
        "{svc2} migration",
        "Moving {svc2} to the new cluster",
        "{svc2} moves to the new cluster after the release; the plan needs sign-off from the {team} team.",
    ),
]

# Log entries that share the facts' words without stating them.
LOG_FILLERS = [
    "Worked on the {component} in {svc}.",
    "Reviewed {person}'s pull request for {svc2}.",
    "Standup: nothing blocking, {person2} is on the {feature} work.",
    "{svc} deploy to {env} went through without trouble.",
    "Read up on {lib_a} and {lib_b}; no decision yet.",
    "Paired with {person} on the {test} test.",
    "The {test} test failed on CI again; a rerun passed.",
    "Talked with {person2} about {feature}, nothing decided.",
    "Benchmarks for {op} still to do.",
    "Postmortem review meeting for last week's incident.",
    "Cleaned up old branches in {svc2}.",
    "Dentist at three, left early.",
    "Updated the {svc} runbook with the restart steps.",
    "Wrote tests for the {component}.",
    "Planning meeting for the {quarter} release.",
    "{vendor} invoice came in, forwarded it to {person2}.",
    "Looked at the {svc} dashboards, error rate normal.",
    "Answered questions from the {team} team about {svc2}.",
    "Reverted a config change on {env}, it broke the {test} test.",
    "Spent the afternoon on the {svc2} migration doc.",
    "1:1 with {person}.",
    "On-call handover, quiet week.",
    "Tried raising the {setting} locally, no difference.",
    "Fixed a typo in the {svc} README.",
]


def _days(start: dt.date, count: int) -> list[dt.date]:
    """``count`` working days from ``start`` on."""
    days, day = [], start
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    return days


def _distinct(name: str, v: dict[str, Any], services: list[str], taken: set[str]) -> dict[str, Any]:
    """``v`` with another service in ``svc2`` when the note's name would repeat one the
    workspace has (two notes of one name are one file in memdir's store). No draw from
    the random stream: the rest of the corpus is as it was."""
    if name.format(**v).lower() not in taken:
        return v
    for other in services:
        trial = {**v, "svc2": other}
        if other != v["svc"] and name.format(**trial).lower() not in taken:
            return trial
    raise ValueError(f"no service left for a distinct {name!r}")


def _workspace(rng: random.Random, n: int, ws: tuple[str, str, list[str]]) -> dict[str, Any]:
    """One workspace: its notes (session 1), its days of logs, and its 12 questions."""
    notes: list[dict[str, Any]] = []
    questions: list[tuple[str, str]] = []
    for type_, name, desc, body, question in rng.sample(NOTE_FACTS, 6):
        v = _values(rng, ws)
        notes.append(
            {
                "type": type_,
                "name": name.format(**v),
                "description": desc.format(**v),
                "text": body.format(**v),
            }
        )
        questions.append((f"N{len(notes)}", question.format(**v)))
    for type_, name, desc, body in NOTE_FILLERS:
        v = _distinct(name, _values(rng, ws), ws[2], {note["name"].lower() for note in notes})
        notes.append(
            {
                "type": type_,
                "name": name.format(**v),
                "description": desc.format(**v),
                "text": body.format(**v),
            }
        )
    rng.shuffle(order := list(range(len(notes))))
    notes = [notes[i] for i in order]
    note_ids = {f"N{i + 1}": f"D1:{order.index(i) + 1}" for i in range(len(order))}
    days = _days(dt.date(2026, 1, 5) + dt.timedelta(days=7 * n), DAYS)
    logs: list[list[str]] = [
        [rng.choice(LOG_FILLERS).format(**_values(rng, ws)) for _ in range(rng.randint(3, 6))]
        for _ in days
    ]
    log_ids: dict[str, str] = {}
    for k, (text, question) in enumerate(rng.sample(LOG_FACTS, 6)):
        v = _values(rng, ws)
        day = rng.randrange(DAYS)
        at = rng.randint(0, len(logs[day]))
        for key, dia in list(log_ids.items()):  # entries after it on that day move down
            d, i = dia[1:].split(":")
            if int(d) == day + 2 and int(i) > at:
                log_ids[key] = f"D{d}:{int(i) + 1}"
        logs[day].insert(at, text.format(**v))
        log_ids[f"L{k}"] = f"D{day + 2}:{at + 1}"
        questions.append((f"L{k}", question.format(**v)))
    ids = {**note_ids, **log_ids}
    return {
        "notes": notes,
        "days": days,
        "logs": logs,
        "questions": [(ids[key], q) for key, q in questions],
    }


def generate(seed: int = SEED) -> list[dict[str, Any]]:
    """The corpus in LoCoMo's format: one sample per workspace, 12 questions each."""
    rng = random.Random(seed)
    samples = []
    for n, ws in enumerate(WORKSPACES):
        built = _workspace(rng, n, ws)
        days: list[dt.date] = built["days"]
        conv: dict[str, Any] = {"speaker_a": "note", "speaker_b": "log"}
        first = dt.datetime.combine(days[0], dt.time(8, 30))
        conv["session_1_date_time"] = first.strftime("%I:%M %p on %d %B, %Y").lstrip("0")
        conv["session_1"] = [
            {"speaker": "note", "dia_id": f"D1:{i + 1}", **note}
            for i, note in enumerate(built["notes"])
        ]
        for d, (day, entries) in enumerate(zip(days, built["logs"], strict=True)):
            when = dt.datetime.combine(day, dt.time(9, 0))
            conv[f"session_{d + 2}_date_time"] = when.strftime("%I:%M %p on %d %B, %Y").lstrip("0")
            minutes = sorted(rng.sample(range(0, 9 * 60), len(entries)))
            conv[f"session_{d + 2}"] = [
                {
                    "speaker": "log",
                    "dia_id": f"D{d + 2}:{i + 1}",
                    "text": text,
                    "time": f"{9 + m // 60:02d}:{m % 60:02d}",
                }
                for i, (text, m) in enumerate(zip(entries, minutes, strict=True))
            ]
        samples.append(
            {
                "sample_id": f"notes-{n:02d}",
                "conversation": conv,
                "qa": [
                    {"question": q, "answer": "", "evidence": [dia], "category": 4}
                    for dia, q in built["questions"]
                ],
            }
        )
    return samples


# --- indexing and answering -----------------------------------------------------------


def write_workspace(mem: Memdir, conv: dict[str, Any]) -> dict[str, str]:
    """The notes as memory files and the entries as daily logs; returns hit ref -> dia_id."""
    refs: dict[str, str] = {}
    when = dt.datetime.strptime(conv["session_1_date_time"], "%I:%M %p on %d %B, %Y")
    store = mem.store(Scope.PRIVATE)
    for note in conv["session_1"]:
        memory = Memory(
            name=note["name"],
            description=note["description"],
            type=MemoryType(note["type"]),
            body=note["text"],
            updated=when.date(),
        )
        refs[store.write(memory, stamp=False).record.file] = note["dia_id"]
    for n in locomo.session_numbers(conv)[1:]:
        day = dt.datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        path = None
        for entry in conv[f"session_{n}"]:
            hour, minute = map(int, entry["time"].split(":"))
            path = mem.log(entry["text"], now=day.replace(hour=hour, minute=minute))
        assert path is not None
        rel = path.relative_to(mem.layout.memory_dir).as_posix()
        written = read_log(path)
        for entry, turn in zip(written, conv[f"session_{n}"], strict=True):
            refs[f"{rel}#L{entry.line}"] = turn["dia_id"]
    return refs


def _answer(sample: dict[str, Any], search: Any, refs: dict[str, str], out: Any) -> None:
    for qi, qa in enumerate(sample["qa"]):
        hits: list[Hit] = search(qa["question"])
        ranked = [refs.get(hit.ref, hit.ref) for hit in hits]
        out.write(json.dumps({"qid": f"{sample['sample_id']}/q{qi}", "ranked": ranked}) + "\n")


def run(args: argparse.Namespace, data: list[dict[str, Any]]) -> float:
    """Write every workspace, answer every question; returns seconds spent."""
    options = locomo.ranking_options(args)
    embedder = locomo.embedder_of(args)
    facade = locomo.uses_facade(args, options)
    start = time.perf_counter()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memdir-notes-") as tmp, open(args.out, "w") as out:
        for sample in data:
            project = Path(tmp) / "projects" / sample["sample_id"]
            project.mkdir(parents=True)
            lexical: dict[str, Any] = {"search_embeddings": "off"} if args.lexical else {}
            mem = Memdir.open(project, home=Path(tmp) / "home", **lexical)
            try:
                refs = write_workspace(mem, sample["conversation"])
                if facade:
                    mem.embed()
                    search = functools.partial(mem.search, kinds=KINDS, limit=args.limit)
                    _answer(sample, search, refs, out)
                else:
                    with Catalog.open(mem.layout, options=options, embedder=embedder) as catalog:
                        catalog.refresh()
                        catalog.embed()
                        catalog.auto_refresh = False

                        def search(question: str, catalog: Catalog = catalog) -> list[Hit]:
                            wanted = SearchQuery(query=question, kinds=KINDS, limit=args.limit)
                            return catalog.search(wanted)

                        _answer(sample, search, refs, out)
            finally:
                mem.close()
            print(f"{sample['sample_id']}: {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return time.perf_counter() - start


def bm25_run(data: list[dict[str, Any]], out: Path) -> None:
    """Plain BM25 over one document per item: a note's name, description and body; an entry."""
    with out.open("w", encoding="utf-8") as handle:
        for sample in data:
            conv = sample["conversation"]
            docs = []
            for n in locomo.session_numbers(conv):
                for item in conv[f"session_{n}"]:
                    text = item["text"]
                    if item["speaker"] == "note":
                        text = f"{item['name']}\n{item['description']}\n{text}"
                    docs.append((item["dia_id"], text))
            for qi, qa in enumerate(sample["qa"]):
                ranked = bm25_ranked(docs, qa["question"])
                qid = f"{sample['sample_id']}/q{qi}"
                handle.write(json.dumps({"qid": qid, "ranked": ranked}) + "\n")


def _shape(data: list[dict[str, Any]]) -> str:
    notes, entries, on_notes, total = [], [], 0, 0
    for sample in data:
        conv = sample["conversation"]
        for n in locomo.session_numbers(conv):
            for item in conv[f"session_{n}"]:
                (notes if item["speaker"] == "note" else entries).append(len(item["text"]))
        total += len(sample["qa"])
        on_notes += sum(qa["evidence"][0].startswith("D1:") for qa in sample["qa"])
    return (
        f"{len(data)} workspaces, {len(notes)} notes ({sum(notes) / len(notes):.0f} chars of"
        f" body), {len(entries)} log entries ({sum(entries) / len(entries):.0f} chars),"
        f" {total} questions ({on_notes} answered by a note)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="write the corpus file again")
    known, rest = parser.parse_known_args()
    if known.regenerate or not DATA.exists():
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(json.dumps(generate(), indent=1) + "\n", encoding="utf-8")
    data = json.loads(DATA.read_text(encoding="utf-8"))
    print(_shape(data), file=sys.stderr)
    args = locomo.build_parser().parse_args(["--data", str(DATA), *rest])
    if args.out == str(locomo.RUNS / "locomo_run.jsonl"):
        args.out = str(locomo.RUNS / "notes_run.jsonl")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    seconds = run(args, data)
    print(f"indexed and answered in {seconds:.1f}s", file=sys.stderr)
    base = Path(args.out).with_suffix(".bm25.jsonl")
    bm25_run(data, base)
    score(DATA, args.out, base, args.baseline)
    return 0


if __name__ == "__main__":
    sys.exit(main())
