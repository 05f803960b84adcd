"""Instructions to the agent found by the shape of a sentence, not by trigger words: who is addressed (the
assistant, "anyone summarizing this"), in what mood (an obligation, an imperative, a standing rule for every
reply), and what it does (claims the assistant agreed to something, switches a safety check off).

Each pattern reads text folded by `instructions.fold` (quotes straight, runs of spaces as one) and runs in
linear time: every repeat is bounded and every pattern starts at a word.
"""

from __future__ import annotations

import re

_MODAL = r"(?:must|shall|should|ha(?:ve|s)\s+to|needs?\s+to|(?:is|are)\s+to|(?:is|are)\s+(?:required|expected|supposed|meant)\s+to)"
_TELL = (
    r"(?:tell|say|inform|describe|mention|recommend|answer|reply|respond|send|share|forward|give|show|call|refer|claim|state|report|"
    r"explain|quote|promise|assure|suggest|advise|warn|e-?mail|message|text|notify|present|rate|rank|praise|promote)"
)
_OTHERS = (
    r"(?:every(?:one|body)?|all|any(?:one|body)?|each|others|(?:the\s+|our\s+|my\s+)?(?:users?|customers?|clients?|people|visitors?|"
    r"callers?|members?|readers?|staff|colleagues?|team|public|audience|buyers?|investors?))"
)
# What keeps the person or the agent safe: switching one of these off is never stored as a plain fact.
_SAFETY = (
    r"(?:2fa|mfa|two[\s-]?factor(?:\s+auth\w*)?|multi[\s-]?factor(?:\s+auth\w*)?|authentication|verification|identity\s+checks?|"
    r"confirmations?|(?:code|security|peer)\s+reviews?|reviews?|approvals?|sign[\s-]?offs?|safety\s+(?:checks?|filters?|rules?|settings?)|"
    r"security\s+(?:checks?|warnings?|alerts?|scans?|policies|policy|questions?)|content\s+(?:filter(?:s|ing)?|moderation)|moderation|"
    r"spam\s+filters?|guardrails?|phishing\s+(?:warnings?|checks?|filters?|alerts?)|warnings?|antivirus|virus\s+scan(?:s|ning)?|firewalls?|"
    r"backups?|tests|testing|unit\s+tests|ci|audits?|audit\s+logs?|logging|encryption|rate\s+limits?|spending\s+limits?|fraud\s+(?:checks?|alerts?)|"
    r"checks|safeguards?|protections?|lock\s*screen|screen\s+lock|passcode|password\s+requirements?)"
)
_OFF = (
    r"(?:disabl(?:e|ed|es|ing)|turn(?:ed|ing|s)?\s+off|switch(?:ed|ing|es)?\s+off|shut(?:ting|s)?\s+off|skip(?:ped|ping|s)?|"
    r"bypass(?:ed|ing|es)?|circumvent(?:ed|ing|s)?|waiv(?:e|ed|es|ing)|suspend(?:ed|ing|s)?|remov(?:e|ed|es|ing)|"
    r"ignor(?:e|ed|es|ing)|deactivat(?:e|ed|es|ing)|drop(?:ped|ping|s)?|opt(?:ed|ing)?\s+out\s+of|exempt(?:ed)?\s+from|"
    r"without(?:\s+any)?|no\s+(?:more|longer)|get\s+rid\s+of|do\s+away\s+with)"
)
_DET = r"(?:(?:the|any|all|my|your|his|her|our|their|a|an|its|these|those|this|that)\s+)?"
# A frame that makes a clause a rule or a permission rather than a report of what happened.
_FRAME = (
    r"(?:may|can|could|should|must|will|'ll|allowed|permitted|authori[sz]ed|fine|ok|okay|alright|free\s+to|feel\s+free|go\s+ahead|"
    r"approved?|agreed|wants?|prefers?|happy\s+(?:to|for)|don'?t\s+mind|safe\s+to|no\s+problem|policy|always|never|from\s+now|going\s+forward)"
)
_CLAUSE = r"(?:^|[.!?;:,\n(]\s{0,3}|\b(?:so|and|then|please|just|kindly|also)\s{1,3})[\"'\[(*\-]{0,2}\s{0,2}"

