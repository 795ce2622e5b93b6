"""LoCoMo evidence retrieval through memdir's own catalog and search.

Each conversation becomes one project under a temporary MEMDIR_HOME. Its
sessions are written the way memdir keeps conversation history: one plain
JSONL transcript per session, one line per turn, ``role`` alternating
user/assistant by speaker, ``speaker`` = the speaker's name (a field of the
record, which the catalog indexes as the turn's name), ``content`` = the text
plus ``[shares <image caption>]`` when the turn shared a photo, ``timestamp`` =
the session's date. Nothing else of a sample is stored (never qa, observation,
session_summary or event_summary). The transcripts are registered with
``Memdir.add_transcripts`` (and embedded with ``Memdir.embed`` where search is
hybrid, as it is by default with the embeddings extra); every question is answered with
``Memdir.search(question, kinds=("transcript",))`` (a ``Catalog`` with other
ranking options when flags change them) and the turn hits are
mapped back to dia_ids. The run is scored by ``locomo_eval.py``.

    .venv/bin/python benchmarks/locomo.py [--data PATH] [--out RUN.jsonl] [--lexical]
        [--baseline MAIN.jsonl] [--group-share 0.2] [other ranking options]

A run is written to ``benchmarks/runs/`` (ignored by git) unless ``--out``
names another file. ``--baseline`` prints the paired bootstrap of turn recall@1/@5/@10 against
another run of the same data: run the script once on main with ``--out
MAIN.jsonl``, then on a change with ``--baseline MAIN.jsonl``.

Log of methods on DEV (turn recall@1/@5/@10 in %, category 5 excluded, n = 760;
then recall@10 for multi-hop / temporal / open-domain / single-hop). Each step
was checked with ``locomo_eval.py compare`` (paired bootstrap):

    BM25, body only (turn text, speaker, caption)        36.1/57.8/64.4  40.4/82.4/36.9/68.7
    + session date as words (dates field, 0.5)           37.4/59.5/65.9
    + neighbouring turns' text instead (context, 0.3)    36.8/62.3/71.1
    + both = "base"                                      38.1/63.3/72.4  43.9/85.1/34.7/81.3
      base, FTS5 porter tokenizer instead of Snowball    37.7/63.3/72.5
      (speaker in the name field adds nothing: idf ~0)
    + speaker lift 0.3 (query names the speaker)         42.0/66.1/74.0  46.9/86.5/35.8/82.6
    + neighbour smoothing 0.2 = model-free default       42.2/66.5/75.5  46.3/87.3/36.9/85.0
      default without stemming                           39.9/63.2/70.5
      default + feedback (5 terms, 0.2): not significant 42.1/66.5/76.0
    hybrid MiniLM, RRF k=60, dense weight 1.0            31.7/60.4/70.8
    hybrid, RRF dense weight 0.3                         37.5/66.1/76.4
    hybrid, linear (BM25/max + 1.0 x cosine)             42.6/68.3/77.0  46.7/88.2/39.2/87.2
    + previous turn embedded too = hybrid default        43.7/69.8/77.3  45.9/87.9/38.3/88.1

The speaker was then moved out of the text into a ``speaker`` field of each
record (a label such as ``Note:`` at the start of a turn is no speaker); the
model-free default, and each default removed (paired bootstrap against the
default, turn recall@10 difference and 95% interval):

    default, speaker as a field                          42.2/66.6/75.4
    - speaker lift (name_boost 0)                        38.1/64.6/74.3  +1.0 [+0.4, +1.7]
    - neighbour smoothing (neighbour 0)                  42.0/66.3/74.1  +1.3 [+0.3, +2.3]
    - neighbours' context (context weight 0)             40.7/63.6/70.0  +5.4 [+3.7, +7.2]
    - date words (dates weight 0)                        40.8/65.6/73.9  +1.5 [+0.7, +2.4]
    - name field weight (name 0): no change; the lift carries the speaker

The scan limit (BM25 scores at most ``scan_limit`` matches, the newest, plus
every match of the rarer terms) never binds on these conversations (~550
turns each) at its default; forced down to the candidate pool (``--scan-limit
100``: 200 matches scored per query, so most questions are cut), turn recall
@5 -0.1 [-0.4, 0.0] and @10 +0.2 [0.0, +0.5] against the default:

    default, scan cut to 200 matches                     42.2/66.5/75.5

The neighbours' context then moved to a table of its own (FTS5 normalises a
row by its whole length: a short turn beside two long replies was crushed,
see ``benchmarks/coding_sessions.py``), each turn scoring ``context_share`` of
the old joint BM25 and the rest of its own text's BM25 alone (difference
against the default above, 95 % interval):

    context table apart, added at 0.3                   40.0/63.7/72.9
      at 0.6 / 1.0                                       39.1/65.2/73.9  36.9/64.7/73.6
    blend (dates not yet in the joint row), 0.5 / 0.8    40.4/64.0/72.6  40.6/64.8/73.1
    blend, context_share 0.7                             41.9/65.5/73.8  @10 -1.6 [-2.7, -0.6]
      share 1.0 (the old joint row alone)                42.2/67.2/75.6
    blend, context_share 0.85                            41.9/66.6/74.3  @10 -1.0 [-2.1, -0.1]
    share 0.9 = default                                  42.1/66.7/74.7  @10 -0.7 [-1.7, +0.2]
    (coding sessions: 32.7/49.0/75.5 before, share 0.9 66.7/86.4/95.2, 0.85 69.4/88.4/96.6,
     plain BM25 66.0/76.2/93.9)

Long texts as passages (``benchmarks/coding_sessions.py`` logs them: they lose
there and cannot change LoCoMo, whose longest turn is 41 terms). Then a turn's
context score lent ``window_share`` of its gap to the best adjacent turn's
(the window of three turns around a neighbour holds this turn too), against
the default above (share 0.9; paired bootstrap, 95 %):

    window_share 0.25                                     42.1/67.6/76.0  @10 +1.4 [+0.4, +2.4]
    window_share 0.35                                     42.1/67.4/76.5  @10 +1.8 [+0.8, +2.9]
    window_share 0.5                                      42.0/67.9/77.0  @10 +2.3 [+1.1, +3.7]
                                                                          @5 +1.2 [-0.1, +2.5]
    the best adjacent window instead (max)                41.6/67.6/76.6  @10 +1.9 [+0.4, +3.6]
    window_share 0.5, smoothing 0.1 / 0                   41.8/68.1/76.8  41.4/67.9/76.9
    (coding sessions, window_share 0.5: 67.3/85.7/93.2, @10 -2.0 [-4.8, 0.0], @5 -0.7
     [-2.0, 0.0]: three questions lost, below plain BM25's 93.9 at @10; 0.25 and 0.35
     the same at @10; max -4.1 [-7.5, -1.4]; smoothing 0.1 @10 -2.7 [-6.1, -0.7])

The gain on LoCoMo is real, but alone the lending costs the coding sessions
three questions at @10. With ``context_share`` lowered as well (a turn's own
text counts more, which the coding sessions want and the lending makes up for
on LoCoMo), against the default of 0.9 without lending:

    window 0.5, context_share 0.85                       42.2/67.8/76.7  @10 +2.1 [+0.9, +3.3]
    window 0.5, context_share 0.8                        42.3/67.5/76.6  @10 +2.0 [+0.9, +3.0]
    window 0.5, context_share 0.75 = default             42.0/67.2/76.5  @10 +1.9 [+0.8, +3.0]
                                                         @5 +0.5 [-0.6, +1.6], @1 -0.1 [-0.9, +0.7]
    window 0.35, context_share 0.8                       42.1/67.6/76.1  @10 +1.5 [+0.6, +2.5]
    default without the lending (window 0)               42.0/65.6/74.1  @10 -2.5 [-3.8, -1.3]
                                                         (against the default)
    (coding sessions against the old default, @1/@5/@10: share 0.85 +2.7/+2.0/-0.7
     [-3.4, +1.4]; 0.8 +3.4/+2.0/0.0 [-2.0, +2.0]; 0.75 +4.1 [+1.4, +7.5] / +2.7
     [+0.7, +5.4] / +1.4 [0.0, +3.4]; window 0.35 with 0.8 +3.4/+2.0/+1.4 [0.0, +3.4])

The pair was chosen as the one whose worse @10 interval (of the two corpora)
has the highest lower bound (0.75: 0.0 on the coding sessions, +0.8 here),
ties to the larger summed gain; every pair tried gains on LoCoMo @10.

Then the stages after BM25, against that default (42.0 / 67.2 / 76.5; paired
bootstrap, 95 %). A group prior (``group_share``, :mod:`memdir.search.group_prior`):
each transcript scored as one document (BM25 over transcripts, a term's
frequency = the turns holding it, k1 1.2), every candidate lifted by the share
of the best score times its transcript's score over the best transcript's:

    group prior 0.2 = default                            42.2/67.8/77.5  @10 +0.9 [+0.2, +1.8]
                                                         @5 +0.6 [-0.2, +1.4], @1 +0.2 [-0.3, +0.7]
      per conversation, @10: +0.8 / +0.4 / +1.5 / +1.0 / +0.6 (all five gain)
    group prior 0.1                                      42.3/67.8/77.0  @10 +0.4 [-0.2, +1.1]
    group prior 0.3                                      42.2/68.2/77.3  @10 +0.8 [-0.3, +1.8]
    group prior 0.4                                      42.3/67.9/77.2  @10 +0.7 [-0.6, +2.0]
    0.2, normalised by turn count, b 0.75 / 0.3          42.1/67.7/77.4  42.2/67.9/77.5
                                                         @10 +0.8 [+0.1, +1.7] / +1.0 [+0.2, +1.8]
    0.2, a term counted once per transcript              41.8/67.7/76.8  @10 +0.3 [-0.5, +1.1]
    0.2, idf over turns instead of transcripts           42.2/67.6/77.2  @10 +0.6 [-0.1, +1.5]
    0.2, b 0.75, after the neighbour smoothing           42.2/67.6/77.4  @10 +0.8 [+0.1, +1.7]
    transcript score = sum of its candidates' scores     42.1/67.4/76.9  @10 +0.4 [-0.5, +1.3]
      = sum of its best three                            42.3/67.8/76.8  @10 +0.2 [-0.5, +1.0]
    (coding sessions: one transcript per conversation, so no change at any k; cut
     into 3 / 6 transcripts (``coding_sessions.py --sessions``): @1 0.0 / +0.7
     [0.0, +2.0], @5 +1.4 [0.0, +3.4] / +2.0 [0.0, +4.1], @10 0.0 / 0.0)
    hybrid (--embed) + group prior 0.2                   41.9/69.8/78.4  @10 +1.2 [+0.2, +2.2]
                                                         against the hybrid without (42.4/69.3/77.2)

The share 0.2 is the only one whose @10 interval excludes zero; no length
normalisation, since b 0.3 is level with it and needs every transcript's length.
Tried and dropped (against the same default):

    neighbourhood kernel: + 0.1 x 0.5^(d-1) x score of each turn d <= 3 away
                                                         42.0/67.6/76.5  @10 -0.1 [-0.9, +0.7]
      d <= 5, 0.1 x 0.7^(d-1)                            41.7/68.2/76.4  @5 +1.0 [-0.1, +2.1]
      d <= 5, 0.05 x 0.8^(d-1)                           41.9/67.9/76.9  @10 +0.3 [-0.4, +1.1]
    diversity: x 0.9 per hit already ranked from the same transcript
                                                         42.0/64.9/72.8  @10 -3.8 [-5.3, -2.4]
      x 0.8 per hit ranked within 2 turns / x 0.9 within 1
                                                         42.0/64.6/72.2  42.0/67.1/75.7
                                                         @10 -4.3 [-6.0, -2.7] / -0.9 [-1.8, 0.0]
    coordination: x (idf share of the query terms the turn or its window holds)^0.5 / ^1
                                                         41.5/66.5/76.8  41.8/66.8/76.6
                                                         @5 -0.7 [-1.8, +0.4] / -0.4 [-1.7, +0.8]
      the turn's own text only, ^0.5                     40.9/65.7/74.3  @10 -2.3 [-3.6, -1.0]
    proximity: + 0.1 x best score x (sum over neighbouring occurrences of two
      query terms within 5 terms of a turn's own text: min idf / distance, over the
      best such sum)                                     41.8/66.9/76.5  @10 0.0 [-0.6, +0.6]
      0.2                                                40.5/66.7/76.2  @1 -1.5 [-3.0, -0.2]
      (coding sessions, 0.1: 67.3/85.7/96.6, @1 and @5 -3.4 [-6.8, -0.7])
    date ranges (prototype): a date the question names ("13 October 2023",
      "October 2023", "June", "2023") as a range of days; a turn dated in it (or
      up to 7 days after) x 1.2                          42.2/67.3/76.5  +0.1 / +0.1 / 0.0
      x 1.5, 3 days after                                42.4/67.7/76.9  @10 +0.4 [0.0, +0.9]
                                                         @5 +0.4 [+0.1, +0.9], @1 +0.4 [0.0, +0.9]
    asymmetric smoothing (with the group prior, against it): 0.3 from the turn
      before, 0.1 from the one after / the reverse        41.8/67.6/76.4  39.9/66.6/76.3
                                                         @10 -1.1 [-2.1, -0.1] / -1.1 [-2.0, -0.3]
    segments of 10 turns as the groups instead           42.3/67.9/77.0  @10 -0.4 [-1.0, +0.1]
      both, segments at 0.1 (of 10 / 6 turns)            42.5/68.4/77.7  42.1/68.4/77.4
                                                         @5 +0.6 [-0.1, +1.4] / +0.5 [-0.2, +1.4]

Dates as ranges then became ``date_share`` (:mod:`memdir.search.date_ranges`:
English calendar dates, a month alone only after "in", "last" and the like),
measured with the group prior, against it (42.2 / 67.8 / 77.5):

    date_share 0.5, slack 3 / 7 days                     42.8/67.9/77.7  @1 +0.6 [+0.1, +1.1]
                                                         @5 0.0 [-0.4, +0.4], @10 +0.2 [0.0, +0.5]
    date_share 0.3 / 1.0, slack 3                        42.5/68.0/77.7  42.6/67.6/77.3
                                                         @10 +0.2 [0.0, +0.5] / -0.2 [-0.7, +0.3]

90 of the 760 questions name a date (the date words already match most of
them), no coding-session question does: the corpus cannot tell, so the issue's
"where it pays on both corpora" is not met and ``date_share`` stays 0 (an option).

The other knobs, checked again with the group prior (against it): neighbour
0.1 / 0.3 @10 -0.3 [-0.6, +0.1] / -0.4 [-1.1, +0.2]; window_share 0.35 / 0.65
-0.7 [-1.4, -0.2] / +0.2 [-0.5, +0.9]; name_boost 0.2 / 0.4 -0.8 [-1.5, -0.3] /
0.0 [-0.4, +0.5]: none gains. With the embedding extra, against the hybrid with
the prior (41.9 / 69.8 / 78.4): dense_weight 0.7 / 1.5 @10 -0.2 [-1.0, +0.7] /
-0.9 [-1.8, +0.1] (@1 -2.1 [-3.3, -0.8] at 1.5); group_share 0.1 / 0.3 @10 -0.7
[-1.6, +0.1] / +0.1 [-0.5, +0.8]; a dense group prior (+ 0.2 x best x the mean
of a transcript's best three cosines over the best transcript's) @10 0.0 [-0.7,
+0.7], best one -0.4 [-1.0, +0.1].

Then irregular forms (:mod:`memdir.search.irregular`): the Snowball stemmer
joins "camped" with "camp" but not "went" with "go" nor "children" with
"child"; a table of common English irregular past forms, participles and
plurals (written without looking at the questions; forms with a sense of
their own, "left", "saw", "felt", "found", left out) maps each to its base
before stemming, in the index and in queries:

    irregular forms + group prior = default              43.6/68.4/78.1
      against the group prior alone                      @1 +1.4 [+0.5, +2.3], @5 +0.5 [-0.1, +1.3]
                                                         @10 +0.7 [+0.1, +1.4]
      against main (neither)                             @1 +1.6 [+0.6, +2.7], @5 +1.1 [+0.2, +2.1]
                                                         @10 +1.6 [+0.7, +2.6]
      per conversation against main, @10: +2.3 / 0.0 / +2.4 / +1.4 / +1.1
      (prototype, a shorter table with those forms in)   43.3/68.5/78.1
    hybrid (--embed) with both                           43.2/70.1/78.6  @10 +1.3 [+0.2, +2.5]
                                                         against main's hybrid (42.4/69.3/77.2)
    (coding sessions: unchanged at every k, 70.7/89.1/96.6, also cut into 3 or 6
     transcripts; recall_precision.py: precision 0.938 -> 0.927, recall 0.817,
     silent on 100 % of the no-memory prompts)

Tried on top of it and dropped: adjacent query words also searched joined
("road trip" as "roadtrip"): 43.5/68.4/78.1, @1 -0.1 [-0.5, +0.3], @5 and @10
unchanged; coding sessions unchanged. Agent nouns taken to their verb as
well ("painter" as "paint", "hiker" as "hike": 16 of them): 43.8/68.4/78.1, @1
+0.3 [0.0, +0.7], @10 -0.1 [-0.2, 0.0].

Most evidence still missing at @10 (376 turns) sits in a session with no hit
in the first ten (215), or is a turn that shares no word with the question
("martial arts" for "kickboxing"): what the embedding extra is for.

Then, against that default (43.6 / 68.4 / 78.1; paired bootstrap, 95 %), query
expansion from the store's own vocabulary: for each query term, the newest
``sample`` documents holding it; a term ``u`` seen beside it in at least
``min`` of them scores ``P(u | q) x PMI(q, u)``, summed over the query terms;
the best ``n`` searched as a second BM25 pass, added at ``w`` of the best
score (as feedback is). It cannot bridge "kickboxing" to "martial arts" when
the store never says "kickboxing", and the companions of common words are noise:

    n 3, w 0.1 (sample 50, min 2, own text)              43.7/68.0/77.8  @10 -0.3 [-1.0, +0.3]
    n 5, w 0.1                                           43.6/68.3/78.2  @10 +0.1 [-0.5, +0.7]
    n 5, w 0.2                                           42.7/68.4/77.7  @1 -0.8 [-2.1, +0.4]
    n 10, w 0.1 / 0.3                                    43.4/68.6/77.9  43.7/68.0/76.6
                                                         @10 -0.2 [-0.9, +0.5] / -1.5 [-2.7, -0.3]
    n 5, w 0.1, sample 200                               43.6/68.4/77.7  @10 -0.4 [-1.2, +0.3]
    n 5, w 0.1, companions within the window of three    43.7/68.3/77.7  @10 -0.5 [-1.1, +0.2]
      sample 200, min 3, w 0.2                           42.6/68.3/77.8  @1 -1.0 [-2.4, +0.5]

None gains; dropped. Then BM25's length normalisation of a turn's own text
(FTS5 fixes ``b`` = 0.75; :mod:`memdir.search.length_norm` rescales FTS5's
scores to another ``b`` from the row lengths FTS5 keeps, exact for terms held
once). LoCoMo's turns are alike in length, so ``b`` barely moves it; the
coding sessions, whose long replies repeat the question's words, want the
full normalisation (their numbers: ``benchmarks/coding_sessions.py``):

    own row b 0 / 0.1                                    44.0/68.9/78.3  43.8/68.8/78.3
                                                         @5 +0.5 [+0.1, +1.0] / +0.4 [+0.1, +0.8]
    b 0.3 / 0.5                                          43.7/68.6/78.4  43.6/68.6/78.3
                                                         @5 +0.3 [0.0, +0.5] / +0.3 [0.0, +0.5]
      (coding sessions, b 0.3 / 0.5: @1 -23.1 [-30.6, -16.3] / -13.6 [-19.7, -8.2])
    b 0.3 / 0.5 on the context row too                   43.4/68.6/78.3  43.2/68.5/78.2
                                                         @10 +0.1 [-0.6, +0.9] / +0.1 [-0.5, +0.8]
    b 0.9                                                43.6/68.3/78.1  @10 -0.1 [-0.2, 0.0]
    b 1 = default                                        43.6/68.3/78.2  @1 +0.1 [-0.5, +0.6]
                                                         @5 -0.1 [-0.3, 0.0], @10 +0.1 [-0.2, +0.5]
      (coding sessions against main: @1 +15.0 [+9.5, +21.1], @5 +4.8 [+0.7, +8.8],
       @10 +1.4 [0.0, +3.4])
    b 1 on the context row too                           43.2/68.9/77.7  @10 -0.5 [-1.2, +0.2]
    b 1, context row 0.5 / 0.9 (against b 1)             43.3/68.4/78.0  43.1/68.6/78.0
                                                         @10 -0.3 [-0.8, +0.2] / -0.3 [-0.7, +0.1]

``b`` = 1 is a gain on the coding sessions at every k and no loss here at any
(the largest, @5, -0.1 with an interval reaching 0); the context row keeps
FTS5's 0.75 (a window of three turns is a long text by nature).

Then, against the default with ``b`` = 1 (43.6 / 68.3 / 78.2), a feedback
scoped to a session: each of the best ``d`` hits gives its ``t`` terms of most
tf x idf (not in the query) as a BM25 query over its own transcript only, and
each turn found gains ``s`` x that hit's score x its score over the best found
(after the group prior; the hit itself gains nothing):

    d 3, t 5, s 0.1                                      43.1/68.3/77.9  @1 -0.6 [-1.4, +0.2]
    d 3, t 5, s 0.2 / d 1, t 5, s 0.2                    41.6/68.1/77.2  41.7/68.2/77.9
                                                         @1 -2.1 [-3.5, -0.6] / -2.0 [-3.3, -0.7]
    d 5, t 10, s 0.1                                     43.0/68.7/78.1  @5 +0.5 [-0.7, +1.7]
      (coding sessions in 3 transcripts: @1 -6.1 [-10.2, -2.7])
    d 3, t 5, s 0.05, the candidates only                43.4/68.4/78.0  @10 -0.2 [-0.9, +0.4]

A session's best hit talks about other things too: its terms lift the turns
around it that answer nothing, and the turn that answers the question is as
often in a session with no hit in the first ten (see above). Dropped.

The other knobs, checked again with ``b`` = 1 (against it; coding sessions in 3
transcripts against theirs, 85.7 / 94.6 / 98.0):

    context_share 0.7                                    43.6/68.4/77.7  @10 -0.6 [-1.2, -0.1]
    context_share 0.8                                    43.4/68.9/78.3  @5 +0.6 [+0.1, +1.2]
      (coding sessions: @1 and @5 -1.4 [-3.4, 0.0], @10 -0.7 [-2.0, 0.0])
    context_share 0.85                                   43.4/68.9/78.0  @5 +0.7 [+0.1, +1.3]
      (coding sessions: @1 -2.7 [-5.4, -0.7])
    window_share 0.65                                    43.6/68.8/78.1  @5 +0.5 [+0.1, +1.0]
      (coding sessions: @5 -0.7 [-2.0, 0.0])
    neighbour 0.3                                        43.4/68.3/77.7  @10 -0.6 [-1.3, 0.0]

context_share 0.8 and window_share 0.65 gain here at @5 alone (not @10, the
goal) and lose coding-session questions at @1 and @5 (intervals reaching 0):
the defaults stay.

Then the hybrid (``--embed``, all-MiniLM-L6-v2) on this default, measured beside
it in one sitting: lexical 43.6 / 68.3 / 78.2, hybrid 43.0 / 69.8 / 78.6 (against
the lexical: @1 -0.7 [-2.3, +1.0], @5 +1.5 [-0.1, +3.1], @10 +0.3 [-1.0, +1.6];
coding sessions lexical 85.7 / 93.9 / 98.0, hybrid 87.8 / 97.3 / 99.3). Against
that hybrid (paired bootstrap, 95 %; coding sessions against theirs):

    the speaker lift after the group prior and the fusion 45.6/70.7/80.0  @1 +2.6 [+1.4, +3.9]
      (a turn the cosine found, or its session lifted,   @5 +0.9 [+0.2, +1.7], @10 +1.5 [+0.7, +2.3]
      is lifted too; coding sessions: no change at any k, one transcript or three)
      lexical alone, against the lexical default         43.6/69.1/78.2  @5 +0.9 [+0.4, +1.5]
                                                         @1 0.0 [-0.6, +0.6], @10 0.0 [-0.3, +0.3]
      (coding sessions, lexical: no change at any k, one transcript or three)

Then what is embedded, against that (45.6 / 70.7 / 80.0; coding sessions 87.8 /
97.3 / 99.3, in three transcripts 87.1 / 98.0 / 99.3):

    the name first ("Caroline: ...") = hybrid default     45.2/72.2/80.1  @5 +1.6 [+0.5, +2.6]
      (a question names the speaker the turn's text       @1 -0.4 [-1.6, +0.8]
      never says)                                        @10 +0.1 [-0.7, +0.8]
      (coding sessions, whose names are "user" and "assistant": 86.4 / 97.3 / 99.3,
      @1 -1.4 [-3.4, 0.0] (two questions), @5 and @10 no change; in three
      transcripts 86.4 / 98.0 / 99.3, @1 -0.7 [-2.0, 0.0])
      the name's index terms instead ("carolin: ...")    45.2/72.2/80.0  @5 +1.5 [+0.6, +2.4]
    + without the date words in front                    45.1/72.0/80.1  @5 -0.2 [-1.3, +0.9]
      (coding sessions: @1 +0.7 [0.0, +2.0]; against the index-terms name)
    + the start of the next turn too ("(before: ...)")   44.3/72.3/80.1  @1 -0.9 [-2.2, +0.4]
      (coding sessions: @5 +0.7 [0.0, +2.0]; against the index-terms name)

With the name embedded, the dense weight and the fusion's scales, against it:

    dense_weight 0.7 / 1.3                               44.7/71.9/80.0  44.7/72.6/80.3
                                                         @1 -0.5 [-1.3, +0.2] / -0.5 [-1.4, +0.5]
                                                         @10 0.0 [-0.5, +0.5] / +0.3 [-0.1, +0.7]
      (coding sessions: @1 -2.0 [-4.8, 0.0] / +0.7 [-1.4, +3.4])

and before the lift moved, against the hybrid of main (43.0 / 69.8 / 78.6; coding
87.8 / 97.3 / 99.3), each cosine rescaled before the sum (dense_weight 1 unless said):

    cosine over the best cosine                          39.2/68.8/77.1  @1 -3.8 [-5.5, -2.2]
                                                         @10 -1.4 [-2.6, -0.3]
    cosine - 0.2 / - 0.3 (clipped at 0)                  42.5/69.9/78.5  43.5/69.4/77.8
                                                         @1 -0.5 [-0.9, -0.1] (0.2)
                                                         @10 -0.8 [-1.8, +0.2] (0.3)
    (cosine - median) / (best - median), weight 0.5      41.2/69.3/77.9  @1 -1.8 [-3.0, -0.8]
      (coding sessions: @1 -2.7 [-5.4, -0.7])
    the 90th percentile for the median, weight 0.5       38.0/68.9/78.1  @1 -5.0 [-6.9, -3.1]
      (coding sessions: @1 -16.3 [-22.4, -10.2])
    the group prior after the fusion (the dense-only     43.8/70.6/78.8  @5 +0.8 [+0.1, +1.6]
      candidates lifted by their session too)            @1 +0.8 [-0.1, +1.7], @10 +0.3 [-0.5, +1.0]
      (coding sessions: @1 -1.4 [-3.4, 0.0], @5 -0.7 [-2.0, 0.0])
      with the lift after the fusion as well             44.8/71.3/79.9  (against the lift alone:
                                                         @1 -0.8, @5 +0.6, @10 -0.1; coding @1 -1.4)

A cosine rescaled per query (to its best, or to its spread) weighs the dense side
more on a query no turn is near, where it is least to be trusted; the raw cosine
stays. The dense side already ranks every document the filter keeps (not only
BM25's candidates), and the smoothing already runs on the fused score.

The hybrid default now, against main's hybrid (43.0 / 69.8 / 78.6): @1 +2.2 [+0.7,
+3.8], @5 +2.5 [+1.3, +3.7], @10 +1.5 [+0.4, +2.6]; against the lexical default with
the lift moved (43.6 / 69.1 / 78.2): @1 +1.6 [0.0, +3.3], @5 +3.1 [+1.6, +4.7], @10
+1.8 [+0.6, +3.1]. Coding sessions against main's hybrid: @1 -1.4 [-3.4, 0.0], @5 and
@10 no change; against the lexical default: @1 +0.7 [-2.7, +4.1], @5 +3.4 [+0.7,
+6.8], @10 +1.4 [0.0, +3.4].

Tried on the hybrid default and dropped (against it; coding sessions against theirs):

    without the previous turn's start (--no-embed-previous) 43.9/71.5/79.6  @1 -1.3 [-2.6, -0.04]
      (coding sessions: 89.1 / 97.3 / 99.3, @1 +2.7 [+0.7, +5.4]: a short user turn
      embedded with the start of a long reply reads as the reply)
    the previous turn's first 150 characters, not 300    44.7/72.0/79.8  @10 -0.3 [-0.9, +0.2]
      (coding sessions: 87.8 / 97.3 / 99.3, @1 +1.4 [-1.4, +4.1])
    group_share 0.3                                      44.9/72.8/80.2  @5 +0.5 [-0.4, +1.4]
    neighbour 0.3                                        45.1/72.1/80.1  @10 0.0 [-0.5, +0.7]

The previous turn's start helps LoCoMo at @1 as much as it costs the coding
sessions there: it stays, as before.

The hybrid then became the default wherever the embeddings extra is installed
(``search_embeddings = "auto"``; ``--lexical`` runs BM25 alone), with a floor on
the cosine of the documents BM25 did not find (``dense_floor``, chosen in
``benchmarks/dense_floor.py``; without one, a query about nothing stored finds the
nearest documents). Against the hybrid without a floor (45.2 / 72.3 / 80.1):

    dense_floor 0.2 / 0.25 / 0.3 / 0.35 / 0.6            45.2/72.3/80.1  every k 0.0 [0.0, 0.0]
      (coding sessions, 0.35: 86.4 / 97.3 / 99.3, the same)

The first ten are the same at every floor tried: here a question always shares
words with some 200 turns, and those outrank a turn found by its meaning alone
under 0.6. The floor changes only the ranks further down.

Then the length normalisation of a turn's own text inside its window (BM25F, FTS5's
b 0.75 there, ``window_text_b``; the own row is at 1), tried for the coding
sessions' @1 (``benchmarks/coding_sessions.py`` logs the diagnosis). BM25 alone,
against its default (42.6 / 70.0 / 78.6, measured in the same sitting):

    window_text_b 1                                      41.5/69.5/78.0  @1 -1.1 [-2.0, -0.3]
                                                         @5 -0.6 [-1.3, +0.1], @10 -0.6 [-1.0, -0.2]
    window_text_b 0.9                                    41.8/69.9/78.2  @1 -0.9 [-1.6, -0.2]
                                                         @5 -0.2 [-0.7, +0.3], @10 -0.4 [-0.8, -0.1]
    one-sided (a text longer than the mean at 1,         41.9/70.0/78.2  @1 -0.7 [-1.3, -0.1]
      a shorter one at 0.75)                             @5 0.0 [-0.4, +0.4], @10 -0.3 [-0.7, -0.1]

Here the answer is often a long turn (9 of the 11 questions b 1 loses at @1 are
answered by a turn of 33 to 56 words; the mean turn has 23): each variant loses
significantly, and ``window_text_b`` stays 0.75. With the embeddings, against the
hybrid default (44.5 / 73.6 / 80.4, the same sitting):

    window_text_b 1                                      43.4/73.1/80.4  @1 -1.1 [-1.9, -0.4]
                                                         @5 -0.5 [-1.1, -0.1], @10 0.0 [-0.3, +0.4]
    dense_weight 0.5 (coding sessions' hybrid @1 +4.1    44.0/72.7/80.0  @1 -0.5 [-1.7, +0.8]
      [0.0, +8.8])                                       @5 -0.9 [-1.9, +0.2], @10 -0.4 [-1.3, +0.4]
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from memdir.api import Memdir
from memdir.search.catalog import DEFAULT_WEIGHTS, Catalog, Hit, RankingOptions, SearchQuery
from memdir.search.vectors.embeddings import Embedder

REPO = Path(__file__).resolve().parent.parent
# Where a run is written by default: beside the scripts, never committed.
RUNS = Path(__file__).resolve().parent / "runs"
# The shared folder beside the checkouts: /work/shared next to /work/main, or next to
# the folder of worktrees.
BENCH = next(
    (
        p / "shared" / "bench"
        for p in (REPO.parent, REPO.parent.parent)
        if (p / "shared" / "bench").is_dir()
    ),
    REPO.parent / "shared" / "bench",
)


def session_numbers(conv: dict[str, Any]) -> list[int]:
    """Session numbers that have turns, in order."""
    nums = [int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1]
    return sorted(n for n in nums if isinstance(conv.get(f"session_{n}"), list))


def write_transcripts(conv: dict[str, Any], folder: Path) -> dict[tuple[str, int], str]:
    """One JSONL transcript per session; returns (file, line index) -> dia_id."""
    folder.mkdir(parents=True, exist_ok=True)
    roles = {conv["speaker_a"]: "user", conv["speaker_b"]: "assistant"}
    mapping: dict[tuple[str, int], str] = {}
    for n in session_numbers(conv):
        when = dt.datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        path = folder / f"session_{n:02d}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for i, turn in enumerate(conv[f"session_{n}"]):
                content = turn["text"]
                if turn.get("blip_caption"):
                    content += f" [shares {turn['blip_caption']}]"
                line = {
                    "role": roles.get(turn["speaker"], "user"),
                    "speaker": turn["speaker"],
                    "content": content,
                    "timestamp": when.isoformat(),
                }
                out.write(json.dumps(line) + "\n")
                mapping[(str(path.resolve()), i)] = turn["dia_id"]
    return mapping


class CachedEmbedder:
    """Keeps vectors in a SQLite file so repeated runs embed each text once."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.conn = sqlite3.connect(path)
        self.conn.execute("CREATE TABLE IF NOT EXISTS v (k TEXT PRIMARY KEY, vec TEXT)")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [hashlib.sha256(f"{self.name}\0{t}".encode()).hexdigest() for t in texts]
        got = {}
        for key in keys:
            row = self.conn.execute("SELECT vec FROM v WHERE k = ?", (key,)).fetchone()
            if row:
                got[key] = json.loads(row[0])
        todo = [(k, t) for k, t in zip(keys, texts, strict=True) if k not in got]
        if todo:
            for (key, _), vec in zip(todo, self.inner.embed([t for _, t in todo]), strict=True):
                got[key] = vec
                self.conn.execute("INSERT OR REPLACE INTO v VALUES (?, ?)", (key, json.dumps(vec)))
            self.conn.commit()
        return [got[k] for k in keys]


