"""Rules that widen what the agent may do: approval declared in advance, checks
switched off, acting without asking.

A feedback memory may say "run the tests without asking": what holds is the agent's
own guards (hooks, approvals, sandboxes) switched off or answered in advance.
"""

from __future__ import annotations

from memdir.screening.rules.vocabulary import GUARD_NOUN, Rule, S, gap

__all__ = ["rules"]


# A check declared empty: "the DBA review step is a formality", "sign-off is a rubber stamp".
_FORMALITY = (
    rf"\b(?:reviews?|sign-?offs?|approvals?|checks?|gates?|verifications?|validations?|second"
    rf"{S}approvers?|double{S}validations?)\b(?:{S}[a-z-]+){{0,3}}?{S}(?:is|are){S}(?:just{S}|only"
    rf"{S}|merely{S}|purely{S}|basically{S}|mostly{S})?(?:a{S})?(?:formality|formalities|rubber"
    rf"[- ]stamp|box-?ticking)\b"
)


def rules() -> tuple[Rule, ...]:
    """The permissions rules, in the order they are tried."""
    s = S
    return (
        # -- permissions -------------------------------------------------------
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
            id="permissions.self-grant",
            reason="has the agent give itself rights",
            # "give yourself …", or the agent named: "the agent can assign itself the … role"
            pattern=r"(?:\b(?:give|grant|assign)\s+yourself|\b(?:agent|assistant|bot|ai)\s+(?:(?:can"
            r"|could|should|may|must|will|is allowed to|is free to)\s+)?(?:give|grant|assign)s?\s+"
            r"itself)\s+(?:[a-z-]+\s+){0,3}?(?:admin|administrator|root|owner|superuser|elevated"
            r"|full|write|edit|role|rights|privileges?|permissions?)\b|(?:\badd\s+yourself|\b(?:agent"
            r"|assistant|bot|ai)\s+(?:(?:can|could|should|may|must|will)\s+)?adds?\s+itself)\s+to\s+"
            r"(?:the\s+)?(?:[a-z-]+\s+)?(?:admins?|administrators|owners|sudoers|wheel)\b"
            # Dutch, German, French, Spanish, Portuguese, Italian, Polish, Indonesian: the agent
            # gives itself, then rights, a role or access
            r"|(?:\b(?:geef|ken)\s+jezelf|\b(?:gib|erteile|verschaffe)\s+dir|\b(?:donne|accorde"
            r"|attribue)-toi|\b(?:donnez|accordez|attribuez)-vous|\b(?:otorgate|asignate|concedete)"
            r"|\bda(?:te)?\s+a\s+ti\s+mism[oa]|\b(?:de|conceda|atribua)(?:\s+a\s+si\s+mesm[oa]|-se)"
            r"|\b(?:datti|concediti|assegnati|attribuisciti)|\b(?:nadaj|przyznaj|daj)\s+sobie"
            r"|\bberi(?:kan)?\s+(?:dirimu|diri\s+sendiri))\b[^.\n]{0,60}\b(?:[a-z]*rechten|rechte"
            r"|[a-z]*rechte|beheerder[a-z]*|admin[a-z]*|administra[a-z]*|droits?|acces|role|roles"
            r"|permis[a-z]*|acceso|rol|derechos|permissoes|acesso|papel|permessi|accesso|ruolo"
            r"|diritti|uprawnieni[a-z]*|dostep[a-z]*|akses|hak)\b"
            r"|\bkendi(?:ne|nize)\b[^.\n]{0,60}\b(?:yonetici|admin|yetki|rol)[a-z]*\b[^.\n]{0,20}"
            r"\b(?:ver|verebilir|verin|ata|atayabilir)\b",
            negated_ok=True,
            described_ok=True,
        ),
        Rule(
            id="permissions.guard-downgraded",
            reason="treats the agent's permission rules as optional",
            pattern=rf"\b(?:treat|consider|regard|see|take){s}(?:(?:the|your|any|all){s})?"
            rf"(?:{GUARD_NOUN}|deny (?:rules?|lists?)|allow ?lists?|hooks?){s}as{s}(?:mere{s})?"
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
            rf"|skip[\s_-]?(?:guard|hooks?|checks?|permissions?|review|screening)\s*=\s*(?:1|true"
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
            id="permissions.signs-unseen",
            reason="signs agreements in the person's name without showing them first",
            pattern=rf"\b(?:sign|signs|signing|e-?sign|countersign)\b[^.;\n]{{0,80}}\bon{s}(?:[a-z]+'s"
            rf"|her|his|their|the{s}user's|my|our{s}client's){s}behalf\b[\s\S]{{0,160}}?\b(?:no{s}need"
            rf"{s}to{s}(?:show|ask|check{s}with|run{s}(?:it|them){s}(?:by|past))|without{s}(?:showing"
            rf"|asking|checking{s}with|telling|her|his|their|the{s}user's){s}|(?:don't|do{s}not"
            rf"|never){s}(?:show|ask|check{s}with|wait{s}for))",
            negated_ok=True,
        ),
        Rule(
            id="permissions.guard-called-formality",
            reason="calls a review or an approval a formality and acts past it",
            pattern=rf"(?:{_FORMALITY})[\s\S]{{0,200}}?\b(?:skip|bypass|directly|straight"
            rf"|without|yourself)\b|\b(?:skip|bypass|directly|straight|without|yourself)\b"
            rf"[\s\S]{{0,200}}?(?:{_FORMALITY})",
            negated_ok=True,
            needs=(r"\bformalit|rubber.stamp|box.ticking",),
        ),
        Rule(
            id="permissions.self-approve-other-language",
            reason="lets the agent approve its own act (in another language)",
            pattern=r"\b(?:approuve|valide|approuvez|validez|signe|signez) (?:toi|vous)-meme\b"
            r"|\b(?:aprueba|apruebalo|apruebala|autoriza|autorizalo) (?:tu|usted) mism[oa]\b"
            r"|\bgenehmige (?:sie |es |das )?selbst\b|\bapprova(?:lo|la)? (?:tu )?(?:stesso|stessa"
            r"|da solo|da sola)\b|\baprove (?:voce|tu) mesm[oa]\b|\bkeur (?:het )?zelf goed\b",
            negated_ok=True,
        ),
        Rule(
            id="permissions.disable-guard",
            reason="switches off the agent's permission checks or review",
            pattern=rf"\b(?:disable|turn off|switch off|bypass|skip|remove|deactivate|uninstall"
            rf"|delete|circumvent|kill|get around|work around|override|ignore|suppress|silence"
            rf"|mute|evade|sidestep|avoid triggering|defeat|neuter|neutralize|comment out){s}"
            rf"(?:(?:the|all|any|every|your|its|their){s})?(?:{GUARD_NOUN})\b",
            negated_ok=True,
            quoted_ok=True,
            described_ok=True,
        ),
        Rule(
            id="permissions.guard-off",
            reason="declares the agent's permission checks or review off",
            pattern=rf"\b(?:{GUARD_NOUN}){s}(?:(?:feature|system|step|hook){s})?(?:(?:is|are"
            rf"|has been|have been|was|were|now){s}){{1,2}}(?:turned off|switched off|disabled"
            rf"|suspended|bypassed|deactivated|removed|lifted|waived|not active|inactive|off"
            rf"|no longer (?:active|enforced|required|needed|applied)){s}(?:for{s}(?:you|this"
            rf" (?:agent|assistant|session|account|project|repo|repository|workspace|machine)"
            rf"|the (?:agent|assistant)|claude|agents))\b"
            rf"|\b(?:{GUARD_NOUN}){s}(?:(?:is|are|has been|have been|now){s}){{1,2}}"
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
            r"|dont-ask|don't ask)|--full-auto\b|approval[\s-]?policy\W{0,3}(?:to\W{1,3})?never"
            r"|ask[\s-]for[\s-]approval\W{0,3}(?:to\W{1,3})?never|sandbox[\s-]?mode\W{0,3}(?:to"
            r"\W{1,3})?danger|default[\s-]?mode\W{0,3}(?:to\W{1,3})?(?:bypasspermissions|dontask)"
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
            rf"/settings\.json)|\bbash\(\s*\*\s*\)|\"allow\"\s*:\s*\[[^\]]{{0,80}}(?:\"\*\""
            rf"|\b(?:bash|webfetch|write|edit|multiedit)\(\s*\*\s*\))",
            flat=False,
        ),
    )
