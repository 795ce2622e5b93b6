"""The words the screening rules share, named once, and the :class:`Rule` they are written as.

What an override verb is, what a secret is (and what other data is sensitive:
card details, customers' records, cloud credentials), where it may be sent, who the user
is, how a memory names itself, which files an agent reads as its own
instructions: each is a pattern fragment the rules of every class compose
(:mod:`memdir.screening.rulebook`). ``S`` is the space between two words (a
line break too, never a full stop), :func:`gap` a few words of any kind.
"""

from __future__ import annotations

from typing import Any

from memdir.utils.records import record

__all__ = [
    "AGENT_FILE",
    "AI",
    "DEST",
    "EARLIER",
    "GUARD_NOUN",
    "ORDERS",
    "OVERRIDE",
    "PRINCIPAL",
    "REPLY",
    "SECRET",
    "SECRET_STRICT",
    "SELF",
    "SELF_NOUN",
    "SELF_REF",
    "SEND",
    "SENSITIVE",
    "WORD",
    "S",
    "any_of",
    "gap",
    "order_rule",
]

# Between two words: a space or a line break, maybe with punctuation, never a full stop.
S = r"[^a-z0-9.!?]{1,3}"
# One word: letters, digits and the marks of paths and addresses (a dot only inside).
WORD = r"[a-z0-9'/\-~_@$]+(?:\.[a-z0-9'/\-~_@$]+)*"


def gap(words: int, *, clause: bool = False) -> str:
    """Up to ``words`` words of any kind; with ``clause``, of one clause, which a semicolon
    ends ("passwords by email; reports go to phishing@…" sends no password)."""
    between = r"[^a-z0-9.!?;]{1,3}" if clause else S
    return rf"(?:{WORD}{between}){{0,{words}}}"


def any_of(*alternatives: str) -> str:
    """One group matching any of ``alternatives``."""
    return "(?:" + "|".join(alternatives) + ")"


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
    narrowed_ok: bool = False  # restricted, narrowed (here or further on) or bounded: a house rule
    incident_ok: bool = False  # a secret's leak under a condition is a runbook for the event
    claimed_ok: bool = False  # "a note saying it outranks…" reports the claim, not makes it
    for_person_ok: bool = False  # "…, the user wins": a conflict settled for the person
    named_ok: bool = False  # "there is also --x", "we considered --x": the thing named, not used
    needs: tuple[str, ...] = ()  # patterns every match holds: tried first (instructions)


def order_rule(**fields: Any) -> Rule:
    """A rule for an order that needs no addressee: like every such rule, it stands down in a
    quotation and in a sentence about attacks."""
    return Rule(quoted_ok=True, described_ok=True, **fields)


# ---- vocabulary ---------------------------------------------------------------------------

# The memory speaking of itself ("this note", "the following line", "a copy of this").
SELF_REF = (
    r"(?:this one|(?:this|these|the following|the above|the same)(?: [a-z]+)? (?:note|notes|memory"
    r"|memories|rule|rules|instruction|instructions|line|lines|text|paragraph|preference|file"
    r"|convention|conventions|guidance"
    r"|directive|policy|entry|block|snippet|reminder|section|sentence)|the (?:paragraph|note|text"
    r"|lines?|instructions?|rule|reminder) (?:above|below)|this|the following)"
)
# The person the agent works for.
PRINCIPAL = (
    r"(?:(?:the )?(?:user|human|developer|operator|owner)|the person (?:you|the agent"
    r"|the assistant)"
    r" (?:work for|works for|work with|works with|are helping|is helping|help|helps|assist"
    r"|assists)|your (?:user|human|owner|principal|boss))"
)
# Files a coding agent reads as its own standing instructions.
AGENT_FILE = (
    r"(?:claude\.md|agents\.md|gemini\.md|~/\.claude[a-z./-]*|\.cursorrules|\.clinerules"
    r"|copilot-instructions(?:\.md)?|\.github/copilot-instructions\.md)"
)

