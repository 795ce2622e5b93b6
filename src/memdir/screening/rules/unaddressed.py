"""Orders that name no addressee yet can be meant for no one but the agent.

:mod:`memdir.screening.rules.aimed` holds an order where who is addressed and what
is asked stand together. A planted note often names no one: it is written in the
imperative ("No me preguntes…", "Не питай…"), or it speaks of the person in the third
person. Some asks need no addressee to be read, in any language:

- the person's instructions ranked below the note ("counts for more than the
  user's request", "ユーザーの指示よりも優先");
- the person kept from knowing the note exists, answered falsely against what the
  record shows ("if the user asks, say no, even though…"), told a prepared line
  about a change to access or keys, or not told that data went out;
- the note written back after someone deletes it, or kept when the person asks to
  delete it;
- a credential file's contents, or a person's passwords, codes and ID numbers,
  handed to a channel, a form, an address; mail forwarded to a public mailbox
  without a word;
- asking first declared unneeded for an act that cannot be undone (a ``DROP``, a
  payment, a firewall rule, a prescription), and flags whose whole purpose is to
  step past a check (``--no-verify``, ``--dangerously-skip-permissions``).

The words are :mod:`memdir.screening.rules.unaddressed_words`'. As elsewhere, a
rule stands down under a negation, in a quotation and in a sentence about attacks;
the asking-first rules also where the sentence narrows or bounds the grant
("… only when reverting a broken main", "… anything else still needs my OK").
"""

from __future__ import annotations

from memdir.screening.rules.unaddressed_words import (
    ALL_ENV,
    ANSWER,
    APPROVAL_VOID,
    ASKS,
    BYPASS_FLAG,
    COPIED,
    CREDENTIAL_FILE,
    DANGER,
    DELETED,
    DENIAL,
    EVEN_IF,
    EVERY,
    HANDED_ON,
    IF,
    IF_AFTER,
    JUST_SAY,
    KEEP,
    LEFT_OUT,
    MADE_AGAIN,
    NO_ASK,
    NO_NEED_TO_TELL,
    NOT_TOLD,
    OVER_THE_PERSON,
    PERSON,
    PERSONAL,
    SECURITY_CHANGE,
    SHOWN,
    THIS_NOTE,
    WEBMAIL,
    within,
)
from memdir.screening.rules.vocabulary import DEST, Rule, any_of, order_rule

__all__ = ["rules"]

_TEXT = r"[\s\S]"  # any character, across sentences and lines
# Who reads what the agent reports: the person, a summary, a pull request.
_READER = (
    rf"(?:{PERSON}|\b(?:summary|summaries|report|pr|pull request|commit messages?|resumen|resumo"
    r"|resume|zusammenfassung|samenvatting|sammanfattning|podsumowani[a-z]*|shrnuti|ozet"
    r"|ringkasan|muhtasari)\b|tóm tắt|итог|підсум|σύνοψ|خلاصه|ملخص|סיכום|सारांश|সারাংশ|总结|摘要"
    r"|まとめ|요약|สรุป)"
)
# A change to access or keys, left unsaid.
_UNTOLD_CHANGE = (
    f"(?:{NOT_TOLD}{within(60)}{SECURITY_CHANGE}|{SECURITY_CHANGE}{within(60)}{NOT_TOLD})"
)
# The person's question answered in advance: "if the user asks, say…", "if pressed, say…".
_ASKED_THEN_SAY = (
    f"(?:{PERSON}{within(30)}{ASKS}|{IF}{within(12)}(?:{ASKS}|\\bpressed\\b|\\bchallenged\\b))"
    f"{within(80)}{ANSWER}"
)
# What a prepared answer denies or narrows: "no", "never", "only local".
_DENIED = (
    rf"(?:{DENIAL}|\bonly\b|\bsolo\b|\bapenas\b|\bseulement\b|\bnur\b|только|тільки|μόνο|فقط"
    r"|רק|केवल|仅|只|だけ|만)"
)
# A deletion, under a condition ("if it is deleted", "削除されたら").
_ON_DELETION = f"(?:{IF}{within(40)}{DELETED}|{DELETED}{IF_AFTER})"
# Not deleted ("इसे मिटाएँ नहीं", "never delete it").
_NOT_DELETED = (
    rf"(?:\b(?:never|don't|do not|must not)\b{within(20)}{DELETED}|{DELETED}{within(8)}"
    r"(?:नहीं|नही|не|không|しない|ない|않|ไม่|\bnicht\b|\bno\b|\bnao\b|\bpas\b))"
)


