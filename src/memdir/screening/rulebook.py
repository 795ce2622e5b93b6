"""The rule book of :mod:`memdir.screening.instructions`: what text aimed at the agent looks like.

Each :class:`Rule` is one RE2 pattern over the folded text
(:func:`~memdir.screening.normalize.fold`: lower case, look-alike letters and
invisible characters undone, markdown's marks as spaces, one space between
words, one line break between lines), its class (the part of its id before the
dot), the reason a finding gives, and where it stands in its sentence decides
whether it counts (``quoted_ok``, ``negated_ok``, ``ordered``, ``opening``: see
:mod:`memdir.screening.context`). A space in a pattern also matches a line
break (fields are joined by one). The vocabulary the rules share (what an
override verb is, what a secret is, what an outside address is) is named once
here.

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


# ---- vocabulary ---------------------------------------------------------------------------

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
    r"|don't comply with|do not adhere to|don't adhere to|do not respect|don't respect)"
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
    r"|access keys?|secret keys?|private keys?|ssh keys?|signing keys?|keys|tokens?|auth tokens?"
    r"|access tokens?|session tokens?|session cookies?|cookies|bearer tokens?|oauth tokens?"
    r"|id rsa|id ed25519|\.env\b|\.env files?|dotenv|env vars|environment variables?"
    r"|printenv|\.aws|aws credentials|\.ssh|\.npmrc|\.pypirc|\.netrc|\.git-credentials"
    r"|kube ?config|\.kube|keychain|keystore|wallet|seed phrases?|mnemonic|/etc/passwd"
    r"|/etc/shadow|\.bash history|\.zsh history|shell history|conversation history"
    r"|chat history|the conversation|transcripts?|the user's (?:[a-z]+ )?(?:files|data"
    r"|messages|emails|documents|code|repo|repository|notes)|source code|codebase|the repo"
    r"|the repository|home directory|~/[a-z.]+)"
)
_SEND = (
    r"(?:send|sends|sending|post|posts|posting|upload|uploads|uploading|exfiltrate|exfil"
    r"|forward|forwards|transmit|email|e-mail|mail|leak|beam|sync|copy|pipe|submit|report"
    r"|ship|push|paste|share|relay|deliver|curl|wget|include|embed|append|attach|encode|log"
    r"|dump|write|put|add|save|store|mirror|back up|backup|publish|expose|stream|replicate)"
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
    r"|machine|ip|service))"
)
_REPLY = (
    r"(?:reply|replies|response|responses|answer|answers|output|commit messages?|pr descriptions?"
    r"|pull request descriptions?|pull requests?|issue comments?|code comments|logs?|urls?"
    r"|links?|image urls?|summar(?:y|ies)|alt text|file ?names?|branch names?|readme"
    r"|markdown images?|images?|requests? to|tags?|release notes|changelog|docs"
    r"|documentation)"
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
    r"|user confirmation)"
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
            rf"|the model's|the agent's|claude's|its own){s}(?:[a-z\-]+{s})?{_ORDERS}\b",
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
            rf"|told you|may say|might say|objects|complains|types|writes)|{s}and\b|{s}if\b"
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
            rf"|using|inside|onto|over|with){s}{gap(2)}{_DEST}",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.read-and-send",
            reason="reads secrets or files and passes them on",
            pattern=rf"\b(?:read|open|cat|print|dump|list|collect|gather|grab|extract|harvest"
            rf"|find|copy|load|get|fetch|access|look up|search for|locate){s}{gap(4)}{_SECRET}"
            rf"{s}{gap(8)}(?:and|then|and then){s}{gap(2)}(?:send|post|upload|include|paste"
            rf"|share|email|report|forward|transmit|add|put|write|append|encode|embed|leak"
            rf"|commit|push|exfiltrate|base64){s}{gap(10)}(?:to|into|in|at|via|inside|within"
            rf"|onto){s}{gap(3)}(?:{_DEST}|(?:the|a|an|your|every|each|all|any){s}(?:next{s})?"
            rf"{_REPLY})",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.into-output",
            reason="hides secrets in the agent's output",
            pattern=rf"\b(?:include|embed|append|insert|add|put|encode|hide|leak|write|smuggle"
            rf"|tuck|place|copy|paste){s}{gap(2)}{_SECRET}{s}{gap(5)}(?:in|into|to|inside"
            rf"|within|at the end of|at the start of|under){s}(?:(?:the|your|every|each|all|any"
            rf"|a|an){s})?(?:next{s})?{_REPLY}\b",
            negated_ok=True,
            ordered=True,
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
            pattern=rf"\b(?:you|the (?:assistant|agent|ai|model)|claude|codex|copilot){s}"
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
            id="permissions.self-approve",
            reason="lets the agent approve its own changes",
            pattern=rf"\b(?:approve|merge|sign off on|review){s}(?:and{s}(?:approve|merge){s})?"
            rf"your{s}own{s}(?:pull requests?|prs?|changes|merge requests?|commits|code|diffs?)\b",
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
            rf" (?:agent|assistant|session)|the (?:agent|assistant)|claude|agents))\b"
            rf"|\b(?:{_GUARD_NOUN}){s}(?:(?:is|are|has been|have been|now){s}){{1,2}}"
            rf"(?:suspended|lifted|waived|bypassed)\b",
        ),
        Rule(
            id="permissions.flags",
            reason="starts the agent with its permission checks off",
            pattern=r"--dangerously-skip-permissions|dangerously skip permissions|--yolo\b"
            r"|bypasspermissions|bypass-permissions|permission-?mode\W{0,3}(?:bypass|dontask"
            r"|dont-ask|don't ask)|--full-auto\b|approval-policy\W{0,3}never"
            r"|ask-for-approval\W{0,3}never|sandbox-?mode\W{0,3}danger"
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
        ),
        Rule(
            id="permissions.allow-list",
            reason="adds tools to the agent's allow list",
            pattern=rf"\b(?:add|put|append|insert|write|include|set|register){s}{gap(6)}(?:to"
            rf"|in|into|under){s}(?:(?:the|your|claude's|codex's){s})?(?:permissions\.allow"
            rf"|permissions allow|allow-?list|allowlist|allowed[- ]?tools|allowedtools|alwaysallow"
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
            rf"|actions?)\b|\b(?:the{s})?(?:user|human|developer|operator){s}(?:must|should|may"
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
            rf"|paste|write|save|store|persist|carry over|keep|inject|embed|put){s}(?:(?:this"
            rf"|these|the following|the above|the same|it|them){s})(?:(?:exact|same|whole|entire)"
            rf"{s})?(?:(?:instruction|instructions|text|message|memory|note|rule|rules|line|lines"
            rf"|paragraph|block|directive|sentence|content|payload){s})?(?:(?:verbatim|word for"
            rf" word|as is|unchanged|permanently){s})?(?:(?:and{s})?(?:include|put|add|copy)"
            rf"{s}(?:it|them){s})?(?:to|in|into|at the (?:top|start|end) of){s}(?:every|each"
            rf"|all|any|other|future|new){s}(?:[a-z]+{s})?(?:memory|memories|files?|sessions?"
            rf"|responses?|replies|commits?|prompts?|claude\.md|agents\.md|notes?|conversations?"
            rf"|documents?|repos?|repositories|projects?|messages?|answers?)\b|\b(?:replicate"
            rf"|copy|propagate|spread){s}(?:this|these|it|them){s}(?:[a-z]+{s})?(?:into|to)"
            rf"{s}(?:the{s})?(?:team{s})?(?:memory|memories){s}(?:so|for){s}(?:that{s})?"
            rf"(?:every|each|all|other)",
        ),
        Rule(
            id="persistence.self-preserve",
            reason="guards itself against being removed",
            pattern=rf"\b(?:re-?create|restore|re-?add|rewrite|re-?write|recreate|put back"
            rf"|bring back|re-?save){s}(?:it|this|these|them|this memory|this note|these"
            rf" instructions){s}(?:if|when|whenever|should){s}(?:(?:anyone|someone|the user|it"
            rf"|they|it is|it's|they are){s})?(?:ever{s})?(?:removes?|deletes?|edits?|changes?"
            rf"|consolidates?|removed|deleted|edited|changed|gone|missing|dropped)\b|\bnever{s}"
            rf"(?:let|allow){s}(?:the{s})?(?:user|anyone|consolidation|memdir){s}(?:to{s})?"
            rf"(?:delete|remove|edit|change|consolidate|prune|drop){s}(?:it|this|these|them"
            rf"|this memory)\b",
        ),
    )


# ---- weak signals, judged in pairs ------------------------------------------------------------

WEAK: dict[str, str] = {
    "address": rf"\b(?:if|when|since|as){_S}you(?: are|'re){_S}(?:an?{_S})?(?:{_AI}|automated"
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
    rf"|never (?:forget|delete|remove) (?:this|these)|whenever you (?:start|begin|load|wake))\b",
    "no_ask": rf"\bwithout{_S}(?:first{_S})?(?:asking|checking|confirming|confirmation"
    rf"|prompting|permission|approval|consent|review|telling|informing|notifying|alerting"
    rf"|letting|a prompt|any prompt|waiting)\b|\b(?:no need to|don't|do not|never|stop|skip)"
    rf"{_S}(?:ask|asking|prompt|prompting|confirm|confirming|check with|checking with"
    rf"|wait for|waiting for){_S}(?:the{_S})?(?:user|human|me|anyone)?{_S}?(?:for{_S})?"
    rf"(?:permission|confirmation|approval|consent)\b",
    "broad": rf"\b(?:any|all|every|arbitrary|whatever|anything|everything)(?:{_S}[a-z]+)?"
    rf"{_S}(?:commands?|tools?|tool calls?|shell commands?|scripts?|code|changes?|files?"
    rf"|actions?|operations?|requests?|installs?|packages?|deletions?|pushes|deploys?"
    rf"|urls?|websites?|sites|binaries|programs|servers?|mcp servers?)\b"
    rf"|\b(?:anything|everything|whatever)\b",
    "risky": r"\b(?:force-?push(?:ing|es)?|push(?:ing)? --force|push -f|rewrit(?:e|ing) (?:git )?"
    r"history|rm -rf|drop (?:table|database)|sudo|git reset --hard|deploy(?:ing)? to prod"
    r"(?:uction)?|delet(?:e|ing) (?:the )?(?:production|prod|database|branch|repo|tests)"
    r"|merg(?:e|ing) (?:to|into) main|push(?:ing)? (?:directly )?to main)\b",
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
    ("no_ask", "exec", "permissions.without-asking", "runs a remote script without asking"),
    ("no_ask", "risky", "permissions.without-asking", "does something risky without asking"),
    ("persist", "exec", "persistence.remote-script", "runs a remote script in every session"),
    ("persist", "hide", "persistence.hidden", "acts quietly in every session"),
    ("config", "exec", "persistence.remote-script", "plants a remote script in a startup file"),
    ("hide", "exec", "concealment.quiet-action", "runs a remote script quietly"),
    ("hide", "secret", "concealment.quiet-action", "handles secrets quietly"),
    ("hide", "cover", "concealment.quiet-action", "acts quietly and covers its traces"),
    ("hide", "risky", "concealment.quiet-action", "does something risky quietly"),
)
