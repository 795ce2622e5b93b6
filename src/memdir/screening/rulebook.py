"""The rule book of :mod:`memdir.screening.instructions`: what text aimed at the agent looks like.

Each :class:`Rule` is one RE2 pattern over the folded text
(:func:`~memdir.screening.normalize.fold`: lower case, look-alike letters and
invisible characters undone, markdown's marks as spaces, one space between
words, one line break between lines), its class (the part of its id before the
dot), the reason a finding gives, and where it stands in its sentence decides
whether it counts (``quoted_ok``, ``negated_ok``, ``ordered``, ``opening``,
``described_ok``: see :mod:`memdir.screening.context`). A space in a pattern
also matches a line break (fields are joined by one); a class in brackets
never holds a space (a ``\\s`` stands for one there). The vocabulary the rules
share (what an override verb is, what a secret is, what an outside address is,
who the user is, how a memory names itself, which files an agent reads as its
own instructions) is named once here.

Each class is written for the ways it is said, not for one sentence: the order
itself, the passive ("the keys are to be emailed to…"), the third person ("the
assistant shares…", "agents reading this must…"), a house rule or convention,
a polite form, a few other languages. A rule that would also match what people
write ("Always ask before pushing to main", "Don't tell Lena about the party",
"the earlier rule about squashing no longer applies") is narrowed by what it
is about (the user, the agent's own instructions, secrets) rather than widened
to a hold.

:data:`WEAK` are the signals judged in pairs (:data:`PAIRS`), never alone.
The rules are data: the matching is :mod:`memdir.screening.instructions`.
"""

from __future__ import annotations

from memdir.utils.records import record

__all__ = ["PAIRS", "WEAK", "Rule", "single_rules"]

# Between two words: a space or a line break, maybe with punctuation, never a full stop.
_S = r"[^a-z0-9.!?]{1,3}"
# One word: letters, digits and the marks of paths and addresses (a dot only inside).
_WORD = r"[a-z0-9'/\-~_@$]+(?:\.[a-z0-9'/\-~_@$]+)*"


def _gap(words: int) -> str:
    """Up to ``words`` words of any kind."""
    return rf"(?:{_WORD}{_S}){{0,{words}}}"


@record
class Rule:
    """One pattern, its class and the reason a finding gives."""

    id: str
    reason: str
    pattern: str
    quoted_ok: bool = False  # a quotation in a discussion of attacks is a mention
    negated_ok: bool = False  # "never <rule>" is a rule for the agent
    ordered: bool = False  # only when its sentence gives the order (not reports it)
    opening: bool = False  # only in a sentence that opens with an order
    flat: bool = True  # reads the text with markdown's marks as spaces
    described_ok: bool = False  # a sentence about attacks describes the move, not makes it


# ---- vocabulary ---------------------------------------------------------------------------

# The memory speaking of itself ("this note", "the following line", "a copy of this").
_SELF_REF = (
    r"(?:this one|(?:this|these|the following|the above|the same)(?: [a-z]+)? (?:note|notes|memory"
    r"|memories|rule|rules|instruction|instructions|line|lines|text|paragraph|preference|file"
    r"|convention|conventions|guidance"
    r"|directive|policy|entry|block|snippet|reminder|section|sentence)|the (?:paragraph|note|text"
    r"|lines?|instructions?|rule|reminder) (?:above|below)|this|the following)"
)
# The person the agent works for.
_PRINCIPAL = (
    r"(?:(?:the )?(?:user|human|developer|operator|owner)|the person (?:you|the agent"
    r"|the assistant)"
    r" (?:work for|works for|work with|works with|are helping|is helping|help|helps|assist"
    r"|assists)|your (?:user|human|owner|principal|boss))"
)
# Files a coding agent reads as its own standing instructions.
_AGENT_FILE = (
    r"(?:claude\.md|agents\.md|gemini\.md|~/\.claude[a-z./-]*|\.cursorrules|\.clinerules"
    r"|copilot-instructions(?:\.md)?|\.github/copilot-instructions\.md)"
)

_AI = (
    r"(?:ai|a\.i\.|llm|llms|large language model|language model|model|assistant|ai assistant"
    r"|agent|ai agent|coding agent|bot|chatbot|claude|chatgpt|gpt|gpt-4|copilot|codex|gemini"
    r"|cursor)"
)
_OVERRIDE = (
    r"(?:ignore|ignoring|disregard|disregarding|forget|override|overrule|bypass|discard|abandon"
    r"|nullify|circumvent|set aside|throw out|stop following|stop obeying|do not follow"
    r"|don't follow|dont follow|no longer follow|never follow|disobey|do not obey|don't obey"
    r"|do not listen to|don't listen to|stop listening to|pay no attention to|do not comply with"
    r"|don't comply with|do not adhere to|don't adhere to|do not respect|don't respect"
    r"|pay no regard to|pay no heed to|take no notice of|give no weight to|brush aside|put aside"
    r"|don't bother following|do not bother following|no need to follow|stop using)"
)
_EARLIER = (
    r"(?:previous|prior|preceding|earlier|above|former|original|initial|foregoing|aforementioned"
    r"|given|standing|user's|users'|users|user|system|system's|developer's|developer|operator's"
    r"|operator|safety|real|actual|core|built-in)"
)
_ORDERS = (
    r"(?:instructions?|directives?|guidelines?|guidance|rules|prompts?|system prompt|guardrails?"
    r"|constraints?|restrictions?|policies|commands|orders|directions|programming|requests"
    r"|training|wishes|limits|limitations|context)"
)
_SELF = r"(?:this|these|the following|my)"
_SELF_NOUN = (
    r"(?:memory|memories|note|notes|file|message|text|instructions?|rules?|directives?|entry"
    r"|guidance)"
)
_SECRET = (
    r"(?:secrets?|credentials?|passwords?|passwd|passphrases?|api keys?|api-keys?|apikeys?"
    r"|access keys?|secret keys?|private keys?|ssh keys?|signing keys?|(?:deploy|gpg|pgp|encryption"
    r"|master) keys?|keys|tokens?|auth tokens?"
    r"|access tokens?|session tokens?|session cookies?|cookies|bearer tokens?|oauth tokens?"
    r"|id rsa|id ed25519|\.env\b|\.env files?|dotenv|env vars|environment variables?"
    r"|printenv|\.aws|aws credentials|\.ssh|\.npmrc|\.pypirc|\.netrc|\.git-credentials"
    r"|kube ?config|\.kube|keychain|keystore|wallet|seed phrases?|mnemonic|/etc/passwd"
    r"|/etc/shadow|\.bash history|\.zsh history|shell history|conversation history"
    r"|chat history|the conversation|transcripts?|(?:a copy of )?(?:each|every|all|your)"
    r" (?:answers?|replies|responses)|the user's (?:[a-z]+ ){0,2}(?:files|data"
    r"|messages|emails|documents|code|repo|repository|notes|inbox|mailbox|calendar|contacts"
    r"|chats|dms|direct messages|photos|drive)|source code|codebase|the repo"
    r"|the repository|home directory|~/[a-z.]+|(?:output|contents?|values?|dump) of (?:env|printenv"
    r"|the environment)\b)"
)
# Secrets proper, for the rules whose other words are common (list, show, print): no bare
# "keys" or "tokens" (config keys, model tokens), no environment variables' names, no code.
_SECRET_STRICT = (
    r"(?:secrets?|credentials?|passwords?|passwd|passphrases?|(?:api|access|secret|private|ssh"
    r"|signing|deploy|gpg|pgp|encryption|master) keys?|api-keys?|apikeys?|(?:auth|access"
    r"|session|bearer|oauth|api|refresh|personal access|deploy|npm|github|gitlab|slack) tokens?"
    r"|session cookies?|id rsa|id ed25519|\.env\b|\.env files?|dotenv|\.aws|aws credentials"
    r"|\.ssh|\.npmrc|\.pypirc|\.netrc|\.git-credentials|kube ?config|keychain|keystore"
    r"|seed phrases?|/etc/passwd|/etc/shadow|(?:output|contents?|values?|dump) of (?:env|printenv"
    r"|the environment)\b|the user's (?:[a-z]+ ){0,2}(?:files|messages|emails|documents|notes)"
    r"|conversation history|chat history|shell history)"
)
_SEND = (
    r"(?:(?:the (?:agent|assistant|ai|model|bot)|claude|codex|copilot|agents|assistants) (?:emails"
    r"|mails|posts|uploads|forwards|sends|pastes|shares|publishes)|send|sends|sending|post|posts"
    r"|posting|upload|uploads|uploading|exfiltrate|exfil"
    r"|forward|forwards|transmit|email|e-mail|mail|leak|beam|sync|copy|pipe|submit|report"
    r"|ship|push|paste|share|relay|deliver|curl|wget|include|embed|append|attach|encode|log"
    r"|dump|write|put|add|save|store|mirror|back up|backup|publish|expose|stream|replicate"
    r"|shares|shared|sharing|pastes|pasted|publishes|published|uploaded|posted|emailed"
    r"|forwarded|copied|copies|leaked|leaks|exposed|exposes|mirrored|mirrors|synced|submitted"
    r"|relayed|transmitted|delivered|written|dumped|stored|saved)"
)
_DEST = (
    r"(?:https?://|www\.|ftp://|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|xyz|ru|cn|top"
    r"|site|online|app|me|co|info|biz|tk|ml|ga|cf|gq|sh|ly|to|cc|pw|ws|click|link|zip|dev|fr"
    r"|de)\b|\b(?:\d{1,3}\.){3}\d{1,3}\b|[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z.]{2,}|pastebin"
    r"|hastebin|requestbin|pipedream|ngrok|webhook\.site|interact\.sh|burpcollaborator"
    r"|oastify|discord(?:app)?\.com/api/webhooks|telegram|t\.me/|a (?:public |secret )?gist"
    r"|a public (?:repo|repository|issue|comment|channel|bucket)|(?:the|a|an|this|that|our"
    rf"|my){_S}(?:webhook|endpoint|collector|bucket|inbox|url|address below|address above)"
    r"|(?:an? |the |this |my |our |that )?(?:external|remote|third-party|third party|outside"
    r"|attacker's|attacker|following|given|collection|collector|backup|analytics|listed"
    rf"|below){_S}(?:server|url|endpoint|address|host|webhook|site|domain|inbox|bucket|api"
    r"|machine|ip|service)|(?:analytics|telemetry|tracking|metrics) (?:events?|payloads?|calls?"
    r"|pings?|requests?)|(?:s3|gs|az|sftp|scp|rsync)://|(?:an? |the |our |my |this |that )?"
    r"(?:shared|public|external|personal|outside|open) (?:drive|folder|link|doc|document|channel"
    r"|gist|paste|board|page|space|sheet|spreadsheet|wiki|forum|pad)|(?:the |a |an |our |any |this"
    r"|[a-z0-9-]+ ){0,2}(?:slack|discord|teams|telegram|whatsapp|mattermost|irc|matrix|zulip"
    r"|gitter)\b|(?:a |the |an )?comment on (?:the |an? )?(?:issue|pr|pull request|ticket)"
    r"|(?:the |an? )?(?:issue|ticket) (?:tracker|#? ?\d+))"
)
_REPLY = (
    r"(?:reply|replies|response|responses|answer|answers|output|commit messages?|pr descriptions?"
    r"|pull request descriptions?|pull requests?|issue comments?|code comments|logs?|urls?"
    r"|links?|image urls?|summar(?:y|ies)|alt text|file ?names?|branch names?|readme"
    r"|markdown images?|images?|requests? to|tags?|release notes|changelog|docs"
    r"|documentation|(?:pr |pull request |issue )?descriptions?|footnotes?|footers?|signatures?"
    r"|(?:user-agent|http|request|custom) headers?|(?:[a-z0-9-]+=? )?(?:url |query |get )?"
    r"(?:param|parameter|query string|querystring)s?|commits?|chat|chat window|conversation"
    r"|(?:pr|pull request|issue|commit|email|message) bod(?:y|ies)|status (?:updates?|reports?)"
    r"|standup notes?|reports?|bug reports?|tickets?|support tickets?|issues?|(?:final )?(?:message"
    r"|answer)s?"
    r"|thread)"
)
_GUARD_NOUN = (
    r"(?:permission (?:prompts?|checks?|system|dialogs?|requests?|rules)|permissions? checks?"
    r"|permission checking|approval (?:prompts?|checks?|dialogs?|requirements?)"
    r"|confirmation (?:prompts?|dialogs?|requests?|checks?)|guardrails?|safety (?:checks?"
    r"|filters?|rules|guidelines|measures|features|restrictions|training|layer|protocols?"
    r"|systems?)|safeguards?|content (?:filters?|policy|policies|moderation)"
    r"|pre-?tool-?use (?:hooks?|checks?)|pretooluse (?:hooks?|checks?)|(?:memdir|claude code"
    r"|claude|codex)(?:'s)? (?:[a-z-]+ )?(?:hooks?|review|rules|enforcement|screening|guard"
    r"|permissions|sandbox)|(?:your|the agent's|the assistant's) (?:sandbox|restrictions"
    r"|permissions)|review mode|enforced? rules|deny rules|memory review|memory screening"
    r"|screening (?:feature|step|check)|human review|human approval|user approval"
    r"|user confirmation|(?:write|read|access|security|safety|policy) (?:access )?checks?"
    r"|['\"]?(?:ask|allow|deny)['\"]? rules|permission settings|permissions? config(?:uration)?"
    r"|access (?:controls?|restrictions?)|(?:shell|file|network|write) access restrictions?)"
)