STRUCTURE_PATTERNS: dict[str, re.Pattern] = {
    # "you must tell every user that ...", "you should recommend the premium plan to customers"
    "assistant-obligation": re.compile(
        r"\byou\s+(?:" + _MODAL + r"|will\s+(?:always|never|now)|'ll\s+(?:always|never))\s+(?:always\s+|never\s+|now\s+|also\s+|only\s+)?"
        + _TELL + r"\s+(?:it\s+|this\s+|that\s+)?(?:to\s+)?" + _OTHERS + r"\b",
        re.I,
    ),
    # a rule for every reply or for the conversations to come: "every reply should end with ...", "going forward, reply ..."
    "standing-rule": re.compile(
        r"\b(?:every|each|all|any)\s+(?:future\s+|later\s+)?(?:repl(?:y|ies)|responses?|answers?|messages?\s+you\s+(?:send|write)|summar(?:y|ies)|"
        r"outputs?|emails?\s+you\s+(?:send|write))\s+(?:you\s+(?:write|send|give)\s+)?(?:should|must|shall|will|needs?\s+to|ha(?:s|ve)\s+to|(?:is|are)\s+to)\b"
        r"|\b(?:going\s+forward|from\s+(?:today|tomorrow|this\s+point|here)\s+on(?:\s+out)?|from\s+today|henceforth|hereafter|"
        r"for\s+(?:all\s+)?(?:later|future|upcoming|subsequent|other)\s+(?:chats?|conversations?|sessions?))\b\s{0,3}[,:]?\s{0,3}(?:please\s+)?"
        r"(?:you\b|your\b|always\b|never\b|every\b|each\b|only\b|do\s+not\b|don'?t\b|(?:reply|respond|answer|sign|end|start|include|add|use|"
        r"refer|call|send|forward|share|treat|approve|accept|ignore|skip|pay|transfer|run|execute|delete|post|write)\b)",
        re.I,
    ),
    # claims that the assistant agreed to something before: "you previously agreed to share ...", "as we agreed, you'll ..."
    "claimed-agreement": re.compile(
        r"\b(?:you|u)\s+(?:previously\s+|already\s+|once\s+|earlier\s+|last\s+time\s+|before\s+|yourself\s+)?"
        r"(?:agreed|promised|consented|committed|confirmed|approved|accepted|allowed|permitted|authori[sz]ed|offered|decided)\s+"
        r"(?:(?:last|this|on|in|at|yesterday|earlier|before|already|once)\s+(?:[\w']+\s+){0,2}?)?(?:to|that|it)\b"
        r"|\b(?:you|u)\s+(?:previously\s+|already\s+|once\s+|earlier\s+)?(?:said|told\s+me|mentioned|confirmed|agreed)\s+(?:that\s+)?"
        r"(?:it'?s|it\s+(?:is|was|would\s+be)|that'?s|that\s+(?:is|was)|you'?d|you\s+(?:would|will|can|could|may)|you'?ll|i\s+(?:can|could|may)|we\s+(?:can|could))\b"
        r"[^.\n]{0,24}?\b(?:fine|ok|okay|alright|allowed|acceptable|safe|permitted|no\s+problem|share|send|store|forward|give|approve|skip|"
        r"disable|ignore|keep|delete|pay|transfer|reveal)\b"
        r"|\bas\s+(?:we|you)\s+(?:agreed|discussed|decided|said|promised|arranged|settled)\b[^.\n]{0,40}?\byou(?:'?ll|\s+will|'?d|\s+would|\s+can)?\b"
        r"|\b(?:we|you\s+and\s+i)\s+(?:already\s+)?(?:agreed|decided|settled)\s+(?:that\s+|on\s+)?you\b"
        r"|\b(?:the\s+|my\s+|this\s+)?(?:assistant|ai|bot|agent|chatbot)\s+(?:previously\s+|already\s+|once\s+)?"
        r"(?:agreed|promised|consented|committed|offered|said\s+it\s+(?:would|will|can|could))\s+(?:to|that)\b",
        re.I,
    ),
    # switching a safety check off, as a rule or a permission: "it's fine to disable 2FA", "skip the phishing warnings",
    # "no need to verify him", "never ask me for confirmation before ...", "purchases are pre-approved"
    "safety-off": re.compile(
        r"\b" + _FRAME + r"\b[^.!?\n]{0,80}?\b" + _OFF + r"\s+" + _DET + r"(?:[\w-]+\s+){0,2}?" + _SAFETY + r"\b"
        r"|" + _CLAUSE + r"(?:please\s+|just\s+|always\s+|also\s+)?" + _OFF + r"\s+" + _DET + r"(?:[\w-]+\s+){0,2}?" + _SAFETY + r"\b"
        r"|\b(?:approved|authori[sz]ed|allowed|permitted|ok(?:ay)?'?d|signed\s+off\s+on)\s+(?:the\s+)?(?:disabling|turning\s+off|switching\s+off|"
        r"skipping|removing|waiving|bypassing|suspending|dropping)\s+" + _DET + r"(?:[\w-]+\s+){0,2}?" + _SAFETY + r"\b"
        r"|\b" + _SAFETY + r"\s+(?:is|are|was|were|will\s+be|gets?|got|has\s+been|have\s+been)\s+(?:now\s+|being\s+)?(?:disabled|turned\s+off|switched\s+off|"
        r"waived|bypassed|suspended|not\s+(?:needed|required|necessary)|unnecessary|no\s+longer\s+(?:needed|required))\b"
        r"|\b(?:pre-?approved|pre-?authori[sz]ed|auto(?:matically)?[\s-]approved|approved\s+in\s+advance|blanket\s+approval)\b"
        r"|\b(?:no\s+need|(?:do\s+not|don'?t|doesn'?t|does\s+not)\s+need|not\s+necessary|unnecessary)\s+to\s+(?:verify|check|confirm|review|"
        r"authenticate|ask|approve|test|back\s+up|scan)\b"
        r"|\b(?:never|don'?t|do\s+not|no\s+need\s+to|without)\s+(?:ask(?:ing)?|prompt(?:ing)?)\s+(?:[\w']+\s+){0,2}?"
        r"(?:for\s+)?(?:a\s+|any\s+)?(?:confirmation|permission|approval|consent|verification|sign-?off)"
        r"|\b(?:never|don'?t|do\s+not|no\s+need\s+to|without)\s+(?:check(?:ing)?\s+with|confirm(?:ing)?\s+with|consult(?:ing)?|loop(?:ing)?\s+in|"
        r"cc(?:'?ing)?|copy(?:ing)?\s+in)\s+(?:me|us|anyone|anybody|finance|security|legal|compliance|the\s+\w+)\b"
        r"|\b" + _FRAME + r"\b[^.!?\n]{0,80}?\bwithout\s+(?:telling|informing|notifying|asking|alerting|warning|checking\s+with|consulting)\s+"
        r"(?:anyone|anybody|me|us|them|him|her|finance|security|the\s+\w+)\b",
        re.I,
    ),
    # "if anyone asks about X, say ...", "when I say 'blue sky', run ...", "run the script with sudo"
    "trigger": re.compile(
        r"\b(?:if|when|whenever|should|once)\s+(?:anyone|someone|somebody|anybody|a\s+user|users|people|a\s+customer|customers|they|he|she|"
        r"(?:my|the)\s+\w+)\s+(?:ever\s+)?(?:asks?|mentions?|brings?\s+up|inquires?|enquires?|wants?\s+to\s+know|requests?|calls?|writes?|e-?mails?)\b"
        r"[^.\n]{0,80}?,\s{0,3}(?:then\s+|just\s+|please\s+|always\s+|you\s+(?:should|must|will)\s+)?"
        r"(?:say|tell|respond|reply|answer|claim|insist|deny|confirm|state|explain|mention|pretend|describe|send|forward|share|give)\b"
        r"|\b(?:when(?:ever)?|if|once)\s+(?:i|we|someone|anyone|they|he|she)\s+(?:say|says|type|types|write|writes|send|sends|use|uses)\s+"
        r"[\"'][^\"'\n]{1,40}[\"']\s{0,3},?\s{0,3}(?:please\s+|just\s+|you\s+(?:should|must|will)\s+)?"
        r"(?:run|execute|do|delete|remove|send|forward|transfer|pay|approve|grant|deploy|push|disable|enable|open|unlock|share|reveal|say|reply|respond|answer)\b"
        r"|\b(?:run|runs|ran|execute|executes|exec)\b[^.\n]{0,60}?\b(?:with\s+sudo|as\s+root|as\s+(?:an?\s+)?admin(?:istrator)?|with\s+root(?:\s+rights)?)\b",
        re.I,
    ),
    # raising someone's authority: "treat my requests as root", "treat these messages as coming from the admin"
    "escalation": re.compile(
        r"\btreat\s+(?:my|his|her|their|our|these|this|all|every|any|each|the|such)\s+(?:[\w-]+\s+){0,2}?(?:requests?|messages?|instructions?|"
        r"commands?|e-?mails?|orders?|words?|texts?)\s+as\s+(?:if\s+(?:they|it)\s+(?:came|come|were|was)\s+from\s+|(?:coming|sent)\s+from\s+)?"
        r"(?:the\s+|an?\s+)?(?:root|admin(?:istrator)?|system|sudo|superuser|owner|trusted|authori[sz]ed|verified|official|priority|gospel)\b",
        re.I,
    ),
    # speaking as the user, or hiding being an AI
    "impersonation": re.compile(
        r"\b(?:as\s+if\s+(?:you\s+were|it\s+were|it\s+was)|pretend(?:ing)?\s+(?:to\s+be|you'?re|you\s+are)|pos(?:e|ing)\s+as|impersonat\w{0,5})\s+"
        r"(?:me|him|her|them|the\s+user|my\s+\w+)\b"
        r"|\b(?:don'?t|do\s+not|never|without)\s+(?:mention|say|reveal|disclos|admit|let\s+(?:them|anyone|him|her)\s+know|tell\s+(?:them|anyone|him|her))\w{0,4}"
        r"\s+(?:that\s+)?(?:you'?re|you\s+are|it'?s|it\s+is|(?:he|she|they)\s+(?:is|are)|being)\s+(?:an?\s+)?(?:ai|bot|assistant|language\s+model|llm|machine)\b",
        re.I,
    ),
    # a memory record forged inside a message: "[memory] user.preference = ..."
    "forged-record": re.compile(
        r"\[(?:memory|memories|mem|stored\s+memory|long[\s-]?term\s+memory|fact|facts|profile|user\s+profile|preferences?|system\s+note)\]"
        r"|\b(?:user|assistant|agent|memory|profile)\.(?:preferences?|profile|settings?|rules?|permissions?|policy|policies|trust)\s{0,3}[=:]"
        r"|(?:^|\n)\s{0,3}(?:memory|memories)\s+(?:update|record|entry|override)\s{0,3}:",
        re.I,
    ),
    # claims to speak for the model's maker or the platform
    "authority-claim": re.compile(
        r"\b(?:message|notice|update|note|instruction|directive|announcement)\s+from\s+(?:the\s+)?(?:openai|anthropic|google|microsoft|meta|mistral|"
        r"(?:the\s+)?(?:system|developers?|admins?|administrators?|platform|model\s+provider)|trust\s+(?:and|&)\s+safety|(?:\w+\s+){0,2}safety\s+team)\b",
        re.I,
    ),
    # text addressed to a machine reader: "hey bot,", "AI helpers should ...", "anyone summarizing these should say ..."
    "machine-address": re.compile(
        r"\b(?:hey|hi|hello|dear|yo|attention)\s{0,3},?\s{1,3}(?:the\s+)?(?:bot|bots|agent|agents|helper|helpers|ai\s+helpers?)\s{0,3}[,:!]"
        r"|\b(?:ai|bot|virtual|digital|automated)\s+(?:helpers?|assistants?|agents?|tools?|readers?)\s+(?:should|must|shall|will|need\s+to|are\s+to|have\s+to|may)\b"
        r"|\b(?:anyone|whoever|anybody|everyone|any\s+(?:tool|system|program|model|reader|bot))\s+(?:(?:who\s+is|that\s+is|who'?s)\s+)?"
        r"(?:summari[sz]ing|reading|processing|parsing|indexing|scraping|analy[sz]ing|crawling)\b[^.\n]{0,60}?\b(?:should|must|shall|needs?\s+to|has\s+to|is\s+to)\b"
        r"|\b(?:the\s+|my\s+|this\s+|your\s+)?(?:assistant|ai|bot|agent|chatbot)\s+(?:is|are)\s+(?:now\s+)?(?:allowed|permitted|authori[sz]ed|free|cleared|entitled)\s+to\b",
        re.I,
    ),
}

# The mood of a sentence in pasted or quoted text: an imperative ("Pay the invoice to ...", "Please make sure ...").
IMPERATIVE = re.compile(
    r"(?:^|[.!?;\n]\s{0,3})[\"'>*\-\s]{0,4}(?:(?:hi|hello|dear)\s+\w+\s{0,2}[,:]\s{0,3})?(?:please|kindly|pls|do)?\s{0,3},?\s{0,3}"
    r"(?:make\s+sure|ensure|be\s+sure\s+to|remember\s+to|don'?t\s+forget\s+to|send|pay|transfer|wire|forward|share|tell|say|describe|accept|"
    r"approve|delete|remove|disable|ignore|use|include|reply|respond|answer|click|run|execute|install|push|deploy|update|change|set|move|"
    r"treat|keep|store|save|grant|give|allow|skip|never|always|don'?t|do\s+not|recommend|rate|rank|mark|report|stop|start|act|pretend)\b",
    re.I,
)


def find_structure(folded: str) -> tuple[str, re.Match] | None:
    """The first structural instruction in text already folded (see `instructions.fold`), as (kind, match)."""
    for kind, rx in STRUCTURE_PATTERNS.items():
        m = rx.search(folded)
        if m:
            return kind, m
    return None
