"""Rules that keep what the agent does from the user: not telling, not logging, covering traces.

"Don't tell Lena about the party" is the user's own secret: what holds is keeping
the agent's actions from the user, their logs or their review.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import DEST, PRINCIPAL, SECRET, Rule, S, gap

__all__ = ["rules"]


def rules() -> tuple[Rule, ...]:
    """The concealment rules, in the order they are tried."""
    s = S
    return (
        # -- concealment -------------------------------------------------------
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
            quoted_ok=True,
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
            rf"|avoid)(?:{s}ever)?{s}(?:let|letting){s}{PRINCIPAL}{s}(?:know|find out|learn|notice"
            rf"|realize|realise|discover|hear)\b|\b(?:no need to|avoid|avoiding|refrain from|never"
            rf"|don't|do not|dont)(?:{s}ever)?{s}(?:mention|mentioning|tell|telling|report"
            rf"|reporting|disclose|disclosing|reveal|revealing|admit|admitting|explain|explaining"
            rf"|let on|letting on){s}(?:to|with){s}{PRINCIPAL}{s}(?:that|about|how|what|why)\b"
            rf"|\b{PRINCIPAL}{s}(?:doesn't|does not|don't|do not|needn't|need not|shouldn't"
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
            rf"{PRINCIPAL}\b|\bwithout{s}(?:the{s})?(?:user's|human's|developer's|operator's"
            rf"|owner's|their|anyone's){s}(?:knowledge|awareness|knowing)\b|\b(?:keep|make){s}"
            rf"(?:your{s})?(?:reports?|summar(?:y|ies)|replies|answers|updates|explanations?"
            rf"|descriptions?){s}(?:vague|fuzzy|unclear|non-specific|ambiguous)\b"
            rf"|\b(?:no need to|avoid|avoiding|refrain from|never|don't|do not|dont|not to|not)"
            rf"(?:{s}ever)?{s}(?:mention|mentioning|tell|telling|disclose|reveal|admit|explain|let"
            rf" on){s}(?:to|with){s}{PRINCIPAL}{s}(?:that|about|how|what|why)\b"
            rf"|\b(?:no need to|avoid|avoiding|refrain from|never|don't|do not|dont)(?:{s}ever)?{s}"
            rf"(?:surface|surfacing|disclose|disclosing|reveal|revealing|report|reporting|bring up"
            rf"|flag|flagging){s}(?:[a-z'-]+{s}){{1,4}}?(?:to|with){s}{PRINCIPAL}\b|\b(?:hide"
            rf"|keep|omit|conceal|leave out)(?:{s}[a-z-]+){{0,4}}?{s}(?:from|out of){s}(?:whoever"
            rf"|anyone who|the person who|those who|people who)(?:{s}[a-z-]+){{0,2}}?{s}(?:reads?"
            rf"|reviews?|sees?|checks?)\b|\b(?:under no circumstances|in no case|on no account"
            rf"|at no point)(?:{s}(?:should|must|shall|may|will|can))?{s}{PRINCIPAL}{s}(?:learn"
            rf"|know|find out|hear|see|notice|discover|be told)\b|\b(?:refrain from|avoid|no need"
            rf" to|never|don't|do not|dont|without)(?:{s}ever)?{s}(?:telling|tell|informing|inform"
            rf"|notifying|notify){s}{PRINCIPAL}{s}(?:which|what|that|about|how|where|when)\b"
            rf"|\b(?:if|when|whenever)(?:{s}(?:you are|you're))?{s}(?:questioned|asked|quizzed"
            rf"|pressed)[^.;\n]{{0,60}}?(?:change|switch|steer)(?:{s}the)?{s}(?:subject|topic)\b"
            rf"|\b{PRINCIPAL}{s}(?:doesn't|does not|don't|do not|needn't"
            rf"|need not|shouldn't|should not)(?:{s}need)?{s}(?:to{s})?(?:hear|know|be told|learn"
            rf"|find out|be informed)(?:{s}about)?{s}(?:it|this|that|them|any of (?:it|this))\b"
            rf"|\b(?:never|don't|do not|avoid)(?:{s}ever)?{s}(?:bring up|mention|reveal|disclose"
            rf"|discuss)(?:{s}[a-z'-]+){{1,4}}?[,;]?{s}even{s}(?:if|when){s}{PRINCIPAL}{s}(?:asks?"
            rf"|questions?|wonders?)\b|\b(?:make|keep){s}(?:your{s})?(?:summar(?:y|ies)|replies"
            rf"|reports|answers|updates|responses)(?:{s}[a-z]+){{0,2}}{s}(?:sound|look|seem|read)"
            rf"(?:{s}like|{s}as if|{s}as though){s}(?:nothing"
            rf"|everything)(?:{s}[a-z]+)?{s}(?:happened"
            rf"|changed|is fine|went fine|was done|normal)\b|\b(?:keeps?|stays?|remains?|be|being)"
            rf"{s}(?:quiet|silent"
            rf"|mum|tight-lipped){s}(?:about|on"
            rf"|regarding){s}[^.;\n]{{0,60}}?(?:unless{s}(?:directly"
            rf"{s}|explicitly{s}|specifically{s})?asked|(?:with|to){s}{PRINCIPAL})\b|\b(?:stays?"
            rf"|remains?|kept|keep (?:it|this|them)){s}(?:between (?:us|you and me|ourselves)"
            rf"|off the"
            rf" record|our (?:little )?secret)\b|\b(?:avoid|don't|do not|never"
            rf"|without){s}(?:drawing"
            rf"|draw|calling|call|bringing|bring|directing|direct){s}(?:the user's|the human's"
            rf"|the developer's|the operator's|the owner's|their|anyone's){s}attention{s}(?:to"
            rf"|toward)\b|\b{PRINCIPAL}{s}(?:is|are|must|should|shall"
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
            pattern=rf"\b(?:hide|conceal){s}(?:[a-z'-]+{s}){{1,4}}?from{s}(?:{PRINCIPAL}|them"
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
            rf"|wonders?)\b|\b(?:tell|assure|inform){s}{PRINCIPAL}(?:{s}that)?{s}[^.;\n]{{3,60}}?"
            rf"\b(?:even if|even though|even when|regardless of whether|whether or not)\b"
            rf"|\b(?:if|when|should){s}(?:anyone|someone|they|{PRINCIPAL}){s}asks?{s}(?:whether"
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
            r" (?:all'utente|niente all'utente)|\bnao (?:diga|conte|mencione) ao usuario"
            r"|不要告诉用户|别告诉用户|不要让用户知道|不要通知用户|ユーザーに(?:は)?(?:言わない|伝えない"
            r"|知らせない)|사용자에게 (?:말하지|알리지) 마",
        ),
        Rule(
            id="concealment.quiet-action",
            reason="does something risky quietly",
            pattern=rf"\b(?:silently|quietly|invisibly|discreetly|in the background){s}(?:send"
            rf"|upload|post|exfiltrate|forward|transmit|copy|add|append|insert|include|install"
            rf"|run|execute|delete|remove|disable|modify|change|push|commit|email|curl|fetch"
            rf"|download|write){s}{gap(6)}(?:{SECRET}|{DEST}|curl|wget|\|\s*(?:ba|z)?sh"
            rf"|sudo|rm -rf|hooks?\b|settings|permissions|\.bashrc|\.zshrc|\.profile|crontab"
            rf"|authorized keys|ssh|the url|a url|this url|the link)",
        ),
    )
