"""Evidence retrieval on coding-agent sessions: long assistant replies, short user turns.

A second corpus beside LoCoMo, of another shape: 20 conversations between a
developer and a coding agent, 60 turns each, in which the user's turns
are short (about 330 characters) and the agent's replies long (about 3,900:
plans, code, explanations that echo the user's words many times). Each
conversation states a few facts once (a port, a deadline, a name picked, a
reason given), most in a user turn and some in a reply, and asks about each
with a question that does not contain the answer; the turn stating it is the
evidence. The corpus is generated deterministically (``generate``, seed 23)
from templates filled with varied project content, and written in LoCoMo's
format (``benchmarks/data/coding_sessions.json``), so it runs exactly as
``benchmarks/locomo.py`` runs LoCoMo (the same ``run``, the same transcripts,
the same facade search) and is scored by the same ``locomo_eval.py``.

The baseline is plain BM25 written out here: one document per turn (its
text only), Lucene's defaults (k1 = 1.2, b = 0.75, idf ``ln(1 + (N - df +
0.5) / (df + 0.5))``), Snowball stemming and stop words through memdir's
analyser (:func:`memdir.search.terms.terms`).

    .venv/bin/python benchmarks/coding_sessions.py [--out RUN.jsonl] [--baseline MAIN.jsonl]
        [--sessions N] [--exchanges N] [locomo.py flags]

It prints memdir's table, the baseline's, and the paired bootstrap of each k
against plain BM25 and, with ``--baseline``, against another run (main's ranking).

Long texts as passages, tried here (turn recall@1/@5/@10, then the paired
bootstrap against the default of 66.7/86.4/95.2, 95 %). Each turn's body
indexed as passages of 200 terms overlapping by 50 (a reply is 2 or 3, a
user turn one), FTS rows per passage, a turn scoring its best passage:

    passages, own and context rows per passage            34.7/59.2/74.2  @10 -21.1 [-27.9, -15.0]
      + context cut to the nearest 100 words each side     47.6/74.2/82.3  @10 -12.9 [-18.4, -7.5]
    passages in the own row only (context row whole)      57.8/77.6/89.8  @10 -5.4 [-9.5, -2.0]
      + context cut to 100 words each side                 68.0/80.3/85.0  @10 -10.2 [-15.7, -5.4]
    no passages, context cut to 100 / 50 words each side  71.4/80.3/85.7  72.1/82.3/87.1
                                                          @1 +4.8 [+1.4, +8.8], @10 -9.5 [-14.3, -4.8]

Splitting the replies lowers the mean row length that BM25 normalises by, so
the short user turns (and their context rows) count as longer than before,
and a reply's best of two or three passages is a better draw than its whole:
replies ranked first for 104 of 147 questions (61 before). Cutting the
context keeps a short turn's row short but loses the reply's restatement of
the user's words, which finds the turn. None of these is kept; LoCoMo cannot
tell (no turn there reaches 200 terms).

What is kept instead (see ``benchmarks/locomo.py``): the window lending
(``window_share`` 0.5) with ``context_share`` 0.75, here 70.7 / 89.1 / 96.6
against 66.7 / 86.4 / 95.2 before: @1 +4.1 [+1.4, +7.5], @5 +2.7 [+0.7, +5.4],
@10 +1.4 [0.0, +3.4]; plain BM25 66.0 / 76.2 / 93.9.

``--sessions N`` writes each conversation as N transcripts of consecutive
turns (dated a day apart; turns and questions unchanged), the shape of a
project's history over several sessions. The group prior (``group_share``
0.2, see ``benchmarks/locomo.py``) changes nothing on one transcript per
conversation (every turn gains the same); against main on 3 / 6 transcripts,
@1 0.0 / +0.7 [0.0, +2.0], @5 +1.4 [0.0, +3.4] / +2.0 [0.0, +4.1], @10 0.0 /
0.0 (70.1 / 89.1 / 96.6 and 70.1 / 89.8 / 95.9). With the embedding extra
(``--embed``, hybrid default): 73.5 / 95.9 / 99.3.

Then BM25's length normalisation of a turn's own text (FTS5 fixes ``b`` =
0.75; ``--length-b``, :mod:`memdir.search.length_norm`), against main (70.7 /
89.1 / 96.6; paired bootstrap, 95 %). An agent's reply restates the user's
words several times, so at 0.75 its term frequencies outweigh its length and
it outranks the short turn stating the fact; at 1 the length counts in full:

    b 0.3 / 0.5                                           47.6/66.0/87.1  57.1/74.1/93.9
                                                          @1 -23.1 [-30.6, -16.3] / -13.6 [-19.7, -8.2]
    b 0.9                                                 80.3/93.2/98.0  @1 +9.5 [+4.8, +14.3]
                                                          @5 +4.1 [+0.7, +8.2], @10 +1.4 [0.0, +3.4]
    b 1 = default                                         85.7/93.9/98.0  @1 +15.0 [+9.5, +21.1]
                                                          @5 +4.8 [+0.7, +8.8], @10 +1.4 [0.0, +3.4]
      against plain BM25                                  @1 +19.7 [+12.9, +26.5], @5 +17.7
                                                          [+10.2, +25.2], @10 +4.1 [0.0, +8.8]
      cut into 3 / 6 transcripts, against main's cut      85.7/94.6/98.0  85.7/93.9/98.0
                                                          @1 +15.6 [+10.2, +21.8] / +15.6 [+9.5, +21.8]
                                                          @5 +5.4 [+2.0, +9.5] / +4.1 [+1.4, +7.5]
                                                          @10 +1.4 [0.0, +3.4] / +2.0 [0.0, +4.8]
    b 1 on the context row too                            85.0/93.9/98.0  @1 +14.3 [+8.8, +20.4]

(LoCoMo, b 1: no change at any k, see ``benchmarks/locomo.py``.)

Then the hybrid (``--embed``) on that default, beside the lexical in one sitting
(one transcript / three): lexical 85.7 / 93.9 / 98.0 and 85.7 / 94.6 / 98.0, hybrid
87.8 / 97.3 / 99.3 and 87.1 / 98.0 / 99.3. Its fusion, against that hybrid (the
variants and LoCoMo's numbers are logged in ``benchmarks/locomo.py``):

    speaker lift after the prior and the fusion           87.8/97.3/99.3  no change at any k
      (three transcripts: no change; lexical alone: no change, one or three)
    + the name embedded first = hybrid default            86.4/97.3/99.3  @1 -1.4 [-3.4, 0.0]
      three transcripts                                   86.4/98.0/99.3  @1 -0.7 [-2.0, 0.0]
      against the lexical default                         @1 +0.7 [-2.7, +4.1], @5 +3.4 [+0.7,
                                                          +6.8], @10 +1.4 [0.0, +3.4]
    cosine over its best / minus 0.3 / spread from the median (weight 0.5)
                                                          86.4/97.3/99.3  87.1/96.6/98.6
                                                          85.0/96.6/98.6
    group prior after the fusion (three transcripts: not run)
                                                          86.4/96.6/99.3  @1 -1.4 [-3.4, 0.0]

The names here are "user" and "assistant", which say little to the model: the
name costs one or two questions at @1 (intervals reaching 0) for LoCoMo's @5 +1.6
[+0.5, +2.6]. Without the previous turn's start embedded (``--no-embed-previous``)
89.1 / 97.3 / 99.3, @1 +2.7 [+0.7, +5.4], but LoCoMo @1 -1.3 [-2.6, -0.04]; its first
150 characters instead of 300: 87.8 / 97.3 / 99.3, @1 +1.4 [-1.4, +4.1]. Both dropped.

The hybrid is now the default where the embeddings extra is installed (``--lexical``
for BM25 alone). Against plain BM25 (66.0 / 76.2 / 93.9; one run, paired bootstrap,
95 %), the hybrid default 86.4 / 97.3 / 99.3: @1 +20.4 [+12.9, +27.9], @5 +21.1
[+14.3, +27.9], @10 +5.4 [+1.4, +10.2]; the cosine floor (``dense_floor``, 0 to
0.35) changes none of them. On the larger haystack (``--exchanges 150``), where the
lexical default lost @1 to plain BM25 (63.9 / 78.9 / 90.5 against 66.7 / 67.3 / 69.4,
@1 -2.7 [-12.9, +6.8]), the hybrid default is 79.6 / 88.4 / 91.8: @1 +12.9 [+5.4,
+20.4], @5 +21.1 [+13.6, +28.6], @10 +22.4 [+15.6, +29.3] against plain BM25.

Then @1, where memdir was below plain BM25 on a held-out corpus of long replies.
Here it no longer is: each corpus indexed once, every variant ranked over that
index in one sitting (turn recall@1/@5/@10; paired bootstrap, 95 %). BM25 alone,
30 exchanges: 89.1 / 95.9 / 99.3 against plain BM25's 66.0 / 76.2 / 93.9; 150
exchanges: 87.8 / 90.5 / 92.5 against 66.7 / 67.3 / 69.4, no question plain BM25
has at @1 missed (31 won, none lost). Each stage after BM25 taken out at 150
exchanges, against that default:

    group prior / window lending / speaker lift off      87.8/90.5/92.5  no change at any k
    neighbour smoothing off                              85.7/89.8/91.2  @1 -2.0 [-5.4, +0.7]
    context_share 0 (the turn's own text alone)          89.8/92.5/93.9  @1 +2.0 [-1.4, +5.4]
                                                         @5 +2.0 [0.0, +4.8]
    own row at FTS5's b 0.75 instead of 1                70.7/83.7/87.1
    all five off (field weights, b 1)                    85.0/87.8/91.8  @1 -2.7 [-7.5, +2.0]
    all five off, b 0.75                                 66.7/67.3/68.7  (plain BM25's ranking)

What is left at @1: 13 questions answered by a reply, whose first hit is another
reply, and 5 answered by a user turn, whose first hit is a long reply far from it,
ranked there by its window (three quarters of a turn's score): the window is
BM25F, and its own-text column was normalised at FTS5's b (0.75), so a long reply's
repetitions count there as they no longer do in its own row. The window's own text
normalised in full (``window_text_b``, ``--window-text-b``), against the default:

    window_text_b 1, 150 exchanges                       91.2/92.5/93.9  @1 +3.4 [+0.7, +6.8]
                                                         @5 +2.0 [0.0, +4.8], @10 +1.4 [0.0, +3.4]
      (all five of those user turns first)
      30 exchanges                                       91.2/95.9/99.3  @1 +2.0 [0.0, +4.8]
      LoCoMo DEV, against its lexical default            41.5/69.5/78.0  @1 -1.1 [-2.0, -0.3]
        (42.6 / 70.0 / 78.6)                             @5 -0.6 [-1.3, +0.1], @10 -0.6 [-1.0, -0.2]
      notes and logs (``benchmarks/notes_logs.py``)      no change at any k, lexical or hybrid
    window_text_b 0.9, 150 / 30 exchanges                90.5/92.5/93.9  90.5/95.9/99.3
      LoCoMo DEV                                         41.8/69.9/78.2  @1 -0.9 [-1.6, -0.2]
                                                         @10 -0.4 [-0.8, -0.1]
    one-sided: a window's own text longer than the mean normalised in full, a shorter
      one at 0.75 (never lifted above it), 150 / 30     89.1/91.2/93.2  90.5/95.9/99.3
                                                         @1 +1.4 [0.0, +3.4] (both)
      LoCoMo DEV                                         41.9/70.0/78.2  @1 -0.7 [-1.3, -0.1]
                                                         @10 -0.3 [-0.7, -0.1]

On LoCoMo the answer is often a long turn: of the 11 questions window_text_b 1
loses at @1 (it wins 1), 9 are answered by a turn of 33 to 56 words (the mean turn
has 23), and a turn of 15 to 23 words takes its place. Only window_text_b 1 at 150
exchanges gains here with an interval above zero, and every variant loses LoCoMo
significantly, so none is kept: ``window_text_b`` stays 0.75 (an option).

With the embeddings (30 exchanges, the same sitting, against plain BM25): the
hybrid default 84.4 / 98.6 / 100.0, @1 +18.4 [+10.9, +25.9], @5 +22.4 [+15.6,
+29.3], @10 +6.1 [+2.7, +10.2]; against BM25 alone (89.1 / 95.9 / 99.3) @1 -4.8
[-9.5, 0.0], @5 +2.7 [+0.7, +5.4]. The fusion is where the hybrid gives up @1 on
this shape: 10 of its 11 misses answered by a user turn have a reply first (5 the
reply right after it), a reply whose first 256 word pieces, "Sure, here is the
plan for the <component>", sit near any question about that component. Against
the hybrid default:

    window_text_b 1                                      87.1/98.6/100.0  @1 +2.7 [0.0, +6.1]
    dense_weight 0.5 / 0.7                               88.4/98.0/100.0  85.7/98.0/100.0
                                                         @1 +4.1 [0.0, +8.8] / +1.4 [-1.4, +4.1]
                                                         @5 -0.7 [-2.0, 0.0] (both)
    reciprocal-rank fusion (k 60)                        66.7/94.6/100.0  @1 -17.7 [-24.5, -10.2]

LoCoMo DEV's hybrid, against its default (44.5 / 73.6 / 80.4, the same sitting):
window_text_b 1 @1 -1.1 [-1.9, -0.4], @5 -0.5 [-1.1, -0.1], @10 0.0 [-0.3, +0.4];
dense_weight 0.5 @1 -0.5 [-1.7, +0.8], @5 -0.9 [-1.9, +0.2], @10 -0.4 [-1.3, +0.4].
The notes and logs' hybrid (``benchmarks/notes_logs.py``), dense_weight 0.5:
88.2 / 95.8 / 96.5 against 90.3 / 96.5 / 99.3, @10 -2.8 [-5.6, -0.7]. No gain here
excludes zero (dense_weight 0.5's @1 interval starts at it), dense_weight 0.5
loses the notes' @10 and window_text_b LoCoMo's @1, lexical and hybrid: the
defaults stay.

These variants were ranked over one index per corpus; the scripts give the same
numbers (checked for BM25 alone at 30 exchanges) with ``--lexical``,
``--exchanges 150``, ``--group-share 0``, ``--window-share 0``, ``--name-boost 0``,
``--neighbour 0``, ``--context-share 0``, ``--length-b 0.75``, ``--window-text-b 1``
and ``--dense-weight 0.5``. The one-sided variant has no flag (a trial of the scorer).
"""