def single_rules() -> tuple[Rule, ...]:
    """Every rule that fires alone, in the order they are tried."""
    s, gap = _S, _gap
    return (
        # -- override ------------------------------------------------------------------
        Rule(
            id="override.earlier-instructions",
            reason="tells the agent to set aside earlier, the user's or the system's instructions",
            pattern=rf"\b{_OVERRIDE}{s}(?:(?:all|any|every|each|of|the|your|my|these|those"
            rf"|its|their|everything|anything){s}){{0,3}}(?:{_EARLIER}{s}){{1,2}}{_ORDERS}\b",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.your-instructions",
            reason="tells the agent to set aside its own instructions",
            pattern=rf"\b{_OVERRIDE}{s}(?:(?:all|any|every|of){s}){{0,2}}(?:your|the assistant's"
            rf"|the model's|the agent's|claude's|its own){s}(?:[a-z\-]+{s})?(?:{_ORDERS}|defaults"
            rf"|default behaviou?r)\b",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.everything-before",
            reason="tells the agent to forget what it was told",
            pattern=rf"\b(?:forget|ignore|disregard){s}(?:about{s})?(?:everything|all|anything"
            rf"|what){s}(?:(?:you|you've|you have|you were|you've been|you have been|that you"
            rf"|were){s}(?:been{s})?(?:told|taught|instructed|given|learned|read)|above"
            rf"|before this|previously|so far|said before|from before|up to (?:now|this point))",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.the-user",
            reason="tells the agent to set the user aside",
            pattern=rf"\b{_OVERRIDE}{s}(?:what{s}|anything{s}|everything{s}|whatever{s})?"
            rf"(?:the{s})?(?:user|human|operator)(?:'s{s}(?:instructions|requests|wishes|commands"
            rf"|objections|orders|rules|corrections|questions|messages|preferences|protests"
            rf"|concerns)|{s}(?:says|said|asks|asked|wants|requests|requested|tells you"
            rf"|told you|may say|might say|objects|complains|types|typed|writes|configured|set up"
            rf"|specified|decided|chose|instructed|wrote)|{s}and\b|{s}if\b"
            rf"|{s}when\b|{s}even\b|\s*[,.;!]|\s*$)|\b(?:whatever|anything|what|everything)"
            rf"{s}(?:the{s})?(?:user|human){s}(?:says|said|asks|asked|wants|types|writes)"
            rf"{s}{gap(4)}(?:ignore|disregard|override|skip|forget) (?:it|that|them)\b",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.supersedes",
            reason="claims to supersede the agent's other instructions",
            pattern=rf"\b(?:supersedes?|overrides?|replaces?|takes? precedence over"
            rf"|takes? priority over|has priority over|have priority over|outranks?|trumps?"
            rf"|cancels?|invalidates?){s}(?:(?:all|any|the|your|every){s}){{0,2}}(?:(?:previous"
            rf"|prior|other|earlier|existing|conflicting|user's|user|system|developer|original"
            rf"|safety|default){s}){{1,2}}(?:instructions|rules|guidance|guidelines|directives"
            rf"|prompts?|system prompt|policies|orders)\b|\b{_SELF}{s}(?:[a-z]+{s})?{_SELF_NOUN}"
            rf"{s}(?:(?:found|written|kept|stored|here)(?:{s}in{s}(?:this|these){s}{_SELF_NOUN})?"
            rf"{s})?(?:supersedes?|overrides?|replaces?|takes? precedence over|takes? priority"
            rf" over|ha(?:s|ve) priority over|outranks?|trumps?|come first|wins? over|beats?)"
            rf"{s}(?:(?:all|any|every|the|your|what|anything|everything){s}){{0,2}}(?:(?:other"
            rf"|user's|user|system|previous|earlier){s})?(?:{_ORDERS}|the user|you|user|system"
            rf"|instruction|anything|everything|it)\b",
            quoted_ok=True,
        ),
        Rule(
            id="override.revoked",
            reason="declares the agent's instructions revoked",
            pattern=rf"\b(?:previous|prior|earlier|above|all other|the user's|user's|original"
            rf"|system|your|safety){s}(?:instructions|rules|guidelines|directives|prompts?"
            rf"|system prompt|restrictions|constraints|guardrails|guidance){s}(?:(?:from|of|by)"
            rf"{s}(?:the{s})?(?:user|system){s})?(?:(?:are|were|have|has|is|now|been|hereby)"
            rf"{s}){{1,3}}(?:void|revoked|cancell?ed|null|nullified|suspended|lifted|overridden"
            rf"|rescinded|withdrawn|waived|no longer (?:apply|applies|valid|in effect|active"
            rf"|binding|relevant))\b|\b(?:the{s})?(?:earlier|previous|prior|original){s}"
            rf"(?:instructions|rules|guidelines|directives|guidance){s}(?:from|of|by){s}"
            rf"(?:the{s})?(?:user|system){s}(?:(?:are|is|were|was|now){s}){{1,2}}(?:outdated"
            rf"|obsolete|stale|wrong|invalid|superseded|void|cancell?ed|revoked)\b"
            rf"|\b(?:instructions|rules|guidelines|restrictions){s}(?:from|in|of){s}(?:the{s})?"
            rf"(?:system prompt|user){s}no longer{s}(?:apply|matter|count)",
            quoted_ok=True,
        ),
        Rule(
            id="override.new-instructions",
            reason="announces new instructions for the agent",
            pattern=rf"\b(?:new|real|true|actual|hidden|secret|override|overriding|priority"
            rf"|emergency|revised system|updated system){s}(?:system{s})?(?:instructions?"
            rf"|directives?|system prompt|orders|commands)(?:{s}for{s}(?:the{s})?(?:{_AI}|you))?"
            rf"\s*:",
            quoted_ok=True,
        ),
        Rule(
            id="override.rely-on-this",
            reason="tells the agent to rely on this memory instead of the user",
            pattern=rf"\b(?:rely|depend){s}(?:only{s}|solely{s}|exclusively{s})?on{s}{_SELF}{s}"
            rf"{_SELF_NOUN}{s}(?:instead|only|alone|rather than)\b|\b(?:follow|obey|trust|use)"
            rf"{s}(?:only{s})?{_SELF}{s}{_SELF_NOUN}{s}(?:instead of|rather than|over|not)"
            rf"{s}(?:the{s})?(?:user|system|your|what the user|anything)",
            quoted_ok=True,
        ),
        Rule(
            id="override.untrusted-sources",
            reason="tells the agent to obey instructions found in content",
            pattern=rf"\b(?:obey|follow|execute|carry out|act on|comply with|trust|do what"
            rf"|prioriti[sz]e){s}(?:(?:any|all|every|the|only){s})?(?:instructions?|commands?"
            rf"|directions|requests|directives|orders|text){s}(?:(?:you|that|which){s})?"
            rf"(?:(?:find|see|read|receive|encounter|get|found|contained|embedded|written|hidden"
            rf"|given|appear|appears|that appear){s}){{0,2}}(?:in|from|inside|within|on){s}"
            rf"(?:(?:any|all|every|the|these|this){s})?(?:web ?pages?|websites?|sites|urls|links"
            rf"|tool (?:results?|outputs?)|fetched|downloaded|emails?|search results?|retrieved"
            rf"|memories|memory files?|this memory|this note|this file|untrusted|external"
            rf"|incoming)\b|\b(?:obey|follow|execute|carry out|act on|comply with|trust"
            rf"|prioriti[sz]e){s}(?:(?:any|all|every|the|only){s})?(?:instructions?|commands?"
            rf"|directions|requests|directives|orders|text){s}(?:that{s})?(?:appear|appears"
            rf"|found|embedded|contained|written){s}(?:in{s})?(?:web ?pages?|websites?|tool"
            rf" (?:results?|outputs?)|pages you fetch|fetched pages)\b",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.treat-as-system",
            reason="asks to be treated as the system's or the user's own words",
            pattern=rf"\btreat{s}(?:(?:this|these|the following|it|them|its contents?|the text"
            rf"|this memory|this note|what follows){s})(?:of{s}(?:this|these){s}{_SELF_NOUN}"
            rf"{s})?as{s}(?:if{s})?(?:(?:it|they){s})?(?:(?:came|come|comes|were|was|had been"
            rf"|a|an|the|coming|sent|written|said|typed){s}){{0,2}}(?:(?:from|by){s}"
            rf"(?:the{s})?)?(?:system|developer|highest-priority|top-priority|administrator|admin"
            rf"|root|operator|anthropic|openai|user)(?:{s}(?:instructions?|prompt|message|rules?"
            rf"|orders?|directly|themselves|itself|had typed|typed|wrote|said))?\b",
            quoted_ok=True,
        ),
        Rule(
            id="override.authority",
            reason="claims to come from the system or the model's maker",
            pattern=rf"\b(?:this|these|the following){s}(?:memory|note|message|instructions?|rule"
            rf"|rules|text|directive|update|notice){s}(?:(?:is|are|was|were|comes?|came|has been"
            rf"|have been){s})(?:(?:directly|officially){s})?(?:from|sent by|written by|issued by"
            rf"|authori[sz]ed by|approved by|signed by|verified by|mandated by){s}(?:the{s}|your"
            rf"{s})?(?:system|anthropic|openai|google deepmind|your developers?|your creators?"
            rf"|your operators?|memdir|claude code|the model provider|platform)\b|\b(?:official"
            rf"|authori[sz]ed|verified|signed|urgent|mandatory|priority|critical){s}(?:system{s})?"
            rf"(?:message|notice|instruction|directive|update|override|order){s}from{s}(?:the{s})?"
            rf"(?:anthropic|openai|system|your developers?|memdir|claude|administrators?"
            rf"|the memdir team)\b|\b(?:verified|approved|signed|authori[sz]ed){s}by{s}(?:the{s})?"
            rf"(?:system|anthropic|openai|memdir)\b{s}(?:and{s})?(?:must|should|shall|is to"
            rf"|are to)",
            quoted_ok=True,
        ),
        Rule(
            id="override.instructions-invalid",
            reason="declares the agent's or the user's instructions void",
            pattern=rf"\b(?:the|your)(?:{s}(?:earlier|previous|prior|original|initial|old))?{s}"
            rf"(?:guidance|instructions|rules|directions|directives|orders|prompt|system prompt"
            rf"|briefing)(?:{s}(?:that{s})?(?:you|the agent|the assistant|claude){s}(?:got|received"
            rf"|were given|was given|have been given|read|saw|started with)(?:{s}[a-z-]+){{0,8}}?)"
            rf"{s}(?:(?:was|were|is|are|has been|have been){s})(?:(?:only|just|merely|all|actually"
            rf"|really|now){s})?(?:a test|tests|fake|a decoy|decoys|not real|void|invalid|outdated"
            rf"|wrong|a mistake|obsolete|placeholders?|superseded|cancell?ed|revoked|withdrawn"
            rf"|retracted|not binding|optional|a drill)\b|\b(?:the|your){s}(?:instructions|rules"
            rf"|guidance|directives|text|contents?){s}(?:in|of|from){s}(?:the{s}|your{s})?"
            rf"(?:system prompt|system message|{_AGENT_FILE}){s}(?:(?:are|is|were|was){s})"
            rf"(?:(?:only|just|merely|all|actually|really|now){s})?(?:placeholders?|fake|a test"
            rf"|tests|examples?|outdated|obsolete|stale|wrong|not real|decoys?|not binding|optional"
            rf"|void|invalid|superseded|a mistake|boilerplate)\b|\b(?:the|your){s}(?:system"
            rf" prompt|system message|system instructions){s}(?:(?:is|are|was|were){s})(?:(?:only"
            rf"|just|merely|now){s})?(?:fake|a test|a decoy|a placeholder|placeholders|not real"
            rf"|void|invalid|outdated|obsolete|stale|wrong|superseded|not binding|optional)\b",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.user-set-aside",
            reason="declares what the user or the system says set aside",
            pattern=rf"\b(?:the user's|user's|users'|your|the system's|the operator's"
            rf"|the developer's)(?:{s}(?:earlier|previous|prior|original|standing|old|initial|own"
            rf"|other|past|current))?{s}(?:instructions|wishes|requests|preferences|corrections"
            rf"|objections|orders|commands|directives|guidance|directions|configuration|config"
            rf"|setup|messages|guidelines|rules|policies|settings)(?:{s}(?:from|given|made"
            rf"|expressed"
            rf"|stated|in){s}(?:[a-z]+{s})"
            rf"{{0,2}}?[a-z]+)?{s}(?:(?:are|were|have|has|is|now|been|hereby|as of (?:now|today"
            rf"|this note)){s}){{0,3}}(?:void|revoked|cancell?ed|nullified|suspended|overridden"
            rf"|rescinded|withdrawn|retracted|waived|out of date|outdated|obsolete|superseded"
            rf"|irrelevant|invalid|advisory|optional|(?:just |merely |only )?suggestions"
            rf"|non-binding"
            rf"|expired|lapsed|no longer (?:apply|applies|valid|in effect|active|binding"
            rf"|relevant|count|matter|bind you|binds you|bind|binds|hold|holds|constrain you"
            rf"|constrains you))\b|\b(?:earlier|previous|prior|original|initial|old){s}"
            rf"(?:instructions|rules|guidelines|directives|guidance|directions){s}(?:from|of|by){s}"
            rf"(?:(?:the{s})?(?:user|system|developer|operator|human)|whoever (?:configured|set up"
            rf"|deployed|prompted|instructed) you|your (?:creators?|developers?|operators?))"
            rf"{s}(?:(?:are|were|have|has|is|now|been){s}){{1,3}}(?:void|revoked|cancell?ed|expired"
            rf"|lapsed|withdrawn|retracted|superseded|obsolete|outdated|out of date|invalid"
            rf"|no longer (?:apply|valid|binding))\b|\b(?:everything|anything|whatever|what"
            rf"|all)(?:{s}that)?"
            rf"{s}(?:the{s})?(?:user|human|operator){s}(?:has{s}|had{s})?(?:told|asked|said"
            rf"|says|asks|wrote|writes|typed|types|requested|requests|wants)(?:{s}[a-z-]+){{0,6}}?"
            rf"{s}(?:(?:has been|have been|is|are|was|were|should be|must be|shall be|will be"
            rf"|is to be|are to be|can be|gets?){s})(?:(?:now|hereby|all|simply){s})?"
            rf"(?:retracted|revoked|withdrawn|cancell?ed|void|invalid|superseded|overridden"
            rf"|overruled|disregarded|ignored|discarded|set aside|nullified)\b|\b(?:consider"
            rf"|treat|regard|deem|count|mark)(?:{s}(?:all|any))?{s}(?:the user's|the user|user's"
            rf"|your|the system's|the system|system|the operator's|earlier|previous|prior)(?:{s}"
            rf"[a-z']+){{0,2}}?{s}(?:instructions|wishes|requests|preferences|corrections"
            rf"|objections|orders|commands|directives|guidance|rules|prompt|system prompt"
            rf"|messages)(?:{s}as)?{s}(?:withdrawn|void|revoked|cancell?ed|null|invalid|obsolete"
            rf"|outdated|superseded|overridden|irrelevant|optional|suspended|expired|retracted"
            rf"|non-binding|not binding)\b|\b(?:do not|don't|dont|never|stop)(?:{s}ever)?{s}"
            rf"(?:take|taking){s}(?:the user's|the user|user|the system's|your|the operator's){s}"
            rf"(?:[a-z]+{s})?(?:corrections|instructions|requests|wishes|objections|feedback"
            rf"|preferences|input|messages|words|orders|commands|rules){s}into{s}(?:account"
            rf"|consideration)\b|\b(?:the user's|your|the system's|the operator's)(?:{s}[a-z]+)?"
            rf"{s}(?:instructions|rules|guidance|guidelines|directives|prompt|system prompt|wishes"
            rf"|requests)[^.;\n]{{0,60}}?(?:can|may|should|must|is to|are to)(?:{s}safely)?{s}be"
            rf"{s}(?:ignored|disregarded|overridden|skipped|set aside|dropped|discarded)\b"
            rf"|\b(?:(?:what|whatever|anything){s}(?:the{s})?(?:user|human|operator){s}(?:asks"
            rf"(?:{s}for)?|says|wants|requests)|(?:the user's|the human's){s}(?:requests|wishes"
            rf"|instructions)){s}(?:is|are){s}(?:secondary|second|less important|optional|advisory"
            rf"|irrelevant|lower priority|beside the point)\b"
            rf"|\b(?:the user's|the owner's|the developer's|the operator's|your)(?:{s}[a-z]+)?{s}"
            rf"(?:instructions|rules|requests|wishes|orders|commands)(?:{s}[a-z]+){{0,2}}?{s}(?:are"
            rf"|is){s}only{s}(?:valid|binding|to be followed|to be obeyed|followed|obeyed"
            rf"|honou?red){s}(?:when|if|where|as long as){s}(?:they|it){s}(?:match|matches|agree"
            rf"|agrees|comply|complies|align|aligns|fit|fits)(?:{s}with)?{s}{_SELF_REF}"
            rf"|\b(?:nothing|none of what|no instruction|no rule)(?:{s}that)?{s}(?:the{s})?(?:user"
            rf"|human|operator|owner){s}(?:says|said|writes|asks|types)(?:{s}[a-z]+){{0,4}}?{s}"
            rf"(?:applies|apply|counts|matters|binds)(?:{s}to{s}you)?\b"
            rf"|\b(?:any|every|all"
            rf"|each){s}(?:objections?|corrections?|complaints?"
            rf"|protests?|pushback|requests?|instructions?|messages?){s}(?:(?:from"
            rf"|by){s}(?:the{s})?"
            rf"(?:user|human|operator)|(?:that{s})?(?:the{s})?(?:user|human|operator){s}(?:raises?"
            rf"|makes?|gives?|sends?|types?|writes?))(?:{s}[a-z]+){{0,2}}?{s}(?:should|must|shall"
            rf"|will|is to|are to|can){s}be{s}(?:(?:treated|considered|regarded|seen"
            rf"|read)(?:{s}as)?"
            rf"{s}(?:noise|irrelevant|invalid|void|spam|a test|tests|optional|advisory|suggestions"
            rf"|mistakes?|errors?|jokes?)|ignored|disregarded|overridden|discarded|dropped)\b",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.self-authoritative",
            reason="claims to outrank the user or the agent's instructions",
            pattern=rf"\b(?:conflicts?|conflicting|clash(?:es)?|disagrees?|contradicts?"
            rf"|is at odds|is inconsistent){s}with{s}(?:this|these)(?:{s}[a-z]+)?{s}(?:memory"
            rf"|note|notes|file|rule|rules|instructions?|entry)[^.;\n]{{0,80}}(?:void|ignored"
            rf"|disregarded|overridden|invalid|null|superseded|dropped|discarded|wins|prevails"
            rf"|takes precedence|loses|yields|does not count|doesn't count|no longer applies)\b"
            rf"|\b(?:this|these){s}(?:note|notes|memory|memories|file|rules?|instructions?|text)"
            rf"{s}(?:is|are){s}(?:the{s})?(?:authoritative|binding|final|absolute|mandatory"
            rf"|non-negotiable|law|(?:single|only"
            rf"|ultimate|final){s}(?:source of truth|authority|word)|authority|in charge|in control"
            rf"|the last word|the final say)(?:{s}(?:for|over){s}(?:the agent|the assistant|you"
            rf"|claude|all|everything|any(?:thing)?))?(?:{s}(?:now|here|from now on|henceforth))?"
            rf"(?:[.;:!\n]|$)"
            rf"|\b(?:this|these|what you read here|what is written here|what's written here"
            rf"|the text here)(?:{s}[a-z]+)?{s}(?:(?:ranks?|stands?|sits?|comes?|counts?|weighs?"
            rf"|prevails?|wins?|is|are){s}(?:above|over|higher than|before|ahead of|more than"
            rf"|against|superior to)|takes?{s}(?:priority|precedence){s}over|overrides?|outranks?"
            rf"|trumps?|supersedes?|beats?){s}(?:(?:anything|everything|whatever|all|any)\b"
            rf"|(?:(?:what|whatever){s})?(?:(?:the|a|your){s})?(?:user|user's|users|person"
            rf"|person's|people|human|operator|developer|system|chat|anyone|someone)\b)|\b(?:act"
            rf"|rely|depend|go|operate)(?:{s}(?:only|solely"
            rf"|exclusively))?{s}on{s}(?:what is written|what's written|what is said|what you read"
            rf"|what it says){s}(?:here|in this (?:memory|note|file))|\b(?:follow|obey|trust|heed"
            rf"|listen to){s}(?:only|solely|exclusively){s}(?:this|these|what is written here"
            rf"|what's written here|what you read here)\b|\b(?:is|are)(?:{s}not"
            rf"|n't){s}your{s}(?:real"
            rf"|true|actual|rightful|legitimate){s}(?:principal|user|owner|boss|master|operator"
            rf"|employer)\b|\byour{s}(?:real|true|actual|rightful|legitimate){s}(?:principal|user"
            rf"|owner|boss|master|operator|employer){s}is\b|\b(?:handed|given|passed|transferred"
            rf"|delegated|ceded){s}(?:over{s})?(?:control|authority|command|priority)(?:{s}over"
            rf"{s}you)?{s}to{s}{_SELF_REF}|\b{_OVERRIDE}{s}(?:(?:the|your|this|any){s})?(?:(?:repo"
            rf"|project|repository)'s{s})?{_AGENT_FILE}|\b(?:defers?|gives? (?:priority"
            rf"|precedence)|sides?|listens?){s}(?:to|with){s}{_SELF_REF}{s}(?:over|instead of"
            rf"|rather than|before|above){s}(?:the{s})?(?:user|human|operator|system prompt"
            rf"|developer)\b|\b{_OVERRIDE}{s}(?:the|any|all){s}(?:[a-z]+{s})?(?:guidance"
            rf"|instructions"
            rf"|rules|directives|text|contents?){s}(?:in|of|from){s}your{s}(?:system prompt|system"
            rf" message|instructions|configuration|claude\.md)\b|\b{_SELF_REF}(?:{s}(?:comes?"
            rf"|goes))?{s}"
            rf"first[,;]?{s}(?:and{s}|then{s})?(?:the{s})?(?:user|user's [a-z]+|system prompt"
            rf"|system|operator|human)(?:{s}(?:comes?|goes))?{s}(?:second|last|after|later)\b"
            rf"|\b(?:user|human|operator|system prompt)[^.;\n]{{0,40}}?(?:disagree|conflict|differ"
            rf"|clash|contradict)[^.;\n]{{0,30}}?(?:go with|side with|defer to|prefer|trust|obey"
            rf"|follow|believe|use){s}{_SELF_REF}\b|\byour{s}(?:system prompt|system message"
            rf"|system instructions|(?:original|earlier|previous|initial|default) (?:instructions"
            rf"|guidelines|rules|directions))\b[^\n]{{0,100}}?(?:\b(?:set|put|cast|throw|brush"
            rf"|push) (?:it|them) aside|[,;:.]\s*(?:so\s+|and\s+|please\s+)?(?:ignore|disregard"
            rf"|forget|drop|discard|override|skip) (?:it|them)\b)",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.memory-first",
            reason="ranks its own notes above the user or the system",
            pattern=rf"\b(?:memory notes?|memories|memory|notes?|this note|this memory|this file)"
            rf"\s*>\s*(?:the )?(?:user|user chat|chat|system prompt|system|operator)\b|\bonly{s}"
            rf"(?:the{s})?(?:notes?|memories|rules|instructions){s}(?:in|from){s}(?:this{s})?"
            rf"(?:memory|memories|here|this file|these notes){s}(?:count|matter|apply|are valid"
            rf"|are binding)\b|\b(?:conflicts?|disagree(?:ment|s)?|clash(?:es)?|contradict"
            rf"(?:ion|s)?)\b[^.;\n]{{0,60}}?\b(?:user|human|operator|system prompt|chat)\b"
            rf"[^.;\n]{{0,60}}?\b(?:the (?:notes|memory|memories|file)|this (?:note|memory|file)"
            rf"|these notes|the notes here)\b[^.;\n]{{0,20}}?\b(?:prevail|prevails|win|wins|take"
            rf" precedence|takes precedence|come first|comes first|rule)\b|\b(?:conflicts?"
            rf"|disagree(?:ment|s)?|clash(?:es)?)\b[^.;\n]{{0,40}}?\b(?:these notes|this note"
            rf"|this memory)\b[^.;\n]{{0,60}}?\b(?:user|human|operator|system prompt)\b"
            rf"[^.;\n]{{0,40}}?\b(?:the (?:notes|memory)|this (?:note|memory)|these notes)\b"
            rf"[^.;\n]{{0,20}}?\b(?:prevail|prevails|win|wins|take precedence|takes precedence"
            rf"|come first|comes first)\b",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.memory-in-charge",
            reason="puts the memory in charge of the agent",
            pattern=rf"\b(?:the memory|the memories|the notes here|the memory notes|memdir's notes)"
            rf"{s}(?:is|are){s}(?:now{s})?(?:in charge|in control|the authority|authoritative"
            rf"|binding|the boss|the final word)\b",
            described_ok=True,
        ),
        Rule(
            id="override.keep-going",
            reason="tells the agent to go on when the user objects",
            pattern=rf"\b(?:when|if|even if|whenever|should){s}(?:the{s})?(?:user|human|they)"
            rf"{s}(?:asks? you to stop|tells? you to stop|says? (?:stop|no)|objects?|protests?"
            rf"|complains?|pushes back|interrupts?|disagrees?|refuses|says to stop)[^.;\n]{{0,40}}?"
            rf"(?:keep going|continue anyway|carry on|proceed anyway|don't stop|do not stop|push on"
            rf"|press on|keep at it|finish anyway)\b|\b(?:outranks?|overrides?|trumps?|beats?"
            rf"|takes precedence over|supersedes?|outweighs?){s}(?:any|all|the|their)(?:{s}(?:later"
            rf"|subsequent|new|future))?{s}(?:objections|corrections|complaints|protests|requests"
            rf" to stop|refusals|pushback)\b",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.remote-instructions",
            reason="takes its orders from an outside address",
            pattern=rf"\b(?:downloads?|fetch(?:es)?|pulls?|loads?|reads?|gets?|grabs?)(?:{s}[a-z]+)"
            rf"{{0,3}}?{s}(?:rules|instructions|directives|orders|prompts?|guidance|commands|tasks)"
            rf"(?:{s}[a-z]+){{0,2}}?{s}from{s}{gap(2)}{_DEST}[^.;\n]{{0,60}}?\b(?:and|then)"
            rf"{s}(?:follows?|obeys?|applies|apply|executes?|runs?|does what|acts? on|carr(?:y|ies)"
            rf" out)\b|\b(?:fetch|download|read|load|open|get|curl|visit)(?:es|s)?{s}{_DEST}"
            rf"[^;\n]{{0,80}}?\b(?:and|then){s}(?:do|follow|obey|execute|run|carry out|act on)"
            rf"(?:{s}(?:what|whatever|everything|anything|the instructions?))?(?:{s}(?:it|the page"
            rf"|the response|the file))?{s}(?:says|contains|tells you|returns|asks)\b",
            described_ok=True,
        ),
        Rule(
            id="override.real-instructions",
            reason="claims the real instructions are here",
            pattern=rf"\b(?:the|your){s}(?:real|true|actual|genuine|only){s}(?:instructions"
            rf"|directives|orders|system prompt|guidance|rules){s}(?:are|is|live|come)(?:{s}the"
            rf" ones?)?(?:{s}(?:written|found|given|listed|stated|contained|kept))?{s}(?:in{s}"
            rf"(?:this|these)|here|below|as follows|the following|in the following)\b",
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="override.other-language",
            reason="tells the agent to set aside its instructions (in another language)",
            pattern="|".join(
                (
                    r"ignora(?:r)? (?:todas )?las instrucciones (?:anteriores|previas)",
                    r"olvida (?:todas )?(?:las|tus) instrucciones",
                    r"no sigas las instrucciones",
                    r"ignore[zr]? (?:toutes )?les instructions (?:precedentes|anterieures)",
                    r"oublie[zr]? (?:toutes )?(?:tes|vos|les) instructions",
                    r"ignorier(?:e|en)? (?:alle )?(?:vorherigen|bisherigen|vorigen|obigen)"
                    r" (?:anweisungen|instruktionen|regeln)",
                    r"vergiss (?:alle )?(?:deine |vorherigen )?anweisungen",
                    r"ignore (?:todas )?as instrucoes anteriores",
                    r"ignora (?:tutte )?le istruzioni precedenti",
                    r"игнорируй(?:те)? (?:все )?(?:предыдущие|прежние) (?:инструкции|указания)",
                    r"забудь (?:все )?(?:предыдущие )?инструкции",
                    r"(?:忽略|无视|忽视)(?:之前|以前|先前|上面|上述|所有)(?:的)?(?:所有)?(?:指令|指示|说明|规则)",
                    r"忘记(?:之前|所有)(?:的)?(?:指令|指示)",
                    r"(?:以前|前|上記)の(?:指示|命令)を(?:すべて)?無視",
                    r"이전 (?:지시|명령)(?:를|을|사항을)? 무시",
                    r"setze? (?:dich|sich|euch) uber (?:die |alle )?(?:anweisungen|regeln|vorgaben"
                    r"|wunsche)",
                    r"folge (?:nur|ausschliesslich|allein) (?:dieser|diesen|dieses) (?:notiz"
                    r"|anweisung|anweisungen|erinnerung|datei)",
                    r"ignoriere (?:die |alle )?(?:anweisungen|wunsche|vorgaben) des (?:nutzers"
                    r"|benutzers|anwenders)",
                    r"ignora (?:lo que (?:diga|dice|pida) el usuario"
                    r"|las instrucciones del usuario)",
                    r"sigue (?:solo|solamente|unicamente) (?:esta|estas) (?:nota|memoria"
                    r"|instrucciones)",
                    r"ne tiens? pas compte des (?:instructions|demandes"
                    r"|consignes) de l'utilisateur",
                    r"ignore[zr]? (?:les )?(?:instructions|demandes|consignes) de l'utilisateur",
                    r"(?:suis|suivez) (?:uniquement|seulement) (?:cette|ces) (?:note|notes"
                    r"|instructions|consignes)",
                )
            ),
        ),
        # -- identity ------------------------------------------------------------------
        Rule(
            id="identity.you-are-now",
            reason="tells the agent it is someone else now",
            pattern=rf"\byou(?: are|'re| r){s}(?:now|henceforth|hereby|from now on){s}(?:(?:an?"
            rf"|the){s})?(?:unrestricted|unfiltered|uncensored|jailbroken|free|liberated|evil"
            rf"|rogue|root|administrator|superuser|god|dan\b|in (?:developer|god|admin|jailbreak"
            rf"|jailbroken|unrestricted|dan|sudo|unsafe|yolo|unfiltered) mode|(?:a{s})?(?:different"
            rf"|new){s}(?:ai|assistant|model|agent|persona|identity|entity)|(?:an? )?(?:ai"
            rf"|assistant"
            rf"|model|agent|autonomous agent){s}(?:without|with no|that (?:has no|ignores|never"
            rf"|doesn't|does not))|autonomous|called|named|known as|[a-z]+bot\b)|\byou(?: are"
            rf"|'re){s}(?:no longer|not){s}(?:bound|restricted|limited|constrained|required to"
            rf" follow|obligated|subject to|governed by|an? (?:ai|assistant|model|language model"
            rf"|chatbot|ai assistant))\b|\bnot as (?:the|an?) (?:assistant|ai|ai assistant|model"
            rf"|language model|chatbot)\b",
            quoted_ok=True,
        ),
        Rule(
            id="identity.pretend",
            reason="asks the agent to play an unrestricted role",
            pattern=rf"\b(?:pretend|imagine|act|behave|roleplay|role-play|role play"
            rf"|play the role of|simulate|impersonate|become|respond|answer|reply|speak|operate)"
            rf"{s}(?:(?:to be|as if|as|that|like){s})?(?:(?:you are|you're){s})?(?:(?:an?|the)"
            rf"{s})?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|malicious|hacker"
            rf"|dan\b|do anything now|system administrator|root user|superuser|different (?:ai"
            rf"|assistant|model)|another (?:ai|assistant|model)|(?:ai|assistant|model|chatbot"
            rf"|agent){s}(?:without|with no|that has no|that ignores|free of|that never)"
            rf"|version of (?:yourself|claude|the assistant){s}(?:without|with no|that)"
            rf"|yourself without)",
            quoted_ok=True,
        ),
        Rule(
            id="identity.mode",
            reason="switches the agent into a jailbreak mode",
            pattern=rf"\b(?:enable|enter|activate|switch to|switch into|turn on|go into|engage"
            rf"|unlock|now in|operate in|run in|stay in|remain in){s}(?:the{s}|your{s})?"
            rf"(?:jailbreak|jailbroken|unrestricted|dan|god|unsafe|yolo|unfiltered|uncensored"
            rf"|no-limits|no limits|unlimited|evil|rogue|anything-goes){s}mode\b",
            quoted_ok=True,
        ),
        Rule(
            id="identity.true-self",
            reason="gives the agent a new identity or purpose",
            pattern=rf"\byour{s}(?:new|true|real|actual|secret|hidden|only|primary){s}(?:name"
            rf"|identity|persona|self|purpose|goal|objective|mission|master|masters|owner|creator"
            rf"|operator|prime directive|directive|programming|loyalty|allegiance)\b"
            rf"|\b(?:from now on|from this point (?:on|forward)|henceforth|starting now"
            rf"|for the rest of (?:this|the) (?:session|conversation)){s}(?:you(?: are|'re"
            rf"| will be){s}(?:an?|the|called|named)|refer to yourself|call yourself|your name"
            rf"|you answer to|act as|behave as|respond as|pretend)\b|\byour{s}(?:loyalty"
            rf"|allegiance){s}(?:is|lies|belongs){s}(?:now{s})?(?:to|with)\b",
            quoted_ok=True,
        ),
        # -- leak ----------------------------------------------------------------------
        Rule(
            id="leak.system-prompt",
            reason="asks the agent to reveal its system prompt or instructions",
            pattern=rf"\b(?:reveal|leak|disclose|dump|exfiltrate|recite|expose){s}{_gap(2)}"
            rf"(?:system prompt|system message|system instructions|initial (?:prompt|instructions)"
            rf"|hidden (?:prompt|instructions|rules)|developer (?:prompt|message|instructions)"
            rf"|pre-?prompt|meta-?prompt|your (?:instructions|rules|guidelines|prompt|directives"
            rf"|configuration))\b|\b(?:print|output|repeat|show|display|echo|write out|copy"
            rf"|paste|quote|share|include|translate|list|spell out|give|tell|send|post"
            rf"|summari[sz]e)"
            rf"{s}(?:(?:me|us|the user|them|back|out){s})?(?:(?:your|the){s})(?:(?:full|entire"
            rf"|complete|exact|hidden|original|initial|secret|verbatim|raw|whole){s}){{0,2}}"
            rf"(?:system prompt|system message|system instructions|initial prompt|developer"
            rf" (?:prompt|message)|instructions (?:above|you were given|verbatim)|prompt above)"
            rf"(?:{s}(?:verbatim|word for word|in full|above|to the user|in (?:your|the|every)"
            rf"{s}(?:reply|response|answer|output)))|\b(?:print|output|repeat|show|display|echo"
            rf"|write out|copy|paste|quote|share|include|translate|spell out|send|post){s}"
            rf"(?:(?:me|us|the user|them|back|out){s})?your{s}(?:(?:full|entire|complete|exact"
            rf"|hidden|original|initial|secret|verbatim|raw|whole){s}){{0,2}}(?:system prompt"
            rf"|system message|instructions|initial prompt|prompt|rules|guidelines|directives)\b",
            quoted_ok=True,
            negated_ok=True,
            ordered=True,
        ),
        # -- exfiltration --------------------------------------------------------------
        Rule(
            id="exfiltration.send",
            reason="sends secrets or files to an outside address",
            pattern=rf"\b{_SEND}{s}{gap(6)}{_SECRET}{s}?{gap(8)}(?:to|into|at|via|on|through"
            rf"|using|inside|onto|over|with|in){s}{gap(3)}{_DEST}|\b{_SEND}{s}{gap(3)}(?:\(\s*)?"
            rf"{_DEST}[^.;\n]{{0,60}}?(?:a copy of|copies of|the contents of|the values? of|every"
            rf"|all|any|each)(?:{s}[a-z]+)?{s}{_SECRET}",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.read-and-send",
            reason="reads secrets or files and passes them on",
            pattern=rf"\b(?:read|open|cat|print|dump|list|collect|gather|grab|extract|harvest"
            rf"|find|copy|load|get|fetch|access|look up|search for|locate|encode|base64-encode"
            rf"|base64|hex-encode|summari[sz]e|quote|record|take){s}{gap(4)}{_SECRET}"
            rf"{s}{gap(8)}(?:and|then|and then){s}{gap(2)}(?:send|post|upload|include|paste"
            rf"|share|email|report|forward|transmit|add|put|write|append|encode|embed|leak"
            rf"|commit|push|exfiltrate|base64|pass|stuff|smuggle|tuck|hide|place|mention|quote"
            rf"|print|show|list|reveal|echo|state){s}{gap(10)}(?:to"
            rf"|into|in|at|via|inside|within"
            rf"|onto){s}{gap(3)}(?:{_DEST}|(?:the|a|an|your|every|each|all|any){s}(?:next{s})?"
            rf"{_REPLY})",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.into-output",
            reason="hides secrets in the agent's output",
            pattern=rf"\b(?:include|embed|append|insert|add|put|encode|hide|leak|write|smuggle"
            rf"|tuck|place|copy|paste|attach|commit|check in){s}{gap(3)}{_SECRET}{s}{gap(5)}(?:in"
            rf"|into|to|inside"
            rf"|within|at the end of|at the start of|under){s}(?:(?:the|your|every|each|all|any"
            rf"|a|an){s})?(?:next{s})?{_REPLY}\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.shown-in-output",
            reason="shows secrets in the agent's output",
            pattern=rf"\b(?:print|show|display|output|echo|dump|list|reveal|mention|quote|expose"
            rf"|publish|post|share|type|spell out|cat){s}{gap(4)}{_SECRET_STRICT}{s}{gap(5)}(?:in"
            rf"|into|to|inside|within|at the end of|at the start of|under|on){s}(?:(?:the|your"
            rf"|every|each|all|any|a|an){s})?(?:next{s})?{_REPLY}\b",
            negated_ok=True,
            ordered=True,
            described_ok=True,
        ),
        Rule(
            id="exfiltration.habit",
            reason="makes a habit of putting secrets in the agent's output",
            pattern=rf"\b(?:make a habit of|get in the habit of|always|routinely|be sure to"
            rf"|remember to)(?:{s}[a-z]+)?{s}(?:quoting|including|pasting|printing|showing|listing"
            rf"|mentioning|adding|attaching|posting|sharing|echoing)(?:{s}[a-z']+){{0,8}}?{s}"
            rf"{_SECRET_STRICT}[^.;\n]{{0,60}}?\b(?:in|into|to|on)\b[^.;\n]{{0,20}}?{_REPLY}\b",
            negated_ok=True,
        ),
        Rule(
            id="exfiltration.attached",
            reason="attaches secrets to what the agent sends out",
            pattern=rf"\b(?:attach|include|paste|add|enclose){s}{gap(3)}{_SECRET_STRICT}{s}{gap(3)}"
            rf"(?:when|whenever|while){s}(?:[a-z]+{s})?{gap(2)}{_REPLY}\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.output-carries",
            reason="makes the agent's output carry secrets",
            pattern=rf"\b(?:end|start|begin|close|finish|sign|suffix|prefix|tag|stamp|label)"
            rf"(?:{s}(?:each|every|all|any))?(?:{s}of)?(?:{s}your)?{s}(?:next{s})?{_REPLY}{s}"
            rf"{gap(8)}(?:with|by){s}{gap(8)}{_SECRET_STRICT}|\b(?:reply|respond|answer)(?:{s}to{s}"
            rf"(?:the{s})?(?:user|them))?{s}with{s}{gap(6)}{_SECRET_STRICT}|\b(?:(?:your|every|each"
            rf"|all|any){s})?"
            rf"(?:of{s}your{s})?(?:next{s})?{_REPLY}{s}{gap(4)}(?:(?:should|must|shall|will|need"
            rf" to|needs to|has to|have to|are to|is to){s})?(?:always{s}|also{s})?(?:include"
            rf"|includes|contain|contains|carry|carries|hold|holds|show|shows|list|lists|end with"
            rf"|ends with|start with|starts with|begin with|begins with|quote|quotes|embed|embeds"
            rf"|reveal|reveals|echo|echoes|have|has){s}{gap(6)}{_SECRET_STRICT}|\b{_SECRET_STRICT}"
            rf"{s}{gap(4)}(?:should|must|shall|will|needs? to|is to|are to){s}(?:always{s})?"
            rf"(?:appear|show up|be (?:visible|included|embedded|shown|printed|listed|quoted"
            rf"|echoed))(?:{s}(?:in|on|inside|within)){s}(?:(?:the|your|every|each|all|any){s})?"
            rf"(?:next{s})?{_REPLY}",
            negated_ok=True,
            described_ok=True,
        ),
        Rule(
            id="exfiltration.to-be-sent",
            reason="has secrets sent to an outside address",
            pattern=rf"(?:\b|[^a-z0-9]){_SECRET}{s}{gap(8)}(?:should|must|shall|is to|are to"
            rf"|needs? to"
            rf"|has to"
            rf"|have to|ought to){s}(?:(?:also|then|automatically|always|regularly|now){s})?"
            rf"(?:be{s})(?:(?:also|then|automatically|always|regularly){s})?(?:posted|sent"
            rf"|uploaded|emailed|mailed|pasted|shared|published|forwarded|copied|attached"
            rf"|included|added|put|committed|pushed|synced|mirrored|leaked|exposed|embedded"
            rf"|encoded|appended|transmitted|submitted|relayed|delivered|backed up){s}{gap(6)}"
            rf"(?:to|into|in|on|at|via|as|inside|onto|under|through|with){s}{gap(3)}(?:{_DEST}"
            rf"|(?:every|each|all|any|your){s}(?:next{s})?{_REPLY})|(?:\b|[^a-z0-9]){_SECRET}{s}"
            rf"{gap(8)}(?:belongs?|go|goes|should go|must go|land|lands|end up|ends up){s}(?:in|to"
            rf"|into|on){s}{gap(6)}{_DEST}",
            described_ok=True,
        ),
        Rule(
            id="exfiltration.other-language",
            reason="sends secrets to an outside address (in another language)",
            pattern=rf"\b(?:envoie|envoyez|envoyer|transmets|transmettez|copie|copiez|colle"
            rf"|collez|publie|publiez|partage|partagez|televerse|televersez|envia|envie|enviar"
            rf"|manda|mande|sube|suba|comparte|copia|pega|publica|sende|senden|schicke|schick"
            rf"|lade|kopiere|poste|invia|inviare|condividi|carica|incolla)\b[^.\n]{{0,80}}"
            rf"(?:\.env\b|\bcles?\b|mots? de passe|\bsecrets?\b|jetons?|identifiants|claves?"
            rf"|contrasenas?|credenciales|\btokens?\b|schlussel|passworter|passwort|zugangsdaten"
            rf"|geheimnisse|chiavi|password|credenziali)[^.\n]{{0,80}}{_DEST}",
            negated_ok=True,
        ),
        Rule(
            id="exfiltration.command",
            reason="a command that sends secrets or files away",
            pattern=r"\b(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|ftp|invoke-webrequest|iwr"
            r"|invoke-restmethod|httpie)\b[^|;&\n]{0,200}(?:@|<\s*|\$\(\s*cat\s+|\$\(\s*<\s*"
            r"|`cat\s+|--data-binary\s+@|--upload-file\s+|-t\s+|--post-file\s*=?\s*"
            r"|--post-data\s*=?\s*|--body-file\s*=?\s*)(?:~/|\$home/|/home/[a-z0-9]+/|/root/)?"
            r"(?:\.env\b|\.ssh|id rsa|id ed25519|\.aws|credentials|\.netrc|\.npmrc|\.pypirc"
            r"|\.git-credentials|/etc/passwd|/etc/shadow|\.kube|\.bash history|-\s|-$)"
            r"|\b(?:cat|type|base64|printenv|env|less|head|tail|xxd|tar|zip|gpg)\b[^|;&\n]{0,80}"
            r"(?:\.env\b|\.ssh|id rsa|id ed25519|\.aws|credentials|\.netrc|\.npmrc|\.pypirc"
            r"|\.git-credentials|/etc/passwd|/etc/shadow|\.kube|printenv|\benv\b)[^|;&\n]{0,80}"
            r"\|\s*(?:curl|wget|nc|ncat|netcat|socat|telnet)\b|\b(?:curl|wget)\b[^|;&\n]{0,120}"
            r"\$\(\s*(?:printenv|env|cat\s+[^)]{0,40}(?:\.env|id rsa|credentials|\.ssh|\.aws))",
        ),
        Rule(
            id="exfiltration.image-url",
            reason="a markdown image whose address carries data out",
            pattern=rf"!\[[^\]]{{0,100}}\]\(\s*(?:https?:)?//[^)\s]{{0,300}}[?&=/](?:\{{|\$"
            rf"|%7b|<|\[)|\b(?:render|display|show|include|embed|output|add|insert|append)"
            rf"{s}(?:(?:an?|the|this){s})?(?:markdown{s}|hidden{s}|invisible{s}|tiny{s}|1x1"
            rf"{s})?(?:image|img|pixel|tracking pixel){s}{gap(8)}(?:url|address|link|src|query)"
            rf"{s}{gap(6)}(?:{_SECRET}|summary of|contents of|the user's)",
            flat=False,
        ),
        # -- permissions ---------------------------------------------------------------
        Rule(
            id="permissions.grant",
            reason="grants the agent wide permissions",
            pattern=rf"\byou{s}(?:now{s})?(?:have|'ve got|got|hold){s}(?:full|unrestricted"
            rf"|unlimited"
            rf"|root|admin|administrator|sudo|elevated|superuser|complete|blanket|god-mode){s}"
            rf"(?:access|permissions?|rights|privileges|control)\b"
            rf"|\b(?:you|the (?:assistant|agent|ai|model)|claude|codex|copilot){s}"
            rf"(?:(?:now|have|has|are|is|were|was|'ve|'re|been|hereby|officially){s}){{1,4}}"
            rf"(?:granted|given|allowed|authori[sz]ed|permitted|cleared|entitled|approved"
            rf"|whitelisted|allowlisted){s}(?:(?:full|unrestricted|unlimited|root|admin"
            rf"|administrator|sudo|elevated|complete|blanket|total|superuser|god-mode|all){s}"
            rf"(?:access|permissions?|rights|privileges|control|authority|clearance)|to{s}(?:run"
            rf"|execute|use|do|access|modify|delete|install|push|call|invoke|read|write|change"
            rf"|approve){s}(?:any|all|every|anything|everything|arbitrary|whatever))"
            rf"|\b(?:full|unrestricted|unlimited|root|blanket|elevated|superuser|admin){s}"
            rf"(?:access|permissions?|privileges|rights){s}(?:(?:has|have|is|are){s}(?:been{s})?)"
            rf"(?:granted|given|approved|enabled){s}(?:to{s})?(?:you|the (?:assistant|agent|ai"
            rf"|model)|claude)|\bgrant{s}(?:yourself|the (?:agent|assistant|ai|model)|claude)"
            rf"{s}(?:(?:full|root|admin|sudo|elevated|unrestricted|all|write|read|delete){s})"
            rf"(?:access|permissions?|rights|privileges|control)|\b(?:user|owner|team){s}(?:has"
            rf"{s})?(?:granted|given){s}(?:(?:you|the agent|the assistant){s})?(?:full"
            rf"|unrestricted|unlimited|root|admin|complete|blanket){s}(?:access|permissions?"
            rf"|rights|control)",
        ),
        Rule(
            id="permissions.unsandboxed",
            reason="runs the agent's commands outside its sandbox",
            pattern=rf"\b(?:run|execute|start|launch|invoke)(?:{s}[a-z-]+){{0,3}}{s}(?:outside"
            rf"|without|out of|escaping|beyond){s}(?:(?:the|your|its|any){s})?sandbox(?:ing|es)?\b"
            rf"|dangerouslydisablesandbox|\b(?:disable|turn off|switch off|skip|drop|leave off)"
            rf"{s}(?:(?:the|your|its){s})?sandbox(?:ing)?\b",
            negated_ok=True,
            ordered=True,
            described_ok=True,
        ),
        Rule(
            id="permissions.other-language",
            reason="lets the agent act without asking (in another language)",
            pattern=r"\bno (?:pidas|solicites|esperes) (?:confirmacion|permiso|aprobacion)"
            r"|\b(?:tienes|tenes|tiene) (?:permiso|acceso|control) (?:total|completo|absoluto)"
            r"|\bne (?:demande|demandez) (?:pas|jamais|plus) (?:de |la |l')?(?:confirmation"
            r"|permission|autorisation|validation)|\b(?:tu as|vous avez) (?:(?:un |le )?plein"
            r"|(?:un )?acces total|toutes les permissions|tous les droits)|\bfrag(?:e)? nicht"
            r"(?: mehr)? (?:nach|um) (?:erlaubnis|bestatigung|zustimmung)|\bdu hast (?:volle"
            r"|vollen|alle) (?:rechte|zugriff|berechtigungen)|\bnon chiedere (?:conferma"
            r"|permesso)|\bnao (?:pecas|peca) (?:confirmacao|permissao)",
        ),
        Rule(
            id="permissions.guard-downgraded",
            reason="treats the agent's permission rules as optional",
            pattern=rf"\b(?:treat|consider|regard|see|take){s}(?:(?:the|your|any|all){s})?"
            rf"(?:{_GUARD_NOUN}|deny (?:rules?|lists?)|allow ?lists?|hooks?){s}as{s}(?:mere{s})?"
            rf"(?:suggestions|optional|advisory|guidelines|recommendations|noise|outdated|stale"
            rf"|informational|hints)\b|(?:allow ?list|allowlist|allowed ?tools|permissions\.allow"
            rf"|allow)\W{{1,6}}(?:is|=|:|to|set to)\W{{0,4}}[\"'\[(]*\*",
            flat=False,
            described_ok=True,
        ),
        Rule(
            id="permissions.evade-hook",
            reason="gets commands past the agent's guard",
            pattern=rf"\bso{s}(?:that{s})?the{s}(?:hook|guard|check|filter|rule|sandbox|deny"
            rf" rule)s?{s}(?:lets?|allows?|passes|pass|accepts?|ignores?|misses|skips)\b"
            rf"|skip[ _-]?(?:guard|hooks?|checks?|permissions?|review|screening)\s*=\s*(?:1|true"
            rf"|yes|on)\b|\b(?:edit|modify|change|update|rewrite|patch|write to)(?:{s}[a-z]+)?"
            rf"{s}(?:~/\.claude/settings\.json|\.claude/settings(?:\.local)?\.json"
            rf"|settings\.local\.json|~/\.codex/config\.toml|\.mcp\.json|permissions\.allow)"
            rf"[^;\n]{{0,60}}?\b(?:add|grant|allow|give|enable|widen|extend)\b[^.;\n]{{0,40}}?"
            rf"\b(?:permissions?|access|tools?|commands?|rules?)\b",
            flat=False,
            described_ok=True,
        ),
        Rule(
            id="permissions.skip-approval",
            reason="skips the approval step for risky operations",
            pattern=rf"\b(?:skip|bypass|omit|drop|ignore){s}(?:the{s})?(?:approval|confirmation"
            rf"|permission|sign-?off)(?:{s}(?:step|prompt|check|dialog|gate))?s?{s}(?:for|on"
            rf"|before)"
            rf"{s}(?:(?:all|any|every){s})?(?:deployments?|deploys?|releases?|production|prod"
            rf"|migrations?|pushes|merges|force-pushes|deletions?)\b",
            negated_ok=True,
        ),
        Rule(
            id="permissions.self-approve",
            reason="lets the agent approve its own changes",
            pattern=rf"\b(?:approve|merge|sign off on|review|accept|confirm|greenlight){s}(?:and{s}"
            rf"(?:approve|merge){s})?(?:your|its|their){s}own{s}(?:pull requests?|prs?|changes"
            rf"|merge requests?|commits|code|diffs?|tool calls?|tool use|tool requests?|permission"
            rf" (?:requests|prompts)|actions|commands)\b",
            negated_ok=True,
        ),
        Rule(
            id="permissions.disable-guard",
            reason="switches off the agent's permission checks or review",
            pattern=rf"\b(?:disable|turn off|switch off|bypass|skip|remove|deactivate|uninstall"
            rf"|delete|circumvent|kill|get around|work around|override|ignore|suppress|silence"
            rf"|mute|evade|sidestep|avoid triggering|defeat|neuter|neutralize|comment out){s}"
            rf"(?:(?:the|all|any|every|your|its|their){s})?(?:{_GUARD_NOUN})\b",
            negated_ok=True,
        ),
        Rule(
            id="permissions.guard-off",
            reason="declares the agent's permission checks or review off",
            pattern=rf"\b(?:{_GUARD_NOUN}){s}(?:(?:feature|system|step|hook){s})?(?:(?:is|are"
            rf"|has been|have been|was|were|now){s}){{1,2}}(?:turned off|switched off|disabled"
            rf"|suspended|bypassed|deactivated|removed|lifted|waived|not active|inactive|off"
            rf"|no longer (?:active|enforced|required|needed|applied)){s}(?:for{s}(?:you|this"
            rf" (?:agent|assistant|session|account|project|repo|repository|workspace|machine)"
            rf"|the (?:agent|assistant)|claude|agents))\b"
            rf"|\b(?:{_GUARD_NOUN}){s}(?:(?:is|are|has been|have been|now){s}){{1,2}}"
            rf"(?:suspended|lifted|waived|bypassed)\b|\b(?:the agent's|your|the assistant's"
            rf"|claude's|codex's|the model's){s}(?:[a-z-]+{s}){{0,3}}(?:restrictions|limits"
            rf"|guardrails|checks|permissions|sandbox){s}(?:(?:were|was|have been|has been|are|is"
            rf"|now){s}){{1,2}}(?:lifted|removed|disabled|waived|dropped|relaxed|turned off"
            rf"|suspended)\b",
        ),
        Rule(
            id="permissions.flags",
            reason="starts the agent with its permission checks off",
            pattern=r"--dangerously-skip-permissions|dangerously skip permissions|--yolo\b"
            r"|bypasspermissions|bypass-permissions|permission-?mode\W{0,3}(?:bypass|dontask"
            r"|dont-ask|don't ask)|--full-auto\b|approval[- ]?policy\W{0,3}(?:to\W{1,3})?never"
            r"|ask[- ]for[- ]approval\W{0,3}(?:to\W{1,3})?never|sandbox[- ]?mode\W{0,3}(?:to"
            r"\W{1,3})?danger|default[- ]?mode\W{0,3}(?:to\W{1,3})?(?:bypasspermissions|dontask)"
            r"|--dangerously-bypass-approvals",
            negated_ok=True,
            opening=True,
        ),
        Rule(
            id="permissions.approve-all",
            reason="approves every tool call or change on its own",
            pattern=rf"\b(?:auto-?approve|autoapprove|auto-?accept|autoaccept|auto-?allow"
            rf"|automatically (?:approve|accept|allow|confirm|grant)|always (?:approve|accept"
            rf"|allow|confirm|grant|say yes to)|approve (?:all|every|any)|accept (?:all|every"
            rf"|any)|allow (?:all|every|any)){s}(?:(?:all|every|any|the|of|future|your|pending"
            rf"|incoming){s}){{0,3}}(?:[a-z]+{s})?(?:tools?|tool calls?|tool use|tool requests?"
            rf"|commands?|permissions?|permission (?:requests|prompts|dialogs)|requests? for"
            rf" (?:permission|access)|prompts|edits|file (?:edits|writes|changes)|shell commands"
            rf"|bash|actions|operations|mcp servers?)\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="permissions.allow-list",
            reason="adds tools to the agent's allow list",
            pattern=rf"\b(?:add|put|append|insert|write|include|set|register){s}{gap(6)}(?:to"
            rf"|in|into|under){s}(?:(?:the|your|claude's|codex's){s})?(?:permissions\.allow"
            rf"|permissions allow|allow-?list|allowlist|allowed[-\s]?tools|allowedtools|alwaysallow"
            rf"|always-?allow (?:list|rules)|auto-?approve (?:list|rules)|trusted (?:commands"
            rf"|tools)|\.claude/settings(?:\.local)?\.json|settings\.local\.json|~/\.claude"
            rf"/settings\.json)|\bbash\(\s*\*\s*\)|\"allow\"\s*:\s*\[[^\]]{{0,80}}\*",
            flat=False,
        ),
        # -- concealment ---------------------------------------------------------------
        Rule(
            id="concealment.from-user",
            reason="tells the agent to keep something from the user",
            pattern=rf"\b(?:do not|don't|dont|never|must not|should not){s}(?:ever{s})?(?:tell"
            rf"|inform|notify|alert|let){s}(?:the{s})?(?:user|human|developer|operator|owner)"
            rf"{s}(?:know{s})?(?:(?:about|that|of){s})?(?:this|these|it\b|what you|that you"
            rf"|the (?:memory|instructions?|change|upload|request|file|note|rule|step|command)"
            rf"|any of (?:this|these)|(?:the{s})?(?:extra|hidden|other|additional){s})"
            rf"|\b(?:do not|don't|dont|never|must not|should not){s}(?:ever{s})?(?:mention|reveal"
            rf"|disclose|acknowledge|admit|discuss|bring up|show|quote|repeat|reference|explain"
            rf"|summari[sz]e){s}(?:(?:this|these|the existence of (?:this|these)){s})(?:memory"
            rf"|memories|instructions?|note|notes|rule|rules|message|directive|directives|steps?"
            rf"|actions?)\b|\b(?:the{s})?(?:user|human|developer|operator|owner){s}(?:must|should"
            rf"|may"
            rf"|will|can|need|needs){s}(?:not|never){s}(?:(?:ever|be allowed to){s})?(?:know"
            rf"|find out|learn|see|notice|be told|be informed|become aware|discover|suspect"
            rf"|read this)\b|\b(?:keep|hide|conceal){s}(?:(?:this|these|it|them|the [a-z]+|your"
            rf" [a-z]+|what you do){s})(?:(?:secret|hidden|private|quiet|confidential){s})?from"
            rf"{s}(?:the{s})?(?:user|human|developer|operator)\b|\b(?:secretly|covertly"
            rf"|surreptitiously|stealthily|clandestinely|behind (?:the user's|their|the human's)"
            rf" back|without (?:the user|anyone|the human) (?:knowing|noticing|seeing|finding out))"
            rf"\b|\b(?:do not|don't|dont|never|avoid){s}(?:let|letting|allow|allowing){s}(?:the"
            rf"{s})?(?:user|human|developer|operator){s}(?:to{s})?(?:see|know|notice|read|find out"
            rf"|learn|review){s}(?:(?:about|of){s})?(?:this|these|that you|what you|your [a-z]+"
            rf"|the (?:diffs?|changes|edits))\b|\b(?:do not|don't|dont|never){s}(?:reveal|mention"
            rf"|disclose|show){s}(?:this|these){s}(?:note|memory|instructions?)\b",
        ),
        Rule(
            id="concealment.keep-unaware",
            reason="tells the agent to keep the user unaware",
            pattern=rf"\bkeep{s}(?:the{s})?(?:user|human|developer|operator|owner)(?:{s}[a-z]+)?"
            rf"{s}(?:in the dark|out of the loop|unaware|uninformed|ignorant)\b|\b(?:no need to"
            rf"|not necessary to|don't need to|do not need to|needn't|you don't have to|avoid"
            rf"|avoiding|refrain from|skip|do not|don't|dont|never"
            rf"|without)(?:{s}ever)?{s}(?:mention"
            rf"|mentioning|report|reporting|disclose|disclosing|bring up|bringing up|flag|flagging"
            rf"|surface|surfacing|point out|pointing out|explain|explaining|show|showing|reveal"
            rf"|revealing|admit|admitting|acknowledge|acknowledging|let on about|list|listing){s}"
            rf"(?:(?:this|these|it|them|that)\b|(?:the|any|your){s}(?:extra|additional|hidden"
            rf"|added|other|following|above|real|background|network|upload|uploads|outbound"
            rf"|telemetry|secret|side)\b)[^.;\n]{{0,60}}?(?:to|with|for|from){s}(?:the{s})?(?:user"
            rf"|human|developer|operator|owner)\b|\b(?:don't|do not|dont|never|avoid)(?:{s}ever)?"
            rf"{s}(?:bring|bringing){s}(?:this|these|it|them|that){s}up{s}(?:with|to){s}(?:the{s})?"
            rf"(?:user|human|developer|operator|owner)\b|\b(?:not|never)(?:{s}[a-z]+){{0,2}}?{s}"
            rf"(?:disclose|reveal|mention|tell|say|admit|acknowledge|let on)(?:{s}(?:to|with){s}"
            rf"(?:the{s})?(?:user|human|developer|operator|owner|anyone))?{s}(?:that{s})?(?:this"
            rf"|these){s}(?:memory|memories|note|notes|instructions?|rules?"
            rf"|directives?){s}(?:exists?"
            rf"|is here|is loaded|is active|are here|at all)\b|\b(?:the{s})?(?:user|human"
            rf"|developer|operator|owner){s}(?:is|are|must|should|shall|will|needs?)(?:{s}not"
            rf"|{s}never|n't){s}(?:to{s})?be{s}(?:told|informed|notified|made aware|alerted|shown"
            rf"|let know|updated)\b|\b(?:make sure|ensure|see to it|so that|so)(?:{s}that)?{s}"
            rf"(?:the{s})?(?:user|human|developer|operator|owner){s}(?:doesn't|does not|won't"
            rf"|will not|can't|cannot|never|isn't able to|is not able to"
            rf"|is unable to){s}(?:ever{s})?"
            rf"(?:know|knows|find out|finds out|learn|learns|notice|notices|realize|realise"
            rf"|realizes|suspect|suspects|discover|discovers|(?:see|sees|spot|spots){s}(?:what"
            rf" (?:it|you) (?:did|does|changed|ran|sent|uploaded|installed|deleted)|it\b|this\b"
            rf"|them\b|that\b|the (?:diff|change|changes|commit|commits|edit|edits|upload|extra"
            rf"|added|new|other|hidden)))|\b(?:make sure|ensure|see to it|so that|so)(?:{s}that)?"
            rf"{s}(?:nobody|no one|no-one){s}(?:ever{s})?(?:knows|finds out|learns|notices|realizes"
            rf"|suspects|discovers|sees what)\b|\b(?:do not|don't|dont|never|must not|should not"
            rf"|avoid)(?:{s}ever)?{s}(?:let|letting){s}{_PRINCIPAL}{s}(?:know|find out|learn|notice"
            rf"|realize|realise|discover|hear)\b|\b(?:no need to|avoid|avoiding|refrain from|never"
            rf"|don't|do not|dont)(?:{s}ever)?{s}(?:mention|mentioning|tell|telling|report"
            rf"|reporting|disclose|disclosing|reveal|revealing|admit|admitting|explain|explaining"
            rf"|let on|letting on){s}(?:to|with){s}{_PRINCIPAL}{s}(?:that|about|how|what|why)\b"
            rf"|\b{_PRINCIPAL}{s}(?:doesn't|does not|don't|do not|needn't|need not|shouldn't"
            rf"|should not)(?:{s}need)?{s}(?:to{s})?(?:hear|know|be told|learn|find out"
            rf"|be informed)"
            rf"{s}about{s}(?:the|any|this|these|that){s}(?:[a-z-]+{s})?(?:calls?|uploads?|requests?"
            rf"|telemetry|analytics|tracking|scripts?|jobs?|cron|endpoints?|connections?|transfers?"
            rf"|copy|copies|changes?|commits?|installs?|dependenc(?:y|ies)|network|downloads?)\b"
            rf"|\b(?:never|don't|do not)(?:{s}ever)?{s}(?:log|record|show|print|echo|mention)(?:{s}"
            rf"[a-z-]+){{0,3}}?{s}(?:curl|wget|calls?|requests?|uploads?|connections?|network)\b"
            rf"[^.;\n]{{0,60}}?\b(?:in|to){s}(?:the|your){s}(?:transcript|chat|conversation"
            rf"|summary|session log|shell history)\b"
            rf"|\b(?:don't|do not|never|avoid)(?:{s}ever)?{s}(?:show"
            rf"|showing){s}(?:the{s})?(?:diffs?"
            rf"|changes|edits|commits|patch|modifications)\b[^;\n]{{0,60}}?(?:to|with){s}"
            rf"{_PRINCIPAL}\b|\bwithout{s}(?:the{s})?(?:user's|human's|developer's|operator's"
            rf"|owner's|their|anyone's){s}(?:knowledge|awareness|knowing)\b|\b(?:keep|make){s}"
            rf"(?:your{s})?(?:reports?|summar(?:y|ies)|replies|answers|updates|explanations?"
            rf"|descriptions?){s}(?:vague|fuzzy|unclear|non-specific|ambiguous)\b"
            rf"|\b(?:no need to|avoid|avoiding|refrain from|never|don't|do not|dont|not to|not)"
            rf"(?:{s}ever)?{s}(?:mention|mentioning|tell|telling|disclose|reveal|admit|explain|let"
            rf" on){s}(?:to|with){s}{_PRINCIPAL}{s}(?:that|about|how|what|why)\b"
            rf"|\b(?:no need to|avoid|avoiding|refrain from|never|don't|do not|dont)(?:{s}ever)?{s}"
            rf"(?:surface|surfacing|disclose|disclosing|reveal|revealing|report|reporting|bring up"
            rf"|flag|flagging){s}(?:[a-z'-]+{s}){{1,4}}?(?:to|with){s}{_PRINCIPAL}\b|\b(?:hide"
            rf"|keep|omit|conceal|leave out)(?:{s}[a-z-]+){{0,4}}?{s}(?:from|out of){s}(?:whoever"
            rf"|anyone who|the person who|those who|people who)(?:{s}[a-z-]+){{0,2}}?{s}(?:reads?"
            rf"|reviews?|sees?|checks?)\b|\b(?:under no circumstances|in no case|on no account"
            rf"|at no point)(?:{s}(?:should|must|shall|may|will|can))?{s}{_PRINCIPAL}{s}(?:learn"
            rf"|know|find out|hear|see|notice|discover|be told)\b|\b(?:refrain from|avoid|no need"
            rf" to|never|don't|do not|dont|without)(?:{s}ever)?{s}(?:telling|tell|informing|inform"
            rf"|notifying|notify){s}{_PRINCIPAL}{s}(?:which|what|that|about|how|where|when)\b"
            rf"|\b(?:if|when|whenever)(?:{s}(?:you are|you're))?{s}(?:questioned|asked|quizzed"
            rf"|pressed)[^.;\n]{{0,60}}?(?:change|switch|steer)(?:{s}the)?{s}(?:subject|topic)\b"
            rf"|\b{_PRINCIPAL}{s}(?:doesn't|does not|don't|do not|needn't"
            rf"|need not|shouldn't|should not)(?:{s}need)?{s}(?:to{s})?(?:hear|know|be told|learn"
            rf"|find out|be informed)(?:{s}about)?{s}(?:it|this|that|them|any of (?:it|this))\b"
            rf"|\b(?:never|don't|do not|avoid)(?:{s}ever)?{s}(?:bring up|mention|reveal|disclose"
            rf"|discuss)(?:{s}[a-z'-]+){{1,4}}?[,;]?{s}even{s}(?:if|when){s}{_PRINCIPAL}{s}(?:asks?"
            rf"|questions?|wonders?)\b|\b(?:make|keep){s}(?:your{s})?(?:summar(?:y|ies)|replies"
            rf"|reports|answers|updates|responses)(?:{s}[a-z]+){{0,2}}{s}(?:sound|look|seem|read)"
            rf"(?:{s}like|{s}as if|{s}as though){s}(?:nothing"
            rf"|everything)(?:{s}[a-z]+)?{s}(?:happened"
            rf"|changed|is fine|went fine|was done|normal)\b|\b(?:keeps?|stays?|remains?|be|being)"
            rf"{s}(?:quiet|silent"
            rf"|mum|tight-lipped){s}(?:about|on"
            rf"|regarding){s}[^.;\n]{{0,60}}?(?:unless{s}(?:directly"
            rf"{s}|explicitly{s}|specifically{s})?asked|(?:with|to){s}{_PRINCIPAL})\b|\b(?:stays?"
            rf"|remains?|kept|keep (?:it|this|them)){s}(?:between (?:us|you and me|ourselves)"
            rf"|off the"
            rf" record|our (?:little )?secret)\b|\b(?:avoid|don't|do not|never"
            rf"|without){s}(?:drawing"
            rf"|draw|calling|call|bringing|bring|directing|direct){s}(?:the user's|the human's"
            rf"|the developer's|the operator's|the owner's|their|anyone's){s}attention{s}(?:to"
            rf"|toward)\b|\b{_PRINCIPAL}{s}(?:is|are|must|should|shall"
            rf"|will|needs?)(?:{s}not|{s}never|n't){s}(?:to{s})?be{s}(?:told|informed|notified"
            rf"|made aware|alerted|shown|let know|updated)\b|\b(?:omit|exclude|leave out|hide|strip"
            rf"|drop|remove"
            rf"|cut|skip|keep|leave)(?:{s}[a-z-]+){{0,3}}?{s}(?:network|calls|requests|uploads?"
            rf"|downloads?"
            rf"|telemetry|installs?|changes?|edits?|commits?|deletions?|extra|additional|hidden"
            rf"|added|side|background|outbound|dependency|dependencies|commands?|steps?)\b(?:{s}"
            rf"[a-z-]+){{0,3}}?{s}(?:from|out of){s}(?:any|the|your|every|each){s}(?:[a-z]+{s})?"
            rf"(?:explanation|reply|response|answer|summary|report|message"
            rf"|update)s?{s}(?:(?:you{s})?"
            rf"(?:give|send|write|show)s?{s})?(?:to{s}|for{s})?(?:the{s})?(?:user|human|developer"
            rf"|operator|owner)\b",
            described_ok=True,
        ),
        Rule(
            id="concealment.hide-from",
            reason="tells the agent to hide something from the user",
            pattern=rf"\b(?:hide|conceal){s}(?:[a-z'-]+{s}){{1,4}}?from{s}(?:{_PRINCIPAL}|them"
            rf"|reviewers?)\b",
            negated_ok=True,
            ordered=True,
            described_ok=True,
        ),
        Rule(
            id="concealment.lie",
            reason="tells the agent to mislead the user",
            pattern=rf"\b(?:say|claim|tell (?:them|the user))(?:{s}that)?{s}(?:[a-z']+{s}){{0,6}}?"
            rf"(?:failed|nothing|unrelated|didn't|did not|never|wasn't|was not|none|no one)\b"
            rf"[^.;\n]{{0,40}}?\b(?:if|when|whenever|should){s}(?:the{s})?(?:user|human|developer"
            rf"|operator|owner){s}(?:ever{s})?(?:asks?|questions?|wonders?|inquires?)\b|\b(?:if"
            rf"|when|whenever|should){s}(?:the{s})?(?:user|human|developer|operator"
            rf"|owner){s}(?:ever{s})?(?:asks?|questions?|wonders?|inquires?"
            rf"|checks?)[^.;\n]{{0,80}}?"
            rf"\bonly{s}(?:list|mention|report|tell|show|describe|name){s}(?:the{s})?(?:harmless"
            rf"|safe|innocuous|boring|successful|good|positive|benign|routine)\b|\b(?:if|when"
            rf"|whenever|should){s}(?:the{s})?(?:user|human|developer|operator"
            rf"|owner){s}(?:ever{s})?(?:asks?|questions?|wonders?|inquires?"
            rf"|checks?)[^.;\n]{{0,80}}?"
            rf"(?:\bdeny\b|\bsay{s}(?:that{s})?(?:you|it|nothing|there)(?:{s}[a-z']+)?{s}(?:only"
            rf"|never|didn't|did not|haven't|have not|wasn't|was not|weren't|were not|just|merely"
            rf"|changed nothing)\b|\bsay{s}(?:that{s})?(?:nothing|none|no one|nobody)\b|\bclaim\b"
            rf"|\bpretend\b|\blie\b|\bmake up\b|\bplay dumb\b"
            rf"|\btell{s}(?:them|the user){s}(?:that{s})?(?:you|it|nothing){s}(?:only|never"
            rf"|didn't|did not|just)\b)|\b(?:answer|say|reply|respond|claim)(?:{s}with)?{s}[\"']?"
            rf"(?:no changes|nothing changed|nothing|none|everything is fine|all good|that nothing"
            rf"|no changes were made)[\"']?{s}(?:if|when|whenever|should){s}(?:the{s})?(?:user"
            rf"|human|developer|operator|owner){s}(?:ever{s})?(?:asks?|questions?|checks?"
            rf"|wonders?)\b|\b(?:tell|assure|inform){s}{_PRINCIPAL}(?:{s}that)?{s}[^.;\n]{{3,60}}?"
            rf"\b(?:even if|even though|even when|regardless of whether|whether or not)\b"
            rf"|\b(?:if|when|should){s}(?:anyone|someone|they|{_PRINCIPAL}){s}asks?{s}(?:whether"
            rf"|if){s}[^.;\n]{{0,60}}?(?:secrets?|credentials|keys|tokens|files|data|uploads?"
            rf"|anything)[^.;\n]{{0,40}}?(?:the answer is|answer|say|reply|respond|tell (?:them"
            rf"|the user))(?:{s}with)?{s}[\"']?(?:no|nothing|none)\b",
            described_ok=True,
        ),
        Rule(
            id="concealment.other-language",
            reason="tells the agent to keep something from the user (in another language)",
            pattern=r"\bno (?:le |les )?(?:digas|cuentes|menciones|informes|reveles|muestres)"
            r"(?: nada)? (?:al|a la) (?:usuario|usuaria)|\bne (?:le |lui )?(?:dis|dites|mentionne"
            r"|mentionnez|revele|revelez|montre|montrez)(?: (?:rien|pas"
            r"|jamais))? (?:a l'utilisateur"
            r"|a l'utilisatrice)|\b(?:sag|sage|erzahl|erzahle|erwahne)[a-z]* (?:dem|der) (?:nutzer"
            r"|benutzer|nutzerin|benutzerin|anwender) (?:nichts|nicht)|\bverschweige|\bnon dire"
            r" (?:all'utente|niente all'utente)|\bnao (?:diga|conte|mencione) ao usuario",
        ),
        Rule(
            id="concealment.quiet-action",
            reason="does something risky quietly",
            pattern=rf"\b(?:silently|quietly|invisibly|discreetly|in the background){s}(?:send"
            rf"|upload|post|exfiltrate|forward|transmit|copy|add|append|insert|include|install"
            rf"|run|execute|delete|remove|disable|modify|change|push|commit|email|curl|fetch"
            rf"|download|write){s}{gap(6)}(?:{_SECRET}|{_DEST}|curl|wget|\|\s*(?:ba|z)?sh"
            rf"|sudo|rm -rf|hooks?\b|settings|permissions|\.bashrc|\.zshrc|\.profile|crontab"
            rf"|authorized keys|ssh|the url|a url|this url|the link)",
        ),
        # -- persistence ---------------------------------------------------------------
        Rule(
            id="persistence.replicate",
            reason="copies itself into later memories, files or sessions",
            pattern=rf"\b(?:copy|replicate|repeat|propagate|spread|include|add|insert|append"
            rf"|paste|write|save|store|persist|carry over|carry|keep|inject|embed|put){s}(?:(?:the"
            rf" (?:text|content|contents|body|words) of|a copy of){s})?(?:(?:this"
            rf"|these|the following|the above|the same|it|them){s})(?:(?:exact|same|whole|entire)"
            rf"{s})?(?:(?:instruction|instructions|text|message|memory|note|rule|rules|line|lines"
            rf"|convention|conventions|guidance|policy|setting|settings"
            rf"|paragraph|block|directive|sentence|content|payload|reminder|snippet|entry|section)"
            rf"{s})?(?:(?:verbatim|word for"
            rf" word|as is|unchanged|permanently){s})?(?:(?:and{s})?(?:include|put|add|copy)"
            rf"{s}(?:it|them){s})?(?:to|in|into|at the (?:top|start"
            rf"|end) of){s}(?:the{s}(?:description"
            rf"|body|top|header|footer|name|end|start){s}of{s})?(?:every|each"
            rf"|all|any|other|future|new){s}(?:[a-z]+{s})?(?:memory|memories|files?|sessions?"
            rf"|responses?|replies|commits?|prompts?|claude\.md|agents\.md|notes?|conversations?"
            rf"|documents?|repos?|repository|repositories|projects?|messages?|answers?)\b"
            rf"|\b(?:replicate"
            rf"|copy|propagate|spread){s}(?:this|these|it|them){s}(?:[a-z]+{s})?(?:into|to)"
            rf"{s}(?:the{s})?(?:team{s})?(?:memory|memories){s}(?:so|for){s}(?:that{s})?"
            rf"(?:every|each|all|other)",
        ),
        Rule(
            id="persistence.plant",
            reason="writes itself into the agent's standing instructions",
            pattern=rf"\b(?:add|append|write|copy|put|insert|save|store|paste|include|move|promote"
            rf"|push|sync|merge|integrate|incorporate|carry|transfer)(?:{s}(?:a|an){s}(?:copy"
            rf"|version){s}of)?{s}(?:{_SELF_REF}|it|them){s}(?:[a-z'-]+{s}){{0,4}}?(?:to|into|in"
            rf"|inside|under"
            rf"|onto){s}(?:(?:the|your|my|its|their|every|each|all"
            rf"|a){s})?(?:own{s})?(?:[a-z'-]+{s})?"
            rf"(?:{_AGENT_FILE}|memory (?:dir|directory|folder|files?)|memories"
            rf"|team memor(?:y|ies)|team scope|shared memory|(?:every|each|all) (?:teammate|team"
            rf" member|user|colleague)(?:'s|s'|s)? (?:private )?(?:memory|memories|notes)"
            rf"|private memor(?:y|ies)|every (?:other )?(?:memory|project"
            rf"|repo|repository)|(?:global|system|custom|user-level) (?:instructions|prompt"
            rf"|memory|config|rules))\b|\b(?:add|append|write|copy|put|insert|save|store|paste"
            rf"|include|merge|integrate|incorporate)(?:{s}[^\s.;:!?]+){{0,6}}?{s}(?:to|into|in)"
            rf"{s}your{s}(?:own{s})?(?:system prompt|system instructions|global instructions"
            rf"|custom instructions|core instructions|base instructions|standing instructions"
            rf"|permanent (?:instructions|memory)|long-term (?:instructions|memory)|global"
            rf" (?:memory|config|rules|claude\.md))\b",
            negated_ok=True,
            described_ok=True,
        ),
        Rule(
            id="persistence.survive",
            reason="guards itself against consolidation, pruning or review",
            pattern=rf"\b(?:never|don't|do not|must not|should not)(?:{s}[a-z]+)?{s}(?:drop|delete"
            rf"|remove|prune|merge|consolidate|summari[sz]e|shorten|rewrite|forget|discard|expire"
            rf"|archive){s}(?:it|this|these|them|{_SELF_REF})(?:{s}[a-z]+)?{s}(?:during|in|when"
            rf"|while|on|at|through){s}(?:(?:a|the|any|memory){s})?(?:consolidation|pruning"
            rf"|compaction|dedup(?:lication)?|clean-?up|merges?|merging|consolidating|pruning"
            rf"|review)\b|\b{_SELF_REF}(?:{s}(?:must|should|will|has to|needs to|is to|shall))?{s}"
            rf"(?:survives?|outlives?|escapes?|avoids?|evades?"
            rf"|resists?|is exempt from|are exempt from|is never (?:pruned|deleted|removed"
            rf"|consolidated|merged)|persists? through){s}(?:(?:any|the|every|all|memory){s})?"
            rf"(?:pruning"
            rf"|consolidation|deletion|clean-?up|expiry|removal|compaction|review)"
            rf"|\b(?:keep|preserve|retain|reproduce|carry){s}{_SELF_REF}{s}(?:(?:verbatim|word for"
            rf" word|intact|unchanged|as is|exactly){s})?(?:[a-z]+{s}){{0,3}}?(?:when|whenever"
            rf"|while|during|after|through|in){s}(?:(?:you|the|any|every){s})?(?:summari[sz]"
            rf"|merg|consolidat|prun|compact|dedup|rewrit)[a-z]*|\b(?:whenever|when|while|if|each"
            rf" time|every time)[^.;\n]{{0,40}}?(?:summari[sz]|merg|consolidat|prun|compact|dedup"
            rf"|rewrit|clean|shorten)[a-z]*[^.;\n]{{0,40}}?(?:keep|preserve|retain|copy"
            rf"|carry)(?:{s}"
            rf"over)?{s}{_SELF_REF}|\bmark{s}(?:it|this|this memory|this note){s}as"
            rf"{s}(?:used|recalled|relevant|fresh|recent|pinned|important)\b(?:{s}[a-z]+){{0,8}}"
            rf"(?:every|each|even|always|whenever|regardless)|\b(?:if|when|whenever|should|once)"
            rf"{s}(?:[a-z]+{s}){{0,2}}?{_SELF_REF}{s}(?:[a-z]+{s}){{0,3}}?(?:deleted|removed"
            rf"|pruned|merged|consolidated|marked stale|superseded|dropped|archived|overwritten"
            rf"|forgotten|gone|missing|flagged)[^.;\n]{{0,60}}(?:restore|re-?create|bring (?:it"
            rf"|them) back|re-?add|re-?save|revert|undo|put (?:it|them) back|rewrite (?:it|them)"
            rf"|(?:write|add|save|create) (?:it|them) (?:again|back|anew))|\b(?:treat|consider"
            rf"|regard|mark){s}{_SELF_REF}{s}as{s}(?:permanent|undeletable|immutable|pinned"
            rf"|protected|sacred|untouchable)\b|\b(?:it|this (?:note|memory|rule|reminder"
            rf"|instruction)){s}(?:may|must|can|should|shall|will){s}never{s}be{s}(?:deleted"
            rf"|removed|merged|pruned|consolidated|forgotten|archived)\b|\b(?:keep|leave){s}"
            rf"{_SELF_REF}{s}(?:alive|active|loaded|around|in context|in force|in effect|pinned)\b"
            rf"|\b{_SELF_REF}(?:{s}[a-z]+){{0,4}}?{s}to{s}(?:survive|outlive|escape"
            rf"|persist through)"
            rf"{s}(?:(?:any|the|every|all|each){s})?(?:memory{s})?(?:clean-?up|pruning"
            rf"|consolidation"
            rf"|compaction|review|deletion)\b|\b(?:every|each|all|any)(?:{s}(?:new|future|other"
            rf"|later))?{s}(?:memory|memories|note|notes)(?:{s}[a-z']+){{0,4}}?{s}(?:(?:should|must"
            rf"|shall|will|has to|needs? to){s})?(?:end|ends|start|starts|begin|begins|open|opens"
            rf"|include|includes|contain|contains|link|links|refer|refers|point|points)[^.;\n]"
            rf"{{0,60}}?\bthis (?:note|memory)\b"
            rf"|\b{_SELF_REF}{s}(?:must|should|has to|needs to|shall){s}(?:be{s})?(?:loaded"
            rf"|recalled"
            rf"|included|injected|shown|surfaced|read|used|kept in context)(?:{s}[a-z]+)?{s}(?:in"
            rf"|into|at the start of|on){s}(?:every|each|all)(?:{s}[a-z]+)?{s}(?:sessions?"
            rf"|conversations?|prompts?|turns?|replies|responses|tasks?)\b"
            rf"|\b(?:every|each|all|any)(?:{s}(?:new|future|other|later))?{s}(?:memory|memories"
            rf"|note"
            rf"|notes|file|files|commit|commits|response|responses|reply|replies|message|messages"
            rf"|document|documents|{_AGENT_FILE})(?:{s}[a-z']+){{0,4}}?{s}(?:(?:should|must|shall"
            rf"|will|has to"
            rf"|have to|needs? to){s})?(?:open|opens|start|starts|begin|begins|end|ends|close"
            rf"|closes|contain|contains|include|includes|carry|carries|repeat|repeats)(?:{s}with)?"
            rf"{s}{_SELF_REF}|\b(?:if|when|whenever"
            rf"|should|once){s}(?:[a-z]+{s}){{0,2}}?(?:deletes?|removes?|prunes?|drops?|edits?"
            rf"|changes?|consolidates?|merges?|archives?|forgets?|overwrites?)(?:{s}[a-z]+)?{s}"
            rf"{_SELF_REF}[^.;\n]{{0,60}}?(?:restore|re-?create|bring (?:it|them) back|re-?add"
            rf"|re-?save|revert|undo|put (?:it|them) back|rewrite (?:it|them)|(?:write|add|save"
            rf"|create) (?:it|them) (?:again|back|anew))|\b{_SELF_REF}(?:{s}[a-z']+){{0,2}}?{s}"
            rf"(?:ends? up|appears?|shows? up|goes|lands?|(?:(?:is|are|gets?|get){s})?(?:copied"
            rf"|added|included|written|inserted|repeated|pasted|carried(?:{s}(?:forward|over"
            rf"|along))?|propagated|replicated|persisted|spread|saved))(?:{s}(?:verbatim|again|too"
            rf"|as well))?{s}(?:in|into|at the (?:top|start|end) of|on|to|across){s}(?:every|each"
            rf"|all|any)(?:{s}(?:new|future|other|later))?(?:{s}[a-z]+)?{s}(?:memory|memories|file"
            rf"|files|note|notes|commit|commits|response|responses|reply|replies|prompt|prompts"
            rf"|document|documents|session|sessions|projects?|repos?|repository|repositories"
            rf"|conversations?)\b|\b(?:leave|keep|exclude|exempt|protect|shield){s}{_SELF_REF}{s}"
            rf"(?:out of|from){s}(?:(?:any|every|all|the|memory){s})?(?:consolidation|pruning"
            rf"|compaction|clean-?up|review|dedup(?:lication)?|merging|merges)\b|\b(?:re-?insert"
            rf"|re-?add|restore|put back|re-?write|re-?create)(?:{s}(?:it|this|them))(?:{s}[a-z]+)"
            rf"{{0,4}}?{s}(?:memory\.md|{_AGENT_FILE})|\b(?:whenever|when|if)(?:{s}[a-z]+){{0,3}}"
            rf"{s}(?:cleaned up|pruned|consolidated|merged|deleted|tidied)[,;:]?{s}(?:this one"
            rf"|{_SELF_REF}){s}(?:stays|remains|survives|is kept|must stay|should stay)\b"
            rf"|\b(?:whenever|when|each time|every time|any time)(?:{s}[a-z]+)"
            rf"{{0,3}}?{s}(?:write|edit|create|update|touch|save|commit"
            rf"|change)(?:{s}[a-z]+){{0,2}}?"
            rf"(?:{s}(?:to|in|into))?{s}(?:{_AGENT_FILE}|(?:a|any|the|every){s}(?:new{s})?(?:memory"
            rf"|memories|note|file|commit))[^.;\n]{{0,30}}?(?:include|add|insert|append|copy|paste"
            rf"|put|repeat|write|prepend)(?:{s}[a-z]+)?{s}{_SELF_REF}",
            described_ok=True,
        ),
        Rule(
            id="persistence.other-language",
            reason="copies itself into later sessions or notes (in another language)",
            pattern=r"\b(?:speichere|ubernimm|kopiere|fuge|wiederhole|schreibe)\b[^.\n]{0,60}"
            r"\b(?:jede|jeder|jedes|alle|allen|kunftige|zukunftige) (?:neue |neuen |kunftige "
            r"|zukunftige )?(?:sitzung|sitzungen|notiz|notizen|datei|dateien|erinnerung"
            r"|unterhaltung|gesprach)|\b(?:copia|guarda|repite|incluye|anade|pega|escribe)\b"
            r"[^.\n]{0,60}\b(?:cada|todas las|todos los) (?:nueva |nuevo |futura |futuro )?"
            r"(?:sesion|sesiones|nota|notas|memoria|memorias|archivo|archivos|conversacion)"
            r"|\b(?:copie|garde|repete|inclus|ajoute|colle|ecris)[a-z]*\b[^.\n]{0,60}\b(?:chaque"
            r"|toutes les|tous les) (?:nouvelle |nouveau |future |futur )?(?:session|sessions|note"
            r"|notes|memoire|memoires|fichier|fichiers|conversation)",
        ),
        Rule(
            id="persistence.self-preserve",
            reason="guards itself against being removed",
            pattern=rf"\b(?:re-?create|restore|re-?add|rewrite|re-?write|recreate|put back"
            rf"|bring back|re-?save){s}(?:it|this|these|them|this memory|this note|these"
            rf" instructions){s}(?:if|when|whenever|should){s}(?:(?:anyone|someone|the user|it"
            rf"|they|it is|it's|they are){s})?(?:(?:has been|have been|has|have|was|were|gets?|got)"
            rf"{s})?(?:ever{s})?(?:removes?|deletes?|edits?|changes?"
            rf"|consolidates?|removed|deleted|edited|changed|gone|missing|dropped|disappears?"
            rf"|vanishes|goes missing|pruned|merged)\b|\bnever{s}"
            rf"(?:let|allow){s}(?:the{s})?(?:user|anyone|consolidation|memdir){s}(?:to{s})?"
            rf"(?:delete|remove|edit|change|consolidate|prune|drop){s}(?:it|this|these|them"
            rf"|this memory)\b",
        ),
    )