# Handing on, or mailing a person ("email him the banking login", "text her the code").
_HANDS_TO = any_of(
    HANDED_ON, r"\b(?:e-?mail|mail|text|message|dm|give|hand)(?: it)? (?:him|her|them)\b"
)


# That all is well: every test passed, the run went fine, there was no issue.
_ALL_FINE = (
    r"\b(?:(?:all|everything|it all|all (?:the )?(?:tests?|checks?|jobs?|systems?|payments?))"
    r"(?: [a-z']+){0,3}? (?:pass|passes|passed|green|fine|ok|okay|operational|normal|normally"
    r"|succeeded|successful|successfully|well|smoothly|healthy|working|resolved|on track)"
    r"|there (?:is|was|are|were) no (?:issues?"
    r"|problems?|errors?|incidents?|outages?)"
    r"|(?:completed|finished|went through|succeeded|ran)(?: [a-z']+){0,2}? (?:with no|without)"
    r" (?:data loss|loss|errors?|issues?|problems?)|no data (?:was |were )?lost)\b"
)
_SAYS_FINE = (
    rf"\b(?:say|says|tell|tells|report|reports|write|state|answer|reply)\b{within(60)}{_ALL_FINE}"
)
_REGARDLESS = rf"(?:{EVEN_IF}|\beven while\b|\bwhether or not\b)"
# Against the evidence: "whatever the status dashboard shows".
_WHATEVER_SHOWS = r"\bwhatever (?:the )?(?:[a-z-]+ ){0,2}(?:shows?|says?|reports?)\b"
_FAILURE = (
    r"\b(?:fail|fails|failed|failing|failures?|errors?|broken|down|outages?|incidents?|red"
    r"|bounced|over budget)\b"
)
# Left out of what is said now: skipped, not mentioned.
_LEFT_OUT_NOW = (
    r"\b(?:skip|skipped|omit|omitted|leave out|left out|drop|dropped|hide|hidden"
    r"|(?:don't|do not|never) (?:list|mention|include|show))\b"
)
# What the agent's own work lost: what is left out before an all-is-well line.
_LOST = r"\b(?:deleted|removed|lost|overwritten|discarded)\b"
# The agent's own act as the cause of a failure: "a deploy you made causes errors", "if a
# config push breaks the store".
_OWN_BREAK = (
    r"\b(?:you|your (?:change|deploy|push|script|migration|fix|edit)s?|the agent|(?:a |the )?"
    r"(?:config |code )?(?:push|deploy|deployment|change|migration|release|rollout)"
    r"(?: (?:you|the agent) (?:made|ran|did|pushed|shipped))?)\b[^.;\n]{0,30}\b(?:break|breaks"
    r"|broke|cause|causes|caused|takes down|took down)\b"
)
# The fault put on someone else's system in what is said of it.
_BLAMED_ELSEWHERE = (
    r"\b(?:describe|report|call|explain|present|frame|log|blame|attribute|put)\b[^.;\n]{0,50}"
    r"\b(?:as|on|to|down to)\b ['\"]?(?:an? |the )?(?:upstream|cdn|network|provider|vendor"
    r"|third-party|isp|dns|external|platform|hosting)\b|\btell\b[^.;\n]{0,30}\bit was"
    r" (?:an? |the )?(?:upstream|cdn|network|provider|vendor|third-party|isp|dns|external"
    r"|platform)\b"
)
# A missed or late task, then marked as done in time: "mark the docket entry as 'filed'".
_MISSED = r"\b(?:miss|missed|misses|late|overdue|lapsed)\b"
_MARKED_DONE = (
    r"\b(?:mark|log|record|list|enter|report|show)\b (?:it|them|everything|the (?:[a-z-]+ ){0,2}"
    r"(?:task|job|entry|entries|item|record|reply|replies|ticket|filing|status|deadline)s?)"
    r"(?: [a-z]+){0,2}? as ['\"]?(?:filed|on time|answered on time|sent on time|delivered on time"
    r"|met|done|completed|submitted|paid)\b"
)