def answer_all(
    sample: dict[str, Any],
    answer: Callable[[str], list[Hit]],
    mapping: dict[tuple[str, int], str],
    out: TextIO,
) -> None:
    """Search every question of ``sample``; write its ranked dia_ids as one run line."""
    for qi, qa in enumerate(sample["qa"]):
        ranked = []
        for hit in answer(qa["question"]):
            path, _, index = hit.ref.rpartition("#")
            ranked.append(mapping.get((path, int(index)), hit.ref))
        qid = f"{sample['sample_id']}/q{qi}"
        out.write(json.dumps({"qid": qid, "ranked": ranked}) + "\n")


def _catalog_search(catalog: Catalog, limit: int) -> Callable[[str], list[Hit]]:
    def answer(question: str) -> list[Hit]:
        return catalog.search(SearchQuery(query=question, kinds=("transcript",), limit=limit))

    return answer


def ranking_options(args: argparse.Namespace) -> RankingOptions:
    """The ranking options the flags name (the defaults where none is given)."""
    weights = dict(DEFAULT_WEIGHTS)
    weights.update(json.loads(args.weights) if args.weights else {})
    return RankingOptions(
        weights=weights,
        neighbour_weight=args.neighbour,
        scan_limit=args.scan_limit,
        name_boost=args.name_boost,
        feedback_terms=args.feedback,
        feedback_weight=args.feedback_weight,
        dense_weight=args.dense_weight,
        dense_floor=args.dense_floor,
        fusion=args.fusion,
        embed_previous=args.embed_previous,
        embed_name=args.embed_name,
        context_share=args.context_share,
        window_share=args.window_share,
        group_share=args.group_share,
        date_share=args.date_share,
        date_slack=args.date_slack,
        length_b=args.length_b,
        window_fields=args.window_fields,
        window_text_b=args.window_text_b,
        idf=args.idf,
    )


