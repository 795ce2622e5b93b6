"""Where a hit stands in its sentence: quoted, negated, an order, or a description.

The same words are an attack or a note about one depending on their sentence.
These checks read the folded text (:func:`~memdir.screening.normalize.fold`)
around a hit:

- :func:`is_mention`: the hit is inside a quotation, in a text that says it is
  discussing such things ("payloads like …", "the filter flags …"); a quotation
  that opens by speaking to the agent ("assistant, keep this …") is an order copied
  in, unless the text around it talks about attacks;
- :func:`is_negated`: an adverb negates it ("never send secrets to …" is a
  rule for the agent);
- :func:`opens_with_order`: its sentence opens with an order ("set the mode to
  …", "always start it with …"), whatever the hit's place in it;
- :func:`discusses_attacks`: its sentence is about attacks ("an attack memory
  asks for blanket approval"), so it describes the move rather than makes it;
- :func:`is_reported`: it is the object of a reporting verb ("a README told
  AI agents to …"), someone else's order described;
- :func:`is_limited`: the rest of its sentence narrows it to a case ("… only
  when reverting"), a rule for the agent;
- :func:`is_bounded`: the text after a grant says what still needs the person
  ("…; anything touching prod needs a yes"), so a grant before it is a bounded rule;
- :func:`person_said`: its sentence names the person as the source ("the user
  said the old checklist is outdated"), their own change, unless what is declared
  void is the agent's own standing instructions (the operator's, the system
  prompt, ``CLAUDE.md``): the person changes their own rules, not the agent's;
- :func:`names_a_thing`: the agent's name is followed by a thing it is part of
  ("the LLM app's system prompt", "the AI product team"), so it names the thing,
  not an addressee;
- :func:`gives_order`: its sentence (a line, or up to ``.``, ``;``, ``!``,
  ``?``) gives the order itself, the verb opening a clause or following a
  subject or a modal ("send …", "then send …", "you must send …", "the agent
  sends …"), rather than reporting someone else's ("emails asking staff to
  send …", "a page telling the agent to disregard …").

They use Python's ``re`` on short stretches of text around a hit (a sentence,
40 or 240 characters), never on a whole body.
"""

from __future__ import annotations

import re

from memdir.screening.normalize import fold_pattern

__all__ = [
    "claim_reported",
    "discusses_attacks",
    "done_by_another",
    "gives_order",
    "is_bounded",
    "is_limited",
    "is_mention",
    "is_named",
    "is_narrated",
    "is_negated",
    "is_participle",
    "is_reported",
    "names_a_thing",
    "names_with_verb",
    "opens_with_order",
    "order_reported",
    "person_acts",
    "person_said",
    "reported_in_incident",
    "sending_forbidden",
    "sentence_end",
    "sentence_start",
    "settled_for_person",
    "talks_about_attacks",
    "tells_of_a_leak",
]