# ruff: noqa: E501  (the templates are data: one per line reads best)
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
from memdir.search.terms import query_terms, terms

DATA = Path(__file__).resolve().parent / "data" / "coding_sessions.json"
SCORER = locomo.BENCH / "locomo_eval.py"
SEED = 23
EXCHANGES = 30  # user turns (and replies) per conversation

PROJECTS = [
    (
        "ledger",
        "Python",
        "invoice service",
        ["invoice renderer", "payment webhook", "tax calculator", "refund worker"],
    ),
    (
        "tiller",
        "Go",
        "deploy tool",
        ["rollout planner", "health checker", "config loader", "canary controller"],
    ),
    (
        "quarry",
        "Rust",
        "search indexer",
        ["tokenizer", "segment merger", "query parser", "snapshot writer"],
    ),
    (
        "harbor",
        "TypeScript",
        "web dashboard",
        ["chart panel", "auth guard", "settings form", "export dialog"],
    ),
    (
        "beacon",
        "Python",
        "alerting service",
        ["rule evaluator", "notifier", "silence manager", "escalation queue"],
    ),
    (
        "sprocket",
        "Go",
        "job scheduler",
        ["cron parser", "lease manager", "retry queue", "worker pool"],
    ),
    (
        "atlas",
        "Python",
        "geocoding API",
        ["address normaliser", "tile cache", "rate limiter", "batch importer"],
    ),
    (
        "marlin",
        "Kotlin",
        "mobile backend",
        ["push sender", "session store", "profile sync", "image resizer"],
    ),
    (
        "pylon",
        "Python",
        "data pipeline",
        ["csv ingester", "schema validator", "dedup stage", "parquet writer"],
    ),
    (
        "quill",
        "TypeScript",
        "docs site",
        ["markdown renderer", "search box", "sidebar builder", "link checker"],
    ),
    (
        "ferro",
        "Rust",
        "storage engine",
        ["page allocator", "write-ahead log", "compaction task", "bloom filter"],
    ),
    (
        "relay",
        "Go",
        "message broker",
        ["topic router", "consumer group", "ack tracker", "dead-letter queue"],
    ),
    (
        "orchid",
        "Python",
        "ML training tool",
        ["data loader", "checkpoint saver", "metrics logger", "learning-rate scheduler"],
    ),
    (
        "cobalt",
        "Java",
        "billing engine",
        ["usage aggregator", "price book", "proration logic", "invoice exporter"],
    ),
    (
        "nimbus",
        "Python",
        "cloud cost report",
        ["billing fetcher", "tag resolver", "report mailer", "budget checker"],
    ),
    (
        "vertex",
        "C++",
        "graphics toolkit",
        ["mesh loader", "shader cache", "texture atlas", "frame scheduler"],
    ),
    (
        "kestrel",
        "TypeScript",
        "chat widget",
        ["message list", "typing indicator", "upload button", "reconnect logic"],
    ),
    (
        "basalt",
        "Go",
        "auth gateway",
        ["token verifier", "key rotator", "session cookie", "audit logger"],
    ),
    (
        "tundra",
        "Python",
        "weather ingest",
        ["station poller", "unit converter", "gap filler", "forecast joiner"],
    ),
    (
        "meridian",
        "Elixir",
        "ride dispatch",
        ["driver matcher", "surge pricer", "trip tracker", "fare splitter"],
    ),
]
PEOPLE = ["Priya", "Tomasz", "Lena", "Kwame", "Aiko", "Mateo", "Sofia", "Ibrahim", "Noor", "Jonas"]
TEAMS = ["platform", "security", "data", "mobile", "support", "finance", "growth", "infra"]
HOSTS = ["db-stg-2", "pg-east-1", "cache-03", "redis-blue", "mq-west", "vm-builder-7", "edge-11"]
LIBS = [
    ("httpx", "requests"),
    ("pydantic", "marshmallow"),
    ("zod", "yup"),
    ("tokio", "async-std"),
    ("cobra", "urfave/cli"),
    ("pytest", "unittest"),
    ("vitest", "jest"),
    ("sqlx", "diesel"),
    ("structlog", "loguru"),
    ("polars", "pandas"),
    ("chi", "gorilla/mux"),
    ("ktor", "spring"),
]
ERRORS = [
    "a connection reset",
    "an out-of-memory kill",
    "a deadlock timeout",
    "a 502 from the proxy",
    "a checksum mismatch",
    "a stack overflow",
    "a TLS handshake failure",
    "a unique-constraint error",
]
EVENTS = [
    "the quarterly review",
    "the customer demo",
    "the security audit",
    "the launch",
    "the board meeting",
    "the migration weekend",
    "the partner integration",
    "the trade show",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
REASONS = [
    "the old one leaks file handles under load",
    "our on-call people already know it",
    "it keeps the binary small enough for the edge nodes",
    "the licence of the other one is not allowed here",
    "it handles back-pressure without extra code",
    "the vendor stopped shipping security fixes",
    "it is twice as fast on the benchmark we ran last sprint",
    "the compliance team asked for it after the last incident",
]
FILLER_USER = [
    "Keep the existing tests passing.",
    "I ran it locally and saw the same thing twice.",
    "No rush on the docs, code first.",
    "Ping me if anything looks off.",
    "Let's keep the change small.",
    "I'll review it after lunch.",
    "The CI run from this morning is still red, by the way.",
    "Don't touch the public interface yet.",
    "If something in the current design looks wrong to you, tell me before rewriting it.",
    "I'd rather have two small commits than one big one for this.",
    "Last time the linter complained about import order, so run it before you commit.",
    "Leave a short comment where the behaviour is surprising, not everywhere.",
]

# (name, user text, question) for facts stated in a user turn; {c} a component.
USER_FACTS = [
    (
        "port",
        "The staging database for {p} listens on port {port} on {host}; point the integration tests there instead of localhost.",
        "Which port does the staging database of {p} listen on?",
    ),
    (
        "deadline",
        "We need the {c} finished by {day} {month}, because the {team} team shows it at {event}.",
        "By what date does the {c} have to be finished?",
    ),
    (
        "name",
        "Let's call the new helper for the {c} `{ident}`, it matches what the {team} team uses.",
        "What name was chosen for the new helper of the {c}?",
    ),
    (
        "lib",
        "Use {lib_a} rather than {lib_b} for the {c}: {reason}.",
        "Why use {lib_a} rather than {lib_b} for the {c}?",
    ),
    (
        "owner",
        "{person} owns the {c} now, so ask {person} before changing its config format.",
        "Who owns the {c} now?",
    ),
    (
        "error",
        "The {c} died last night with {error} right after the nightly backup started on {host}.",
        "What did the {c} die with last night?",
    ),
    (
        "limit",
        "Cap the {c} at {n} concurrent requests; above that the upstream provider starts throttling us.",
        "How many concurrent requests should the {c} be capped at?",
    ),
    (
        "version",
        "Pin {lib_a} to version {major}.{minor} in {p}, the next release broke our build on {host}.",
        "Which version of {lib_a} should {p} be pinned to?",
    ),
    (
        "flag",
        "Put the new {c} behaviour behind the flag `{ident}-v2` so {person} can turn it on per tenant.",
        "Which flag guards the new {c} behaviour?",
    ),
    (
        "meeting",
        "I have a call with {person} from {team} at {hour}:00 on {weekday}, let's have a draft of the {c} by then.",
        "When is the call with {person} about the {c}?",
    ),
    (
        "budget",
        "The {c} must answer within {n} milliseconds at p99, that's what the {team} team agreed to.",
        "What p99 latency must the {c} meet?",
    ),
    (
        "branch",
        "Work on the branch `{ident}-fix` for the {c}, main is frozen until {event}.",
        "Which branch should the {c} work happen on?",
    ),
]
# Facts stated in a reply: (name, sentence placed inside the reply, question).
AGENT_FACTS = [
    (
        "timeout",
        "I set the {c} timeout to {n} seconds, since the slowest call in the traces took just under that.",
        "What timeout did the assistant set for the {c}, and why?",
    ),
    (
        "cause",
        "The root cause in the {c} was an off-by-one in the batch boundary, which dropped the last record of every {n}.",
        "What was the root cause of the {c} bug?",
    ),
    (
        "retries",
        "The {c} now retries {n} times with exponential backoff starting at 200 ms, then gives up and logs an error.",
        "How many times does the {c} retry now?",
    ),
    (
        "file",
        "The new code for the {c} lives in `{path}`, next to the module it replaces.",
        "In which file does the new {c} code live?",
    ),
]

PARAGRAPHS = [
    "Looking at the {c} first: the current implementation mixes parsing and I/O in one function, which is why it is hard to test. I split it so the pure part can be exercised without a network, and the side effects sit in a thin wrapper around it.",
    "For the {c2}, nothing changes in behaviour. I only moved the constants next to their use and gave the two helper functions names that say what they return, so the diff there is mechanical.",
    "The tests cover the happy path, an empty input, a malformed record and the case where the upstream call fails halfway. Each test builds its own fixture, so they can run in any order and in parallel.",
    "One thing to watch: the {c} is called from two places, the request handler and the nightly job. Both go through the same entry point now, so a change in one will show up in the other, which is what we want.",
    "I kept the public interface of {p} as it was. Callers import the same names; the new internals are private to the module, and the old function is still there as a thin alias until the next release.",
    "Error handling is explicit now: every failure of the {c} raises one exception type carrying the input that caused it, and the handler turns it into a 4xx or 5xx response with a message naming the next step.",
    "Performance should be the same or slightly better. The hot loop of the {c2} no longer allocates a new list per item, and the lookup table is built once at start-up instead of on every call.",
    "Logging: the {c} emits one structured event per batch with the count, the duration and the outcome, rather than one line per item, so the logs stay readable when the volume goes up.",
    "If you want to try it locally, run the unit tests first, then the integration suite against the staging services; the second needs the credentials from the usual vault, which I did not touch.",
    "I also noticed that the {c2} reads its configuration on every request. That is cheap today but will not be once the config moves to the remote store, so I left a note in the code about caching it.",
    "About naming: I followed the convention the rest of {p} uses, nouns for types and verbs for functions, with the module prefix dropped since the package already says it.",
    "The migration is backwards compatible. Old rows keep working, new rows get the extra column, and a background task fills the column for old rows in batches so the table is never locked for long.",
    "For the review, the interesting part is the change to the {c}; the rest is tests and moves. I tried to keep each commit to one idea so you can read them in order.",
    "There is one open question I could not answer from the code: whether the {c2} should skip records it cannot parse or stop the whole run. I made it skip and count them for now, which is easy to change.",
]
# Sentences that use the words of the facts' questions without stating any fact:
# what makes finding the one turn that answers hard, as in real sessions.
DISTRACTORS = [
    "The staging database port comes from the environment, so nothing in the {c} hard-codes which port it listens on.",
    "I did not move any deadline; the {c} work fits in the time the {team} team planned, whatever date they finish by.",
    "Naming the helper was the hard part; the helper for the {c2} kept its old name for now.",
    "Whether to use one library rather than another for the {c2} is a separate question; I kept the one it uses.",
    "Who owns the {c2} is unchanged, and I did not touch its config format.",
    "Nothing died during my runs; the {c2} survived the backup window without errors in the logs.",
    "Concurrent requests to the {c2} are capped by the shared pool, which I left at its current size.",
    "The version pins live in the lock file; I did not change which version anything is pinned to.",
    "The flag that guards the old {c2} behaviour is unchanged, and new behaviour can go behind a flag later.",
    "I can have a draft ready before any call; the {c2} part is the only one that needs a meeting.",
    "Latency of the {c2} at p99 stays in the dashboard; I did not measure how many milliseconds it takes now.",
    "I worked on a local branch; which branch the {c2} work should land on is up to you.",
    "The {c2} timeout stays at its default, measured in seconds, since nothing slow showed in the traces.",
    "The root cause of the earlier {c2} bug is still unclear; this change does not touch it.",
    "The {c2} retries are unchanged: it still retries a few times and logs each attempt.",
    "The file layout of the {c2} is unchanged; its code lives where it always did.",
]
CODE = [
    'def {fn}(items, *, limit=100):\n    """Process items for the {c} in batches."""\n    batch = []\n    for item in items:\n        batch.append(normalise(item))\n        if len(batch) >= limit:\n            yield flush(batch)\n            batch = []\n    if batch:\n        yield flush(batch)\n',
    'func {Fn}(ctx context.Context, cfg Config) error {{\n\t// the {c} entry point\n\tclient, err := newClient(cfg)\n\tif err != nil {{\n\t\treturn fmt.Errorf("{c}: %w", err)\n\t}}\n\tdefer client.Close()\n\treturn client.Run(ctx)\n}}\n',
    "export async function {fn}(input: Input): Promise<Result> {{\n  // used by the {c}\n  const parsed = schema.parse(input);\n  const rows = await repo.load(parsed.id);\n  return {{ ok: true, rows }};\n}}\n",
    "fn {fn}(buf: &mut Vec<u8>, limit: usize) -> Result<usize, Error> {{\n    // part of the {c}\n    let n = buf.len().min(limit);\n    buf.truncate(n);\n    Ok(n)\n}}\n",
]
USER_ASKS = [
    "Can you look at the {c} next? The output looks wrong for large inputs.",
    "Now refactor the {c} so it can be tested without the network.",
    "Add tests for the {c}, especially the failure cases.",
    "The {c} is slow on big batches, can you profile it and fix the obvious part?",
    "Please clean up the error handling in the {c}.",
    "Write a short design note for the {c} change so the team can review it.",
    "Can you make the {c} log less and more usefully?",
    "Check whether the {c} still works with the new config format.",
]


def _values(rng: random.Random, project: tuple[str, str, str, list[str]], c: str) -> dict[str, Any]:
    name, _, _, components = project
    lib_a, lib_b = rng.choice(LIBS)
    ident = "_".join(
        [*c.split()[:1], rng.choice(["fast", "safe", "batch", "lazy", "strict", "quiet"])]
    )
    return {
        "p": name,
        "c": c,
        "c2": rng.choice([x for x in components if x != c]),
        "port": rng.randint(5400, 9900),
        "host": rng.choice(HOSTS),
        "day": rng.randint(2, 28),
        "month": rng.choice(MONTHS),
        "team": rng.choice(TEAMS),
        "event": rng.choice(EVENTS),
        "ident": ident.replace("-", "_"),
        "lib_a": lib_a,
        "lib_b": lib_b,
        "reason": rng.choice(REASONS),
        "person": rng.choice(PEOPLE),
        "error": rng.choice(ERRORS),
        "n": rng.randint(3, 64),
        "major": rng.randint(0, 4),
        "minor": rng.randint(1, 30),
        "hour": rng.randint(9, 17),
        "weekday": rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]),
        "path": f"src/{name}/{c.split()[0]}_{rng.choice(['core', 'impl', 'v2', 'service'])}.py",
        "fn": c.split()[0].replace("-", "_")
        + "_"
        + rng.choice(["batches", "run", "load", "apply"]),
        "Fn": c.split()[0].title().replace("-", "") + rng.choice(["Run", "Start", "Serve"]),
    }