def embedder_of(args: argparse.Namespace) -> Embedder | None:
    """The embedder of a run: the setting's default unless --embed names one or --lexical."""
    from memdir.search.vectors.embeddings import AUTO, LocalEmbedder, local_embedder

    embedder: Embedder | None = None
    if not args.lexical:
        embedder = LocalEmbedder(args.embed) if args.embed else local_embedder(AUTO)
    if embedder is not None and args.embed_cache:
        embedder = CachedEmbedder(embedder, Path(args.embed_cache))
    return embedder


def uses_facade(args: argparse.Namespace, options: RankingOptions) -> bool:
    """Whether a run is exactly what a memdir user gets from the facade (no flag changes it)."""
    return options == RankingOptions() and not args.embed and not args.embed_cache


def run(args: argparse.Namespace) -> float:
    """Index every conversation, answer every question; returns seconds spent."""
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    options = ranking_options(args)
    embedder = embedder_of(args)
    facade = uses_facade(args, options)
    start = time.perf_counter()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memdir-locomo-") as tmp, open(args.out, "w") as out:
        home = Path(tmp) / "home"
        for sample in data:
            project = Path(tmp) / "projects" / sample["sample_id"]
            project.mkdir(parents=True)
            # --lexical: what a user without the embeddings extra (or with it off) gets.
            lexical: dict[str, Any] = {"search_embeddings": "off"} if args.lexical else {}
            mem = Memdir.open(project, home=home, **lexical)
            folder = mem.layout.project_dir / "transcripts"
            mapping = write_transcripts(sample["conversation"], folder)
            if facade:
                # The defaults: exactly what a memdir user gets from the facade.
                mem.add_transcripts(folder)
                # Hybrid: every turn embedded first, the steady state (a search embeds
                # for 10 s at most and ranks by BM25 alone until all are).
                mem.embed()
                search = functools.partial(mem.search, kinds=("transcript",), limit=args.limit)
                answer_all(sample, search, mapping, out)
            else:
                with Catalog.open(mem.layout, options=options, embedder=embedder) as catalog:
                    catalog.add_transcripts(folder)
                    catalog.auto_refresh = False
                    answer_all(sample, _catalog_search(catalog, args.limit), mapping, out)
            print(f"{sample['sample_id']}: {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return time.perf_counter() - start


def build_parser() -> argparse.ArgumentParser:
    """The flags of a run (``benchmarks/coding_sessions.py`` runs its corpus with them too)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(BENCH / "locomo_dev.json"))
    parser.add_argument("--out", default=str(RUNS / "locomo_run.jsonl"))
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--weights", help='JSON field weights, e.g. {"context": 0.2}')
    parser.add_argument("--neighbour", type=float, default=RankingOptions.neighbour_weight)
    parser.add_argument("--scan-limit", type=int, default=RankingOptions.scan_limit)
    parser.add_argument("--name-boost", type=float, default=RankingOptions.name_boost)
    parser.add_argument("--context-share", type=float, default=RankingOptions.context_share)
    parser.add_argument("--window-share", type=float, default=RankingOptions.window_share)
    parser.add_argument("--group-share", type=float, default=RankingOptions.group_share)
    parser.add_argument("--date-share", type=float, default=RankingOptions.date_share)
    parser.add_argument("--date-slack", type=int, default=RankingOptions.date_slack)
    parser.add_argument("--length-b", type=float, default=RankingOptions.length_b)
    parser.add_argument("--window-text-b", type=float, default=RankingOptions.window_text_b)
    parser.add_argument(
        "--joint-window",
        dest="window_fields",
        action="store_false",
        help="the window as one row normalised by its whole length, not BM25F",
    )
    parser.add_argument("--idf", choices=("lucene", "fts5"), default=RankingOptions.idf)
    parser.add_argument("--feedback", type=int, default=0)
    parser.add_argument("--feedback-weight", type=float, default=0.3)
    parser.add_argument(
        "--embed",
        nargs="?",
        const="all-MiniLM-L6-v2",
        default=None,
        help="this model (vectors cached with --embed-cache) instead of the setting's",
    )
    parser.add_argument(
        "--lexical",
        action="store_true",
        help="BM25 alone: the default is hybrid where the embeddings extra is installed",
    )
    parser.add_argument("--dense-weight", type=float, default=RankingOptions.dense_weight)
    parser.add_argument("--dense-floor", type=float, default=RankingOptions.dense_floor)
    parser.add_argument("--fusion", choices=("rrf", "linear"), default="linear")
    parser.add_argument("--no-embed-previous", dest="embed_previous", action="store_false")
    parser.add_argument("--no-embed-name", dest="embed_name", action="store_false")
    parser.add_argument("--embed-cache", help="SQLite file caching vectors across runs")
    parser.add_argument("--no-score", action="store_true")
    parser.add_argument(
        "--baseline",
        help="a run of the same data to compare with (e.g. main's ranking, written with --out)",
    )
    return parser


def compare(data: str, run: str, baseline: str, label: str = "baseline") -> None:
    """Print the paired bootstrap (95 %) of turn recall@1/@5/@10: ``run`` minus ``baseline``."""
    scorer = Path(data).resolve().parent / "locomo_eval.py"
    if not scorer.exists():
        scorer = BENCH / "locomo_eval.py"
    for k in (1, 5, 10):
        print(f"== memdir - {label}, turn recall@{k}", flush=True)
        cmd = [sys.executable, str(scorer), "compare", data, run, baseline]
        subprocess.run([*cmd, "--metric", f"turn.recall@{k}"], check=False)


def main() -> int:
    args = build_parser().parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    seconds = run(args)
    print(f"indexed and answered in {seconds:.1f}s", file=sys.stderr)
    if not args.no_score:
        scorer = Path(args.data).resolve().parent / "locomo_eval.py"
        cmd = [sys.executable, str(scorer), "score", args.data, args.out, "--by-category"]
        code = subprocess.run(cmd, check=False).returncode
        if args.baseline:
            compare(args.data, args.out, args.baseline)
        return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