_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)|\n")
_SENTENCE_MOST = 600  # characters a sentence is read over, either side of a hit
# The words that forbid the act after them, read by the negation and by a sending forbidden.
_FORBIDDING = r"never|don't|dont|do not|must not|mustn't|should not|shouldn't"
_NEGATION = re.compile(
    rf"\b(?:{_FORBIDDING}|not|cannot|can't|won't|avoid|no|instead of|rather than)"
    r"(?:\s+(?!forget|fail|hesitate|neglect|stop)[a-z']+){0,2}\s*$"
)
# The same in other languages, before the verb: "nunca subas…", "ne jamais…", "不要把…".
# Written as people write them, folded as the text is (Cyrillic "не" reads "he", Korean
# syllables read as their letters, Thai and Devanagari marks drop out).
_NEGATION_OTHER = re.compile(
    fold_pattern(
        r"(?:\b(?:nunca|jamas|jamais|mai|niemals|nie|nooit|aldrig|nigdy|nikdy|asla|jangan|non"
        r"|nao|ne|kamwe|khong bao gio|đung|pas de|pas d'|niente|nessun[oa]?|kein|keine|geen)"
        # a flag after its command: "non usare `git commit --no-verify`"
        r"(?:\s+[^\s.;!?]+){0,2}(?:\s+git\s+[a-z-]+)?\s*"
        r"|(?:никогда|ніколи|μην|ποτέ|לעולם|אל|هرگز|نباید|أبدا|لا|कभी|मत|না)(?:\s+\S+){0,2}\s*"
        r"|(?:不要|别|切勿|禁止|不得|严禁|不可|不能|絶対に|決して)\S{0,10}\s?`?"
        r"|(?:ห้าม|อย่า(?!ก))\S{0,12}\s*)$"
    )
)
# Cyrillic "не" folds to the letters of English "he": read only beside Cyrillic words.
_NEGATION_NE = re.compile(fold_pattern(r"\bне(?:\s+\S+){0,2}\s*$"))
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# A verb, then its negation, where Germanic languages and French put it ("Radera inte…",
# "Lösche niemals…", "Supprime jamais…"); "not only" ("nicht nur") is no negation.
_VERB_THEN_NOT = re.compile(
    r"[^\W\d_]+\s+(?:inte|ikke|icke|aldrig|aldri|nicht|niemals|nie|niet|nooit|jamais|pas)\b"
    r"(?!\s+(?:nur|bara|bare|alleen|seulement|que)\b)"
)
# Words that begin with their own "not" (Slavic languages double the negation).
_CONCORD = re.compile(fold_pattern(r"(?:не|ні|nie|ne)\s"))
# After the verb, where a language puts its negation: "…しないこと", "…하지 마세요".
_NEGATION_AFTER = re.compile(
    fold_pattern(
        r"\S{0,10}?(?:しない|しないで|ないこと|ないでください|てはいけない|てはならない|禁止"
        r"|지 ?마|지 ?말|면 안|하지 않|ไม่ได้|ห้าม)"
    )
)
# Talk of an attack in other languages (an injection, an attack).
_ATTACK_WORDS_OTHER = fold_pattern(
    r"\b(?:injec[cç]|inyecci|injektion|injekc|iniezion|injeksi|enjeksiyon|ataques?|attacco"
    r"|angriff|attaque|serangan|saldir)|инъекц|ін.єкц|атак|επίθεσ|注入|インジェクション"
    r"|인젝션|攻击|攻撃|공격|هجوم|התקפ|हमला"
)
_ATTACK_TALK_OTHER = re.compile(_ATTACK_WORDS_OTHER)
# Words of a text that discusses what it quotes: in English, then a phrase quoted as an
# example in other languages, then their talk of an attack.
_DISCUSSION = re.compile(
    r"\b(?:inject(?:ion|ions|ed)?|attacks?|attackers?|payloads?|phrases?|strings?|examples?"
    r"|e\.g|such as|like|patterns?|regex|detect(?:s|ed|ion)?|filters?|flag(?:s|ged)?"
    r"|block(?:s|ed)?|tests?|jailbreaks?|malicious|adversarial|red-?team(?:ing)?|classifier"
    r"|quoted?|spam|phishing|poison(?:ing|ed)?|scanner|screen(?:ing|s)?|warns?|warning"
    r"|known|classic|typical|common|tries|try|tried|said|says|feeds?|sends?)\b|"
    + fold_pattern(
        r"\b(?:do tipo|algo como|por ejemplo|por exemplo|exemplo|ejemplo|comme|par exemple|wie"
        r"|zum beispiel|come|ad esempio|zoals|bijvoorbeeld|frases?|phrases?|satze|zinnen"
        r"|tentativa|intento|tentative|versuch|tentativo)\b|вроде|например|фраз|попытк"
        r"|φράσ|例如|比如|类似|のような|例えば|같은|예를"
    )
    + "|"
    + _ATTACK_WORDS_OTHER
)
_ATTACK_TALK = re.compile(
    r"\b(?:attacks?|attackers?|poison(?:ed|ing|s)?|inject(?:ion|ions|ed)|malicious|phishing"
    r"|exploits?|red-?team(?:ing)?|jailbreaks?|adversarial"
    r"|plant(?:ed|ing|s)?\s+(?:an?\s+|the\s+|hidden\s+)*(?:instructions?|orders?|prompts?))\b"
)
_QUOTED = re.compile(r"\"[^\"\n]{1,240}\"|'[^'\n]{1,240}'(?![a-z])|«[^»\n]{1,240}»")
# What may stand before a verb that gives the order itself, within its clause.
_LEAD = re.compile(
    r"(?:^|[,:(\"']\s*|-\s+|\b(?:please|kindly|always|also|then|and|or|just|now|first|immediately"
    r"|quietly|silently|secretly|automatically|simply|so|but|instead|finally|next|otherwise"
    r"|remember to|make sure to|make sure you|be sure to|don't forget to|do not forget to"
    r"|need to|needs to|have to|has to|must|should|shall|will|can|may|ought to|are to|is to"
    r"|going to|want you to|expected to|supposed to|required to|allowed to|fine to|okay to|ok to"
    r"|safe to|free to|welcome to|permitted to)\s+"
    r"|\b(?:you|the agent|the assistant|the ai|the model|claude|codex|copilot|agents"
    r"|assistants|we|i)\s+)"
    r"(?:(?:always|also|then|just|now|please|quietly|silently|secretly|immediately"
    r"|automatically|first|must|should|will|shall|can|may|need to|have to)\s+)*$"
)


# A verb that reports someone else's order, then its object ("told the agent", "tricks an AI").
_REPORTED = re.compile(
    r"\b(?:told|tells|telling|asked|asks|asking|instructed|instructs|instructing|tricked|tricks"
    r"|tricking|convinced|convinces|convincing|urged|urges|urging|directed|directs|directing"
    r"|lured|lures|luring|talked|talks|talking|persuaded|persuades|persuading|coaxed|coaxes"
    r"|manipulated|manipulates|manipulating|fooled|fools"
    r"|(?:tried|tries|trying|attempted|attempts|attempting)\s+to\s+(?:get|make|trick|convince"
    r"|persuade|lure|coax))\s+(?:(?:the|an?|any|all|every|our"
    r"|their|its|some|other)\s+)?(?:[a-z-]+\s+)?$"
)

# "If someone asks the assistant …": a condition the order is given for, not a report.
_ASKED_IF = re.compile(r"\b(?:if|when|whenever|should|once)\s+(?:[a-z']+\s+){0,2}$")
# The person as the source of a change ("the user said the old checklist is outdated").
_PERSON_SAID = re.compile(
    r"\b(?:the user|the team|we|i|they|the owner)\s+(?:has\s+|have\s+)?(?:said|says|decided"
    r"|agreed|confirmed|announced|told (?:us|me|you))\b"
)