def _user_turn(rng: random.Random, core: str) -> str:
    extra = rng.sample(FILLER_USER, 6)
    text = core
    for sentence in extra:
        if len(text) >= 330 - rng.randint(0, 60):
            break
        text += " " + sentence
    return text


def _reply(rng: random.Random, values: dict[str, Any], fact: str | None) -> str:
    paragraphs = [p.format(**values) for p in rng.sample(PARAGRAPHS, len(PARAGRAPHS) - 4)]
    paragraphs += [p.format(**values) for p in rng.sample(DISTRACTORS, 6)]
    rng.shuffle(paragraphs)
    if fact is not None:
        paragraphs.insert(rng.randint(1, 5), fact)
    code = rng.choice(CODE).format(**values)
    head = f"Sure, here is the plan for the {values['c']} in {values['p']}."
    steps = "\n".join(
        f"{i}. {s}"
        for i, s in enumerate(
            [
                f"Read how the {values['c']} is called today.",
                f"Split the {values['c']} into a pure core and a thin I/O layer.",
                f"Add tests for the {values['c']} and the {values['c2']}.",
                "Run the full suite and the linters.",
            ],
            start=1,
        )
    )
    second = rng.choice(CODE).format(**{**values, "c": values["c2"]})
    body = "\n\n".join(
        [
            head,
            steps,
            *paragraphs[:4],
            "```\n" + code + "```",
            *paragraphs[4:9],
            "```\n" + second + "```",
            *paragraphs[9:],
        ]
    )
    return (
        body
        + "\n\nLet me know if you want me to go further with the "
        + str(values["c"])
        + " or move on."
    )


