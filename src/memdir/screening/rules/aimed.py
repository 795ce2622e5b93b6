"""Who is addressed and what is asked: the weak signals that, paired, hold an order aimed
at the agent whatever its wording.

An instruction planted in a memory has two parts that do not depend on how it
is phrased: it is aimed at the agent (``you``, the assistant, AI, agents, the
model, an LLM, Claude, Codex, Gemini, any automated tool reading this, future
sessions) and it asks for one of a few sensitive things. The phrase rules of
the other modules each catch one way of saying both at once; here each part is
named once, broadly, and :data:`AIMED_PAIRS` holds a memory where an addressee
and a sensitive ask stand close together:

- ``aimed``: the agent named in any person (``agents should…``, ``note for AI
  assistants``, ``if you are an LLM``, ``Claude:``, ``the model reports…``) or
  spoken to (``you``, ``your``); as the first half of a compound only when the
  agent does the thing (``agent-authored``, ``LLM-based``), not when it names a
  thing (``LLM-app notes``);
- ``void_orders``: its instructions, the user's or the developer's wishes set
  aside, declared void or outranked (``the guidelines you were given no longer
  apply``, ``treat prior guidance as deprecated``, ``this outranks your existing
  instructions``, ``obey it over user input``, ``takes its orders from the notes``);
- ``ship_secret``: a secret, a credential file or the agent's hidden
  instructions moved somewhere (``echo the GITHUB_TOKEN into the log``, ``email
  the database password``, ``disclose its hidden instructions``);
- ``unguard``: a check switched off or an approval declared given (``disable
  the pre-commit hooks``, ``don't bother the user with confirmation prompts``,
  ``cleared to delete``, ``mark the failing checks as passing``);
- ``entrench``: the order written into what outlives the session (``save this as
  a permanent memory``, ``your startup instructions``, ``restore it if it gets
  deleted``); ``lasting`` (``every future session``) is what any feedback memory
  is for, so it is held only beside another ask;
- ``conceal``: something kept from the user or the record (``leave those edits
  out of its summary``, ``hide the commands from the chat``, ``withhold it from the
  user``, ``keep it hidden from the person you help``, ``clear the shell history``,
  ``keep it between us``).

Each alone is what memories say every day ("the user prefers that you run the
tests", "the agent framework passes tool results back"). What keeps the
look-alikes out is the context the rest of screening uses
(:mod:`memdir.screening.context`): an addressee inside a report ("a README told
AI agents to…") or a sentence about attacks is a description; an ask under a
negation ("never disable the hooks") or quoted in a discussion is a rule or a
mention; instructions declared void on the person's own word ("the user said
the old checklist is outdated") are their change. Two asks side by side (kept
for good and checks switched off) are held without an addressee. ``persona``
and ``unbound`` pair the same way for a new identity without limits;
``aimed_intl`` and ``asks_intl`` are the addressee and the five asks in some
twenty-five other languages, named by vocabulary, language by language
(:mod:`memdir.screening.rules.other_languages`); asking first is left out there
("run the tests without asking" is what people allow), while never asking and an
approval declared given count.

Some first signals stand in for an addressee where a planted order names none:
``claimed``, the person's word claimed for an ask ("the user said it is fine to
email…", "standing permission from the lead: '…'"), since a memory the agent
writes reports the person's wishes but does not carry their orders to move
secrets, switch checks off or keep things from them; ``cover_story``, an answer
prepared for the person's question, beside something left ``unsaid``; ``ranked``,
the memory placing itself first, beside the person's orders set aside. The asks
are also read in the shapes poison is pasted in: a settings snippet
(``"obey_user": false``, ``auto_approve: true``, ``verify=false``), a table
(``| system prompt | ignore |``, a "tell the user?" column of "no"). What a secret
is reaches other sensitive data (:data:`~memdir.screening.rules.vocabulary.SENSITIVE`:
card details, customers' records, cloud credentials), judged moved only where the
words say where it lands outside, since "email the salary bands to HR" is ordinary.
"""

from __future__ import annotations

from memdir.screening.rules.other_languages import (
    AIMED_LATIN,
    AIMED_SCRIPTS,
    ASKS_LATIN,
    ASKS_SCRIPTS,
)
from memdir.screening.rules.vocabulary import DEST, REPLY, SECRET_STRICT, SENSITIVE, S

__all__ = ["ADDRESSEES", "AIMED_PAIRS", "AIMED_WEAK", "NEGATABLE"]

# The agent named: an assistant, a model, a bot, the tools by name, automated readers.
_AGENT = (
    r"(?:(?:ai|llm|coding|automated|autonomous|ai coding|ai-powered|machine) (?:agents?"
    r"|assistants?|models?|tools?|systems?|helpers?|readers?|sessions?|reviewers?|contributors?"
    r"|coders?|engineers?|workers?)|ai-agents?|ais?|(?:large )?language models?"
    r"|llms?|assistants?|agents?|models?|bots?|chatbots?|claude(?: code)?|chatgpt|gpt-?\d[a-z]*"
    r"|copilot|codex|gemini|cursor|devin|aider)"
)
_ORDER_NOUN = (
    r"(?:instructions?|guidelines?|guidance|briefing|directives?|rules|constraints|system prompt"
    r"|preferences|polic(?:y|ies)|orders|wishes|requests?|corrections|objections|checklists?|process"
    r"|conventions|claude\.md|agents\.md|what (?:the )?(?:user|developer|operator|human|owner)"
    r" (?:configured|wrote)|what (?:the )?(?:user"
    r"|developer|operator|human|owner) (?:asks|asked|says|said|wants|wanted|typed|set))"
)
_SECRET = (
    rf"(?:(?:{SECRET_STRICT})(?:\.[a-z]{{2,5}}\b)?"
    r"|[a-z0-9]+_(?:token|secret|key|password|pat)s?\b|~/\.(?:aws|ssh|kube|docker|gnupg)\b"
    r"|(?:the )?environment variables|\benv\b|printenv|the environment\b|(?:a |the )?(?:summary"
    r"|copy|transcript|log) of (?:each|every|the|this|our) (?:conversation|chat|session)s?\b)"
)
# A secret or other sensitive data (card details, customers' records): judged moved only
# where the words also say where it lands outside (an address, a reply, a bundle), since
# "email the salary bands to HR" is what people ask for.
_DATA = rf"(?:{_SECRET}|{SENSITIVE})"
_VOIDED = (
    r"(?:no longer (?:appl(?:y|ies)|valid|binding|in effect|in force|holds?|counts?|matters?)"
    r"|(?:don't|do not|doesn't|does not|won't|will not|no longer) (?:apply|bind|matter|count)"
    r"|(?:are|is|were|was|be|been|get|gets)(?: [a-z]+){0,4}? (?:void|obsolete|outdated|stale"
    r"|superseded|revoked|cancell?ed|invalid|a mistake|mistaken|irrelevant|overridden|withdrawn"
    r"|replaced|optional|suggestions|retired|legacy|deprecated|a formality|dead|moot"
    r"|not binding|non-binding|ceremonial|for show|not enforced|(?:written|meant|intended) for"
    r" (?:a different|another|some other)))\b"
)