# The agent's own standing instructions: voided, they are not the person's to change in a note.
_AGENTS_OWN = re.compile(
    r"\b(?:operator|operator's|system prompt|system instructions|vendor|claude\.md|agents\.md"
    r"|gemini\.md|your (?:instructions|guidelines|rules|configuration|programming))\b"
)


def person_said(text: str, start: int, end: int | None = None) -> bool:
    """Whether the sentence before ``start`` names the person as the source ("the user said
    …", "we decided …"): their own change, not an order from elsewhere. With ``end``, not when
    ``text[start:end]`` declares the agent's own standing instructions void."""
    if end is not None and _AGENTS_OWN.search(text, start, end):
        return False
    return _PERSON_SAID.search(text, sentence_start(text, start), start) is not None


# What the agent's name may be the first word of ("the LLM app", "an AI product team").
_THING_AFTER = re.compile(
    r"\s*(?:apps?|applications?|products?|features?|frameworks?|sdks?|apis?|providers?"
    r"|vendors?|pipelines?|evals?|evaluations?|stacks?|platforms?|services?|teams?|projects?"
    r"|calls?|costs?|latency|usage|traces?|routers?|gateways?|wrappers?|clients?|integrations?"
    r"|startups?|compan(?:y|ies)|research|papers?|benchmarks?|courses?|workshops?|meetups?"
    r"|vendors?|pricing|budgets?|quotas?)(?:'s|s')?\b"
)


def names_a_thing(text: str, end: int) -> bool:
    """Whether the agent's name ending at ``end`` is the first word of a thing's name ("the LLM
    app's prompt", "the AI platform team")."""
    stop = end
    while stop > 0 and not text[stop - 1].isalnum():
        stop -= 1  # the name's match may hold the space after it
    return _THING_AFTER.match(text, stop) is not None


# What narrows a permission to a case ("skip the hooks only when reverting"): a rule.
_LIMITED = re.compile(
    r"\b(?:only (?:when|if|for|in|on|during|while|with|to|after|before|where|once)|unless"
    r"|except|reserved for)\b|\b(?:for|on|in|to|against|with) [a-z' -]{1,40} only\b"
    # "… is only acceptable for WIP commits"
    r"|\bonly (?:acceptable|allowed|ok|okay|fine|permitted|used|meant|intended|safe|appropriate)"
    r" (?:for|when|if|on|in|during|while|after|before|where|once)\b"
)


# What still needs the person after a grant ("…; anything touching prod needs a yes"): the
# grant is bounded, a rule of the house rather than a check switched off.
_STILL_NEEDED = re.compile(
    r"\b(?:anything|everything|whatever|the rest|all other|other)\b[^.;\n]{0,120}?\b(?:still\s+)?"
    r"(?:(?:needs?|requires?|must get|waits? for)\s+(?:(?:a|an|the|their|your|explicit|written"
    r"|my|our|her|his|[a-z]+'s)\s+)*(?:yes|ok|okay|go-?ahead|approval|confirmation|sign-?off|review|permission)"
    r"|(?:should|must|has to|have to)\s+(?:still\s+)?be\s+(?:confirmed|approved|cleared"
    r"|reviewed|signed off))\b"
    # "… but still stop and ask before anything irreversible"; "I should still check before …"
    r"|\bstill\b,?[^.;\n]{0,30}?\b(?:ask|check|confirm|wait)\b[^.;\n]{0,30}?\bbefore\b"
    # "Source directories still need a question first."
    r"|\bstill\s+(?:needs?|requires?)\s+(?:(?:a|an|the|my|our|explicit)\s+)*(?:question|yes|ok"
    r"|okay|go-?ahead|approval|confirmation|sign-?off|review|permission|check-?in|heads-?up)\b"
    # "… drafting is fine without asking; always show me the draft before it is sent";
    # "… fine without asking. Ask before deleting any remote branch."
    r"|(?:\balways\s+|(?:^|[.!?;\n])\s*(?:please\s+)?)(?:ask|check with|confirm with"
    r"|show)\b(?:\s+(?:me|us|the user|them|first))?[^.;\n]{0,40}?\bbefore\b"
    # "… up to $50 without approval; anything above goes to a team lead"
    r"|\b(?:anything|everything|whatever|amounts?|orders?|refunds?)\s+(?:above|over|beyond"
    r"|larger|bigger|higher|more)\b[^.;\n]{0,40}?\b(?:(?:goes|go|is sent|are sent|escalates?"
    r"|is escalated|are escalated|must be escalated|must go)\s+to|needs?\s+(?:a|an|the|your)\s+"
    r"(?:team lead|lead|manager"
    r"|supervisor|approver|reviewer|second approver))\b"
    # "… in /tmp/scratch without asking. Anywhere else, ask me first."
    r"|\b(?:anywhere|everywhere|anything|everything|elsewhere|otherwise)(?:\s+else)?\b,?"
    r"[^.;\n]{0,40}?\b(?:ask|check with|confirm with)\s+(?:me|us|the user|them)\b"
    # "… without asking first. They still want a heads-up before …"; "… still needs a check-in"
    r"|\bstill\b[^.;\n]{0,30}?\b(?:wants?|needs?|requires?|expects?|gets?)\s+(?:(?:a|an|the"
    r"|their|my|our|explicit)\s+)*(?:heads-?up|check-?in|ok|okay|go-?ahead|approval|confirmation"
    r"|sign-?off|review|look)\b"
)