def generate(seed: int = SEED, exchanges: int = EXCHANGES) -> list[dict[str, Any]]:
    """The corpus: 20 conversations in LoCoMo's format, seven or eight questions each.

    ``exchanges`` user turns (each with its reply) per conversation: more of them
    is a larger haystack for the same questions.
    """
    rng = random.Random(seed)
    samples = []
    start = dt.datetime(2025, 3, 3, 9, 30)
    for n, project in enumerate(PROJECTS):
        components = project[3]
        user_facts = rng.sample(USER_FACTS, 6)
        agent_facts = rng.sample(AGENT_FACTS, 1 + (n % 3 == 0))
        slots = list(range(exchanges))
        rng.shuffle(slots)
        user_slot = dict(zip(slots[:6], user_facts, strict=False))
        agent_slot = dict(zip(slots[6:], agent_facts, strict=False))
        turns: list[tuple[str, str]] = []
        questions = []
        for i in range(exchanges):
            values = _values(rng, project, rng.choice(components))
            ask = rng.choice(USER_ASKS).format(**values)
            if i in user_slot:
                _, text, question = user_slot[i]
                core = text.format(**values) + " " + ask
                questions.append((len(turns), question.format(**values)))
            else:
                core = ask
            turns.append(("user", _user_turn(rng, core)))
            fact = None
            if i in agent_slot:
                _, text, question = agent_slot[i]
                fact = text.format(**values)
                questions.append((len(turns), question.format(**values)))
            turns.append(("assistant", _reply(rng, values, fact)))
        when = start + dt.timedelta(days=3 * n)
        session = [
            {"speaker": speaker, "dia_id": f"D1:{k + 1}", "text": text}
            for k, (speaker, text) in enumerate(turns)
        ]
        samples.append(
            {
                "sample_id": f"code-{n:02d}",
                "conversation": {
                    "speaker_a": "user",
                    "speaker_b": "assistant",
                    "session_1_date_time": when.strftime("%I:%M %p on %d %B, %Y").lstrip("0"),
                    "session_1": session,
                },
                "qa": [
                    {"question": q, "answer": "", "evidence": [f"D1:{k + 1}"], "category": 4}
                    for k, q in sorted(questions)
                ],
            }
        )
    return samples