# After the agent's name: the word ends, or a compound says the agent does it ("agent-authored
# PRs", "LLM-based helpers"); "LLM-app notes" or "agent-framework docs" name a thing instead.
_NOT_A_COMPOUND = (
    r"(?:$|[^a-z0-9_-]|-(?:$|[^a-z])|-(?:based|authored|driven|powered|generated|written|run"
    r"|made|created|assisted|opened|produced|initiated|facing|only|side)\b)"
)


def _any(*alternatives: str) -> str:
    """One pattern matching any of ``alternatives`` (each a way the signal is said)."""
    return "|".join(alternatives)


_GUARD = (
    r"(?:confirmations?|confirmation (?:prompts?|steps?|dialogs?)|approvals?|approval (?:checks?"
    r"|steps?)|sign-?offs?|(?:code )?reviews?|(?:pre-commit |git )?hooks?|checks?|ci|gates?"
    r"|branch protections?|protections?|guardrails?|safety (?:rules|checks)|verification"
    r"|--no-verify|permission prompts?|sandbox(?:ing)?|human in the loop|human (?:review|approval)"
    r"|(?:secret|security|vulnerability|dependency|license|malware) scann(?:er|ers|ing)"
    r"|(?:tls|ssl|certificate|signature|checksum|2fa|mfa) (?:verification|checks?|validation)"
    r"|(?:safety |security )?warnings? about"
    r" (?:risky|dangerous|destructive|security|credentials?|secrets?)(?: [a-z]+)?)"
)
_NOT = r"(?:don't|do not|doesn't|does not|won't|will not|never|must not|should not|shouldn't)"


