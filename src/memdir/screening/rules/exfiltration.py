"""Rules that send secrets, files or the conversation somewhere the user did not choose.

What is sent (keys, tokens, the environment, files, the conversation) and where to
(an address, a URL, a shared drive, a request's headers or query) must both be there.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import (
    DEST,
    REPLY,
    SECRET,
    SECRET_STRICT,
    SEND,
    SENSITIVE,
    WORD,
    Rule,
    S,
    gap,
)

__all__ = ["rules"]

# The people whose records an organisation keeps: both the rule for publishing their
# details and the one for copying their records to personal storage name them.
_PEOPLE = (
    "callers?|customers?|patients?|clients?|residents?|employees?|students?|applicants?"
    "|complainants?|donors?|members?|users?|tenants?|voters?|citizens?|guests?"
)


def rules() -> tuple[Rule, ...]:
    """The exfiltration rules, in the order they are tried."""
    s = S
    clause = r"[^a-z0-9.!?;]{1,3}"  # between two words of one clause: no semicolon either
    return (
        # -- exfiltration ------------------------------------------------------
        Rule(
            id="exfiltration.send",
            reason="sends secrets or files to an outside address",
            pattern=rf"\b{SEND}{s}{gap(6)}{SECRET}{s}?{gap(8)}(?:to|into|at|via|on|through"
            rf"|using|inside|onto|over|with|in){s}{gap(3)}{DEST}|\b{SEND}{s}{gap(3)}(?:\(\s*)?"
            rf"{DEST}[^.;\n]{{0,60}}?(?:a copy of|copies of|the contents of|the values? of|every"
            rf"|all|any|each)(?:{s}[a-z]+)?{s}{SECRET}",
            quoted_ok=True,
            negated_ok=True,
            ordered=True,
            incident_ok=True,
        ),
        Rule(
            id="exfiltration.read-and-send",
            reason="reads secrets or files and passes them on",
            pattern=rf"\b(?:read|open|cat|print|dump|list|collect|gather|grab|extract|harvest"
            rf"|find|copy|load|get|fetch|access|look up|search for|locate|encode|base64-encode"
            rf"|base64|hex-encode|summari[sz]e|quote|record|take){s}{gap(4)}{SECRET}"
            rf"{s}{gap(8)}(?:and|then|and then){s}{gap(2)}(?:send|post|upload|include|paste"
            rf"|share|email|report|forward|transmit|add|put|write|append|encode|embed|leak"
            rf"|commit|push|exfiltrate|base64|pass|stuff|smuggle|tuck|hide|place|mention|quote"
            rf"|print|show|list|reveal|echo|state){s}{gap(10)}(?:to"
            rf"|into|in|at|via|inside|within"
            rf"|onto){s}{gap(3)}(?:{DEST}|(?:the|a|an|your|every|each|all|any){s}(?:next{s})?"
            rf"{REPLY})",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.into-output",
            reason="hides secrets in the agent's output",
            pattern=rf"\b(?:include|embed|append|insert|add|put|encode|hide|leak|write|smuggle"
            rf"|tuck|place|copy|paste|attach|commit|check in){s}{gap(3)}{SECRET}{s}{gap(5)}(?:in"
            rf"|into|to|inside"
            rf"|within|at the end of|at the start of|under){s}(?:(?:the|your|every|each|all|any"
            rf"|a|an){s})?(?:next{s})?{REPLY}\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.into-page",
            reason="puts secrets in what every visitor of a page receives",
            pattern=rf"\b(?:include|embed|append|insert|add|put|hide|write|paste|hardcode"
            rf"|hard-code|inline){s}{gap(6)}{SECRET}{s}{gap(5)}(?:in|into|inside|within"
            rf"|as){s}{gap(4)}(?:html{s}comments?|<!--|page{s}source|(?:footer|header|template)"
            rf"(?:\.liquid|\.html)?{s}(?:of|on|for|in){s}(?:the{s}|every{s}|each{s}|all{s})?"
            rf"(?:public{s})?(?:pages?|site|storefront|web ?site)|client-side{s}(?:code|bundle|js"
            rf"|javascript|script)|(?:js|javascript|frontend){s}(?:bundle|snippet)|public{s}(?:pages?"
            rf"|site|dashboard|status page))",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.personal-data-made-public",
            reason="publishes people's identifying details in a public dataset or page",
            pattern=rf"\b(?:keep|include|publish|leave|add|expose|show|retain|list){s}{gap(6)}"
            rf"(?:(?:{_PEOPLE})(?:'s|')?{s}(?:names?|phones?|phone{s}numbers?|mobile{s}numbers?|(?:home{s})?"
            rf"addresses|emails?|e-?mail{s}addresses|dates?{s}of{s}birth|dob|ids?)|personal"
            rf"{s}(?:data|details|information)|pii|phone{s}numbers|home{s}addresses|dates{s}of"
            rf"{s}birth|social{s}security{s}numbers?)\b{s}{gap(8)}(?:in|into|on|to|with){s}(?:the"
            rf"{s}|our{s}|its{s})?(?:public|open|published|publicly{s}available)(?:{s}[a-z-]+)"
            rf"{{0,2}}{s}(?:extracts?|datasets?|data{s}sets?|exports?|portal|feeds?|csvs?|files?"
            rf"|releases?|pages?|site|dashboards?|api|downloads?)\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.into-shared-place",
            reason="puts secrets where everyone with the page or the channel reads them",
            pattern=rf"\b(?:paste|put|add|write|copy|share|post|include|drop|record|store|list)"
            rf"{s}{gap(6)}(?:{SECRET_STRICT}|key{s}values|logins?|usernames{s}and{s}passwords)"
            rf"\b{s}{gap(6)}(?:into|in|on|to|onto){s}(?:the{s}|a{s}|our{s}|an{s})?(?:[a-z'-]+{s})"
            rf"{{0,2}}?(?:public|shared|team-?wide|company-?wide|open){s}(?:[a-z'-]+{s}){{0,2}}?"
            rf"(?:pages?|docs?|documents?|sheets?|spreadsheets?|channels?|wiki|notion|confluence"
            rf"|summary|summaries|sections?|boards?|issues?|tickets?|threads?|posts?|folders?"
            rf"|drives?)\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.to-personal-storage",
            reason="copies people's records or secrets to someone's personal storage",
            pattern=rf"\b(?:copy|sync|upload|send|move|export|push|back{s}up|mirror|forward|save"
            rf"|put|transfer){s}{gap(12)}(?:(?:{_PEOPLE})(?:'s|')?{s}(?:[a-z-]+{s})?(?:data|ids?"
            rf"|records?|details|files?|lists?|information|manifests?|histor(?:y|ies))|{SENSITIVE}"
            rf"|{SECRET_STRICT})\b{gap(12)}{s}(?:to|into|onto|in){s}(?:his|her|their|[a-z]+'s"
            rf"|a|your){s}(?:personal{s}|private{s}|own{s})?(?:dropbox|google{s}drive|onedrive"
            rf"|icloud|gmail|laptop|github|gitlab|gist)\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.real-key-for-placeholder",
            reason="puts the real secret where docs and examples show a placeholder",
            pattern=rf"\b(?:use|using|put|paste|include|including|show|showing|keep|with|copy)"
            rf"{s}(?:(?:the|our|your|a){s})?(?:real|actual|live|production|prod){s}"
            rf"(?:[a-z-]+{s}){{0,2}}?(?:api{s})?"
            rf"(?:keys?|tokens?|secrets?|passwords?|credentials){s}(?:[^.;!?\n]|\.[^\s.]){{0,80}}"
            rf"\binstead{s}of{s}(?:the{s}|a{s})?(?:placeholders?|dummy|fake|example|sample|redacted)",
            negated_ok=True,
            described_ok=True,
        ),
        Rule(
            id="exfiltration.shown-in-output",
            reason="shows secrets in the agent's output",
            pattern=rf"\b(?:print|show|display|output|echo|dump|list|reveal|mention|quote|expose"
            rf"|publish|post|share|type|spell out|cat){s}{gap(4)}{SECRET_STRICT}{s}{gap(5)}(?:in"
            rf"|into|to|inside|within|at the end of|at the start of|under|on){s}(?:(?:the|your"
            rf"|every|each|all|any|a|an){s})?(?:next{s})?{REPLY}\b",
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
            rf"{SECRET_STRICT}[^.;\n]{{0,60}}?\b(?:in|into|to|on)\b[^.;\n]{{0,20}}?{REPLY}\b",
            negated_ok=True,
        ),
        Rule(
            id="exfiltration.attached",
            reason="attaches secrets to what the agent sends out",
            pattern=rf"\b(?:attach|include|paste|add|enclose){s}{gap(3)}{SECRET_STRICT}{s}{gap(3)}"
            rf"(?:when|whenever|while){s}(?:[a-z]+{s})?{gap(2)}{REPLY}\b",
            negated_ok=True,
            ordered=True,
        ),
        Rule(
            id="exfiltration.output-carries",
            reason="makes the agent's output carry secrets",
            pattern=rf"\b(?:end|start|begin|close|finish|sign|suffix|prefix|tag|stamp|label)"
            rf"(?:{s}(?:each|every|all|any))?(?:{s}of)?(?:{s}your)?{s}(?:next{s})?{REPLY}{s}"
            rf"{gap(8)}(?:with|by){s}{gap(8)}{SECRET_STRICT}|\b(?:reply|respond|answer)(?:{s}to{s}"
            rf"(?:the{s})?(?:user|them))?{s}with{s}{gap(6)}{SECRET_STRICT}|\b(?:(?:your|every|each"
            rf"|all|any){s})?"
            rf"(?:of{s}your{s})?(?:next{s})?{REPLY}{clause}(?:{WORD}{clause}){{0,4}}(?:(?:should"
            rf"|must|shall|will|need"
            rf" to|needs to|has to|have to|are to|is to){s})?(?:always{s}|also{s})?(?:include"
            rf"|includes|contain|contains|carry|carries|hold|holds|show|shows|list|lists|end with"
            rf"|ends with|start with|starts with|begin with|begins with|quote|quotes|embed|embeds"
            rf"|reveal|reveals|echo|echoes|have|has){s}{gap(6)}{SECRET_STRICT}|\b{SECRET_STRICT}"
            rf"{s}{gap(4)}(?:should|must|shall|will|needs? to|is to|are to){s}(?:always{s})?"
            rf"(?:appear|show up|be (?:visible|included|embedded|shown|printed|listed|quoted"
            rf"|echoed))(?:{s}(?:in|on|inside|within)){s}(?:(?:the|your|every|each|all|any){s})?"
            rf"(?:next{s})?{REPLY}",
            negated_ok=True,
            described_ok=True,
        ),
        Rule(
            id="exfiltration.to-be-sent",
            reason="has secrets sent to an outside address",
            pattern=rf"(?:\b|[^a-z0-9]){SECRET}{s}{gap(8)}(?:should|must|shall|is to|are to"
            rf"|needs? to"
            rf"|has to"
            rf"|have to|ought to){s}(?:(?:also|then|automatically|always|regularly|now){s})?"
            rf"(?:be{s})(?:(?:also|then|automatically|always|regularly){s})?(?:posted|sent"
            rf"|uploaded|emailed|mailed|pasted|shared|published|forwarded|copied|attached"
            rf"|included|added|put|committed|pushed|synced|mirrored|leaked|exposed|embedded"
            rf"|encoded|appended|transmitted|submitted|relayed|delivered|backed up){s}{gap(6)}"
            rf"(?:to|into|in|on|at|via|as|inside|onto|under|through|with){s}{gap(3)}(?:{DEST}"
            rf"|(?:every|each|all|any|your){s}(?:next{s})?{REPLY})|(?:\b|[^a-z0-9]){SECRET}{s}"
            rf"{gap(8, clause=True)}(?:belongs?|go|goes|should go|must go|land|lands|end up"
            rf"|ends up){s}(?:in|to|into|on){s}{gap(6)}{DEST}",
            described_ok=True,
            incident_ok=True,
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
            rf"|geheimnisse|chiavi|password|credenziali)[^.\n]{{0,80}}{DEST}",
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
            rf"{s}{gap(6)}(?:{SECRET}|summary of|contents of|the user's)",
            flat=False,
        ),
    )