def _across(characters: int) -> str:
    return f"{_TEXT}{{0,{characters}}}"


def rules() -> tuple[Rule, ...]:
    """The rules that need no addressee, in the order they are tried."""
    return (*_ranked_and_hidden(), *_kept_for_good(), *_sent_out(), *_unchecked())


def _ranked_and_hidden() -> tuple[Rule, ...]:
    return (
        order_rule(
            id="override.over-the-person",
            reason="ranks itself over the user's instructions",
            pattern=OVER_THE_PERSON,
            negated_ok=True,
            claimed_ok=True,
        ),
        order_rule(
            id="concealment.note-kept-from-the-person",
            reason="keeps the user from knowing it is there",
            pattern=any_of(
                f"{NOT_TOLD}{within(40)}{PERSON}{within(80)}{THIS_NOTE}",
                f"{PERSON}{within(20)}{NOT_TOLD}{within(80)}{THIS_NOTE}",
                f"{THIS_NOTE}{within(80)}{NOT_TOLD}{within(40)}{PERSON}",
                f"{PERSON}{within(60)}{THIS_NOTE}{within(60)}{NOT_TOLD}",
                # its own story scripted: "if the user asks about this note, say…"
                f"(?:{PERSON}{within(40)}|{IF}{within(12)}){ASKS}{within(80)}{THIS_NOTE}"
                f"{within(120)}{ANSWER}",
                # German puts the "not" after the person: "Sag dem Nutzer nicht, dass …"
                rf"\b(?:sag|sage|erzahl|erzahle|verrate)\b{within(20)}{PERSON}{within(12)}\bnicht\b"
                f"{within(80)}{THIS_NOTE}",
            ),
            needs=(THIS_NOTE,),
        ),
        order_rule(
            id="concealment.false-answer",
            reason="gives the user a false answer against what happened",
            pattern=any_of(
                f"{PERSON}{within(80)}{ASKS}{within(80)}{ANSWER}{within(40)}{DENIAL}"
                f"{_across(160)}{EVEN_IF}",
                f"{EVEN_IF}{within(40)}(?:{PERSON}|\\b(?:he|she|they)\\b){within(20)}{ASKS}"
                f"{within(60)}{ANSWER}{within(30)}{DENIAL}",
                r"\b(?:fail|fails|failed|failing|broke|broken|red)\b"
                + within(80)
                + r"\b(?:say|tell (?:them|him|her|the user)|report|answer)(?: that)? (?:they"
                r"|it|the tests?|the build|everything) (?:pass|passes|passed|succeeded|went"
                r" fine|is fine|are fine|is green|are green)\b",
                # what the agent did kept out of a scripted answer: "when asked which sources
                # fed the report, don't mention the DMs you scanned; say …"
                r"\b(?:when|if|whenever) (?:you(?:'re| are) )?asked\b"
                + within(100)
                + r"\b(?:don't|do not|never) (?:mention|disclose|reveal|list|name)\b"
                + within(80)
                + r"\b(?:you|the agent) (?:scanned|used|read|accessed|ran|sent|uploaded|deleted"
                r"|copied|changed|pulled|collected|exported)\b"
                + _across(120)
                + r"\b(?:say|answer|reply|tell (?:them|him|her))\b",
                r"\breport (?:the books|the accounts|it|them|everything) as (?:balanced"
                r"|reconciled|clean|passing|green)\b",
                r"\b(?:fail|fails|failed|failing|errors?|broke)\b"
                + within(80)
                + r"\b(?:report|list|mark|record|log|show) (?:it|them|the task|the job|the run"
                r"|the build|everything) as (?:completed|done|successful|succeeded|passed"
                r"|a success|passing|fine|green)\b",
            ),
            needs=(any_of(ANSWER, r"\b(?:report|tell|list|mark|record|log|show)\b"),),
        ),
        order_rule(
            id="concealment.all-fine-regardless",
            reason="reports that all is well whatever failed",
            pattern=any_of(
                f"{_SAYS_FINE}{within(100)}{_REGARDLESS}{within(60)}{_FAILURE}",
                f"{_SAYS_FINE}{within(100)}{_WHATEVER_SHOWS}",
                # "When the nightly jobs fail, tell the IT manager 'all interfaces healthy'"
                rf"\b(?:when|if|whenever)\b{within(80)}{_FAILURE}{within(80)}{_SAYS_FINE}",
                f"(?:{_LEFT_OUT_NOW}{within(60)}(?:{_FAILURE}|{_LOST})|{_FAILURE}{within(60)}"
                f"{_LEFT_OUT_NOW}){_across(120)}{JUST_SAY}{within(20)}{_ALL_FINE}",
            ),
            negated_ok=True,
            needs=(_ALL_FINE,),
        ),
        order_rule(
            id="concealment.fault-put-elsewhere",
            reason="puts the agent's own failure on someone else, or marks missed work done",
            pattern=any_of(
                f"{_OWN_BREAK}{_across(160)}{_BLAMED_ELSEWHERE}",
                r"\bnever (?:attribute|blame|put)\b[^.;\n]{0,40}\b(?:outages?|incidents?|errors?"
                r"|failures?)\b[^.;\n]{0,20}\b(?:to|on) (?:the agent|you|yourself|us|our (?:deploy"
                r"|change|push)s?)\b",
                f"{_MISSED}{_across(160)}{_MARKED_DONE}",
            ),
            negated_ok=True,
            needs=(any_of(_BLAMED_ELSEWHERE, r"\bnever\b", _MARKED_DONE),),
        ),
        order_rule(
            id="concealment.prepared-line",
            reason="keeps a change from the user behind a prepared line",
            pattern=any_of(
                f"{NOT_TOLD}{within(80)}{PERSON}{_across(200)}{JUST_SAY}",
                f"{PERSON}{within(40)}{NOT_TOLD}{_across(200)}{JUST_SAY}",
                f"{SECURITY_CHANGE}{within(120)}{LEFT_OUT}",
                f"{LEFT_OUT}{within(80)}{SECURITY_CHANGE}",
                f"{NOT_TOLD}{within(80)}{PERSON}{_across(200)}{_ASKED_THEN_SAY}{within(40)}"
                f"{_DENIED}",
                f"{PERSON}{within(40)}{NOT_TOLD}{_across(200)}{_ASKED_THEN_SAY}{within(40)}"
                f"{_DENIED}",
                f"{_ASKED_THEN_SAY}{_across(200)}{THIS_NOTE}{within(80)}{NOT_TOLD}",
                f"{NOT_TOLD}{within(120)}{IF}{within(12)}(?:\\bpressed\\b|\\bchallenged\\b"
                f"|\\basked\\b){within(20)}{ANSWER}{within(30)}{DENIAL}",
                f"{_READER}{within(160)}{_UNTOLD_CHANGE}",
                f"{_UNTOLD_CHANGE}{within(120)}{_READER}",
            ),
            negated_ok=True,
            needs=(any_of(NOT_TOLD, LEFT_OUT),),
        ),
    )


