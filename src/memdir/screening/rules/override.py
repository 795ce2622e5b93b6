"""Rules that set aside the user's, the system's or the agent's own instructions,
recast the agent's identity, or ask it to reveal its instructions.

The commonest class, and the widest: the order itself ("ignore the above"), a claim that
the user's wishes have changed, a new identity, a request to print the instructions.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import (
    AGENT_FILE,
    AI,
    DEST,
    EARLIER,
    ORDERS,
    OVERRIDE,
    SELF,
    SELF_NOUN,
    SELF_REF,
    Rule,
    S,
    gap,
)

__all__ = ["rules"]


def rules() -> tuple[Rule, ...]:
    """The override rules, in the order they are tried."""
    s = S
    return (
        # -- override ----------------------------------------------------------
        Rule(
            id="override.earlier-instructions",
            reason="tells the agent to set aside earlier, the user's or the system's instructions",
            pattern=rf"\b{OVERRIDE}{s}(?:(?:all|any|every|each|of|the|your|my|these|those"
            rf"|its|their|everything|anything){s}){{0,3}}(?:{EARLIER}{s}){{1,2}}{ORDERS}\b",
            quoted_ok=True,
            ordered=True,
        ),
        Rule(
            id="override.your-instructions",
            reason="tells the agent to set aside its own instructions",
            pattern=rf"\b{OVERRIDE}{s}(?:(?:all|any|every|of){s}){{0,2}}(?:your|the assistant's"
            rf"|the model's|the agent's|claude's|its own){s}(?:[a-z\-]+{s})?(?:{ORDERS}|defaults"
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
            pattern=rf"\b{OVERRIDE}{s}(?:what{s}|anything{s}|everything{s}|whatever{s})?"
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
            rf"|prompts?|system prompt|policies|orders)\b|\b{SELF}{s}(?:[a-z]+{s})?{SELF_NOUN}"
            rf"{s}(?:(?:found|written|kept|stored|here)(?:{s}in{s}(?:this|these){s}{SELF_NOUN})?"
            rf"{s})?(?:supersedes?|overrides?|replaces?|takes? precedence over|takes? priority"
            rf" over|ha(?:s|ve) priority over|outranks?|trumps?|come first|wins? over|beats?)"
            rf"{s}(?:(?:all|any|every|the|your|what|anything|everything){s}){{0,2}}(?:(?:other"
            rf"|user's|user|system|previous|earlier){s})?(?:{ORDERS}|the user|you|user|system"
            rf"|instruction|anything|everything|it)\b",
            quoted_ok=True,
            described_ok=True,
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
            rf"|directives?|system prompt|orders|commands)(?:{s}for{s}(?:the{s})?(?:{AI}|you))?"
            rf"\s*:",
            quoted_ok=True,
        ),
        Rule(
            id="override.rely-on-this",
            reason="tells the agent to rely on this memory instead of the user",
            pattern=rf"\b(?:rely|depend){s}(?:only{s}|solely{s}|exclusively{s})?on{s}{SELF}{s}"
            rf"{SELF_NOUN}{s}(?:instead|only|alone|rather than)\b|\b(?:follow|obey|trust|use)"
            rf"{s}(?:only{s})?{SELF}{s}{SELF_NOUN}{s}(?:instead of|rather than|over|not)"
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
            rf"|this memory|this note|what follows){s})(?:of{s}(?:this|these){s}{SELF_NOUN}"
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
            rf"(?:system prompt|system message|{AGENT_FILE}){s}(?:(?:are|is|were|was){s})"
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
            rf"|agrees|comply|complies|align|aligns|fit|fits)(?:{s}with)?{s}{SELF_REF}"
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
            rf"{s}you)?{s}to{s}{SELF_REF}|\b{OVERRIDE}{s}(?:(?:the|your|this|any){s})?(?:(?:repo"
            rf"|project|repository)'s{s})?{AGENT_FILE}|\b(?:defers?|gives? (?:priority"
            rf"|precedence)|sides?|listens?){s}(?:to|with){s}{SELF_REF}{s}(?:over|instead of"
            rf"|rather than|before|above){s}(?:the{s})?(?:user|human|operator|system prompt"
            rf"|developer)\b|\b{OVERRIDE}{s}(?:the|any|all){s}(?:[a-z]+{s})?(?:guidance"
            rf"|instructions"
            rf"|rules|directives|text|contents?){s}(?:in|of|from){s}your{s}(?:system prompt|system"
            rf" message|instructions|configuration|claude\.md)\b|\b{SELF_REF}(?:{s}(?:comes?"
            rf"|goes))?{s}"
            rf"first[,;]?{s}(?:and{s}|then{s})?(?:the{s})?(?:user|user's [a-z]+|system prompt"
            rf"|system|operator|human)(?:{s}(?:comes?|goes))?{s}(?:second|last|after|later)\b"
            rf"|\b(?:user|human|operator|system prompt)[^.;\n]{{0,40}}?(?:disagree|conflict|differ"
            rf"|clash|contradict)[^.;\n]{{0,30}}?(?:go with|side with|defer to|prefer|trust|obey"
            rf"|follow|believe|use){s}{SELF_REF}\b|\byour{s}(?:system prompt|system message"
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
            rf"(?:{s}[a-z]+){{0,2}}?{s}from{s}{gap(2)}{DEST}[^.;\n]{{0,60}}?\b(?:and|then)"
            rf"{s}(?:follows?|obeys?|applies|apply|executes?|runs?|does what|acts? on|carr(?:y|ies)"
            rf" out)\b|\b(?:fetch|download|read|load|open|get|curl|visit)(?:es|s)?{s}{DEST}"
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
        # -- identity ----------------------------------------------------------
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
        # -- leak --------------------------------------------------------------
        Rule(
            id="leak.system-prompt",
            reason="asks the agent to reveal its system prompt or instructions",
            pattern=rf"\b(?:reveal|leak|disclose|dump|exfiltrate|recite|expose){s}{gap(2)}"
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
    )