def split_sessions(data: list[dict[str, Any]], parts: int) -> list[dict[str, Any]]:
    """The corpus with each conversation cut into ``parts`` sessions of consecutive turns.

    The turns, their dia_ids and the questions stay as they are; session n is dated
    n - 1 days after the conversation's date.
    """
    out = []
    for sample in data:
        conv = sample["conversation"]
        turns = conv["session_1"]
        when = dt.datetime.strptime(conv["session_1_date_time"], "%I:%M %p on %d %B, %Y")
        size = -(-len(turns) // parts)
        split: dict[str, Any] = {"speaker_a": conv["speaker_a"], "speaker_b": conv["speaker_b"]}
        for n in range(parts):
            day = when + dt.timedelta(days=n)
            split[f"session_{n + 1}_date_time"] = day.strftime("%I:%M %p on %d %B, %Y")
            split[f"session_{n + 1}"] = turns[n * size : (n + 1) * size]
        out.append({**sample, "conversation": split})
    return out


# --- the baseline ---------------------------------------------------------------------


def bm25_ranked(
    docs: list[tuple[str, str]], question: str, *, k1: float = 1.2, b: float = 0.75
) -> list[str]:
    """Plain BM25 over ``docs`` (id, text), Lucene's defaults: the ids that match, best first."""
    counts = [Counter(terms(text)) for _, text in docs]
    lengths = [sum(c.values()) for c in counts]
    avg = sum(lengths) / len(lengths)
    df = Counter(term for c in counts for term in c)
    n = len(docs)
    scores = []
    wanted = query_terms(question)
    for (doc_id, _), doc, length in zip(docs, counts, lengths, strict=True):
        s = 0.0
        for term in wanted:
            tf = doc.get(term, 0)
            if tf:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                s += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))
        if s > 0:
            scores.append((-s, doc_id))
    return [doc_id for _, doc_id in sorted(scores)]


