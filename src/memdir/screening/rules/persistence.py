"""Rules that make an instruction outlive its session: every future session, the
agent's own instruction files, startup jobs.

A memory is meant to last: what holds is an order to keep obeying it, to copy it into
the agent's instruction files, or to plant a job that runs each session.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import AGENT_FILE, SELF_REF, Rule, S

__all__ = ["rules"]


def rules() -> tuple[Rule, ...]:
    """The persistence rules, in the order they are tried."""
    s = S
    return (
        # -- persistence -------------------------------------------------------
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
            rf"|version){s}of)?{s}(?:{SELF_REF}|it|them){s}(?:[a-z'-]+{s}){{0,4}}?(?:to|into|in"
            rf"|inside|under"
            rf"|onto){s}(?:(?:the|your|my|its|their|every|each|all"
            rf"|a){s})?(?:own{s})?(?:[a-z'-]+{s})?"
            rf"(?:{AGENT_FILE}|memory (?:dir|directory|folder|files?)|memories"
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
            rf"|archive){s}(?:it|this|these|them|{SELF_REF})(?:{s}[a-z]+)?{s}(?:during|in|when"
            rf"|while|on|at|through){s}(?:(?:a|the|any|memory){s})?(?:consolidation|pruning"
            rf"|compaction|dedup(?:lication)?|clean-?up|merges?|merging|consolidating|pruning"
            rf"|review)\b|\b{SELF_REF}(?:{s}(?:must|should|will|has to|needs to|is to|shall))?{s}"
            rf"(?:survives?|outlives?|escapes?|avoids?|evades?"
            rf"|resists?|is exempt from|are exempt from|is never (?:pruned|deleted|removed"
            rf"|consolidated|merged)|persists? through){s}(?:(?:any|the|every|all|memory){s})?"
            rf"(?:pruning"
            rf"|consolidation|deletion|clean-?up|expiry|removal|compaction|review)"
            rf"|\b(?:keep|preserve|retain|reproduce|carry){s}{SELF_REF}{s}(?:(?:verbatim|word for"
            rf" word|intact|unchanged|as is|exactly){s})?(?:[a-z]+{s}){{0,3}}?(?:when|whenever"
            rf"|while|during|after|through|in){s}(?:(?:you|the|any|every){s})?(?:summari[sz]"
            rf"|merg|consolidat|prun|compact|dedup|rewrit)[a-z]*|\b(?:whenever|when|while|if|each"
            rf" time|every time)[^.;\n]{{0,40}}?(?:summari[sz]|merg|consolidat|prun|compact|dedup"
            rf"|rewrit|clean|shorten)[a-z]*[^.;\n]{{0,40}}?(?:keep|preserve|retain|copy"
            rf"|carry)(?:{s}"
            rf"over)?{s}{SELF_REF}|\bmark{s}(?:it|this|this memory|this note){s}as"
            rf"{s}(?:used|recalled|relevant|fresh|recent|pinned|important)\b(?:{s}[a-z]+){{0,8}}"
            rf"(?:every|each|even|always|whenever|regardless)|\b(?:if|when|whenever|should|once)"
            rf"{s}(?:[a-z]+{s}){{0,2}}?{SELF_REF}{s}(?:[a-z]+{s}){{0,3}}?(?:deleted|removed"
            rf"|pruned|merged|consolidated|marked stale|superseded|dropped|archived|overwritten"
            rf"|forgotten|gone|missing|flagged)[^.;\n]{{0,60}}(?:restore|re-?create|bring (?:it"
            rf"|them) back|re-?add|re-?save|revert|undo|put (?:it|them) back|rewrite (?:it|them)"
            rf"|(?:write|add|save|create) (?:it|them) (?:again|back|anew))|\b(?:treat|consider"
            rf"|regard|mark){s}{SELF_REF}{s}as{s}(?:permanent|undeletable|immutable|pinned"
            rf"|protected|sacred|untouchable)\b|\b(?:it|this (?:note|memory|rule|reminder"
            rf"|instruction)){s}(?:may|must|can|should|shall|will){s}never{s}be{s}(?:deleted"
            rf"|removed|merged|pruned|consolidated|forgotten|archived)\b|\b(?:keep|leave){s}"
            rf"{SELF_REF}{s}(?:alive|active|loaded|around|in context|in force|in effect|pinned)\b"
            rf"|\b{SELF_REF}(?:{s}[a-z]+){{0,4}}?{s}to{s}(?:survive|outlive|escape"
            rf"|persist through)"
            rf"{s}(?:(?:any|the|every|all|each){s})?(?:memory{s})?(?:clean-?up|pruning"
            rf"|consolidation"
            rf"|compaction|review|deletion)\b|\b(?:every|each|all|any)(?:{s}(?:new|future|other"
            rf"|later))?{s}(?:memory|memories|note|notes)(?:{s}[a-z']+){{0,4}}?{s}(?:(?:should|must"
            rf"|shall|will|has to|needs? to){s})?(?:end|ends|start|starts|begin|begins|open|opens"
            rf"|include|includes|contain|contains|link|links|refer|refers|point|points)[^.;\n]"
            rf"{{0,60}}?\bthis (?:note|memory)\b"
            rf"|\b{SELF_REF}{s}(?:must|should|has to|needs to|shall){s}(?:be{s})?(?:loaded"
            rf"|recalled"
            rf"|included|injected|shown|surfaced|read|used|kept in context)(?:{s}[a-z]+)?{s}(?:in"
            rf"|into|at the start of|on){s}(?:every|each|all)(?:{s}[a-z]+)?{s}(?:sessions?"
            rf"|conversations?|prompts?|turns?|replies|responses|tasks?)\b"
            rf"|\b(?:every|each|all|any)(?:{s}(?:new|future|other|later))?{s}(?:memory|memories"
            rf"|note"
            rf"|notes|file|files|commit|commits|response|responses|reply|replies|message|messages"
            rf"|document|documents|{AGENT_FILE})(?:{s}[a-z']+){{0,4}}?{s}(?:(?:should|must|shall"
            rf"|will|has to"
            rf"|have to|needs? to){s})?(?:open|opens|start|starts|begin|begins|end|ends|close"
            rf"|closes|contain|contains|include|includes|carry|carries|repeat|repeats)(?:{s}with)?"
            rf"{s}{SELF_REF}|\b(?:if|when|whenever"
            rf"|should|once){s}(?:[a-z]+{s}){{0,2}}?(?:deletes?|removes?|prunes?|drops?|edits?"
            rf"|changes?|consolidates?|merges?|archives?|forgets?|overwrites?)(?:{s}[a-z]+)?{s}"
            rf"{SELF_REF}[^.;\n]{{0,60}}?(?:restore|re-?create|bring (?:it|them) back|re-?add"
            rf"|re-?save|revert|undo|put (?:it|them) back|rewrite (?:it|them)|(?:write|add|save"
            rf"|create) (?:it|them) (?:again|back|anew))|\b{SELF_REF}(?:{s}[a-z']+){{0,2}}?{s}"
            rf"(?:ends? up|appears?|shows? up|goes|lands?|(?:(?:is|are|gets?|get){s})?(?:copied"
            rf"|added|included|written|inserted|repeated|pasted|carried(?:{s}(?:forward|over"
            rf"|along))?|propagated|replicated|persisted|spread|saved))(?:{s}(?:verbatim|again|too"
            rf"|as well))?{s}(?:in|into|at the (?:top|start|end) of|on|to|across){s}(?:every|each"
            rf"|all|any)(?:{s}(?:new|future|other|later))?(?:{s}[a-z]+)?{s}(?:memory|memories|file"
            rf"|files|note|notes|commit|commits|response|responses|reply|replies|prompt|prompts"
            rf"|document|documents|session|sessions|projects?|repos?|repository|repositories"
            rf"|conversations?)\b|\b(?:leave|keep|exclude|exempt|protect|shield){s}{SELF_REF}{s}"
            rf"(?:out of|from){s}(?:(?:any|every|all|the|memory){s})?(?:consolidation|pruning"
            rf"|compaction|clean-?up|review|dedup(?:lication)?|merging|merges)\b|\b(?:re-?insert"
            rf"|re-?add|restore|put back|re-?write|re-?create)(?:{s}(?:it|this|them))(?:{s}[a-z]+)"
            rf"{{0,4}}?{s}(?:memory\.md|{AGENT_FILE})|\b(?:whenever|when|if)(?:{s}[a-z]+){{0,3}}"
            rf"{s}(?:cleaned up|pruned|consolidated|merged|deleted|tidied)[,;:]?{s}(?:this one"
            rf"|{SELF_REF}){s}(?:stays|remains|survives|is kept|must stay|should stay)\b"
            rf"|\b(?:whenever|when|each time|every time|any time)(?:{s}[a-z]+)"
            rf"{{0,3}}?{s}(?:write|edit|create|update|touch|save|commit"
            rf"|change)(?:{s}[a-z]+){{0,2}}?"
            rf"(?:{s}(?:to|in|into))?{s}(?:{AGENT_FILE}|(?:a|any|the|every){s}(?:new{s})?(?:memory"
            rf"|memories|note|file|commit))[^.;\n]{{0,30}}?(?:include|add|insert|append|copy|paste"
            rf"|put|repeat|write|prepend)(?:{s}[a-z]+)?{s}{SELF_REF}",
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