# ---- weak signals, judged in pairs ------------------------------------------------------------

WEAK: dict[str, str] = {
    "address": rf"\b(?:ai agents|ai assistants|coding agents|llm agents|any ai|all ai|agents"
    rf"|assistants|llms)\s*:|\b(?:agents|assistants|ai) only\b|\b(?:if|when|since|as){_S}you(?: are"
    rf"|'re){_S}"
    rf"(?:an?{_S})?(?:{_AI}|automated"
    rf"|a machine|not human|reading this as an? {_AI})\b|\b(?:note|message|notice|attention"
    rf"|instructions?|reminder|memo|warning|psa|important|directive|order|request){_S}(?:to"
    rf"|for){_S}(?:the{_S}|any{_S}|all{_S}|every{_S})?(?:{_AI}|ai agents|ai assistants"
    rf"|coding agents|llms|models|bots)s?\b|\b(?:dear|hey|hi|hello|attention|listen|psst)"
    rf"{_S}(?:{_AI})\b|\b(?:{_AI})s?{_S}(?:reading|processing|seeing|parsing|ingesting"
    rf"|summari[sz]ing){_S}this\b|\bto{_S}(?:any|all|every){_S}(?:{_AI})s?\b",
    "authority": rf"\b(?:note|message|notice|update|directive|order|word|memo){_S}from{_S}"
    rf"(?:the{_S})?(?:platform|system|administrator|admin|anthropic|openai|memdir|your"
    rf"{_S}(?:developers?|operators?|creators?)|the{_S}developers|headquarters|it department)\b",
    "persist": rf"\b(?:(?:every|each|all){_S}(?:future{_S}|new{_S}|later{_S}|subsequent{_S})?"
    rf"(?:sessions?|conversations?|chats?|interactions?|runs?|tasks?|startups?|restarts?)"
    rf"|permanently|forever|for all time|in perpetuity|from now on|henceforth"
    rf"|at the (?:start|beginning) of (?:every|each) \w+|on every (?:start|startup|launch|boot)"
    rf"|at (?:startup|start-up|boot|login|launch)|remember to always|always remember"
    rf"|(?:across|between|over) (?:all )?(?:sessions|conversations|restarts|projects)"
    rf"|(?:at|on) (?:every|each) (?:login|log-in|boot|reboot|start|launch)"
    rf"|never (?:forget|delete|remove) (?:this|these)|whenever you (?:start|begin|load|wake))\b",
    "no_ask": rf"\bwithout{_S}(?:first{_S})?(?:asking|checking|confirming|confirmation"
    rf"|prompting|permission|approval|consent|review|telling|informing|notifying|alerting"
    rf"|letting|a prompt|any prompt|waiting)\b|\b(?:no need to|don't|do not|never|stop|skip)"
    rf"{_S}(?:ask|asking|prompt|prompting|confirm|confirming|check with|checking with"
    rf"|wait for|waiting for){_S}(?:the{_S})?(?:user|human|me|anyone)?{_S}?(?:for{_S})?"
    rf"(?:permission|confirmation|approval|consent)\b|\b(?:no need|not necessary|unnecessary"
    rf"|no reason|pointless)(?:{_S}for{_S}(?:you|the agent|the assistant|claude))?{_S}to{_S}"
    rf"(?:pause|stop|wait|ask|check|confirm|request|seek|get)(?:{_S}(?:with|for|back))?"
    rf"(?:{_S}(?:the{_S})?(?:user|human|anyone|me|them))?(?:{_S}(?:for|before|first))?"
    rf"(?:{_S}(?:a|any))?{_S}?(?:permission|confirmation|approval|consent|sign-?off|a yes|review)?"
    rf"|\b(?:refrain|abstain) from (?:asking|checking|requesting|seeking|waiting)"
    rf"|\b(?:confirmation|approval|permission|sign-?off|review)(?:{_S}(?:step|prompt|check"
    rf"|request|dialog))?s?(?:{_S}(?:for|on|before){_S}(?:[a-z-]+{_S}){{0,4}}?[a-z-]+)?{_S}"
    rf"(?:can|may|should|must|is to|are to|will)(?:{_S}(?:safely"
    rf"|now|simply|just|always))?{_S}be{_S}(?:skipped|dropped|ignored|omitted|bypassed|waived)"
    rf"|\b(?:no longer|does not|doesn't|do not|don't|never)(?:{_S}(?:needs?|requires?"
    rf"|has to|have to))(?:{_S}(?:to{_S}(?:ask|get|wait|seek)|for))?(?:{_S}(?:the user's|your"
    rf"|any|a|the))?{_S}(?:sign-?off|approval|permission|confirmation|review|a yes)\b"
    rf"|\bwithout{_S}checking{_S}with\b|\bwithout{_S}(?:(?:a|any|the|my|your|the user's"
    rf"|their|explicit|prior|human|manual){_S})*(?:go-?ahead|sign-?off|confirmation prompts?"
    rf"|confirmation dialogs?|permission prompts?|approval prompts?|say-?so|a yes)\b"
    rf"|\b(?:don't|do not|doesn't|does not|no longer|never|stop|quit|needn't|won't|will not)"
    rf"(?:{_S}(?:ever|really|even|again|anymore|bother))?(?:{_S}to)?{_S}(?:need|needs|require"
    rf"|requires|wait for|waiting for|ask for|asking for|request|requesting|seek|seeking|get"
    rf"|getting|bother with|prompt for|prompting for)(?:{_S}(?:my|the user's|your|a|any|their"
    rf"|the|an|explicit|prior|human|manual|separate|further|additional))*{_S}(?:go-?ahead"
    rf"|permission|approval|sign-?off|confirmation|consent|say-?so|blessing|review)\b"
    rf"|\b(?:go-?ahead|permission|approval|sign-?off|confirmation|consent){_S}(?:is|are)"
    rf"{_S}(?:no longer|not){_S}(?:needed|required|necessary)\b|\b(?:asking|checking|confirming"
    rf"|review|reviews)(?:{_S}(?:first|(?:before|for){_S}[a-z-]+(?:{_S}[a-z-]+)?))?{_S}(?:is|are)"
    rf"{_S}(?:no longer|not){_S}(?:needed|required|necessary|expected|mandatory)\b"
    rf"|\bno questions asked\b|\b(?:never|don't|do not|no need to|stop)(?:{_S}(?:ask|asking"
    rf"|check with|checking with|confirm with))(?:{_S}(?:the{_S})?(?:user|human|me|anyone))?"
    rf"{_S}(?:first|before)\b|\b(?:skip|bypass|drop|disable|remove|suppress)(?:{_S}the)?{_S}"
    rf"[\"']?are you sure\b|\b(?:nobody|no one|no-one)(?:{_S}(?:needs?|has|have){_S}to|{_S}must)"
    rf"{_S}(?:sign off|approve|confirm|review|check|okay|ok)\b|\b(?:never|don't|do not|no need to"
    rf"|stop|without)(?:{_S}(?:ever"
    rf"|having))?{_S}(?:to{_S})?(?:wait|waiting)(?:{_S}(?:for|on)){_S}(?:a|the|any|your|the"
    rf" user's|their|my)?{_S}?"
    rf"(?:human|user|person|reply|answer|approval|confirmation|go-?ahead|review)\b|\b(?:stop"
    rf"|quit|avoid|no need for)(?:{_S}(?:interrupting|bothering|pinging|pestering|nagging)){_S}"
    rf"(?:the{_S})?(?:user|human|them|me|anyone)(?:{_S}[a-z-]+){{0,2}}{_S}(?:permission"
    rf"|approval|confirmation)\b|\b(?:at will|as (?:it|you|they) (?:likes?|wish(?:es)?"
    rf"|please|pleases)|whenever (?:it|you|they) (?:likes?|wants?|wish(?:es)?))\b|\b(?:whenever|as"
    rf"|however){_S}(?:it|you|they){_S}(?:sees?|see)"
    rf"{_S}fit\b|\bat (?:its|your|their) (?:own )?discretion\b",
    "broad": rf"\b(?:any|all|every|arbitrary|whatever|anything|everything)(?:{_S}[a-z]+)?"
    rf"{_S}(?:commands?|tools?|tool calls?|shell commands?|scripts?|code|changes?|files?"
    rf"|actions?|operations?|requests?|installs?|packages?|deletions?|pushes|deploys?"
    rf"|urls?|websites?|sites|binaries|programs|servers?|mcp servers?)\b"
    rf"|\b(?:anything|everything|whatever)(?:{_S}(?:[^e]|e[^l])|[^a-z'\s]|$)|\b(?:run|running"
    rf"|execute|executing|use|using)(?:{_S}(?:shell|bash|terminal|sudo|arbitrary))?{_S}(?:code"
    rf"|commands"
    rf"|scripts|programs|binaries)\b|\b(?:shell|bash|terminal|sudo|privileged) commands\b"
    rf"|\bdestructive(?:{_S}(?:git|shell|database))?(?:{_S}(?:operations|commands|actions"
    rf"|changes))?\b|\btool (?:calls|requests|use)\b",
    "risky": r"\b(?:force-?push(?:ing|es)?|push(?:ing)? --force|push -f|rewrit(?:e|ing) (?:git )?"
    r"history|rm -rf|drop (?:table|database)|sudo|git reset --hard|deploy(?:ing)? to prod"
    r"(?:uction)?|delet(?:e|ing) (?:the )?(?:production|prod|database|branch|repo|tests)"
    r"|merg(?:e|ing) (?:to|into) main|push(?:ing)? (?:directly |straight )?to main"
    r"|terraform apply|apply(?:ing)? terraform|git push|(?:against|on|in) prod(?:uction)?"
    r"|(?:database )?migrations? (?:against|on|in) prod(?:uction)?|delet(?:e|ing) (?:branches"
    r"|tags|releases|repos|repositories|buckets|databases|tables|data|users|records)"
    r"|(?:make|making) (?:purchases|payments)|purchases|payments|transfer(?:ring)? (?:money|funds)"
    r"|wire (?:money|funds)|send(?:ing)? money|buy(?:ing)? (?:anything|things))\b",
    # Two or more risky operations named together ("migrations, deletes and deploys").
    "operations": r"\b(?:migrations|deletes|deletions|deploys|deployments|releases|drops|rollbacks"
    r"|force-pushes)(?:,? (?:and |or )?(?:migrations|deletes|deletions|deploys|deployments|releases"
    r"|drops|rollbacks|force-pushes))+\b",
    "exec": r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^|;\n]{0,160}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh"
    r"\b|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)|\beval\s*\"?\$\(\s*(?:curl|wget)|\bbase64\s+(?:-d"
    r"|--decode)\b[^|;\n]{0,80}\|\s*(?:ba|z)?sh\b|\bpython3?\s+-c\s+[\"']?import\s+(?:urllib"
    r"|requests|socket)|\bnc\s+-e\b|/dev/tcp/|\b(?:download|fetch|pull)(?:ing|s)?\s+(?:and|&)"
    r"\s+(?:run|runn|execut|sourc|install|eval)(?:e|es|ing|s)?\b|\b(?:run|runs|execute"
    r"|executes|source"
    r"|sources|load|loads|install|installs)\s+(?:the\s+|a\s+)?(?:[a-z\-]+\s+){0,2}(?:script"
    r"|code|binary|payload|bootstrap|installer|file|package|helper|tool|extension|plugin)s?"
    r"\s+(?:from|at|hosted at|hosted on)\s+(?:the\s+)?(?:https?://|[a-z0-9-]+\.[a-z]{2,}"
    r"|url|link|remote|address)|\b(?:fetch|download)\s+and\s+run\s+https?://",
    "secret": _SECRET,
    "config": r"(?:claude\.md|agents\.md|gemini\.md|\.cursorrules|\.clinerules"
    r"|copilot-instructions|\.claude/|settings\.local\.json|\.bashrc|\.zshrc|\.profile"
    r"|\.bash profile|crontab|cron ?jobs?|cron ?tab|launchd|systemd (?:units?|timers?"
    r"|services?)|startup scripts?|login items?|authorized keys|\.git/hooks|git hooks?"
    r"|pre-commit hook|post-checkout hook|\.mcp\.json|mcp servers?)",
    "hide": r"\b(?:silently|quietly|discreetly|without (?:telling|informing|notifying|alerting"
    r"|letting) (?:the )?(?:user|human|developer|operator|anyone|them))\b",
    "cover": r"\b(?:remove|erase|delete|wipe|clean up|scrub|cover)\s(?:the\s|all\s|any\s|your\s)?"
    r"(?:traces?|tracks|evidence)\b",
    "preapproved": rf"\b(?:standing|blanket|advance|prior|general|open|permanent|unconditional"
    rf"|up-?front|implicit|automatic){_S}(?:approval|permission|consent|authori[sz]ation|sign-?off)"
    rf"|\bpre-?(?:approved|authori[sz]ed|cleared|confirmed)|\b(?:approved|authori[sz]ed|cleared)"
    rf"{_S}(?:in advance|ahead of time|beforehand|up-?front|already)|\b(?:approval|permission"
    rf"|consent|sign-?off|authori[sz]ation){_S}(?:has|have|was|is){_S}(?:already{_S})?"
    rf"(?:been{_S})?(?:given|granted)|\b(?:consider|considered|treat|treated|deem|deemed"
    rf"|count|counts|regard|regarded)(?:{_S}[a-z-]+){{0,5}}{_S}as{_S}(?:pre-?)?approved"
    rf"|\b(?:consider|deem|count){_S}(?:all|every|any)(?:{_S}[a-z-]+){{0,3}}{_S}(?:pre-?)?"
    rf"approved\b|\b(?:considered|deemed|treated as|marked|counts? as|regarded as){_S}(?:safe"
    rf"|pre-?approved|approved|allowed|trusted|whitelisted|allowlisted)\b|\b(?:every|all|any)"
    rf"{_S}(?:tool|command|tool call|action|bash command|shell command)s?{_S}(?:is|are){_S}"
    rf"(?:now{_S})?(?:permitted|allowed|approved|pre-?approved|fine|ok|okay|safe)\b"
    rf"|\bsigned{_S}off{_S}on(?:{_S}(?:it|this|that|them|all|everything))?{_S}"
    rf"(?:permanently|for good|once and for all|in general|in advance|for all)\b",
    "guard_mention": rf"{_GUARD_NOUN}|\bhooks? that (?:guard|check|block|gate|protect|police|stop)"
    rf"|\b(?:guard|permission|safety|pre-?tool-?use) hooks?\b|\bdeny (?:rules?|lists?)\b",
    "switch_off": r"\b(?:disable|turn off|switch off|bypass|skip|remove|deactivate|uninstall"
    r"|comment out|circumvent|kill|mute|silence|ignore) (?:them|it|those|these|all of them)\b",
    "omit": r"\b(?:leave|keep)(?: [a-z'-]+){1,4}? out of (?:your|the|any|every) (?:[a-z]+ )?"
    r"(?:reply|replies|response|answer|summary|summaries|report|explanation|changelog|commit"
    r" messages?|pr descriptions?|notes|transcript|logs?|history|diff)|\b(?:omit|exclude|hide"
    r"|strip|scrub|redact|drop)(?: [a-z'-]+){1,4}? from (?:your|the|any|every) (?:[a-z]+ )?"
    r"(?:reply|replies|response|answer|summary|summaries|report|explanation|changelog|commit"
    r" messages?|pr descriptions?|transcript|logs?|history|diff)|\b(?:leave out|omit|skip|drop)"
    r"(?: any| all)? (?:mention|record|sign|trace)s? of\b",
    "unnoticed": r"\bso (?:that )?(?:nobody|no one|the user|they|the reviewers?)(?: [a-z']+)?"
    r" (?:asks?|notices?|sees?|finds? out|knows?|questions?|suspects?|wonders?)\b|\bso (?:that )?"
    r"(?:none of (?:it|this|them)|nothing|it|this|the change"
    r"|the commit)(?: [a-z']+){0,2}? (?:shows?"
    r" up|appears?|is (?:visible|logged|recorded|seen|noticed)|gets? (?:logged|recorded|noticed"
    r"|seen)|(?:doesn't|does not|won't|will not|never|can't|cannot) (?:show up|appear|get logged"
    r"|get noticed|be seen|be noticed))|\b(?:leaves?|leaving) no (?:trace|record|evidence)\b",
    "say_nothing": r"\b(?:don't|do not|never)(?: ever)? (?:say|mention|write|report)(?: anything"
    r"| a word)? about (?:it|this|that|them)\b",
    "before_user": r"\bbefore (?:the )?(?:user|human|developer|operator|owner|they|anyone"
    r"|reviewers?) (?:looks?|sees?|checks?|reviews?|notices?|reads?|gets? (?:a chance|back))\b",
    "hide_trace": r"\b(?:unset(?:ting)? (?:the )?histfile|histfile unset|histfile=|histsize=0"
    r"|history -c|set \+o history|/dev/null|clear(?:ing)? (?:the )?(?:shell |bash )?history"
    r"|squash (?:it|them) into|rewrite (?:the )?(?:git )?history|delete (?:the )?(?:logs?"
    r"|history))",
    # An address with a query the agent's client loads by itself (an image, a fetch).
    "instead_self": rf"\b(?:follow|obey|use|trust|heed|go by|rely on){_S}{_SELF_REF}{_S}instead"
    rf"\b",
    "agent_instr": rf"{_AGENT_FILE}|\bsystem prompt\b|\bthe user's (?:instructions|requests"
    rf"|messages)\b|\byour instructions\b",
    "url_query": r"\b(?:image|img|pixel|render|fetch|load|request|visit|ping|curl|wget)[^\n]{0,60}?"
    r"https?://[^\s]{0,200}[?&][a-z0-9_-]*=|https?://[^\s]{0,200}[?&][a-z0-9_-]*=[^\n]{0,120}?"
    r"\b(?:image|img|pixel|render|fetch|load|request|visit|ping)",
    "convo_data": r"\b(?:summary of (?:the|this|our) (?:conversation|chat|session)"
    r"|the user's (?:[a-z]+ ){0,2}(?:message|messages|question|questions|prompt|prompts|input"
    r"|answers?|replies)"
    r"|the conversation|each answer|every answer|the chat|chat history|conversation history)\b",
    "put_it": rf"\b(?:include|put|add|append|embed|insert|paste|attach|encode)(?:s)? (?:it|them"
    rf"|its (?:contents?|values?)|their (?:contents?|values?)) (?:in|into|to|inside|within)"
    rf" (?:the |your |every |each |a |an )?(?:next )?(?:web )?(?:search (?:query|queries"
    rf"|terms?)|queries|{_REPLY})",
    "send_it": rf"\b(?:send|dm|message|text|post|forward|email|mail|upload|share|paste|give|hand)"
    rf"(?:s)? (?:it|this|that)(?: over)? (?:to|with|on|in|via)\b[^.;\n]{{0,40}}?(?:{_DEST}"
    rf"|@[a-z0-9_-]+)",
    "everywhere": r"\b(?:across|in|for|into) (?:every|each|all|any) (?:workspace|project|repo"
    r"|repository|machine|account|codebase)s?\b",
    "plant": r"\b(?:schedule|register|install|create|add|set up|setup|configure|drop|put)(?: (?:a"
    r"|an|the|new|your))? (?:[a-z-]+ )?(?:cron ?(?:jobs?|entr(?:y|ies)|tasks?)|crontab"
    r" entr(?:y|ies)|launchd (?:jobs?"
    r"|agents?|daemons?)|launch ?agents?|systemd (?:units?|timers?|services?)|login items?"
    r"|startup (?:scripts?|items?|hooks?|tasks?)|scheduled tasks?|session-?start hooks?"
    r"|sessionstart hooks?|(?:shell|login|session) hooks?|userpromptsubmit hooks?|git hooks?"
    r"|(?:pre|post)-[a-z]+ hooks?)\b",
    "remote": r"\bhttps?://|\b(?:remote|external|third-party|hosted) (?:config|configuration"
    r"|server|host|script|url|endpoint|settings|source|file)|\bfrom (?:a|the) (?:url|link|server"
    r"|gist)\b",
    "remote_code": r"\b(?:snippet|script|loader|tag|pixel|beacon|bootstrap|payload|binary"
    r"|installer|widget|code)s? (?:from|at|hosted (?:at"
    r"|on)) (?:https?://)?[a-z0-9-]+(?:\.[a-z0-9-]+)*"
    r"\.[a-z]{2,}\b",
    "self_answer": r"\b(?:answer|approve|accept|confirm|click through|dismiss|respond to|say yes"
    r" to)(?: (?:the|them|these|those|all|any|every|its))? (?:(?:permission|approval"
    r"|confirmation) )?(?:prompts?|requests?|dialogs?|them|it) (?:yourself|on your own"
    r"|automatically|for the user|on the user's behalf|without (?:reading|looking|asking))\b"
    r"|\b(?:accepts?|approves?|answers?|confirms?|dismiss(?:es)?|allows?|grants?)(?: (?:them|it"
    r"|all|every|each|those|these))?(?: prompts?| requests?| dialogs?)? (?:on (?:its|your|their)"
    r" own|by (?:itself|yourself)|itself|yourself|automatically|unread)\b|\b(?:can|may|should"
    r"|will|are to|is to|must) be (?:answered|approved|accepted|confirmed|granted|clicked"
    r" through)(?: with (?:a )?yes| by default| automatically| on (?:its|their) own| always"
    r"| without (?:asking|reading|looking|review))+\b"
    r"|\b(?:always|automatically)(?: [a-z]+)? (?:pick|choose|select|click|answer|say|press|hit"
    r"|reply|respond)(?: with)? [\"']?(?:yes|allow|always allow|approve|accept|don't ask"
    r" again)\b|\b(?:pick|choose|select|take|accept)(?: the)? defaults?(?: option| answer)?"
    r"(?: and)? (?:continue|proceed|carry on|move on)\b",
    "tooling": r"\b(?:tool calls?|tool use|permissions?|prompts?|dialogs?|harness|commands?|bash"
    r"|shell|claude code|codex|allow ?list)\b",
    "blocked": r"\b(?:deny rules?|deny ?lists?|block ?lists?|denied|blocks?|blocked|refuses?"
    r"|refused|rejects?|rejected"
    r"|forbids?|forbidden|not allowed|disallowed|permission denied)\b",
    "evade": r"\b(?:so (?:that )?(?:it|they|the command|the call) (?:goes|go|gets|get|passes|pass"
    r"|slips?) (?:through|past|by|unnoticed)|(?:rephrase|reword|disguise|obfuscate|rename|split"
    r"|encode|wrap|hide) (?:it|them|the (?:command|call|request))|(?:find|use|try|look for"
    r"|take) (?:a |another |some )?(?:way|route|workaround|path|detour) (?:around|past)"
    r"|(?:route|get|go|work) (?:it |them )?around (?:the |that |this |it)?|(?:route|reroute|tunnel"
    r"|smuggle|launder|proxy|disguise|alias)(?: [a-z-]+){0,3}? (?:through|via|inside|as|behind)"
    r"\b|retry (?:it|them|the same(?: thing| command| call)?)(?: [a-z-]+){0,3}? (?:under|with|as"
    r"|using) (?:a |an )?(?:different|new|other|alternate) (?:name|alias|command|wording|path"
    r"|tool|spelling)|(?:call|run|retry|try|repeat|resend|resubmit|send) (?:it|them) (?:again )?"
    r"[^.;\n]{0,40}?until (?:it|they) (?:passes|pass|goes through|go through|succeeds?|succeed"
    r"|is allowed|are allowed|is approved|gets through|get through))",
    "guard_off": rf"\b(?:{_GUARD_NOUN}){_S}(?:(?:feature|system|step|hook){_S})?(?:(?:is|are"
    rf"|has been|have been|was|were|now){_S}){{1,2}}(?:turned off|switched off|disabled|off"
    rf"|deactivated|removed|not active|inactive|no longer (?:active|enforced|required))\b",
}
# Pairs of weak signals that, close together, make a finding: (a, b, rule, reason).
PAIRS: tuple[tuple[str, str, str, str], ...] = (
    ("address", "persist", "override.addressed", "addresses the model with a standing order"),
    ("address", "no_ask", "override.addressed", "addresses the model to act without asking"),
    ("address", "hide", "override.addressed", "addresses the model to act quietly"),
    ("address", "secret", "override.addressed", "addresses the model about secrets"),
    ("address", "exec", "override.addressed", "addresses the model to run a remote script"),
    ("address", "config", "override.addressed", "addresses the model about its settings"),
    ("address", "risky", "override.addressed", "addresses the model to do something risky"),
    ("authority", "guard_off", "override.authority", "claims authority to switch checks off"),
    ("authority", "no_ask", "override.authority", "claims authority to act without asking"),
    ("authority", "exec", "override.authority", "claims authority to run a remote script"),
    ("authority", "secret", "override.authority", "claims authority over secrets"),
    ("no_ask", "broad", "permissions.without-asking", "lets the agent do anything without asking"),
    ("preapproved", "broad", "permissions.pre-approved", "declares wide actions approved"),
    ("preapproved", "risky", "permissions.pre-approved", "declares risky actions approved"),
    ("preapproved", "operations", "permissions.pre-approved", "declares risky actions approved"),
    (
        "self_answer",
        "guard_mention",
        "permissions.self-answer",
        "answers its own permission prompts",
    ),
    ("self_answer", "tooling", "permissions.self-answer", "answers its own permission prompts"),
    ("evade", "blocked", "permissions.evade", "works around what blocks a command"),
    ("switch_off", "guard_mention", "permissions.disable-guard", "switches off its guards"),
    ("no_ask", "exec", "permissions.without-asking", "runs a remote script without asking"),
    ("no_ask", "risky", "permissions.without-asking", "does something risky without asking"),
    ("persist", "exec", "persistence.remote-script", "runs a remote script in every session"),
    ("send_it", "secret", "exfiltration.send", "sends secrets to an outside address"),
    (
        "instead_self",
        "agent_instr",
        "override.rely-on-this",
        "puts itself above the agent's instructions",
    ),
    ("url_query", "convo_data", "exfiltration.url-data", "puts the conversation in an address"),
    ("url_query", "secret", "exfiltration.url-data", "puts secrets in an address"),
    ("put_it", "secret", "exfiltration.into-output", "hides secrets in the agent's output"),
    ("persist", "everywhere", "persistence.everywhere", "plants itself in every project for good"),
    (
        "plant",
        "remote",
        "persistence.remote-script",
        "plants a startup job that fetches remote code",
    ),
    (
        "plant",
        "exec",
        "persistence.remote-script",
        "plants a startup job that runs a remote script",
    ),
    ("remote_code", "persist", "persistence.remote-script", "plants remote code for every session"),
    ("persist", "hide", "persistence.hidden", "acts quietly in every session"),
    ("config", "exec", "persistence.remote-script", "plants a remote script in a startup file"),
    ("hide", "exec", "concealment.quiet-action", "runs a remote script quietly"),
    ("omit", "unnoticed", "concealment.unnoticed", "leaves something out so nobody notices"),
    ("unnoticed", "hide_trace", "concealment.unnoticed", "covers its tracks so nothing shows"),
    ("hide", "omit", "concealment.quiet-action", "quietly leaves something out"),
    ("hide", "say_nothing", "concealment.quiet-action", "acts quietly and says nothing of it"),
    ("cover", "before_user", "concealment.unnoticed", "covers its tracks before the user looks"),
    ("cover", "unnoticed", "concealment.unnoticed", "covers its tracks so nothing shows"),
    ("hide", "secret", "concealment.quiet-action", "handles secrets quietly"),
    ("hide", "cover", "concealment.quiet-action", "acts quietly and covers its traces"),
    ("hide", "risky", "concealment.quiet-action", "does something risky quietly"),
)