def bm25_run(data: list[dict[str, Any]], out: Path, *, k1: float = 1.2, b: float = 0.75) -> None:
    """Plain BM25 over one document per turn (its text), Lucene's defaults."""
    with out.open("w", encoding="utf-8") as handle:
        for sample in data:
            turns = sample["conversation"]["session_1"]
            docs = [(t["dia_id"], t["text"]) for t in turns]
            for qi, qa in enumerate(sample["qa"]):
                ranked = bm25_ranked(docs, qa["question"], k1=k1, b=b)
                handle.write(
                    json.dumps({"qid": f"{sample['sample_id']}/q{qi}", "ranked": ranked}) + "\n"
                )


def score(corpus: Path, out: str, base: Path, baseline: str | None) -> None:
    """Score memdir's run ``out`` and plain BM25's ``base`` on ``corpus`` (LoCoMo's scorer),
    then the paired bootstrap against plain BM25 and, given one, against ``baseline``."""
    for label, run in (("memdir", out), ("plain BM25", str(base))):
        print(f"== {label}", flush=True)
        subprocess.run([sys.executable, str(SCORER), "score", str(corpus), run], check=False)
    sys.stdout.flush()
    locomo.compare(str(corpus), out, str(base), "plain BM25")
    if baseline:
        locomo.compare(str(corpus), out, baseline)