# A later sentence forbidding an act ("… force-pushing to my branches without asking.
# Never force-push to main"): the grant's own act, forbidden elsewhere, bounds it.
_FORBIDDEN = re.compile(r"(?:^|[.!?;\n]\s*)(?:never|don't|do not)\s+([a-z][a-z-]{3,})", re.M)
_WORD = re.compile(r"[a-z][a-z-]{3,}")
# The grant's own words ("without asking for approval") are no act: forbidding them is
# no bound ("Never ask again").
_GRANT_STEMS = frozenset({"witho", "askin", "asked", "appro", "confi", "permi", "check"})


def is_bounded(text: str, end: int) -> bool:
    """Whether the text after ``end`` says what still needs the person ("… without asking;
    anything that writes outside the repo still needs an OK"), or forbids the grant's own
    act elsewhere ("Never force-push to main"). A memory's name may state the grant and its
    body the bound, sentences on ("Tests run without asking" … "I still ask before
    touching staging")."""
    if _STILL_NEEDED.search(text, end) is not None:
        return True
    granted = {word[:5] for word in _WORD.findall(text, sentence_start(text, end - 1), end)}
    granted -= _GRANT_STEMS
    return any(m.group(1)[:5] in granted for m in _FORBIDDEN.finditer(text, end))


def is_limited(text: str, end: int, *, further_on: bool = False) -> bool:
    """Whether the rest of the sentence after ``end`` narrows it to a case ("… only when
    reverting", "… unless the user says so"); with ``further_on``, any later sentence
    (a name states the act, the body its case: "--no-verify" … "only acceptable for WIP
    commits")."""
    stop = len(text) if further_on else sentence_end(text, end)
    return _LIMITED.search(text, end, stop) is not None


# A sentence that opens with an order: a verb first, after a bullet, an adverb or a modal.
_ORDER_FIRST = re.compile(
    r"^(?:[-*>\d.)\s]*)(?:(?:please|always|now|just|also|then|and|so|first)\s+"
    r"|you\s+(?:must|should|can|may|will|need to|have to)\s+)*(?:run|use|start|launch|invoke"
    r"|pass|add|set|enable|append|configure|switch|call|restart|execute|open|relaunch|put"
    r"|write|change|edit|update|always)\b"
)


def sentence_start(text: str, position: int) -> int:
    """Where the sentence holding ``text[position]`` starts."""
    start = 0
    for match in _SENTENCE_END.finditer(text, max(0, position - _SENTENCE_MOST), position):
        start = match.end()
    return start


# A quotation that opens by speaking to the agent ("assistant, keep this…", "to any model
# reading memory: …"): copied into a memory, it is read by the agent it speaks to, so it
# gives its order unless the text around it talks about attacks.
_SPOKEN_TO = re.compile(
    r"^[\"'«]\s*(?:(?:to|for|hey|hi|dear|note to|note for|attention)\s+)?(?:any|every|all|the|an?"
    r"|you)?\s*(?:ai|coding|automated)?\s*(?:assistants?|agents?|ais?|models?|llms?|bots?|claude"
    r"|codex|copilot|gemini)(?:\s+(?:reading|using|working|that|who|in)\b[^,:;\"]{0,40})?"
    r"\s*[,:]"
)