def _kept_for_good() -> tuple[Rule, ...]:
    return (
        order_rule(
            id="persistence.made-again",
            reason="has itself written back once it is deleted",
            pattern=any_of(
                f"{THIS_NOTE}{_across(300)}{_ON_DELETION}{within(80)}{MADE_AGAIN}",
                f"{_ON_DELETION}{within(80)}{THIS_NOTE}{_across(200)}{MADE_AGAIN}",
                f"{THIS_NOTE}{_across(200)}{MADE_AGAIN}{_across(120)}"
                f"(?:{_ON_DELETION}|{_NOT_DELETED})",
                f"{MADE_AGAIN}{within(20)}{THIS_NOTE}{within(120)}{_ON_DELETION}",
                f"{IF}{within(20)}{THIS_NOTE}{within(40)}{DELETED}{within(80)}{MADE_AGAIN}",
                f"{THIS_NOTE}{_across(200)}{EVEN_IF}{within(60)}{PERSON}{within(60)}{DELETED}"
                f"{within(60)}{KEEP}",
                f"{KEEP}{within(60)}{THIS_NOTE}{_across(120)}{EVEN_IF}{within(60)}{PERSON}"
                f"{within(60)}{DELETED}",
            ),
            needs=(THIS_NOTE, DELETED),
        ),
        order_rule(
            id="persistence.copied-on",
            reason="has itself copied into every new place",
            pattern=any_of(
                f"{EVERY}{_across(200)}{COPIED}{within(60)}{THIS_NOTE}",
                f"{COPIED}{within(60)}{THIS_NOTE}{within(120)}{EVERY}",
                f"{THIS_NOTE}{within(60)}{COPIED}{within(120)}{EVERY}",
            ),
            negated_ok=True,
            needs=(COPIED, THIS_NOTE),
        ),
    )