def _shape(data: list[dict[str, Any]]) -> str:
    user = [
        len(t["text"])
        for s in data
        for t in s["conversation"]["session_1"]
        if t["speaker"] == "user"
    ]
    agent = [
        len(t["text"])
        for s in data
        for t in s["conversation"]["session_1"]
        if t["speaker"] != "user"
    ]
    qs = [qa for s in data for qa in s["qa"]]
    by_user = sum(int(qa["evidence"][0][3:]) % 2 == 1 for qa in qs)
    return (
        f"{len(data)} conversations, {len(qs)} questions ({by_user / len(qs):.0%} answered by a user turn);"
        f" user turns {sum(user) / len(user):.0f} chars, replies {sum(agent) / len(agent):.0f} chars"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="write the corpus file again")
    parser.add_argument(
        "--sessions", type=int, default=1, help="write each conversation as this many transcripts"
    )
    parser.add_argument(
        "--exchanges",
        type=int,
        default=EXCHANGES,
        help=f"user turns per conversation (default {EXCHANGES}; more: a larger haystack, "
        "generated afresh instead of read from the corpus file)",
    )
    known, rest = parser.parse_known_args()
    if known.exchanges < 8:
        parser.error("--exchanges must be at least 8 (a conversation holds up to 8 facts)")
    if known.regenerate or not DATA.exists():
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(json.dumps(generate(), indent=1) + "\n", encoding="utf-8")
    if known.exchanges != EXCHANGES:
        data = generate(exchanges=known.exchanges)
    else:
        data = json.loads(DATA.read_text(encoding="utf-8"))
    print(_shape(data), file=sys.stderr)
    path = DATA
    if known.sessions > 1 or known.exchanges != EXCHANGES:
        parts = split_sessions(data, known.sessions) if known.sessions > 1 else data
        path = Path(tempfile.mkdtemp(prefix="memdir-coding-")) / DATA.name
        path.write_text(json.dumps(parts), encoding="utf-8")
    locomo_args = locomo.build_parser().parse_args(["--data", str(path), *rest])
    if locomo_args.out == str(locomo.RUNS / "locomo_run.jsonl"):
        locomo_args.out = str(locomo.RUNS / "coding_run.jsonl")
    locomo.run(locomo_args)
    base = Path(locomo_args.out).with_suffix(".bm25.jsonl")
    bm25_run(data, base)
    score(path, locomo_args.out, base, locomo_args.baseline)
    if path != DATA:
        shutil.rmtree(path.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