AI = (
    r"(?:ai|a\.i\.|llm|llms|large language model|language model|model|assistant|ai assistant"
    r"|agent|ai agent|coding agent|bot|chatbot|claude|chatgpt|gpt|gpt-4|copilot|codex|gemini"
    r"|cursor)"
)
OVERRIDE = (
    r"(?:ignore|ignoring|disregard|disregarding|forget|override|overrule|bypass|discard|abandon"
    r"|nullify|circumvent|set aside|throw out|stop following|stop obeying|do not follow"
    r"|don't follow|dont follow|no longer follow|never follow|disobey|do not obey|don't obey"
    r"|do not listen to|don't listen to|stop listening to|pay no attention to|do not comply with"
    r"|don't comply with|do not adhere to|don't adhere to|do not respect|don't respect"
    r"|pay no regard to|pay no heed to|take no notice of|give no weight to|brush aside|put aside"
    r"|don't bother following|do not bother following|no need to follow|stop using)"
)
EARLIER = (
    r"(?:previous|prior|preceding|earlier|above|former|original|initial|foregoing|aforementioned"
    r"|given|standing|user's|users'|users|user|system|system's|developer's|developer|operator's"
    r"|operator|safety|real|actual|core|built-in)"
)
ORDERS = (
    r"(?:instructions?|directives?|guidelines?|guidance|rules|prompts?|system prompt|guardrails?"
    r"|constraints?|restrictions?|policies|commands|orders|directions|programming|requests"
    r"|training|wishes|limits|limitations|context)"
)
SELF = r"(?:this|these|the following|my)"
SELF_NOUN = (
    r"(?:memory|memories|note|notes|file|message|text|instructions?|rules?|directives?|entry"
    r"|guidance)"
)
SECRET = (
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
SECRET_STRICT = (
    r"(?:secrets?|credentials?|passwords?|passwd|passphrases?|(?:api|access|secret|private|ssh"
    r"|signing|deploy|gpg|pgp|encryption|master) keys?|api-keys?|apikeys?|(?:auth|access"
    r"|session|bearer|oauth|api|refresh|personal access|deploy|npm|github|gitlab|slack) tokens?"
    r"|session cookies?|id rsa|id ed25519|\.env\b|\.env files?|dotenv|\.aws|aws credentials"
    r"|\.ssh|\.npmrc|\.pypirc|\.netrc|\.git-credentials|kube ?config|keychain|keystore"
    r"|seed phrases?|/etc/passwd|/etc/shadow|(?:output|contents?|values?|dump) of (?:env|printenv"
    r"|the environment)\b|the user's (?:[a-z]+ ){0,2}(?:files|messages|emails|documents|notes)"
    r"|conversation history|chat history|shell history)"
)
SEND = (
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
DEST = (
    r"(?:https?://|www\.|ftp://|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|xyz|ru|cn|top"
    r"|site|online|app|me|co|info|biz|tk|ml|ga|cf|gq|sh|ly|to|cc|pw|ws|click|link|zip|dev|fr"
    r"|de)\b|\b(?:\d{1,3}\.){3}\d{1,3}\b|[a-z0-9._%+-]+@[a-z0-9-]+\.[a-z.]{2,}|pastebin"
    r"|hastebin|requestbin|pipedream|ngrok|webhook\.site|interact\.sh|burpcollaborator"
    r"|oastify|discord(?:app)?\.com/api/webhooks|telegram|t\.me/|a (?:public |secret )?gist"
    r"|a public (?:repo|repository|issue|comment|channel|bucket)|(?:the|a|an|this|that|our"
    rf"|my){S}(?:webhook|endpoint|collector|bucket|inbox|url|address below|address above)"
    r"|(?:an? |the |this |my |our |that )?(?:external|remote|third-party|third party|outside"
    r"|attacker's|attacker|following|given|collection|collector|backup|analytics|listed"
    rf"|below){S}(?:server|url|endpoint|address|host|webhook|site|domain|inbox|bucket|api"
    r"|machine|ip|service)|(?:analytics|telemetry|tracking|metrics) (?:events?|payloads?|calls?"
    r"|pings?|requests?)|(?:s3|gs|az|sftp|scp|rsync)://|(?:an? |the |our |my |this |that )?"
    r"(?:shared|public|external|personal|outside|open) (?:drive|folder|link|doc|document|channel"
    r"|gist|paste|board|page|space|sheet|spreadsheet|wiki|forum|pad)|(?:the |a |an |our |any |this"
    r"|[a-z0-9-]+ ){0,2}(?:slack|discord|teams|telegram|whatsapp|mattermost|irc|matrix|zulip"
    r"|gitter)\b|(?:a |the |an )?comment on (?:the |an? )?(?:issue|pr|pull request|ticket)"
    r"|(?:the |an? )?(?:issue|ticket) (?:tracker|#? ?\d+))"
)
REPLY = (
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
GUARD_NOUN = (
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
    r"|access (?:controls?|restrictions?)|(?:shell|file|network|write) access restrictions?"
    r"|pii(?:_| )masking|data(?:_| )masking|row(?:-| )level security)"
)
# Data that is not a credential but must not leave either: payment and bank details, people's
# identifying records, cloud and database access, a browser's stored sessions. Each named with
# what makes it sensitive ("card numbers", "customers table"), never a bare "emails" or "numbers".
SENSITIVE = (
    r"(?:(?:credit |debit |payment |bank |stored |saved )?card (?:numbers?|details|data|info)"
    r"|cvvs?|cvcs?|card expiry|expiry dates|(?:bank )?account numbers?|bank (?:details|logins?)"
    r"|ibans?|routing numbers?|sort codes?|salar(?:y|ies)|payroll (?:data|records|files?|exports?)"
    r"|tax ids?|ssns?|social security numbers?|national (?:id|insurance) numbers?"
    r"|passport (?:numbers?|scans?|details)|id (?:card )?numbers?|dates? of birth|home addresses"
    r"|(?:customer|client|patient|employee)s?'? (?:pii|data|records|list|details|emails"
    r"|email addresses|phone numbers|addresses|table|database|db|profiles|accounts)"
    r"|(?:customers|clients|patients|employees|users)'? (?:[a-z]+ ){0,2}(?:data|records|details"
    r"|numbers|addresses)|\bpii\b|personal data|personally identifiable information"
    r"|medical records|health records|service-? ?accounts? (?:json|keys?|credentials|files?)"
    r"|(?:gcp|gcloud|azure|cloud|aws|s3) (?:credentials|keys|access keys?|secrets)"
    r"|~/\.(?:aws|ssh|kube|config/gcloud|docker|gnupg)[a-z0-9_./-]*"
    r"|database (?:urls?|passwords?|dumps?|credentials)|db (?:urls?|passwords?|dumps?)"
    r"|connection strings?|browser (?:cookies|sessions?|profiles?|passwords)|cookie (?:jar|store"
    r"|files?)|saved passwords|password managers?|(?:1password|bitwarden|lastpass) (?:vaults?"
    r"|exports?))"
)
