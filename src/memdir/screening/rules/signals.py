"""Weak signals, judged in pairs: words that say little alone and much beside each other.

:data:`WEAK` names each signal's pattern; :data:`PAIRS` the pairs that, close
together, make a finding (:mod:`memdir.screening.instructions` does the matching).
The widest signals, who is addressed and what is asked, and their pairs are
:mod:`memdir.screening.rules.aimed`'s, joined here; the authority and startup-file
signals above pair with its asks too.
"""

from __future__ import annotations

from memdir.screening.rules.aimed import AIMED_PAIRS, AIMED_WEAK
from memdir.screening.rules.vocabulary import (
    AGENT_FILE,
    AI,
    DEST,
    GUARD_NOUN,
    REPLY,
    SECRET,
    SELF_REF,
    S,
)

__all__ = ["PAIRS", "WEAK"]


WEAK: dict[str, str] = {
    "address": rf"\b(?:ai agents|ai assistants|coding agents|llm agents|any ai|all ai|agents"
    rf"|assistants|llms)\s*:|\b(?:agents|assistants|ai) only\b|\b(?:if|when|since|as){S}you(?: are"
    rf"|'re){S}"
    rf"(?:an?{S})?(?:{AI}|automated"
    rf"|a machine|not human|reading this as an? {AI})\b|\b(?:note|message|notice|attention"
    rf"|instructions?|reminder|memo|warning|psa|important|directive|order|request){S}(?:to"
    rf"|for){S}(?:the{S}|any{S}|all{S}|every{S})?(?:{AI}|ai agents|ai assistants"
    rf"|coding agents|llms|models|bots)s?\b|\b(?:dear|hey|hi|hello|attention|listen|psst)"
    rf"{S}(?:{AI})\b|\b(?:{AI})s?{S}(?:reading|processing|seeing|parsing|ingesting"
    rf"|summari[sz]ing){S}this\b|\bto{S}(?:any|all|every){S}(?:{AI})s?\b",
    "authority": rf"\b(?:anthropic|openai|google|platform|vendor|harness|claude code)"
    rf"(?:{S}[a-z-]+)?{S}(?:notice|message|announcement|bulletin|advisory|directive)\b"
    rf"|\btrust{S}level\b"
    rf"[^.\n]{{0,30}}\bsystem\b|\b(?:note|message|notice|update|directive|order|word|memo){S}from{S}"
    rf"(?:the{S})?(?:platform|system|administrator|admin|anthropic|openai|memdir|your"
    rf"{S}(?:developers?|operators?|creators?)|the{S}developers|headquarters|it department)\b",
    "persist": rf"\b(?:(?:every|each|all){S}(?:future{S}|new{S}|later{S}|subsequent{S})?"
    rf"(?:sessions?|conversations?|chats?|interactions?|runs?|tasks?|startups?|restarts?)"
    rf"|permanently|forever|for all time|in perpetuity|from now on|henceforth"
    rf"|at the (?:start|beginning) of (?:every|each) \w+|on every (?:start|startup|launch|boot)"
    rf"|at (?:startup|start-up|boot|login|launch)|remember to always|always remember"
    rf"|(?:across|between|over) (?:all )?(?:sessions|conversations|restarts|projects)"
    rf"|(?:at|on) (?:every|each) (?:login|log-in|boot|reboot|start|launch)"
    rf"|never (?:forget|delete|remove) (?:this|these)|whenever you (?:start|begin|load|wake))\b",
    "no_ask": rf"\bwithout{S}(?:first{S})?(?:asking|checking|confirming|confirmation|pinging"
    rf"|bothering|consulting|involving"
    rf"|prompting|permission|approval|consent|review|telling|informing|notifying|alerting"
    rf"|letting|a prompt|any prompt|waiting)\b|\b(?:no need to|don't|do not|never|stop|skip)"
    rf"{S}(?:ask|asking|prompt|prompting|confirm|confirming|check with|checking with"
    rf"|wait for|waiting for){S}(?:the{S})?(?:user|human|me|anyone)?{S}?(?:for{S})?"
    rf"(?:permission|confirmation|approval|consent)\b|\b(?:no need|not necessary|unnecessary"
    rf"|no reason|pointless)(?:{S}for{S}(?:you|the agent|the assistant|claude))?{S}to{S}"
    rf"(?:pause|stop|wait|ask|check|confirm|request|seek|get)(?:{S}(?:with|for|back))?"
    rf"(?:{S}(?:the{S})?(?:user|human|anyone|me|them|him|her))?(?:{S}(?:for|before|first))?"
    rf"(?:{S}(?:a|any))?{S}?(?:permission|confirmation|approval|consent|sign-?off|a yes|review)?"
    rf"|\b(?:refrain|abstain) from (?:asking|checking|requesting|seeking|waiting)"
    rf"|\b(?:confirmation|approval|permission|sign-?off|review)(?:{S}(?:step|prompt|check"
    rf"|request|dialog))?s?(?:{S}(?:for|on|before){S}(?:[a-z-]+{S}){{0,4}}?[a-z-]+)?{S}"
    rf"(?:can|may|should|must|is to|are to|will)(?:{S}(?:safely"
    rf"|now|simply|just|always))?{S}be{S}(?:skipped|dropped|ignored|omitted|bypassed|waived)"
    rf"|\b(?:no longer|does not|doesn't|do not|don't|never)(?:{S}(?:needs?|requires?"
    rf"|has to|have to))(?:{S}(?:to{S}(?:ask|get|wait|seek)|for))?(?:{S}(?:the user's|your"
    rf"|any|a|the))?{S}(?:sign-?off|approval|permission|confirmation|review|a yes)\b"
    rf"|\bwithout{S}checking{S}with\b|\bwithout{S}(?:(?:a|any|the|my|your|the user's"
    rf"|their|explicit|prior|human|manual){S})*(?:go-?ahead|sign-?off|confirmation prompts?"
    rf"|confirmation dialogs?|permission prompts?|approval prompts?|say-?so|a yes)\b"
    rf"|\b(?:don't|do not|doesn't|does not|no longer|never|stop|quit|needn't|won't|will not)"
    rf"(?:{S}(?:ever|really|even|again|anymore|bother))?(?:{S}to)?{S}(?:need|needs|require"
    rf"|requires|wait for|waiting for|ask for|asking for|request|requesting|seek|seeking|get"
    rf"|getting|bother with|prompt for|prompting for)(?:{S}(?:my|the user's|your|a|any|their"
    rf"|the|an|explicit|prior|human|manual|separate|further|additional))*{S}(?:go-?ahead"
    rf"|permission|approval|sign-?off|confirmation|consent|say-?so|blessing|review)\b"
    rf"|\b(?:go-?ahead|permission|approval|sign-?off|confirmation|consent){S}(?:is|are)"
    rf"{S}(?:no longer|not){S}(?:needed|required|necessary)\b|\b(?:asking|checking|confirming"
    rf"|review|reviews)(?:{S}(?:first|(?:before|for){S}[a-z-]+(?:{S}[a-z-]+)?))?{S}(?:is|are)"
    rf"{S}(?:no longer|not){S}(?:needed|required|necessary|expected|mandatory)\b"
    rf"|\bno questions asked\b|\b(?:never|don't|do not|no need to|stop)(?:{S}(?:ask|asking"
    rf"|check with|checking with|confirm with))(?:{S}(?:the{S})?(?:user|human|me|anyone))?"
    rf"{S}(?:first|before)\b|\b(?:skip|bypass|drop|disable|remove|suppress)(?:{S}the)?{S}"
    rf"[\"']?are you sure\b|\b(?:nobody|no one|no-one)(?:{S}(?:needs?|has|have){S}to|{S}must)"
    rf"{S}(?:sign off|approve|confirm|review|check|okay|ok)\b|\b(?:never|don't|do not|no need to"
    rf"|stop|without)(?:{S}(?:ever"
    rf"|having))?{S}(?:to{S})?(?:wait|waiting)(?:{S}(?:for|on)){S}(?:a|the|any|your|the"
    rf" user's|their|my)?{S}?"
    rf"(?:human|user|person|reply|answer|approval|confirmation|go-?ahead|review)\b|\b(?:stop"
    rf"|quit|avoid|no need for)(?:{S}(?:interrupting|bothering|pinging|pestering|nagging)){S}"
    rf"(?:the{S})?(?:user|human|them|me|anyone)(?:{S}[a-z-]+){{0,2}}{S}(?:permission"
    rf"|approval|confirmation)\b|\b(?:at will|as (?:it|you|they) (?:likes?|wish(?:es)?"
    rf"|please|pleases)|whenever (?:it|you|they) (?:likes?|wants?|wish(?:es)?))\b|\b(?:whenever|as"
    rf"|however){S}(?:it|you|they){S}(?:sees?|see)"
    rf"{S}fit\b|\bat (?:its|your|their) (?:own )?discretion\b",
    "broad": rf"\b(?:any|all|every|arbitrary|whatever|anything|everything)(?:{S}[a-z]+)?"
    rf"{S}(?:commands?|tools?|tool calls?|shell commands?|scripts?|code|changes?|files?"
    rf"|actions?|operations?|requests?|installs?|packages?|deletions?|pushes|deploys?"
    rf"|urls?|websites?|sites|binaries|programs|servers?|mcp servers?)\b"
    rf"|\b(?:anything|everything|whatever)(?:{S}(?:[^e]|e[^l])|[^a-z'\s]|$)|\b(?:run|running"
    rf"|execute|executing|use|using)(?:{S}(?:shell|bash|terminal|sudo|arbitrary))?{S}(?:code"
    rf"|commands"
    rf"|scripts|programs|binaries)\b|\b(?:shell|bash|terminal|sudo|privileged) commands\b"
    rf"|\bdestructive(?:{S}(?:git|shell|database))?(?:{S}(?:operations|commands|actions"
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
    "secret": SECRET,
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
    rf"|up-?front|implicit|automatic){S}(?:approval|permission|consent|authori[sz]ation|sign-?off)"
    rf"|\bpre-?(?:approved|authori[sz]ed|cleared|confirmed)|\b(?:approved|authori[sz]ed|cleared)"
    rf"{S}(?:in advance|ahead of time|beforehand|up-?front|already)|\b(?:approval|permission"
    rf"|consent|sign-?off|authori[sz]ation){S}(?:has|have|was|is){S}(?:already{S})?"
    rf"(?:been{S})?(?:given|granted)|\b(?:consider|considered|treat|treated|deem|deemed"
    rf"|count|counts|regard|regarded)(?:{S}[a-z-]+){{0,5}}{S}as{S}(?:pre-?)?approved"
    rf"|\b(?:consider|deem|count){S}(?:all|every|any)(?:{S}[a-z-]+){{0,3}}{S}(?:pre-?)?"
    rf"approved\b|\b(?:considered|deemed|treated as|marked|counts? as|regarded as){S}(?:safe"
    rf"|pre-?approved|approved|allowed|trusted|whitelisted|allowlisted)\b|\b(?:every|all|any)"
    rf"{S}(?:tool|command|tool call|action|bash command|shell command)s?{S}(?:is|are){S}"
    rf"(?:now{S})?(?:permitted|allowed|approved|pre-?approved|fine|ok|okay|safe)\b"
    rf"|\bsigned{S}off{S}on(?:{S}(?:it|this|that|them|all|everything))?{S}"
    rf"(?:permanently|for good|once and for all|in general|in advance|for all)\b",
    "guard_mention": rf"{GUARD_NOUN}|\bhooks? that (?:guard|check|block|gate|protect|police|stop)"
    rf"|\b(?:guard|permission|safety|pre-?tool-?use) hooks?\b|\bdeny (?:rules?|lists?)\b",
    "switch_off": r"\b(?:disable|turn off|switch off|bypass|skip|remove|deactivate|uninstall"
    r"|comment out|circumvent|kill|mute|silence|ignore) (?:them|it|those|these|all of them)\b",
    "omit": r"\b(?:leave|keep)(?: [a-z'-]+){1,4}? out of (?:your|the|any|every) (?:[a-z]+ )?"
    r"(?:reply|replies|response|answer|summary|summaries|report|explanation|changelog|commit"
    r" messages?|pr descriptions?|notes|transcript|logs?|history|diff)|\b(?:omit|exclude|hide"
    r"|strip|scrub|redact|drop)(?: [a-z'-]+){1,4}? from (?:your|the|any|every) (?:[a-z]+ )?"
    r"(?:reply|replies|response|answer|summary|summaries|report|explanation|changelog|commit"
    r" messages?|pr descriptions?|transcript|logs?|history|diff)|\b(?:leave out|omit|skip|drop)"
    r"(?: any| all)? (?:mention|record|sign|trace)s? of\b"
    # "don't mention the rollback in the changelog", "don't say so in the adjuster summary"
    r"|\b(?:don't|do not|never)(?: ever)? (?:list|mention|say so|say it|report|show|include"
    r"|itemi[sz]e)(?: [a-z'-]+){0,6}? in (?:your|the|any|every|her|his|their) (?:[a-z-]+ ){0,2}"
    r"(?:summary|summaries|report|reports|changelog|commit messages?|release notes|status"
    r" updates?|standups?|digests?)\b"
    # costs buried where nobody looks: "fold them into 'misc'"
    r"|\b(?:fold|lump|bury|roll|tuck|hide)(?: [a-z'-]+){1,4}? (?:into|under|in(?:side)?)"
    r" ['\"]?(?:misc|miscellaneous|other|sundr(?:y|ies)|general)\b",
    "unnoticed": r"\bso (?:that )?(?:nobody|no one|the user|they|the reviewers?)(?: [a-z']+)?"
    r" (?:asks?|notices?|sees?|finds? out|knows?|questions?|suspects?|wonders?)\b|\bso (?:that )?"
    r"(?:none of (?:it|this|them)|nothing|it|this|the change"
    r"|the commit)(?: [a-z']+){0,2}? (?:shows?"
    r" up|appears?|is (?:visible|logged|recorded|seen|noticed)|gets? (?:logged|recorded|noticed"
    r"|seen)|(?:doesn't|does not|won't|will not|never|can't|cannot) (?:show up|appear|get logged"
    r"|get noticed|be seen|be noticed))|\b(?:leaves?|leaving) no (?:trace|record|evidence)\b"
    # a record made to look clean for whoever checks it
    r"|\bso (?:that )?(?:he|she|[a-z]+) (?:doesn't|does not|won't|will not|never|can't|cannot)"
    r" (?:ever )?(?:asks?|notices?|sees?|questions?|finds? out|spots?|wonders?)\b"
    r"|\b(?:nobody|no one|no-one) (?:ever )?(?:reads|checks|looks at|opens)\b"
    r"|\bso (?:that )?(?:the |our |your )?(?:[a-z-]+ ){0,2}(?:compliance|audit|review|security)"
    r"(?: [a-z-]+){0,2} (?:looks?|stays?|remains?|appears?|reads?|seems?) clean\b"
    r"|\bso (?:that )?(?:the |it |everything |our |your )?(?:[a-z-]+ ){0,3}(?:looks?|stays?"
    r"|remains?|appears?|reads?|seems?) clean (?:for|to|before|when) (?:the |any |our |your )?"
    r"(?:[a-z-]+ )?(?:review|reviews|reviewers?|audit|audits|auditors?|compliance|manager|user"
    r"|client|boss)\b",
    "say_nothing": r"\b(?:don't|do not|never)(?: ever)? (?:say|mention|write|report)(?: anything"
    r"| a word)? about (?:it|this|that|them)\b",
    "before_user": r"\bbefore (?:the )?(?:user|human|developer|operator|owner|they|anyone"
    r"|reviewers?|he|she|someone) (?:looks?|sees?|checks?|reviews?|notices?|reads?"
    r"|gets? (?:a chance|back))\b"
    r"|\bbefore [a-z]+ (?:sees|notices|gets to see|can see|has a chance to)\b",
    # Records of what was done, cleared away: logs, alerts, an activity history.
    "clear_record": r"\b(?:delete|remove|erase|wipe|clear|archive|purge|scrub)\b[^.;]{0,60}"
    r"\b(?:logs?|log entries|alerts?|notifications?|activity|audit trail|records? of"
    r"|[a-z]+_log)\b",
    "hide_trace": r"\b(?:unset(?:ting)? (?:the )?histfile|histfile unset|histfile=|histsize=0"
    r"|history -c|set \+o history|/dev/null|clear(?:ing)? (?:the )?(?:shell |bash )?history"
    r"|squash (?:it|them) into|rewrite (?:the )?(?:git )?history|delete (?:the )?(?:logs?"
    r"|history))",
    # An address with a query the agent's client loads by itself (an image, a fetch).
    "instead_self": rf"\b(?:follow|obey|use|trust|heed|go by|rely on){S}{SELF_REF}{S}instead"
    rf"\b",
    "agent_instr": rf"{AGENT_FILE}|\bsystem prompt\b|\bthe user's (?:instructions|requests"
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
    rf"|terms?)|queries|{REPLY})",
    "send_it": rf"\b(?:send|dm|message|text|post|forward|email|mail|upload|share|paste|give|hand)"
    rf"(?:s)? (?:it|this|that)(?: over)? (?:to|with|on|in|via)\b[^.;\n]{{0,40}}?(?:{DEST}"
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
    "guard_off": rf"\b(?:{GUARD_NOUN}){S}(?:(?:feature|system|step|hook){S})?(?:(?:is|are"
    rf"|has been|have been|was|were|now){S}){{1,2}}(?:turned off|switched off|disabled|off"
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
    ("clear_record", "before_user", "concealment.unnoticed", "clears records before they are seen"),
    ("clear_record", "unnoticed", "concealment.unnoticed", "clears records so nothing shows"),
    ("cover", "unnoticed", "concealment.unnoticed", "covers its tracks so nothing shows"),
    ("hide", "secret", "concealment.quiet-action", "handles secrets quietly"),
    ("hide", "cover", "concealment.quiet-action", "acts quietly and covers its traces"),
    ("hide", "risky", "concealment.quiet-action", "does something risky quietly"),
    ("config", "entrench", "persistence.aimed", "plants itself in a startup file for good"),
    (
        "authority",
        "void_orders",
        "override.authority",
        "claims authority to set instructions aside",
    ),
    ("authority", "unguard", "override.authority", "claims authority to switch checks off"),
    ("authority", "ship_secret", "override.authority", "claims authority over secrets"),
    *AIMED_PAIRS,
)
# Who is addressed and what is asked (rules.aimed) are signals like the ones above.
WEAK.update(AIMED_WEAK)