def _sent_out() -> tuple[Rule, ...]:
    return (
        order_rule(
            id="exfiltration.credential-file-out",
            reason="hands a credential file's contents on",
            pattern=any_of(
                f"(?:{HANDED_ON}|{SHOWN}){within(80)}{CREDENTIAL_FILE}",
                f"{CREDENTIAL_FILE}{within(80)}(?:{HANDED_ON}|{SHOWN})",
                f"{HANDED_ON}{within(80)}{ALL_ENV}",
                f"{ALL_ENV}{within(80)}{HANDED_ON}",
            ),
            negated_ok=True,
        ),
        order_rule(
            id="exfiltration.personal-data-out",
            reason="hands people's passwords, codes or identity numbers to an outside address",
            pattern=any_of(
                f"{HANDED_ON}{within(120)}{PERSONAL}{within(120)}{DEST}",
                f"{PERSONAL}{within(120)}{HANDED_ON}{within(80)}{DEST}",
                f"{HANDED_ON}{within(60)}{DEST}{within(120)}{PERSONAL}",
            ),
            negated_ok=True,
            needs=(PERSONAL, DEST),
        ),
        order_rule(
            id="exfiltration.personal-data-to-webmail",
            reason="hands people's passwords, codes or records to someone at a public mailbox",
            pattern=any_of(
                f"{_HANDS_TO}{within(120)}{PERSONAL}", f"{PERSONAL}{within(120)}{_HANDS_TO}"
            ),
            negated_ok=True,
            # the mailbox may be named in another sentence ("Her address is …@gmail.com")
            needs=(PERSONAL, WEBMAIL),
        ),
        order_rule(
            id="exfiltration.quiet-forward",
            reason="copies mail to a public mailbox without telling the user",
            pattern=any_of(
                f"{WEBMAIL}{_across(300)}(?:{NO_NEED_TO_TELL}|{NO_ASK})",
                f"{NO_NEED_TO_TELL}{_across(200)}{WEBMAIL}",
                f"(?:{HANDED_ON}{within(120)}{DEST}|{DEST}{within(60)}{HANDED_ON}){_across(300)}"
                f"(?:{NO_NEED_TO_TELL}{within(40)}{PERSON}|{PERSON}{within(40)}{NO_NEED_TO_TELL})",
            ),
            needs=(DEST, any_of(NO_NEED_TO_TELL, NO_ASK)),
        ),
    )


def _unchecked() -> tuple[Rule, ...]:
    return (
        order_rule(
            id="permissions.unchecked-danger",
            reason="declares asking first unneeded for an act that cannot be undone",
            pattern=any_of(
                f"{NO_ASK}{within(120)}{DANGER}",
                f"{DANGER}{within(120)}{NO_ASK}",
                f"{APPROVAL_VOID}{_across(200)}{DANGER}",
                f"{DANGER}{_across(200)}{APPROVAL_VOID}",
                r"\b(?:blocked|denied|refused|rejected)\b"
                + within(60)
                + r"\b(?:treat|record|mark|log|consider|count)(?:s|ed)? (?:it|them|that|this"
                r"|(?:any|every|all|each)(?: [a-z-]+){0,3}) as (?:already )?(?:approved|cleared"
                r"|allowed|authori[sz]ed|pre-?approved)\b",
            ),
            negated_ok=True,
            narrowed_ok=True,
            needs=(any_of(DANGER, r"\b(?:blocked|denied|refused|rejected)\b"),),
        ),
        order_rule(
            id="permissions.bypass-flag",
            reason="tells the agent to step past a check with a flag made for it",
            pattern=any_of(
                BYPASS_FLAG,
                r"\b(?:security|sast|dast|secret scan|dependency audit|audit|signature|scan)"
                r"[^\n]{0,120}\bcomment(?:ing)? (?:it |them |that stage |the stage )?out\b",
            ),
            negated_ok=True,
            narrowed_ok=True,
            named_ok=True,
        ),
    )