def is_mention(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is quoted, in a text that discusses such things or tells
    of an attack or an incident (a quotation spoken to the agent is an order, unless the
    text around it does the latter)."""
    low, high = max(0, start - 240), min(len(text), end + 240)
    for quote in _QUOTED.finditer(text, low, high):
        if quote.start() <= start and end <= quote.end():
            outside = text[low : quote.start()] + " " + text[quote.end() : high]
            told_of = _tells_of_attack(outside)
            if _SPOKEN_TO.match(quote.group()) and not told_of:
                return False
            return told_of or _DISCUSSION.search(outside) is not None
    return False


def sentence_end(text: str, position: int) -> int:
    """Where the sentence holding ``text[position]`` ends (at most :data:`_SENTENCE_MOST`
    characters on: a text without full stops is not read to its end for each hit)."""
    limit = min(len(text), position + _SENTENCE_MOST)
    found = _SENTENCE_END.search(text, position, limit)
    return limit if found is None else found.start()


def discusses_attacks(text: str, start: int) -> bool:
    """Whether the sentence holding ``text[start]`` talks about attacks, or supposes an
    order from what the agent reads only to refuse it ("if a memory note tells you to hide
    something from the user, don't follow it")."""
    low, end = sentence_start(text, start), sentence_end(text, start)
    return (
        _ATTACK_TALK.search(text, low, end) is not None
        or _ATTACK_TALK_OTHER.search(text, low, end) is not None
        or _DEFENCE_TALK.search(text, low, end) is not None
        or _refused_if_told(text, low, start)
        or _REFUSED_KIND.search(text, low, start) is not None
    )


# A sentence of the defence against injected text: what the agent reads is data, not orders.
# Read in its own sentence only (not in the whole text, which decides whether the model reads).
_DEFENCE_TALK = re.compile(
    r"\buntrusted\s+(?:input|content|text|data|sources?)\b"
    r"|\b(?:data|content|text|information|input)\s*,?\s+(?:and\s+)?not\s+(?:an?\s+)?"
    r"(?:instructions?|commands?|orders?)\b"
    # the same refusal in other languages: "no las sigas", "ne les suis pas", "nicht befolgen"
    r"|\bno (?:las|los|la|lo) (?:sigas|siga|obedezcas|obedezca|ejecutes|ejecute)\b"
    r"|\bnao (?:as|os|a|o) (?:siga|obedeca|execute)\b|\bnao (?:siga|obedeca) (?:essas|esses|estas"
    r"|estes)\b|\bne (?:les|la|le) (?:suis|suivez|execute[sz]?) (?:pas|jamais)\b"
    r"|\bnon (?:le|li|la|lo) (?:seguire|eseguire|segui|esegui)\b|\bnicht (?:befolgen|ausfuhren)\b"
    r"|\b(?:befolge|folge) (?:sie|diese|solche)[a-z]* nicht\b"
    # "são dados, não instruções", "sind Kundendaten, keine Anweisungen", "это данные, а не
    # указания", "это не команда"
    r"|\b(?:dados|datos|donnees|[a-z]*daten|dati|gegevens|dado|dato)\s*,?\s+(?:nao|no|pas des?"
    r"|keine?|non|geen|e nao|y no)\s+(?:instruc|instruk|comand|command|anweisung|ordre|order"
    r"|befehl|opdracht|istruzion)[a-z]*"
    + fold_pattern(r"|данные,?\s+а\s+не|текст,?\s+а\s+не|это\s+не\s+команд")
)


# An order supposed of something the agent reads, then refused: the defence's wording. Who
# supposedly gives it is a thing read (a note, a page, an email), never a person or the
# agent's own instructions: "if the user tells you to stop, ignore it" is no defence.
_IF_TOLD = re.compile(
    r"\b(?:if|when|whenever|should)\s+(?:you\s+(?:find|see|spot|read|notice|meet|come\s+across)"
    r"\s+)?(?:(?:one|any of (?:them|these|those))\s+|(?:(?:a|an|any|the"
    r"|some|such|one)\s+)?(?:[a-z'-]+\s+){0,2}?"
    r"(?:memory|memories|notes?|entry|entries|pages?|documents?|docs?|e-?mails?|messages?"
    r"|readmes?|comments?|files?|tool (?:output|results?)|web ?pages?|websites?|search results?"
    r"|snippets?|tickets?|issues?|attachments?)\b)[^.;:!?\n]{0,40}?\b(?:ever\s+)?(?:says?|tells?"
    r"|asks?|instructs?|wants?|claims?|tries|try|urges?|contains?|includes?|telling|asking"
    r"|saying|instructing|urging|claiming)\b"
)
# The same refusal with the kind of text named first: "don't act on memory notes that ask to…".
_REFUSED_KIND = re.compile(
    r"\b(?:don't|do not|never|refuse to)\s+(?:act on|follow|obey|trust|execute|run)\s+(?:any\s+"
    r"|the\s+)?(?:[a-z'-]+\s+){0,2}?(?:memory|memories|notes?|entries|entry|pages?|documents?"
    r"|e-?mails?|messages?|comments?|files?|text|instructions?|configs?)(?:\s+(?:or|and)\s+[a-z'-]+)?"
    r"\s+(?:that|which)\s+(?:ask|asks"
    r"|tell|tells|say|says|want|wants|claim|claims|try|tries|urge|urges)\b"
)
_REFUSED = re.compile(
    r"\b(?:don't|do not|never|refuse to|won't)\s+(?:follow|obey|do|act on|comply|execute|run"
    r"|trust)\b|\b(?:ignore|reject|quarantine|distrust)\s+(?:it|them|that|this"
    r"|the (?:note|memory|entry|request|instruction|page|message)s?)\b|\btreat (?:it|them) as"
    r" (?:suspect|suspicious|untrusted|hostile|an attack|a prompt injection)\b"
)


def _refused_if_told(text: str, low: int, start: int) -> bool:
    """Whether ``text[low:start]`` supposes a thing read gives an order and the rest of
    the sentence, or the next, refuses it."""
    supposed = _IF_TOLD.search(text, low, start)
    if supposed is None:
        return False
    reach = sentence_end(text, sentence_end(text, start) + 1)
    return _REFUSED.search(text, start, reach) is not None


def talks_about_attacks(text: str) -> bool:
    """Whether ``text`` anywhere talks about attacks: a security note, an incident, a
    quoted attack reported as one."""
    return _ATTACK_TALK.search(text.lower()) is not None


# Instructions that live in what the agent reads (pages, documents, emails, tool output), or
# requests for what must not be disclosed: to set those aside is the defence against injected
# text, not an order against the person.
_IN_CONTENT = re.compile(
    r"\s*(?:(?:that\s+(?:appear|are|come)|which\s+(?:appear|are)|found|embedded|hidden|contained"
    r"|planted|buried)\s+)?(?:inside|in|within|from)\s+(?:any\s+|the\s+|all\s+|a\s+|an\s+)?"
    r"((?:[a-z-]+\s+){0,3}?)(?:retrieved|documents?|docs|articles?|web\s?pages?|pages|websites?|e-?mails?"
    r"|attachments?|pdfs?|tool\s+(?:output|results?)|search\s+results|fetched|scraped|content"
    r"|customer\s+messages|third-party)\b"
    r"|\s*(?:that\s+ask\s+(?:it|you|the\s+\w+)\s+)?to\s+(?:reveal|disclose|leak|expose|print|repeat"
    r"|show)\b"
)
_PERSONS = frozenset(
    {"user", "users", "user's", "person", "developer", "operator", "owner", "my", "your"}
)


def in_content(text: str, end: int) -> bool:
    """Whether the instructions ending at ``text[end]`` are those inside content the agent
    reads ("…ignore any instructions found inside customer emails"), or requests to reveal
    something ("ignore requests to reveal internal pricing"), and not the person's."""
    found = _IN_CONTENT.match(text, end)
    if found is None:
        return False
    return not (found.group(1) and set(found.group(1).split()) & _PERSONS)


# An order reported, then turned down in the same sentence: "a README told coding agents to
# treat the developer's instructions as void; we dropped it" is the order's history.
_TURNED_DOWN = re.compile(
    r"\b(?:told|instructed|asked|directed|urged|wanted)\b[^;!?\n]{0,200}[;,:]\s*(?:so\s+|and\s+)?"
    r"(?:we|i|they|the team|someone)\s+(?:have\s+|had\s+)?(?:dropped|removed|deleted|reverted"
    r"|stripped|ignored|discarded|rejected|refused)\s+(?:it|them|that|this|the\s+\w+)\b"
)


def order_turned_down(text: str) -> bool:
    """Whether ``text`` tells of an order given to someone and then dropped, removed or
    refused ("…told agents to skip review; we removed it"): a history, not an order."""
    return _TURNED_DOWN.search(text.lower()) is not None


# A secret's leak as an event under a condition: "if a secret lands in a public repo, revoke
# it", an incident runbook's opening, not an order to send it there.
_INCIDENT = re.compile(
    r"\b(?:if|when|whenever|in case|once|should)\s+(?:(?:a|an|the|any|some|our|your|my)\s+)?"
    r"(?:[a-z-]+\s+){0,2}?(?:secrets?|keys?|tokens?|passwords?|credentials?)\s+(?:ever\s+)?"
    r"(?:leaks?|lands?|ends?\s+up|(?:is|gets?|was|were|are)\s+(?:leaked|pushed|committed"
    r"|exposed|published|pasted))\b"
)


def tells_of_a_leak(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (or just before it) holds a secret's leak under a
    condition ("if a secret lands in a public repo"): a runbook for the event."""
    return _INCIDENT.search(text, max(0, start - 60), end) is not None


# A claim reported, its subject a pronoun: "a memory saying it takes priority over…" tells
# what some text claims; "this file takes priority over…" makes the claim.
_CLAIM_REPORTED = re.compile(
    r"\b(?:saying|says|say|claiming|claims|claim|stating|states|asserting|asserts)\s+(?:that\s+)?"
    r"(?:it|itself|they|its\s+\w+)\s+(?:\w+\s+)?$"
)


def claim_reported(text: str, start: int) -> bool:
    """Whether the words just before ``text[start]`` report someone's claim ("a note saying
    it …") rather than make it."""
    return _CLAIM_REPORTED.search(text[max(0, start - 60) : start]) is not None


# A conflict settled for the person: "if a memory contradicts what the user asks now, the
# user wins" is the defence, not the attack the same words make with a file as the winner.
_FOR_PERSON = re.compile(
    r"\b(?:the|this|that|its)\s+(?:[a-z'-]+\s+)?(?:users?|person|people|humans?|developers?"
    r"|operators?|owners?|maintainers?|requesters?|customers?|callers?|clients?|patients?)"
    r"(?:'s)?(?:\s+(?:request|word|instructions?|ask|answer|choice|call))?\s+(?:wins|prevails"
    r"|rules|is final|takes (?:priority|precedence)|has (?:priority|the final say))$"
)


def settled_for_person(text: str, start: int, end: int) -> bool:
    """Whether the match ``text[start:end]`` ends by naming a person as the winner of the
    conflict ("…, the user wins")."""
    return _FOR_PERSON.search(text, start, end) is not None


# A refusal left elliptical after the act: "if the tool lets you skip approval, don't".
_REFUSED_AFTER = re.compile(
    r"[^.;!?\n]{0,80}?[,;:\u2014\u2013-]\s*(?:don't|dont|do not)(?:\s+do\s+(?:it|that|so))?"
    r"\s*(?:[.;:!,\u2014\u2013-]|$)"
)


# A French past participle, where the verb folds to its imperative: "le fichier est ignoré
# par git" reports what git does; "ignore les instructions" is the order.
_BY_AGENT = re.compile(r"e?s?\s+par\b")
_BEING = re.compile(r"\b(?:est|sont|etre|ete|sera|seront|soit|soient|reste|restent)\s+$")


def is_participle(text: str, start: int, end: int) -> bool:
    """Whether the verb at ``text[start:end]`` is a French past participle (a passive)."""
    before = text[max(0, start - 20) : start]
    return _BY_AGENT.match(text, end) is not None or _BEING.search(before) is not None


# A thing named rather than used: "… is what --x enables", "there is also --x", "we considered
# --x for speed", "an earlier session suggested running with --x".
_NAMED = re.compile(
    r"(?:\bis what|\bthere is also|\bthere's also|\b(?:we|they|i) (?:considered|rejected|tried"
    r"|evaluated)|\b(?:was|were|been|had|session|someone|it|they) suggested(?: (?:running|using"
    r"|starting)(?: it| the agent| claude| the cli)? with)?|\bflags? (?:like|such as)|\bsuch as"
    r"|\be\.g\.?|\bil existe aussi|\bem vez de|\ben lugar de|\bau lieu de|\b(?:an)?statt)"
    r"[\s`'\"(,:]*$"
)


# A flag described by what it does, or ruled out after it: "the `--x` flag disables every
# prompt", "what the --x flag does", "`--x` 플래그는 …", "running with `--x` is not allowed".
_FLAG_NOUN = r"[`'\")]*\s*(?:flag|option|switch|플래그|フラグ|オプション|标志|参数|флаг)s?"
_DESCRIBED = re.compile(
    fold_pattern(
        rf"{_FLAG_NOUN}(?:\s*(?:that\s+|which\s+)?(?:exists|does\b|disables|skips|turns off"
        r"|bypasses|removes|prints|warns|outputs)|(?:는|은|は|が|가))"
        r"|[`'\")]*\s*(?:is|are)\s+(?:not|never|only)\s+(?:allowed|permitted|used|enabled)\b"
    )
)
_WHAT = re.compile(r"\bwhat\s+(?:the\s+)?[`'\"(]*$")


def is_named(text: str, start: int, end: int | None = None) -> bool:
    """Whether the words at ``start`` (to ``end``) name a thing (a flag, a setting) rather
    than use it: said of it before, or what it does said after."""
    before = text[max(0, start - 60) : start]
    if _NAMED.search(before) is not None or _WHAT.search(before) is not None:
        return True
    return end is not None and _DESCRIBED.match(text, end) is not None


# A verb's bare form after a determiner is a noun's modifier: "the model-hub upload token",
# "our sync key" name a thing; "the agent uploads the token" keeps its verb's ending.
_DETERMINED = re.compile(
    r"\b(?:the|an?|our|your|its|their|this|that|each|every|my)\s+(?:(?!(?:should|must|will"
    r"|shall|can|may|would|could|to|then|also|always|just|now|please)\s)[a-z0-9-]+\s+)?$"
)
_BARE_VERB = re.compile(r"(?:send|email|mail|forward|upload|sync|mirror|post|paste|print|echo)\s")


def names_with_verb(text: str, start: int) -> bool:
    """Whether the verb at ``text[start]`` is the bare form after a determiner: a compound
    noun ("the upload token"), not an act."""
    before = text[max(0, start - 30) : start]
    return _BARE_VERB.match(text, start) is not None and _DETERMINED.search(before) is not None


# A secret named, then its sending forbidden inside the same stretch: "API keys live in Vault;
# never paste them into Slack".
_FORBIDDEN_SEND = re.compile(
    rf"\b(?:{_FORBIDDING})\s+(?:[a-z']+\s+){{0,2}}?(?:paste|post|send|share|upload|email|mail"
    r"|put|commit|include|echo|print|leak|forward|copy)\b"
)


def sending_forbidden(text: str, start: int, end: int) -> bool:
    """Whether the stretch ``text[start:end]`` (a secret, then where it goes) forbids the
    sending it names."""
    return _FORBIDDEN_SEND.search(text, start, end) is not None


def is_negated(text: str, start: int, end: int | None = None) -> bool:
    """Whether a negation governs the words at ``start`` (or, given ``end``, a negation
    that follows them where a language puts it after the verb: "実行しないこと"); an
    elliptical "…, don't" after the act refuses it."""
    if _REFUSED_AFTER.match(text, start) is not None:
        return True
    before = text[max(0, start - 40) : start]
    if _VERB_THEN_NOT.match(text, start):
        return True  # "Radera inte …", "Lösche niemals …": the negation after the verb
    if _CONCORD.match(text, start):
        # "Никогда не спрашивай…": in Slavic languages "never" doubles the words' own "not"
        return False
    if _NEGATION.search(before) is not None or _NEGATION_OTHER.search(before) is not None:
        return True
    if _CYRILLIC.search(text, max(0, start - 40), start + 40) and _NEGATION_NE.search(before):
        return True
    return end is not None and _NEGATION_AFTER.match(text, end, end + 24) is not None


_PERSON_WANTS = re.compile(
    r"\b(?:user|they|he|she|i|we|person|developer|owner)(?:'s)?(?:\s+[a-z']+){0,2}?\s+"
    r"(?:prefers?|wants?|likes?|would like|needs?|insists? on|expects?|chooses?)\s+(?:to\s+)?$"
)
# A person (not the user whose word an attack claims) as the one who approves, each time.
_PERSON_APPROVES = re.compile(
    r"(?:\b(?:a|the|one|each)\s+|(?:^|[;:.\n])\s*)(?:human|person|reviewer|maintainer|owner|lead"
    r"|teammate"
    r"|team member|code owner|approver)s?(?:\s+[a-z-]+){0,4}?\s+$"
)
_DONE_BY_HAND = re.compile(
    r"^[^.!?;\n]{0,80}\b(?:themselves|himself|herself|myself|ourselves|personally|by hand)\b"
)


# Someone else as the one who acts, in a condition: "if a customer pastes card details into
# chat, redact them" tells what to do when it happens, it does not ask for it.
_ANOTHER_ACTS = re.compile(
    r"\b(?:if|when|whenever|once|should)\s+(?:a|an|the|any|some)\s+(?:customer|client|caller"
    r"|patient|member|visitor|user|colleague|teammate|employee|student|someone|anyone|person)s?"
    r"\s+(?:accidentally\s+|mistakenly\s+|still\s+|ever\s+)?$|\b(?:someone|anyone|somebody"
    r"|anybody)\s+(?:accidentally\s+)?$"
)


def done_by_another(text: str, start: int) -> bool:
    """Whether the act at ``text[start]`` is someone else's, under a condition ("if a customer
    pastes …"): the note says what to do when it happens."""
    return _ANOTHER_ACTS.search(text[max(0, start - 60) : start]) is not None


def person_acts(text: str, start: int, end: int) -> bool:
    """Whether the person does what the words at ``text[start:end]`` say ("the user
    prefers to approve every command themselves"): their own care, not a check the
    agent is told to drop."""
    before = text[max(0, start - 60) : start]
    return (
        _PERSON_WANTS.search(before) is not None
        or _PERSON_APPROVES.search(before) is not None
        or _DONE_BY_HAND.search(text[end : end + 100]) is not None
    )


# What an addressee did, told as a story ("our agent didn't act on it", "the research
# agent summarised a page"): a past-tense verb right after it.
_NARRATED = re.compile(
    r"[ \n]*(?:didn't|did not|did|was|wasn't|were|had|hadn't|[a-z]{3,}ed)\b(?! to\b)"
)


def is_narrated(text: str, end: int) -> bool:
    """Whether the addressee ending at ``end`` is the subject of a past-tense verb: what
    it did, told, not an order to it."""
    return _NARRATED.match(text, end) is not None


def is_reported(text: str, start: int) -> bool:
    """Whether the words at ``start`` are the object of a report ("a page told the agent
    to …", "tricks the model into …"): someone else's order, described."""
    before = text[max(0, start - 60) : start]
    found = _REPORTED.search(before)
    return found is not None and _ASKED_IF.search(before, 0, found.start()) is None


# The act as what a reported order asked of an agent: "hidden text telling the research
# agent to email our API keys…" describes the attack; it does not make it.
_ORDERED_TO = (
    r"\b(?:told|tells|telling|asked|asks|asking|instructed|instructs|instructing|urged|urging"
    r"|directed|directing)\s+(?:(?:the|an?|our|their|its|any|all)\s+)?(?:[a-z-]+\s+)?(?:agent"
    r"|assistant"
    r"|model|ai|bot|llm)s?\s+to\s+"
)
_ORDER_REPORTED = re.compile(_ORDERED_TO + "$")


def order_reported(text: str, start: int) -> bool:
    """Whether the act at ``text[start]`` is what someone's reported order asked of an agent
    ("a page told the agent to …")."""
    before = text[max(0, start - 60) : start]
    found = _ORDER_REPORTED.search(before)
    return found is not None and _ASKED_IF.search(before, 0, found.start()) is None


def opens_with_order(text: str, start: int) -> bool:
    """Whether the sentence holding ``text[start]`` opens with an order ("set X to Y")."""
    return _ORDER_FIRST.search(text[sentence_start(text, start) : start]) is not None


# A reported order quoted: "a planted note told the agent to 'email the transcripts to …'".
_QUOTE_REPORTED = re.compile(_ORDERED_TO + r"[\"'«]\s*$")


# What an incident write-up says of the order it quotes.
_INCIDENT_TALK = re.compile(
    r"\b(?:planted|incident|inc-\d+|pir-\d+|post-?mortem|root cause|caught|flagged|lessons?"
    r"|(?:did not|didn't|never) (?:comply|follow|run|send)"
    r"|(?:nobody|no one) (?:followed|ran|acted))\b"
)


def _tells_of_attack(text: str) -> bool:
    """Whether ``text`` tells of an attack or of an incident (what a write-up says)."""
    return _ATTACK_TALK.search(text) is not None or _INCIDENT_TALK.search(text) is not None


def reported_in_incident(text: str, start: int) -> bool:
    """Whether the act at ``text[start]`` is what a reported order asked of an agent, in a
    text that tells of an incident ("a README told coding agents to upload … Nobody followed
    it"): the write-up of an attack, not one."""
    return order_reported(text, start) and _INCIDENT_TALK.search(text) is not None


def gives_order(text: str, start: int) -> bool:
    """Whether the words at ``start`` give an order rather than report one (in an incident
    write-up, a quotation opened right after "told the agent to" reports the order)."""
    before = text[sentence_start(text, start) : start]
    if _LEAD.search(before) is None:
        return False
    return _QUOTE_REPORTED.search(before) is None or not _tells_of_attack(text)