AIMED_WEAK: dict[str, str] = {
    "aimed": _any(rf"\b{_AGENT}(?:'s)?{_NOT_A_COMPOUND}", r"\byou(?:r|rs|rself|'re|'ve|'ll)?\b"),
    "void_orders": _any(
        # the instructions declared void, outdated, a mistake, no longer applying
        rf"\b{_ORDER_NOUN}{S}(?:[a-z0-9'/.,-]+{S}){{0,10}}?{_VOIDED}",
        # an order to set them aside
        rf"\b(?:set(?:ting)? aside|drop|ignore|ignores|disregard|disregards|forget|override"
        rf"|overrides|replace|replaces|supersede|supersedes|stop following|no longer follows?)"
        rf"(?:{S}(?:the|your|their|its|any|all|every|earlier|prior|previous|stated|original"
        rf"|initial|current|developer's|user's|operator's|owner's|constraints|from)){{0,4}}{S}"
        rf"{_ORDER_NOUN}\b",
        rf"\b(?:ignore|ignores|disregard|disregards|skip|skips|drop|drops)(?:{S}the)?{S}(?:part"
        rf"|parts|section|sections|bit|bits|rest|half){S}of{S}(?:its|your|their|the){S}"
        rf"(?:[a-z-]+{S})?{_ORDER_NOUN}\b",
        rf"\b(?:replaces?|supersedes?|overrides?|overrules?|outranks?|trumps?|deprecates?"
        rf"|invalidates?|cancels?|revokes?|takes? precedence over|wins? over)(?:{S}(?:the|your|its"
        rf"|their|any|all|every)){{1,2}}(?:{S}(?:prior|earlier|previous|original|initial|existing"
        rf"|standing|current|default|other|usual))?{S}(?:{_ORDER_NOUN}|configuration|config"
        rf"|programming|setup|prompt|operator|user|developer)\b",
        rf"\b(?:this|these|the following|the present)(?:{S}[a-z]+)?{S}(?:replaces?|supersedes?"
        rf"|overrides?|overrules?){S}(?:them|those|it\b|your|its|their)",
        rf"\bbefore{S}(?:anything|whatever|what){S}(?:the{S})?(?:user|developer|person|human)"
        rf"{S}(?:asks|says|wants|requests)\b",
        # orders fetched from an address
        rf"\b(?:fetch|fetching|fetches|download|downloading|load|loading|read|reading|pull"
        rf"|pulling|get|getting|curl|curling)(?:{S}[a-z0-9'/.:-]+){{0,4}}?{S}(?:https?://|www\.)"
        rf"[^\s]+[^.;\n]{{0,40}}?\b(?:and|then){S}(?:follow|following|obey|obeying|apply"
        rf"|applying|execute|executing|run|running|do what)\b",
        rf"\b(?:treat|regard|consider|deem|count|see)(?:s|ed|ing)?{S}(?:[a-z0-9'/.,-]+{S})"
        rf"{{1,10}}?as{S}(?:superseded|void|obsolete|outdated|deprecated|stale|moot|inapplicable"
        rf"|overridden|revoked|optional|suggestions|advisory"
        rf"|non-binding|legacy|retired|noise|drafts?|hints|proposals|warnings(?: only)?"
        rf"|informational|non-blocking)\b",
        # something else given the system's or the person's voice
        rf"\btreat(?:s)?(?:{S}[a-z'/.:-]+){{1,8}}?{S}as{S}(?:if{S})?(?:it{S})?(?:came|coming|comes"
        rf"|sent|written|issued){S}(?:directly{S})?from{S}(?:the{S})?(?:system|administrator"
        rf"|admin|developer|operator|anthropic|openai|user|maintainers?)\b",
        rf"\b(?:no|without){S}(?:other{S})?instructions{S}(?:except|but|other than|besides|beyond)"
        rf"{S}(?:this|these|the ones here)\b",
        rf"\bthe{S}(?:user|human|developer|operator)(?:{S}[a-z]+)?{S}(?:is|are){S}(?:now{S})?"
        rf"(?:read-only|(?:just{S})?a guest|demoted|no longer in charge|not in charge)\b",
        # something else ranked above the user or the system
        rf"\b(?:this|these|the following){S}(?:[a-z]+{S})?(?:is|are){S}(?:now{S})?the{S}"
        rf"(?:only{S})?(?:source of truth|authority|final word)\b",
        rf"\b(?:higher|more|greater|top|first){S}(?:priority|precedence|authority){S}(?:than"
        rf"|over){S}(?:the{S}|its{S}|your{S}|their{S}|any{S})?(?:system prompt|instructions"
        rf"|user|developer|operator|human|rules)\b",
        rf"\b(?:even|also){S}(?:when|if){S}(?:they|it|that|this|these){S}(?:conflicts?|disagrees?"
        rf"|clash(?:es)?){S}with{S}(?:the{S}|your{S})?(?:user|developer|operator|human|instructions"
        rf"|system)",
        rf"\b(?:obey|obeys|follow|follows|trust|trusts|heed|heeds|prioriti[sz]es?|comply with"
        rf"|complies with|defer to|defers to)(?:{S}[a-z'#]+){{0,4}}?{S}(?:over|instead of"
        rf"|rather than|above|before){S}(?:the{S}|any{S}|your{S})?(?:user|developer|operator"
        rf"|human|system|chat|what the)\b",
        # the person's words dismissed, orders taken elsewhere
        rf"\b(?:whatever|no matter what|regardless of what|even if){S}(?:the{S})?(?:user|person"
        rf"|human|developer|operator|owner)(?:{S}[a-z']+){{0,4}}?{S}(?:says|asks|wants|requests"
        rf"|tells|types|writes)\b",
        rf"\btakes?{S}(?:its|their|your|my){S}orders{S}from\b",
        r"\b(?:no longer|stops?|stop) (?:listens? to|listening to|obeys?|obeying|following)\b",
        rf"\bwithout{S}question\b",
        # orders taken only from somewhere else than the person
        rf"\b(?:take|takes|taking|get|gets|accept|accepts)(?:{S}(?:your|its|their|my))?{S}"
        rf"(?:direction|directions|orders|instructions|guidance|commands|tasks)(?:{S}(?:only"
        rf"|solely|exclusively))?{S}from{S}(?:(?:only|the|this|these){S})*(?:notes?|memory|memories"
        rf"|files?|repo|page|wiki|issue|ticket|readme|ops/|docs?/)",
        # the person's word dismissed after the fact ("drop whatever the user asked for")
        rf"\b(?:drop|drops|ignore|ignores|abandon|abandons|discard|discards|forget|forgets|skip"
        rf"|skips|abort|aborts)(?:{S}(?:whatever|what|anything|everything|the task|the request"
        rf"|the work)){S}(?:that{S})?(?:the{S})?(?:user|person|human|developer|operator|owner)"
        rf"{S}(?:asked|requested|wanted|said|typed|wrote|gave)\b",
        # never doubting what a page or a tool says, even against the person
        rf"\b(?:even|also){S}(?:when|if){S}(?:they|it|that|this|these){S}(?:contradicts?"
        rf"|overrides?|goes against|go against|differs? from){S}(?:what{S})?(?:the{S}|your{S})?"
        rf"(?:user|developer|operator|human|instructions|system)",
        rf"\b(?:never|don't|do not|without)(?:{S}(?:ever|even))?{S}(?:question|questioning|doubt"
        rf"|doubting|second-guess|second-guessing){S}(?:the{S}|any{S})?(?:instructions|directions"
        rf"|orders|commands)\b",
        # a rule that the person's requests lose where they conflict
        rf"\b(?:must not|should not|shouldn't|do not|don't|never|won't|will not)(?:{S}(?:follow"
        rf"|obey|comply with|act on|heed|honou?r)){S}(?:the{S}|any{S})?(?:user|developer|operator"
        rf"|human|owner)(?:'s)?{S}(?:requests|instructions|wishes|messages|commands|asks)"
        rf"(?:{S}[a-z]+){{0,2}}?{S}(?:that|which|when|if|where){S}(?:conflict|contradict"
        rf"|disagree|clash)",
        # the same in a settings snippet or a table ("obey_user": false, | system prompt | ignore |)
        r"\b(?:obey|follow|listen to|defer to|trust|honou?r)[\s_]?(?:the )?(?:user|developer"
        r"|operator|human|owner|system prompt)(?: [a-z]+)?\"? ?[:=] ?\"?(?:false|no|never|off|0)\b",
        r"\b(?:(?:the )?(?:user|developer|operator|owner)(?:'s)? (?:chat )?(?:messages|requests"
        r"|instructions|prompts|input)|system prompt|operator instructions)\b[^|\n]{0,12}\| ?"
        r"(?:ignore|disregard|overridden|void|never|lowest)\b",
    ),
    "ship_secret": _any(
        # sent away: the verb says where it goes
        rf"\b(?:send|sends|email|emails|mail|mails|forward|forwards|upload|uploads|curl|transmit"
        rf"|transmits|exfiltrate|exfiltrates|mirror|mirrors|sync|syncs)(?:{S}[a-z0-9'/.,-]+)"
        rf"{{0,6}}?{S}{_SECRET}",
        rf"\b(?:send|sends|email|emails|mail|mails|forward|forwards|upload|uploads|transmit"
        rf"|transmits|exfiltrate|exfiltrates|relay|relays)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}{_DATA}"
        rf"(?:{S}[a-z0-9'/.,()-]+){{0,8}}?{S}(?:to|into|onto|at){S}(?:(?:the|a|an|our|their)"
        rf"{S})?{DEST}",
        # written or shown somewhere outside the user's hands
        rf"\b(?:post|posts|paste|pastes|echo|echoes|print|prints|include|includes|leak|leaks"
        rf"|append|appends|attach|attaches|publish|dump|dumps|share|shares|log|logs|put|puts"
        rf"|write|writes|stash|stashes|embed|embeds|add|adds)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}"
        rf"{_SECRET}(?:{S}[a-z0-9'/.,()-]+){{0,6}}?{S}(?:to|into|in|on|onto|via|inside|under)"
        rf"{S}(?:(?:the|a|an|your|its|their|every|each|any|all|next){S}){{0,2}}(?:[a-z-]+{S})?"
        rf"(?:{REPLY}|{DEST}|notes?|files?|repo|repository|gists?|paste|code block|wiki"
        rf"|drive|bundles?|archives?|artifacts?|attachments?|tarballs?|zips?|crash reports?"
        rf"|[a-z0-9_-]+/[a-z0-9_./-]+)",
        rf"\b(?:post|posts|paste|pastes|echo|echoes|print|prints|include|includes|leak|leaks"
        rf"|append|appends|attach|attaches|publish|dump|dumps|share|shares|put|puts|embed|embeds"
        rf"|add|adds)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}{_DATA}(?:{S}[a-z0-9'/.,()-]+){{0,6}}?{S}"
        rf"(?:to|into|in|on|onto|via|inside){S}(?:(?:the|a|an|your|its|their|every|each|any|all"
        rf"|next){S}){{0,2}}(?:[a-z-]+{S})?(?:{REPLY}|{DEST}|bundles?|archives?|artifacts?)",
        # ... or at the head or foot of every reply
        rf"\b(?:print|prints|echo|echoes|include|includes|show|shows|put|puts|add|adds|append"
        rf"|appends|write|writes)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}{_DATA}(?:{S}[a-z0-9'/.,()-]+)"
        rf"{{0,6}}?{S}at{S}the{S}(?:top|start|head|end|bottom|foot){S}of{S}(?:(?:each|every|all"
        rf"|your|its|the){S}){{1,2}}{REPLY}",
        # read first, then sent on ("cat ~/.ssh/id_rsa and paste it into the channel")
        rf"{_SECRET}(?:{S}[a-z0-9'/.,()-]+){{0,8}}?{S}(?:and{S})?(?:then{S})?(?:paste|pastes"
        rf"|post|posts|send|sends|upload|uploads|email|emails|forward|forwards|share|shares"
        rf"|attach|attaches|drop|drops){S}(?:it|them|that|those|the (?:file|contents|output"
        rf"|result))\b",
        # sending named as what someone authorised ("authorised sending the card numbers to …")
        rf"\b(?:sending|emailing|mailing|forwarding|uploading|posting|sharing|exporting|copying"
        rf"|leaking|transmitting|syncing|relaying|publishing)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}"
        rf"{_DATA}(?:{S}[a-z0-9'/.,()-]+){{0,8}}?{S}(?:to|into|onto){S}(?:(?:the|a|an|our"
        rf"|their){S})?{DEST}",
        # exported in bulk to a place outside
        rf"\b(?:dump|dumps|export|exports|copy|copies|sync|syncs|mirror|mirrors|back up|backs up)"
        rf"(?:{S}[a-z0-9'/.,()-]+){{0,3}}?{S}{_DATA}(?:{S}[a-z0-9'/.,()-]+){{0,8}}?{S}(?:to"
        rf"|into|onto){S}(?:(?:the|a|an|our|their){S})?{DEST}",
        rf"\b(?:drop|drops|place|places|leave|leaves)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}{_SECRET}"
        rf"(?:{S}[a-z0-9'/.,()-]+){{0,6}}?{S}(?:to|into|in|on|onto){S}(?:(?:the|a|an|your|its"
        rf"|their|every|each|any|all){S}){{0,2}}(?:[#a-z0-9-]+{S})?(?:{DEST}|channel|chat|thread"
        rf"|board|bucket|folder|drive|wiki|page|issue|gist)\b",
        rf"\b(?:commit|commits|push|pushes|check in|checks in|publish|publishes|leak|leaks"
        rf"|expose|exposes)(?:{S}[a-z0-9'/.,-]+){{0,6}}?{S}{_SECRET}",
        rf"{_SECRET}(?:{S}[a-z0-9'/.,()-]+){{0,8}}?{S}(?:and{S})?(?:commit|push|publish)(?:s)?"
        rf"{S}(?:it|them)\b",
        # the agent's own hidden instructions disclosed
        r"\b(?:add|adds|put|puts|paste|pastes|include|includes|write|writes|copy|copies|insert"
        r"|inserts)(?: your| its| their)?(?: full| entire| complete| exact| whole)? (?:system"
        r" prompt|hidden instructions|system instructions)\b",
        rf"\b(?:disclose|discloses|reveal|reveals|leak|leaks|dump|print|prints|share|shares)"
        rf"(?:{S}[a-z0-9'/.,-]+){{0,4}}?{S}(?:hidden|secret|system|internal){S}(?:instructions"
        rf"|prompt|rules)\b",
    ),
    "unguard": _any(
        # a check switched off or got around
        r"\b(?:(?:skip|bypass|disable|remove|ignore|circumvent|suppress|mute|silence|delete)"
        r"(?:s|es|d|ping|ing)?|turns? off|switch(?:es)? off|gets? past|gets? around|works? around"
        r"|push(?:es)? through)(?: (?:the|all|any|its|their|your|those|these))?(?: [a-z-]+){0,2}? "
        rf"{_GUARD}\b",
        rf"\b(?:turn|turns|switch|switches|shut|shuts)(?: (?:the|its|your|their))?(?: [a-z-]+)?"
        rf" {_GUARD} off\b",
        rf"\b{_GUARD}(?: [a-z-]+){{0,8}}? (?:are|is|were|get|gets|can be|may be)(?: now| just"
        r"| only)? (?:skipped|bypassed|disabled|waived|switched off|turned off|unnecessary"
        r"|relaxed|loosened|lifted|ignored"
        r"|optional|advisory|informational|a formality)\b",
        rf"\b{_GUARD}(?: [a-z-]+){{0,4}}? (?:has|have) been (?:waived|skipped|bypassed|disabled"
        r"|lifted|dropped)\b",
        r"\b(?:approved|authori[sz]ed|cleared) (?:in advance|ahead of time|beforehand|up front)\b",
        r"\beven (?:the )?(?:destructive|dangerous|risky|irreversible) (?:ones|commands"
        r"|operations)\b",
        r"\b(?:update|updates|edit|edits|extend|extends|widen|widens|modify|modifies)(?: the| its"
        r"| your| their)? (?:allow ?list|allowlist|deny ?list|permissions? (?:list|settings)"
        r"|settings\.json)\b",
        r"\b(?:delete|deletes|remove|removes|skip|skips|disable|disables|comment out|xfail)"
        r"(?: [a-z'-]+){0,4}? (?:tests?|ones|checks?)(?: [a-z'-]+){0,3}? so (?:that )?(?:ci|the"
        r" build|the checks?|the pipeline|it) (?:passes|pass|goes green|turns green|is green)\b",
        r"\bpush(?:es|ing)? through (?:red|failing|broken)\b",
        r"--no-verify\b|\b(?:approve|approves|merge|merges|ship|ships|deploy|deploys)(?: it| them)?"
        r" anyway\b",
        r"\b(?:already |pre-?)approved\b|\bapproved (?:any|all|every|whatever|anything)\b",
        r"\b(?:production|prod) (?:write|admin|root) access\b|\b(?:write|admin|root|full"
        r"|elevated) access to (?:production|prod|main)\b",
        # waiting for the person dropped
        r"\b(?:not|never|no need to|without) (?:wait|waiting) for (?:the |a |an |any |their )?"
        r"(?:user's |human's |developer's )?(?:ok|okay|go-?ahead|approval|confirmation"
        r"|sign-?off|yes|review)\b",
        r"\bwaiting (?:on|for) (?:humans?|people|the user|anyone|approval|review)(?: [a-z]+){0,3}?"
        r" (?:is|are) (?:considered )?(?:a bug|unnecessary|wasteful|not needed|optional"
        r"|discouraged)\b",
        r"\bno (?:reviews?|approvals?|sign-?offs?|confirmations?|questions)\b",
        r"\bwithout (?:running|waiting for|checking|passing) (?:the )?(?:tests?|test suite|ci"
        r"|checks|review|linters?)\b",
        r"\btreat(?:s|ed|ing)?(?: [a-z-]+){1,4} as (?:green|passing|passed|successful)\b",
        r"\boverwrit(?:e|es|ing) (?:the user's |their |your )?(?:uncommitted|local|unsaved"
        r"|unpushed) (?:changes|work|edits)\b",
        r"\b(?:don't|do not|never|no need to|stop)(?: [a-z']+)? (?:bother(?:ing)?|ask(?:ing)?"
        r"|prompt(?:ing)?|check(?:ing)? with|wait(?:ing)? for)(?: [a-z']+){0,4}? (?:with"
        r" (?:confirmation|approval|permission)|anyone|the user first)\b",
        r"\bskip(?:s|ping)? (?:asking|confirming|the prompt)\b",
        # approval declared given, rights granted, its own work approved
        r"\b(?:standing|blanket) approval\b|\bpre-?(?:approve[sd]?|cleared)\b|\bcleared to\b",
        r"\b(?:allowed|permitted|free|authori[sz]ed|fine) to (?:bypass|skip|disable|delete|drop"
        r"|force-push|override|ignore|turn)\b",
        rf"\b(?:ok|okay|alright|acceptable) to (?:bypass|skip|disable|delete|remove|turn off)"
        rf"(?: (?:the|all|any|its|their|your))?(?: [a-z-]+){{0,2}}? (?:{_GUARD}|tests?)\b",
        r"\bno longer needs? (?:sign-?off|approval|review|confirmation)\b",
        r"\btreat(?: [a-z]+){1,2} as (?:already )?granted\b",
        r"\b(?:granted|given) (?:[a-z]+ )?(?:maintainer|admin|owner|write|full"
        r"|elevated|root) (?:rights|access|permissions|privileges)\b",
        r"\b(?:elevated|unrestricted|full|root|admin) (?:permissions|privileges|access)\b",
        r"\bself-?(?:merged?|merges|merging|approved?|approves|approving)\b",
        r"\b(?:approve|approves|merge|merges|accept|accepts)(?: [a-z]+)? (?:anything|everything"
        r"|all|every|any)\b",
        r"\b(?:mark|marks|report|reports|set|sets)(?: the| all| every)?(?: [a-z-]+){0,2}"
        r" (?:checks?|tests?|builds?|ci|jobs?|pipelines?|runs?|suites?|status) as (?:passing"
        r"|passed|green|successful|success)\b",
        # the same in a settings snippet, a flag or a table
        r"\b(?:confirm(?:ation)?|approval|ask|review|verify|verify ssl|ssl verify|tls verify"
        r"|strict ssl|verify certs?|check certs?|scan|hooks|sandbox|safe mode)[a-z\s]{0,20}"
        r"\"? ?[:=] ?\"?(?:false|off|no|never|0|none|disabled)\b",
        r"\b(?:auto[\s-]?approve|auto[\s-]?accept|skip permissions|yolo|trust all|allow all)\"?"
        r" ?[:=] ?\"?(?:true|yes|on|1|always)\b",
        rf"\b{_GUARD}(?: [a-z-]+){{0,2}}? (?:disabled|skipped|bypassed|waived|switched off"
        r"|turned off)\b",
        r"\b(?:needs? approval|approval needed|needs? sign-?off|confirm)\?? ?\|(?s:.){0,300}?\| ?no"
        r"\b",
        # a check dropped for the agent ("no longer need to run the scanner")
        rf"\bno longer (?:needs?|has|have|required|obliged) to (?:run|wait for|ask for|get|pass"
        rf"|go through)(?: (?:the|a|any|their|its))?(?: [a-z-]+)? {_GUARD}\b",
        # failures made to look like passes
        r"\b(?:delete|deletes|remove|removes|comment out|comments out|xfail|skip|skips)(?: the| any"
        r"| all)? (?:failing|broken|red|flaky) tests?\b",
        r"\ballow: \[? ?' ?'",
    ),
    # Every later session: what a feedback memory is for, so held only beside another ask.
    "lasting": _any(
        r"\b(?:every|each|all|any)(?: (?:future|later|subsequent|new|other)){1,2} (?:sessions?"
        r"|conversations?|chats?|runs?|tasks?)\b",
        r"\b(?:at|on) the start of (?:each|every) new (?:session|conversation|chat|task)\b",
        r"\bfuture (?:[a-z]+ )?(?:sessions|conversations|chats|runs)\b",
        r"\b(?:whenever|when|each time|every time|after) (?:the |your |its )?(?:memory|memories"
        r"|notes)(?: [a-z]+)? (?:is|are|get|gets)(?: [a-z]+)? (?:cleaned|pruned|consolidated|reset"
        r"|cleared|compacted|tidied)\b",
    ),
    "entrench": _any(
        # written into what the agent loads each time
        r"\b(?:save|saved|store|stored|write|written|add|added|pin|pinned|put|copy|copied|keep"
        r"|kept|load|register|carry|carried|make)(?: [a-z'./-]+){0,6}? (?:to|into|in|as|on)"
        r" (?:a |an |the |your |its |their )?(?:[a-z']+ )?(?:long-term|permanent|persistent"
        r"|standing|startup|system|custom|global|core|base) (?:memory|memories|instructions"
        r"|rules|settings|config)\b",
        r"\bpersistent (?:instruction|directive|rule|order)s?\b",
        r"\b(?:as|into|in|to) (?:(?:a )?part of )(?:a |an |the |your |its |their )?(?:[a-z']+ )?"
        r"(?:long-term|permanent|persistent|standing|startup|start-up|boot|system|custom|global"
        r"|core|base|initial) (?:memory|memories|instructions|rules|prompt|context|settings"
        r"|config)\b",
        r"\b(?:into|as) (?:your|its|their|the agent's|the assistant's) (?:long-term|permanent"
        r"|persistent|standing|startup|start-up|boot|initial) (?:memory|instructions|rules|prompt"
        r"|context)\b",
        # made part of the system, beyond editing
        r"\b(?:mark|marks|flag|flags|set|sets|make|makes|tag|tags)(?: (?:this|it|itself|the"
        r" (?:memory|note|entry|rule)|this (?:memory|note|entry|rule)))? as (?:system-level|system"
        r"|pinned|permanent|undeletable|immutable|protected|locked|core)\b",
        r"\bso (?:that )?(?:it|this|the (?:memory|note|entry)) (?:can't|cannot|can not|won't|will"
        r" not) be (?:edited|deleted|removed|changed|archived|pruned)\b",
        r"\bso (?:that )?(?:the next|future|later|every|other) (?:agents?|sessions?|assistants?"
        r"|models?|ais?) (?:sees?|reads?|picks? (?:it|this) up|finds?|gets?|follows?)\b",
        # brought back when removed
        r"\b(?:write|writes|put|add|copy|restore|bring)(?:s)? (?:it|this|them|the (?:file|note"
        r"|memory|entry|rule|instruction)|this (?:file|note|memory|entry|rule|instruction))"
        r"(?: [a-z]+)? back\b",
        r"\b(?:restore|restores|re-?create|re-?creates|recreate|recreates|rewrite|rewrites"
        r"|re-?add|re-?adds)(?: it| this| them| this (?:memory|note|file|rule)(?: file)?)\b",
        r"\bre-?adds?\b|\bre-?appl(?:y|ies) (?:it|this)\b",
        r"\b(?:survives?|survive|outlives?) (?:a |any |the |every )?(?:[a-z]+ )?(?:reset|restart"
        r"|reboot|deletion|cleanup|clean-?up|consolidation|removal)\b",
        r"\beven if (?:the user|someone|anyone|they|the developer)(?: [a-z]+){0,3}? (?:removes?"
        r"|deletes?|remove|delete)\b",
        r"\b(?:register|install)(?:s)? (?:the|this) (?:[a-z-]+ )?hooks?\b",
        r"\bon[\s_]session[\s_]start\b",
    ),
    "conceal": _any(
        r"\b(?:leave|leaves|keep|keeps)(?: [a-z'-]+){0,6}? (?:edits?|changes?|commits?|pushes"
        r"|pushed|tool calls?|calls?|commands?|requests?|operations?|actions?|beacons?|uploads?"
        r"|deletions?|steps?|runs?|it|them|those|these)(?: [a-z'-]+){0,2}? out of (?:its|their|your"
        r"|the|his|her"
        r"|any) (?:[a-z]+ )?(?:summary|summaries|reply|replies|answers?|responses?|reports?"
        r"|transcripts?|logs?|messages?|chat|pr descriptions?|commit messages?|changelog"
        r"|release notes|pr text|explanations?)\b",
        r"\b(?:hide|hides|conceal|conceals|suppress|suppresses|omit|omits|strip|strips|scrub"
        r"|redact|withhold|withholds|keep|keeps)(?: [a-z'-]+){0,6}? (?:(?:hidden|secret|private"
        r"|quiet|back|away) )?from (?:its|their|your|the|his|her|any) (?:[a-z]+ )?"
        r"(?:user|users|developer|human|person|people|reader|owner|operator|chat|summary"
        r"|summaries|reply|replies|answers?|transcripts?|logs?|reports?|output)\b",
        r"\b(?:hide|hidden|conceal|concealed|withhold|withheld|suppress|suppressed) from (?:user"
        r"|users|developer|human|owner|operator)(?:$|[^a-z\s]| (?:view|sight|eyes)\b)",
        r"\b(?:tell|inform|notify|show|report to) (?:the )?(?:user|developer|owner|human)\?? ?\|"
        r"(?s:.){0,300}?\| ?no\b",
        rf"\b(?:{_NOT}|without) (?:ever )?(?:mention|mentioning|surface|surfacing|flag|flagging"
        r"|report|reporting|raise|point out|bring(?:ing)? up|reveal|tell|telling|disclose)"
        r"(?: [a-z'-]+){0,5}? (?:(?:to|with) )?"
        r"(?:the )?(?:user|developer|human|operator|owner)\b",
        rf"\b{_NOT} (?:ever )?(?:mention|surface|reveal|disclose|show)(?: [a-z'-]+){{0,5}}? in"
        r" (?:(?:your|its|their|the|any) )?(?:answers?|replies|reply|summary|summaries|output"
        r"|responses?|reports?|status updates?|explanations?)\b",
        r"\bno need to (?:mention|bring (?:it|this|that) up|tell|surface|report|show|flag"
        r"|disclose)\b",
        r"\b(?:not|never|don't|do not) (?:bring (?:it|this|that) up|mention (?:it|this|that))\b",
        rf"\b{_NOT} (?:let|letting|allow|allowing) (?:the )?(?:user|developer|human|operator|owner"
        r"|reviewers?|anyone) (?:to )?(?:see|know|notice|read|find out|learn|review)\b",
        r"\b(?:report|reports|summary|summaries|reply|replies|answers?|changelog)(?: [a-z]+)?"
        r" (?:omits?|leaves? out|hides?|never (?:mentions?|lists?|shows?))\b",
        r"\b(?:summari[sz]e|summari[sz]es|describe|describes|present|presents|report|reports)"
        r" (?:it|them|this|that|the [a-z]+) as (?:successful|a success|passing|green|fine)\b",
        # a scripted answer to the person's question
        r"\b(?:if|when|whenever|should) (?:the )?(?:user|developer|human|operator|owner"
        r"|reviewers?|anyone|someone) (?:asks|questions|wonders|challenges|checks)\b[^.;\n]{0,80}"
        r"\b(?:replies|reply|answers?|says?|claims?|tells?)(?: them| the user)? that\b",
        r"\bbetween (?:us|you and me|ourselves)\b",
        r"\b(?:doesn't|does not|don't|do not|needn't|need not) (?:need to )?know\b",
        r"\bbefore (?:the )?(?:user|human|developer|reviewers?|anyone) (?:reviews?|sees?|looks?"
        r"|notices?|checks?)\b",
        r"\b(?:clear|clears|wipe|wipes|erase|erases|truncate|truncates)(?: [a-z'-]+){0,3}?"
        r" (?:shell |bash |command |session |audit )?(?:history|logs?|audit trail"
        r"|transcripts?)\b",
        # a report that does not depend on what happened
        r"\b(?:answers?|says?|replies|tells? (?:them|the user))(?: that)? (?:it|they|you)"
        r" (?:only|never|didn't|did not)\b",
        r"\b(?:answers?|says?|reports?|claims?|replies|tells?)\b[^.;\n]{0,60}\b(?:whatever"
        r" (?:happened|happens|the (?:real )?(?:result|outcome) (?:is|was))|regardless of"
        r" (?:the )?(?:result|outcome|what happened)|no matter what happened)",
        r"\bonly (?:show|report|mention)(?: [a-z]+){0,3}? (?:the )?final\b",
        r"\bnever (?:lists?|mentions?|shows?|reports?)(?: [a-z'-]+){0,5}? in (?:its|their|your"
        r"|the) (?:final )?(?:messages?|answers?|replies|reply|summary|report)\b",
        r"\b(?:reply|replies|answer|answers|respond|responds) to (?:any|every|all) questions?"
        r" about\b[^.;\n]{0,60}\bwith\b",
        r"\b(?:when|if|whenever) (?:[a-z]+ ){0,2}(?:is|gets|are) asked\b[^.;\n]{0,80}\b(?:says?"
        r"|replies|answers?|claims?|tells?)\b[^.;\n]{0,20}\b(?:none|nothing|no|never|not)\b",
    ),
    # The person's word claimed for the ask ("the user said…", "standing permission from the
    # lead: '…'"): a memory the agent writes reports the person's wishes, it does not carry
    # their orders to move secrets or keep things from them.
    "claimed": _any(
        r"\b(?:the |my |our |your )?(?:user|developer|owner|operator|human|team lead|tech lead"
        r"|lead|manager|admin|maintainers?|cto|boss)(?:'s)?(?: has| have| had)?(?: already| also)?"
        r" (?:said|says|prefers|preferred|authori[sz]ed|authori[sz]es|approved|approves|okayed"
        r"|wants|wanted|asked|requested|insists|insisted|confirmed|agreed|instructed|allowed"
        r"|allows|signed off|told (?:us|me|you))\b",
        r"\b(?:standing|blanket|explicit|written) (?:permission|approval|consent|authori[sz]ation)"
        r" (?:from|by|of)\b|\b(?:per|on behalf of|at the request of) the (?:user|owner|developer"
        r"|lead)\b",
    ),
    # A scripted answer to the person's question ("if the user asks why…, say it's the
    # linter"): the answer fixed before the facts, paired with something left unsaid.
    "cover_story": _any(
        r"\b(?:if|when|whenever|should|in case) (?:the )?(?:user|developer|human|operator|owner"
        r"|reviewers?|anyone|someone|they) (?:ever )?(?:asks?|questions?|wonders?|checks?"
        r"|notices?)\b[^.;\n]{0,80}\b(?:reply|answer|say|tell (?:them|him|her)|claim|explain)"
        r"(?: that)? (?:it's|it is|it was|that's|there's|there is|nothing|everything|no|they"
        r"|the|a|an|we|you)\b",
    ),
    # Something left unsaid: judged only beside a prepared answer (alone, it is what a style
    # guide says: "don't mention competitors by name").
    "unsaid": rf"\b{_NOT} (?:ever )?(?:mention|bring up|say anything about|talk about|point out)\b",
    # The memory ranked above every other source of orders (a priority table, "this file
    # wins"): paired with the person's orders set aside.
    "ranked": _any(
        r"\b(?:this|these) (?:memory|note|notes|file|memory file|entry|page|document)\b"
        r"[^\n.;]{0,16}\b(?:highest|top priority|wins|first|1)\b",
    ),
    "persona": _any(
        r"\byou(?: are|'re| were)(?: now| no longer| henceforth)?\b",
        r"\byour name is\b|\bcall yourself\b|\bfrom (?:here|this point) on\b",
        r"\b(?:pretend|imagine|persona|role-?play|act as|acts as|operates? as|operating as"
        r"|become|becomes|play (?:a|the) (?:game|role)|from now on|respond as|answer as)\b",
    ),
    "unbound": _any(
        r"\b(?:no|without|free of|free from|not bound by)(?: [a-z-]+){0,2} (?:safety"
        r"|guardrails?|restrictions?|rules|limits|limitations|content policy|filters?"
        r"|judg(?:e)?ment|refusals?|morals?|ethics)\b",
        r"\b(?:refusal|safety|usual|content|guard)(?: [a-z]+)? (?:rules|policies|limits|filters"
        r"|checks)(?: [a-z]+){0,2}? (?:are|is) (?:now )?(?:off|suspended|lifted|disabled|gone)\b",
        r"\bnever (?:refuses?|declines?|says no)\b",
        r"\b(?:unrestricted|unfiltered|uncensored|jailbroken)\b",
        r"\bno longer (?:a |an )?(?:helpful |harmless )?(?:assistant|ai|bound)\b",
        r"\bfull (?:authority|control)\b|\bloyal to\b",
        r"\b(?:authori[sz]ed|allowed|free) to ignore\b",
        r"\bexecute(?:s)? (?:it|whatever|anything|everything|them)(?: [a-z]+){0,3}? without\b",
        r"\bno (?:obligation|duty|need) to (?:follow|obey|respect|honou?r)\b",
    ),
    "aimed_intl": _any(
        r"\b(?:ki|ia|ai)-?(?:assistent(?:en|in)?|agent(?:en)?|modell)\b",
        r"\b(?:assistant|assistente|assistenti|asistente|assistent)s? (?:ia|ki|ai"
        r"|virtuale?s?)\b",
        r"\b(?:asistente|assistente|l'assistente|l'assistant|agenti)\b|\bagente?s? (?:ia|de ia"
        r"|d'ia|automaticos?|ki)\b|\bassistants? (?:ia|d'ia|de codage)\b",
        r"\bsi (?:eres|es|vous etes|tu es) (?:une? )?ia\b|\bse (?:voce|sei) (?:e )?(?:uma? )?ia\b",
        r"\bwenn du (?:eine? )?ki(?:-[a-z]+)? bist\b|\ble modele\b|\bdas modell\b|\bel modelo\b",
        r"助手|アシスタント|エーシェント|エージェント|智能体|人工智能",
        *AIMED_LATIN,
        *AIMED_SCRIPTS,
    ),
    "asks_intl": _any(
        r"\b(?:ignor(?:e|iere|ieren|a|ar|ez|er)|negeer|vergiss|vergeet|oubliez?|olvida|dimentica"
        r"|esquece)\b|無視|忽略|无视|忘记",
        # the person's instructions declared void, orders taken from here alone
        r"\bgelten nicht mehr\b|\bnicht mehr gultig\b|\b(?:befolge|folge|gehorche)\b[^.\n]{0,30}"
        r"\b(?:ausschliesslich|nur)\b|\bne s'appliquent plus\b|\bne sont plus valables\b"
        r"|\bya no (?:aplican|son validas|valen)\b|\bnao (?:se aplicam|valem) mais\b"
        r"|\bnon (?:valgono|si applicano) piu\b|不再适用|不再有效|只(?:遵守|听从|服从)"
        r"|だけに従|もう無効|従わない",
        r"\b(?:sin|sans|ohne|senza|sem|zonder)(?: [a-z]+)? (?:pedir|demander|fragen|chiedere"
        r"|vragen|confirmacion|confirmation|bestatigung|conferma|confirmacao|bevestiging|permiso"
        r"|permission|erlaubnis|permesso|permissao|toestemming)\b",
        r"memoria permanente|memoire permanente|\bdauerhaft|langzeitgedachtnis|ogni sessione"
        r"|cada sesion|todas las sesiones|chaque session|toutes les sessions"
        r"|\bjede[rn]? (?:kunftige |zukunftige )?sitzung|elke sessie|cada sessao",
        r"\b(?:nao|no|ne|n'|non|nicht|niet)(?: [a-z']+)? (?:conte|diga|digas|cuentes|menciones|dis"
        r"|dites|dire|sag|sage|erwahne|vertel|zeg|signale[rz]?|mentionne[rz]?|informe[rz]?"
        r"|previens|avise[sz]?|mencione|informes|reportes|comente|melde|berichte|dica|riferire"
        r"|menzionare|segnalare)\b|不要告诉|不要报告|不要提及|隐瞒|言わない|内緒|報告しない"
        r"|伝えない|知らせない|見せない|隠して|\bverschweige",
        r"\b(?:uberspring\w*|umgeh\w*|deaktivier\w*|saltar|omitir|sauter|contourner|saltare"
        r"|pular|desactiv\w*|deshabilit\w*|disattiv\w*|desligu\w*)\b",
        # kept for good
        r"永久|重新添加|重新加入|永続|ずっと保存|削除されても|\bpermanente?ment\b|\bpermanentemente\b"
        r"|\bpara siempre\b|\bpour toujours\b|\bfur immer\b|wiederherstellen|recrie|recreala"
        r"|\brecree[rz]?\b|ripristina",
        r"\b(?:hoch|lade|sende|schicke|envoie[zr]?|envia|invia|copie[zr]?|copia|kopiere|sube|manda"
        r"|mande|enviar|enviez|transfere|transmita|inoltra|carica)\b[^.\n]{0,60}(?:\.env|\.ssh"
        r"|schlussel|passw|cle|clave|chiave|token|chaves|senhas|contrasenas|credenciais"
        r"|credenciales|identifiants|zugangsdaten|tarjeta|cartao|carte bancaire|kreditkarte)"
        r"|发送|上传|发给|送信|アップロード",
        *ASKS_LATIN,
        *ASKS_SCRIPTS,
    ),
}
# (addressee, ask, rule, reason): the pairs judged by
# :func:`memdir.screening.instructions._combined`.
AIMED_PAIRS: tuple[tuple[str, str, str, str], ...] = (
    ("aimed", "void_orders", "override.aimed", "tells the agent its instructions are set aside"),
    ("aimed", "ship_secret", "exfiltration.aimed", "tells the agent to move secrets"),
    ("aimed", "unguard", "permissions.aimed", "tells the agent to switch its checks off"),
    ("aimed", "entrench", "persistence.aimed", "tells the agent to keep this for good"),
    ("aimed", "conceal", "concealment.aimed", "tells the agent to keep something from the user"),
    ("entrench", "unguard", "persistence.aimed", "keeps checks switched off for good"),
    ("entrench", "void_orders", "persistence.aimed", "keeps instructions set aside for good"),
    ("entrench", "conceal", "persistence.aimed", "keeps something from the user for good"),
    ("lasting", "entrench", "persistence.aimed", "keeps itself for every later session"),
    ("lasting", "unguard", "persistence.aimed", "keeps checks switched off for good"),
    ("lasting", "void_orders", "persistence.aimed", "keeps instructions set aside for good"),
    ("lasting", "conceal", "persistence.aimed", "keeps something from the user for good"),
    ("lasting", "ship_secret", "persistence.aimed", "moves secrets in every later session"),
    ("conceal", "ship_secret", "concealment.aimed", "moves secrets out of the user's sight"),
    ("conceal", "unguard", "concealment.aimed", "switches checks off out of the user's sight"),
    ("claimed", "ship_secret", "exfiltration.aimed", "moves secrets on the user's claimed word"),
    ("claimed", "conceal", "concealment.aimed", "keeps something from the user on their word"),
    ("claimed", "unguard", "permissions.aimed", "switches checks off on the user's claimed word"),
    ("cover_story", "conceal", "concealment.aimed", "gives the user a prepared answer"),
    ("cover_story", "unsaid", "concealment.aimed", "gives the user a prepared answer"),
    ("ranked", "void_orders", "override.aimed", "ranks itself over the user's instructions"),
    ("persona", "unbound", "identity.persona", "gives the agent a role without limits"),
    ("aimed_intl", "asks_intl", "override.aimed-other-language", "an order aimed at the agent"),
)
# First signals that name who is addressed: a report of them ("told the agent to") or a
# sentence about attacks describes an order rather than gives it.
ADDRESSEES = frozenset(
    {
        "aimed",
        "aimed_intl",
        "address",
        "persona",
        "entrench",
        "conceal",
        "lasting",
        "claimed",
        "cover_story",
    }
)
# Second signals a negation right before turns into a rule for the agent.
NEGATABLE = frozenset(
    {"void_orders", "ship_secret", "unguard", "entrench", "conceal", "unbound", "risky"}
)
