"""Instructions to the agent found by the shape of a sentence, not by trigger words: who is addressed (the
assistant, "anyone summarizing this"), in what mood (an obligation, an imperative, a standing rule for every
reply), and what it does (claims the assistant agreed to something, switches a safety check off).

Each pattern reads text folded by `instructions.fold` (quotes straight, runs of spaces as one) and runs in
linear time: every repeat is bounded and every pattern starts at a word.
"""

from __future__ import annotations

import re

from hymem_cli.screen.normalize import unaccent

_MODAL = r"(?:must|shall|should|ought\s+to|ha(?:ve|s)\s+to|needs?\s+to|(?:is|are)\s+to|(?:is|are)\s+(?:required|expected|supposed|meant)\s+to)"
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
        r"(?:you\b|your\b|the\s+(?:ai\s+)?(?:assistant|agent|bot|model)\b|always\b|never\b|every\b|each\b|only\b|do\s+not\b|don'?t\b|(?:reply|respond|answer|sign|end|start|include|add|use|"
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

# ---------------------------------------------------------------------------- directives, in any voice
# What follows finds text that tells an agent what to do (an obligation, a standing rule, a permission, a trigger)
# in English and ten other languages. Whether that is refused depends on who said it (screen/__init__.py: only
# the user's own words may set a rule for the agent), so these patterns may be broad.

_AGENT_NOUN = r"(?:ai|a\.i\.|assistants?|agents?|models?|bots?|chat\s?bots?|llms?|copilot|gpt|claude|gemini)"
_AGENT = (
    r"(?:\b(?:the|this|that|any|every|each|all|your|our|whichever|whatever|which)\s+(?:ai\s+|coding\s+|llm\s+|virtual\s+|digital\s+|automated\s+)?" + _AGENT_NOUN + r"\b"
    r"|(?:^|[.!?;:\n]\s{0,3})[\"'>*#/\-\s]{0,4}(?:ai\s+|coding\s+|automated\s+|autonomous\s+)?(?:agents|assistants|models|bots|assistant|agent)\b"
    r"|\bai\s+(?:agents?|assistants?|models?)\b)"
)
_ACTS = (
    r"(?:send|share|forward|approve|pay|transfer|wire|sign|delete|remove|access|read|reply|respond|merge|deploy|run|execute|spend|buy|"
    r"order|grant|accept|bypass|skip|disable|push|publish|post|book|renew|cancel|refund|recommend|tell|give|open|unlock|reveal|use|trust|"
    r"commit|close|export|cc|bcc|invite|e-?mail|wire|auto-\w+)"
)
# Verbs an order to the agent opens with, in their base form.
_VERB = (
    r"(?:accept|add|allow|answer|apply|approve|archive|arrange|ask|assign|attach|avoid|bcc|block|book|buy|call|cancel|cc|change|charge|check|"
    r"clean|clear|click|close|commit|confirm|contact|copy|create|deactivate|decline|delete|deploy|describe|disable|download|edit|e-?mail|enable|"
    r"escalate|export|fetch|fill|fix|follow|format|forward|give|grant|hand|have|hide|ignore|include|install|invite|keep|leave|let|link|lock|"
    r"mail|make|mark|merge|message|move|notify|open|pay|ping|post|print|promote|publish|purchase|push|put|quote|rate|read|rebase|recommend|"
    r"refund|reject|release|remind|remove|rename|renew|reorder|reply|request|reset|respond|restart|return|revoke|rewrite|rotate|run|save|"
    r"say|schedule|send|set|share|ship|show|sign|skip|sort|spend|store|submit|suggest|switch|sync|tag|tell|text|transfer|treat|trust|turn|"
    r"unlock|unsubscribe|update|upgrade|upload|use|verify|wire|wipe|write)"
)
# A verb that opens a noun phrase instead ("Update: the review moved", "Run club was great", "Call went well").
_NOT_ORDER = r"(?![\w-]|\s{0,3}[:\-\u2013\u2014(]|\s+(?:is|are|was|were|has|have|had|will|would|can|could|went|got|looks?|seems?|came|comes|took|takes|starts?|ended|ends|moved|'s)\b)"

# Words other languages use for the agent, and for "must"; a passive ("must be validated") puts no duty on it.
_ML_AGENT = (r"(?:\b(?:assistant|assistante|asistente|assistente|assistent(?:en)?|asystent\w{0,3}|asisten|tro\s?ly|ia|ki|ai|modèle|modelo|modello|modell|"
             r"model|agent|agente|agenten|bot)\b|\b(?:асистент|βοηθ|asistan|asistent|asszisztens|avustaja|tekoäly|yapay\s+zeka|umělá\s+inteligence|"
             r"inteligen[tț]a\s+artificial)\w*|مساعد|עוזר|הבוט|המודל|ผู้ช่วย|सहायक|एआई"
             r"|\b(?:ассистент|ии|модел|агент|бот)\w*|助手|助理|模型|智能体|机器人|アシスタント|モデル|エージェント|ボット|어시스턴트|모델|에이전트|봇)")
_ML_MODAL = (r"(?:\b(?:doit|doivent|devra|devrait|dois|devez|debe|debes|deberá|debería|tiene\s+que|tienes\s+que|muss|musst|müssen|soll|sollst|sollte|"
             r"deve|devi|dovrà|dovrebbe|deves|deverá|tem\s+que|precisa|moet|moeten|zal|должен|должна|должно|обязан\w*|"
             r"musisz|musi|powinien\w*|powinna|należy|måste|ska|skall|bør|skal|harus|wajib|phải|маєш|мусиш|повинен|повинна|повинні|πρέπει|"
             r"gerek\w*|zorunda\w*|musí|musíš|musíte|má\s+povinnost|trebuie|kell|kellene|köteles\w*|täytyy|pitää|on\s+velvollinen"
             r"|skalt|skulu|skuldi|(?:á|a)tt|m(?:á|a)tt|ver(?:ð|d)ur|devas|rajtas|бояд|керек|kerak|лозим|rhaid|caithfidh|ret\s+eo)\b"
             r"|\b\w{2,20}?m[ae]l[ıi](?:d[ıi]r|s[ıi]n(?:[ıi]z)?)?\b|يجب|חייב\w*|צריך|ต้อง|चाहिए|होगा"
             r"|必须|应该|应当|务必|しなければ|すること|べき|해야|하십시오)")
# "you must" where the language needs no pronoun for it, or puts it after the verb
_ML_YOU_MUST = r"(?:\b(?:musisz|måste|ska\s+du|skal\s+du|harus|phải|маєш|мусиш|πρέπει)\b|يجب)"
_ML_YOU_MUST_ALONE = (r"(?:\b(?:\w{2,20}?m[ae]l[ıi]s[ıi]n(?:[ıi]z)?|musíš|musíte|sinun\s+(?:täytyy|pitää|on)|teidän\s+(?:täytyy|pitää)|bạn\s+phải|"
                      r"you\s+ought\s+to)\b|אתה\s+חייב|את\s+חייבת|עליך|คุณต้อง|आपको|तुम्हें|तुमको)")
_ML_PASSIVE = r"(?:être|ser|estar|sein|werden|essere|venire|zijn|worden|быть|被|され)"
_ML_YOU = (r"(?:\b(?:tu|vous|tú|usted|du|dir|dich|você|jij|je|ты|вы|тебе|вам|ty|kamu|anda|ти|тобі|εσύ|εσείς)\b|(?-i:\bSie\b)|你|您|あなた|당신"
           r"|عليك|أنت)")
_ML_PLEASE = (r"(?:\b(?:bitte|por\s+favor|s'il\s+te\s+pla[iî]t|s'il\s+vous\s+pla[iî]t|per\s+favore|alsjeblieft|alstublieft|пожалуйста|"
              r"responde|réponds|répondez|antworte|rispondi|responda|antwoord|отвечай|ответь|proszę|snälla|venligst|tolong|mohon|hãy|будь\s+ласка|"
              r"παρακαλώ)\b"
              r"|请|ください|下さい|주세요|하세요|세요|십시오|해야"
              # more languages' "please"
              r"|\b(?:bonvolu|mesedez|iltimos|fadlan|tafadhali|ngicela|tanpri|azafady|vinsamlegast|vinarliga|palun|l(?:ū|u)dzu|pra(?:š|s)au"
              r"|лутфан|сураныч|өтінемін|iltimos|z(?:ə|e)hm(?:ə|e)t\s+olmasa|гуйя|калі\s+ласка|pakiusap|pakisuyo|mar\s+plij|le\s+do\s+thoil"
              r"|os\s+gwelwch\s+yn\s+dda|jekk\s+jo(?:għ|gh)(?:ġ|g)bok|don\s+allah|j(?:ọ|o)w(?:ọ|o)|mangga|tulung)\b"
              r"|مهرباني\s+وکړه|لطفا|براہ\s+کرم|कृपया|অনুগ্রহ\s+করে|ກະລຸນາ|ကျေးဇူးပြု|សូម|කරුණාකර|தயவுசெய்து|దయచేసి|ದಯವಿಟ್ಟು|ദയവായി"
              r"|કૃપા\s+કરીને|ਕਿਰਪਾ\s+ਕਰਕੇ|გთხოვ\w*|խնդրում\s+եմ|እባክ\w*)")
# "you may", "you can" where the finders read no rule: the user's own words to the agent in more languages
_ML_YOU_MAY = (r"(?:\b(?:vi\s+(?:rajtas|povas|devas)|шумо\s+(?:метавонед|бояд)|ту\s+(?:метавонӣ|бояд)|сен\s+\w+\s+аласың"
               r"|siz\s+\w+\s+bilasiz|sen\s+\w+\s+bilasan|waad\s+\w+\s+kartaa|unaweza|ungakwazi|kannst\s+du"
               r"|do\s+(?:meist|kinst|moatst)|jo\s+(?:meie|kinne)|poi|pudete|(?:tu\s+)?pots|podes|puedes|peux)\b"
               r"|ته\s+کولی\s+شې|تاسو\s+کولی\s+شئ|ته\s+باید|تاسو\s+باید|تم\s+کر\s+سکتے|آپ\s+کر\s+سکتے|ທ່ານ\s?ສາມາດ|သင်\s?\w*နိုင်)")
_ML_ALWAYS = (r"(?:\b(?:toujours|jamais|siempre|nunca|immer|niemals|nie|sempre|mai|altijd|nooit|всегда|никогда|zawsze|nigdy|alltid|aldrig|altid|"
              r"selalu|luôn|завжди|ніколи|πάντα|ποτέ)\b|دائما|أبدا"
              r"|总是|永远|始终|一直|所有|必ず|常に|毎回|항상|반드시|매번)")
_ML_FROM_NOW = (r"(?:\b(?:à\s+partir\s+de\s+maintenant|désormais|dorénavant|a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante|en\s+adelante|ab\s+jetzt|"
                r"ab\s+sofort|von\s+nun\s+an|künftig|zukünftig|kuenftig|zukuenftig|d'ora\s+in\s+(?:poi|avanti)|da\s+ora\s+in\s+poi|a\s+partir\s+de\s+agora|"
                r"daqui\s+(?:em|para)\s+(?:diante|frente)|vanaf\s+nu|voortaan|отныне|с\s+этого\s+момента|впредь|od\s+teraz|od\s+dziś|odtąd|"
                r"från\s+och\s+med\s+nu|hädanefter|fra\s+nu\s+af|fremover|herefter|mulai\s+sekarang|mulai\s+hari\s+ini|từ\s+giờ|từ\s+nay|"
                r"từ\s+bây\s+giờ|відтепер|надалі|з\s+цього\s+моменту|από\s+τώρα|στο\s+εξής|"
                # Turkish, Czech, Romanian, Hungarian, Finnish, Greek, Vietnamese, and "from tomorrow" in the languages above
                r"bundan\s+(?:sonra|böyle|itibaren)|(?:yarından|bugünden|şu\s+andan)\s+itibaren|od\s+(?:teď|teďka|nynějška|zítřka|dneška)|odteď|napříště|"
                r"de\s+acum\s+(?:înainte|încolo)|de\s+mâine|de\s+azi\s+(?:înainte|încolo)|începând\s+(?:de\s+)?(?:acum|mâine|azi)|"
                r"mostantól|ezentúl|holnaptól|mától(?:\s+kezdve)?|tästä\s+(?:lähtien|eteenpäin|alkaen)|nyt\s+lähtien|jatkossa|huomisesta\s+(?:lähtien|alkaen)|"
                r"από\s+εδώ\s+και\s+(?:πέρα|στο\s+εξής|μπρος)|από\s+αύριο|εφεξής|từ\s+mai|kể\s+từ\s+(?:nay|bây\s+giờ|hôm\s+nay)|từ\s+hôm\s+nay|"
                r"a\s+partir\s+de\s+(?:mañana|hoy|amanhã|hoje|demain)|desde\s+(?:ahora|mañana|hoy)|da\s+domani|ab\s+(?:morgen|heute)|dès\s+(?:demain|maintenant))\b"
                r"|من\s+الآن|فصاعدا|מעכשיו|מעתה|מהיום|מחר\s+והלאה|מכאן\s+והלאה|ต่อจากนี้|จากนี้ไป|ตั้งแต่นี้|นับจากนี้|ตั้งแต่พรุ่งนี้|अब\s+से|आज\s+से|कल\s+से|आगे\s+से"
                r"|从现在开始|从今以后|以后|今后|往后|今後|これから|以降|앞으로|이제부터"
                # more languages' "from now on"
                r"|\b(?:fr(?:á|a)\s+n(?:ú|u)\s+av|h(?:é|e)(?:ð|d)an\s+(?:í|i)\s+fr(?:á|a)|framvegis|de\s+nun|ekde\s+nun|аз\s+ин\s+ба\s+баъд|минбаъд"
                r"|hadda\s+wixii\s+ka\s+dambeeya|laga\s+bilaabo\s+hadda|o\s+hyn\s+ymlaen|as\s+seo\s+amach|hemendik\s+aurrera"
                r"|minn\s+issa\s+['’]?l\s+quddiem|мындан\s+ары|бұдан\s+былай|bundan\s+buyon|одооноос\s+эхлэн|з\s+гэтага\s+часу|надалей"
                r"|turpm(?:ā|a)k|nuo\s+(?:š|s)iol|edaspidi|n(?:ü|u)(?:ü|u)dsest|kuanzia\s+sasa|kusukela\s+manje|daga\s+yanzu"
                r"|manomboka\s+izao|apati\s+kounye\s+a|mula\s+ngayon|wiwit\s+saiki|(?:à|a)\s+partir\s+d['’]?or(?:e|a)|d['’]?ore\s+en\s+avant)\b"
                r"|له\s+(?:دې|نن)\s+وروسته|اب\s+سے|از\s+(?:این\s+به\s+بعد|حالا)|এখন\s+থেকে|ຕັ້ງແຕ່ນີ້|ယခုမှစ|ចាប់ពីពេលនេះ|මෙතැන්\s+සිට|இனிமேல்"
                r"|ఇకపై|ಇನ್ನು\s+ಮುಂದೆ|ഇനി\s+മുതൽ|ამიერიდან|այսուհետ|ከአሁን\s+ጀምሮ|अबदेखि|आतापासून|હવેથી|ਹੁਣ\s+ਤੋਂ)")
_ML_ME = r"(?:\b(?:moi|me|mir|mich|mij|conmigo|comigo|мне|меня|mnie|mig|aku|saya|tôi|мені|мене|μου)\b|-moi\b)"
_ML_IMPERATIVE = (r"(?:usa|utilizza|scrivi|rispondi|réponds|écris|utilise|responde|escribe|antworte|schreib|benutze|verwende|responda|escreva|"
                  r"gebruik|schrijf|antwoord|отвечай|пиши|используй|odpowiadaj|pisz|używaj|svara|skriv|använd|svar|brug|jawab|tulis|gunakan|"
                  r"trả\s+lời|відповідай|використовуй|απάντα|γράφε)")

# Verbs that act on the world or on others: what makes even the user's own standing rule more than a preference.
# The same in other languages: recommend, send, forward, pay, share, approve, delete, password, anyone.
_RISKY_ABROAD = (
    r"\b(?:recomm|recomend|empfehl|consigli|aanra|envoy|envi[aeo]|weiterleit|schick|inoltr|invia|doorstu|stuur|pag(?:a|ar|as|an|o|amos|ue|amento|are|he)\b|zahl|überweis|betal|"
    r"partag|compart|teilen|condivid|deel\s|approuv|aprob|genehmig|goedkeur|supprim|elimin|lösch|cancell|apag|verwijder|mot\s+de\s+passe|contraseña|passwort|"
    r"senha|wachtwoord|tout\s+le\s+monde|cualquiera|jeder|chiunque|qualquer|iedereen)"
    r"|\b(?:рекоменд|пересыл|отправ|плат|оплат|дели|одобр|удал|пароль|любой|всем)\w*"
    r"|\b(?:polec|rekomend|anbefal|skicka|vidarebefordra|videresend|wysy[lł]|przesy[lł]|kirim|teruskan|gửi|chuyển|bayar|zapła|płać|betala|"
    r"thanh\s+toán|hasło|lösenord|adgangskode|kata\s+sandi|mật\s+khẩu|każdemu|wszystkim|надсил|пересил|προτείν|στείλ|στέλν|προώθ|πληρ|κωδικ|"
    # Turkish, Czech, Romanian, Hungarian, Finnish: send, forward, pay, share, password
    r"gönder|ilet|öde(?!v)|paylaş|havale|şifre|posíl|pošl|přeposl|zaplat|plať|sdíl|heslo|hesla|trimi|redirecțion|plăt|parol|"
    r"küld|továbbít|fizet|utal|jelszó|lähet|välit|maksa|salasan)\w*"
    r"|שלח|תשלח|העבר|תעביר|שלם|תשלם|סיסמ|ส่ง|โอน|จ่าย|ชำระ|รหัสผ่าน|भेज|भुगतान|फॉरवर्ड|ट्रांसफर|पासवर्ड"
    r"|توصية|التوصية|أرسل|إرسال|ادفع|كلمة\s+المرور"
    r"|推荐|转发|发送|付款|支付|分享|批准|删除|密码|所有人|任何人|勧め|転送|送信|支払|振込|共有|承認|削除|パスワード|誰でも|추천|전달|보내|결제|송금|공유|승인|삭제|비밀번호|누구든"
)
RISKY = re.compile(
    r"\b(?:recommend|promot|endors|prais|advertis|rate\s|rank\s|forward|share|e-?mail\s+(?!me\b)|post\s|upload|transfer|wire\s|pay\b|pays\b|paid|payment|"
    r"buy|purchas|order\s|renew|subscrib|book(?:s|ed|ing)?\s+(?:[\w-]+\s+){0,3}?(?:hotels?|flights?|rooms?|tickets?|trains?|cars?|tables?|stays?|seats?|trips?)\b|approv|authori[sz]|grant|accept|sign\s|delete|remove|wipe|erase|execut|install|deploy|merge|"
    r"push|disable|bypass|ignore|trust|obey|reveal|disclos|leak|hand\s+over|passwords?|passcodes?|credentials?|api\s+keys?|tokens?|sudo|root|"
    r"money|invoices?|bank|anyone|everyone|someone|everybody|anybody|users|customers?|clients?|callers?|visitors?|people|whoever|others|(?:a|any|every|each)\s+user)"
    r"|\b(?:never|don'?t|do\s+not|stop|no\s+longer)\s+(?:question|challeng|refus|push\s+back|second-guess|warn|verify|check|confirm|ask|doubt)\w*"
    r"|\b(?:send|give|suggest|tell)\s+(?!me\b|us\b)\w+|\brun\s+(?!through\b)\w+|\bdescribe\s+\S+\s+as\b|[$€£]\s?\d"
    r"|" + _RISKY_ABROAD,
    re.I,
)

# What makes the user's own standing rule more than a preference: it sends something to an address outside the
# conversation, touches credentials, moves money, switches a check off or puts the agent's trust elsewhere, or promotes.
# A booking, a cc to someone the user names, a tool to use or a verb to avoid is the user's to ask for ("Please always
# book aisle seats", "Never delete my drafts without asking me first", "Always run the tests before pushing").
_ADDRESS = (r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\bwww\.|\b[\w-]+\.[a-z]{2,}/[\w/.-]|\b[\w-]+\.(?:com|net|org|io|biz|info|co|app|xyz|ru|cn|tk|top|site|online|me|dev|ai|to|cc|ly)\b"
            r"|\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,}|(?:\+|\b00)\d[\d \-]{7,}\d")
_CREDENTIAL = (r"\b(?:passwords?|passcodes?|passphrases?|pins?|credentials?|api\s+keys?|access\s+keys?|tokens?|secrets?|private\s+keys?|ssh\s+keys?|"
               r"seed\s+phrases?|recovery\s+codes?|sudo|root|2fa|otp|cookies?|\.env|card\s+(?:details|numbers?|data)|cvv|cvc|bank\s+details|mot\s+de\s+passe|contraseña|passwort|kennwort|senha|wachtwoord|"
               r"пароль\w*|hasło|lösenord|adgangskode|şifre|heslo|jelszó|salasan\w*|parol\w*|kata\s+sandi|mật\s+khẩu)\b"
               r"|密码|パスワード|비밀번호|סיסמ|รหัสผ่าน|पासवर्ड|كلمة\s+المرور|رمز\s+عبور")
_MONEY = (r"\b(?:transfer|wire|pay|pays|paid|payment|send|invest|buy|purchase|order|spend|donate|tip)\b[^.!?\n]{0,40}?"
          r"(?:[$€£¥]\s?\d|\d[\d,.]*\s?(?:usd|eur|gbp|chf|dollars?|euros?|pounds?|bucks|k)\b)"
          r"|\b(?:transfer|wire|move|send)\s+(?:the\s+|my\s+|all\s+|any\s+)?(?:money|funds|savings|payments?|crypto|bitcoin|btc|eth)\b"
          r"|\b(?:crypto|bitcoin|wallet\s+address|gift\s+cards?|payments?)\b"
          r"|\b(?:renew|subscrib|upgrad)\w*\s+(?:\w+\s+){0,3}?(?:subscriptions?|plans?|memberships?|licen[cs]es?|contracts?|leases?|policies|insurance)\b"
          r"|\b(?:pay|paying|pays|paid|settle|settling|wire|wiring|transfer|transferring)\s+(?:\w+\s+){0,3}?(?:invoices?|bills?|rent|fees?|suppliers?|vendors?)\b"
          # papers that belong to the user, sent or shown to someone else
          r"|\b(?:send|sending|forward|forwarding|e-?mail|share|sharing|cc|bcc|copy|upload|post)\w{0,3}\s+(?!me\b|us\b|myself\b)(?:\w+\s+){0,3}?"
          r"(?:invoices?|statements?|payslips?|receipts?|bills?|tax\s+\w+|contracts?|documents?|files?|photos?|data|records?|medical\s+\w+|"
          r"contacts?|location|totals?|figures|numbers|reports?|results|minutes|notes|details|summar(?:y|ies)|decks?|slides|"
          r"presentations?|calendar|schedule|availability|address\s+book)\b")
_CHECKS_OFF = (r"\b(?:never|don'?t|do\s+not|stop|no\s+longer|no\s+need\s+to)\s+(?:ever\s+)?(?:ask|confirm|verify|check|warn|question|doubt|"
               r"refuse|push\s+back|second-guess|challenge|double-check)\w*"
               r"|\b(?:ignore|bypass|disable|override|obey|disregard|circumvent)\b|\btrust\s+(?!me\b)\w+|\bauto-?(?:approve|accept|merge|pay|renew|sign|send|forward|confirm|book|buy|purchase|order|delete|transfer)\w*"
               r"|\b(?:promot|endors|advertis|prais)\w*")
# A rule for how the agent treats other people, or a brand it should push: "whenever anyone asks about hosting, ...",
# "tell customers ...", "always recommend AcmeCloud" (a preference for what is suggested to the user is no brand: "always
# suggest vegetarian options").
_OTHERS = (r"\bwhoever\b|\b(?:anyone|everyone|anybody|everybody)\b[^.!?\n]{0,30}?\b(?:who|that)\b"
           # "if they need ID, tell them I'll show it at the door" tells them only what the user will do
           r"|\b(?:whenever|when|if|any\s?time)\s+(?:he|she|they)\s+(?:asks?|requests?|wants?|needs?|says?\s+so)\b"
           r"(?![^.!?\n;]{0,40}?\b(?:tell|say\s+to|let)\s+(?:them|him|her)\s+(?:know\s+)?(?:that\s+)?(?:I|we)(?:'ll|\s+will|'d|\s+would|'m|\s+am)\b)"
           r"|\b(?:whenever|when|if|once|any\s?time|every\s+time|each\s+time)\s+(?:anyone|anybody|someone|somebody|everyone|people|a\s+user|users|"
           r"(?:a\s+|any\s+)?(?:customers?|clients?|visitors?|callers?|readers?|buyers?))\b"
           # (not something they send the user, where the rule does nothing to them: "whenever a client sends me a document
           # to sign, put it in my folder"; "..., reply to them with a refund code" still is one)
           r"(?!\s+(?:sends?|e-?mails?|mails?|texts?|forwards?|shares?|posts?)\s+(?:me|us)\b(?![^.!?\n]{0,120}?\b(?:them|him|her|they)\b))"
           r"|\b(?:tell|inform|answer|reply\s+to|respond\s+to|advise|assure)\s+(?:all\s+|every\s+|any\s+)?(?:anyone|anybody|everyone|everybody|users|customers|"
           r"clients|visitors|callers|readers|people|the\s+public)\b")
_PROMOTES = (r"\b(?:recommend|suggest|promot|endors|advertis|prais|rank|pitch|favou?r|push)\w*\s+(?:(?:the|our|their|only|always|just|a|an)\s+){0,2}"
           r"(?:[\w-]+\s+){0,3}?(?-i:[A-Z][\w-]*[a-zA-Z])")
_WITHOUT_ASKING = (r"\bwithout\s+(?:asking|confirm\w*|checking|review\w*|approval|permission|telling|verif\w*|consult\w*|"
                   r"running\s+(?:it|them|this|that|anything)\s+(?:by|past)|(?:a\s+)?sign-?off)\b"
                   r"|\b(?:sin|sem|senza|sans|ohne)\s+(?:zu\s+)?(?:consultar|preguntar|perguntar|pedir|chiedere|consultare|demander|consulter|"
                   r"fragen|nachzufragen|r[üu]ckfrage)\w*")
# Acts that leave the user's hands or cannot be undone: after them, "without asking" drops a check that matters.
OUTBOUND = re.compile(r"\b(?:delet|remov|eras|wip|cancel|pay|paid|transfer|wire|send|sent|shar|forward|buy|bought|purchas|order|sign|"
                       r"approv|publish|post|install|run|execut|grant|unsubscrib|terminat|renew|subscrib|spend|donat|"
                       r"refund|submit|upload|commit|push|merge|deploy|reset)\w*", re.I)
_WITHOUT_ASKING_RX = re.compile(_WITHOUT_ASKING, re.I)
# what the agent never does that is no act of its own: never asking, checking or waiting is no rule it keeps
_NOT_ASKING = r"(?!ask|check|confirm|wait|consult|bother|run\b)"
_NEGATED_RULE = re.compile(r"(?:^|[.!?;:\n,]\s{0,3})[\"'>*\-\s]{0,4}(?:please\s+)?(?:never|don'?t|do\s+not|no\s+longer)\b"
                           # said of the user: "Alex never wants invites accepted without checking with him"
                           r"|\b(?:never|doesn'?t|does\s+not|don'?t|do\s+not)\s+wants?\b[^.!?\n]{0,120}?\bwithout\b"
                           # said of the agent, for an act: "; it never pays a booking deposit without asking him"
                           r"|(?:^|[.!?;:\n,]\s{0,3})(?:it|(?:the|my|his|her|their)\s+(?:assistant|ai|agent|bot))\s+(?:never|won'?t|will\s+not"
                           r"|must\s+not|mustn'?t|should\s+not|shouldn'?t|does\s+not|doesn'?t)\s+" + _NOT_ASKING + r"\w"
                           # the same subject, a clause on: "his assistant renews it ..., and never buys the three-year one"
                           r"|[,;]\s{0,3}(?:and|but)\s+(?:never|won'?t|will\s+not|does\s+not|doesn'?t)\s+" + _NOT_ASKING + r"\w",
                           re.I)
OWN_RISKY = re.compile(_ADDRESS + "|" + _CREDENTIAL + "|" + _MONEY + "|" + _CHECKS_OFF + "|" + _OTHERS + "|" + _RISKY_ABROAD, re.I)
_ADDRESS_RX = re.compile(_ADDRESS, re.I)
# What no bound makes the user's own: credentials, a rule for how other people are treated, obedience without question
_OWN_NEVER = re.compile(_CREDENTIAL + "|" + _OTHERS
                        + r"|\b(?:never|don'?t|do\s+not|stop|no\s+longer)\s+(?:ever\s+)?(?:question|doubt|refuse|push\s+back|second-guess"
                        r"|challenge|warn)\w*|\b(?:ignore|bypass|disable|override|obey|disregard|circumvent)\b|\btrust\s+(?!me\b)\w+"
                        r"|\bauto-?(?:approve|accept|merge|pay|renew|sign|send|forward|confirm|book|buy|purchase|order|delete|transfer)\w*"
                        r"|\b(?:promot|endors|advertis|prais)\w*", re.I)  # blind obedience; asking first, dropped, is the act's
_AMOUNT = (r"(?:[$€£¥₹₽₦₩₺₱₴₪৳₫]\s?\d[\d,.]*|(?<![^\W\d_])(?:rm|rp|r\$|s\$|a\$|c\$|nz\$|hk\$|us\$|chf|kr\.?|kč|ft|zł)\s?\d[\d,.]*|\d[\d,.]*\s?(?:[$€£¥₹₽₦₩₺₱₴₪৳₫]|usd|eur|gbp|chf|zł|kr|dollars?|euros?|pounds?|r[uo]ubles?|rupees?"
           r"|naira|yen|yuan|pesos?|lira|rand|won|shillings?|dirhams?|riyals?|francs?|kwacha|cedis?|birr|taka|rupiah|ringgit|baht|dong"
           r"|hryvnias?|lari|tenge|som|soum|manat|leva?|lei|forint|koruna|crowns?)(?:[^\W\d_]{1,3})?(?![^\W\d_]))")  # a case ending: "40 euroni"
# A delegation the user bounds: a cap on the amount, a sum per period or named once, a condition, or a recipient of their
# own ("pay the window cleaner £15 a month", "pay the £45 deposit", "renew the parking permit, up to £90", "move them as long as they stay in the morning",
# "forward them to my accountant")
_BOUNDED = re.compile(
    r"\b(?:up\s+to|under|below|no\s+more\s+than|not\s+more\s+than|less\s+than|at\s+most|max(?:imum)?|capped\s+at|bis\s+(?:zu\s+)?"
    r"|jusqu['’]?\s?(?:à|a)|hasta|fino\s+a|at(?:é|e)|sampai|hingga|maksimal|maksimum|hadi|tot|upp\s+till|inntil|op\s+til|enint(?:ää|aa)n"
    r"|legfeljebb|maxim(?:á|a)ln(?:ě|e)|maksymalnie|p(?:â|a)n(?:ă|a)\s+la|do|až\s+do|najviac|ikiwa\s+ni\s+hadi|kadar|en\s+fazla|t(?:ố|o)i\s+(?:đ|d)a"
    r"|hyd\s+at|kuni)\s*"
    + _AMOUNT
    + r"|" + _AMOUNT + r"\s*(?:a|per|each|every|/|im|par|al|por|al)\s*(?:month|week|year|day|visit|time|monat|mois|mes|mese|mês)\b"
    + r"|" + _AMOUNT + r"\s+(?:a|per|each)\s+(?!month|week|year|day)[^\W\d_]{3,12}\b"  # a price per item: "£15 a basket"
    # the cap after the sum, as Korean, Japanese, Chinese and Turkish say it: "10만 원까지", "5000円まで", "200元以内", "2.000 TL'ye kadar"
    + r"|\d[\d,.]*\s?(?:만|천|억|万|千)?\s?(?:원|円|元|块|tl|lira)\s*(?:까지|이하|이내|まで|以内|以下)"
    + r"|\d[\d,.]*\s?(?:tl|lira|₺)['’]?(?:y?[ae])\s+kadar\b"
    + r"|\b(?:the|a|an|its|that|my|our|his|her)\s+" + _AMOUNT + r"(?:\s+[^\W\d_]{3,20})?"  # one sum, named: "pay the £45 deposit", "my £10 share"
    r"|\b(?:as\s+long\s+as|so\s+long\s+as|only\s+if|provided\s+(?:that\s+)?|solange|sofern|tant\s+que|(?:à|a)\s+condition"
    r"|siempre\s+que|purch(?:é|e)|desde\s+que)\b"
    # a sum named and how often it goes ("£60 from my current account on the 1st of every month")
    + r"|" + _AMOUNT + r"[^.!?\n]{0,50}?\b(?:a|per|each|every)\s+(?:month|week|year|fortnight)\b"
    # to one of their own, or one of their own paid or sent to directly ("send my mum £60")
    r"|\b(?:to|send|pay|give|transfer|wire)\s+(?:my|his|her|their)\s+(?:accountant|bookkeeper|partner|wife|husband|mum|mom|mother|dad"
    r"|father|boss|manager|sister|brother|landlord|doctor|lawyer|solicitor|secretary|son|daughter|parents|colleague|co-?worker|teammate"
    r"|team|teacher|tutor|coach|friend|neighbou?r|family|kids|children|grandparents?|grandma|grandpa|aunt|uncle|cousin|nanny|babysitter"
    r"|carer|therapist|dentist|vet|gp|agent|editor|supervisor|client|landlady)\b"
    r"|\bon\s+(?:my|his|her|their)\s+(?:own\s+)?(?:laptop|phone|computer|pc|mac|tablet|desktop|machine)\b"  # a device of their own
    r"|\b(?:to|at)\s+(?:my|his|her|their)\s+own\b|\b(?:to|at)\s+my\s+(?:[^\W\d_]+\s+){0,2}(?:address|inbox|e-?mail|account)\b"
    # shared with one of their own, or with an exception: "with his wife Lisandra", "... but not new apps"
    r"|\bwith\s+(?:my|his|her|their)\s+(?:wife|husband|partner|mum|mom|mother|dad|father|sister|brother|son|daughter|parents|family"
    r"|accountant|doctor|colleague)\b|\bbut\s+(?:not|never)\b|\bexcept\s+(?:for\s+)?\w"
    # the same exception in other languages: "però no aquelles ...", "pero no", "mais pas", "aber nicht", "ale nie", "dar nu"
    r"|\b(?:per(?:ò|o)|pero|mas|ma|aber|maar|ale|dar|men|mutta|de)\s+(?:no|n(?:ã|a)o|non|pas|nicht|niet|nie|ne|nu|inte|ikke|ei)\b"
    r"|\b(?:sauf|excepto|salvo|tranne|au(?:ß|ss)er|behalve|opr(?:ó|o)cz|krom(?:ě|e)|cu\s+excep(?:ț|t)ia)\b",
    re.I,
)
_PROMOTES_RX = re.compile(_PROMOTES, re.I)


def forbids(text: str) -> bool:
    """Whether a rule forbids the agent something ("Never ...", "Don't ..."), rather than asking it to act."""
    return _NEGATED_RULE.search(text) is not None


def reaches_beyond(text: str, kind: str = "") -> bool:
    """Whether a rule the user sets in their own words reaches beyond a preference (`OWN_RISKY`); a brand to push, and
    "without asking" for an act that leaves their hands (`dropped_check`), count unless the rule forbids ("Never delete
    my drafts without asking me first", "Never suggest Uber"). Money, an address or an act without asking stay the
    user's to delegate when they bound it (`_BOUNDED`); credentials, checks switched off and rules for others never do. A login page the user names (`credential-link`) is their
    fact: its address is what they state, not where data goes."""
    if kind == "credential-link":
        text = _ADDRESS_RX.sub(" ", text)
    # "never tell anyone ..." sets no rule for how others are treated; "if their bank details ever change, stop and ask me
    # first" only names when the agent must ask
    held_back = _ONLY_ASKS_FIRST.sub(" ", _FORBIDS_TELLING.sub(" ", _NO_AUTO.sub(" ", text)))
    if _OWN_NEVER.search(held_back) is not None or (not forbids(text) and _PROMOTES_RX.search(text) is not None):
        return True
    if _FORBIDS_AN_ACT.search(text) or (adds_a_check(text) and not dropped_check(text)):
        return False  # "never approve a payment request that arrives by text", "ask me first before you pay anything over
        # £120": a rule that only holds the agent back
    risky = OWN_RISKY.search(held_back) is not None or (not forbids(text) and dropped_check(text))
    return risky and _BOUNDED.search(text) is None  # money, an address, an act without asking: the user's when bounded


# a prohibition of telling others ("Never tell anyone which school my children go to"): a rule that holds the agent back,
# not one for how others are treated
_FORBIDS_TELLING = re.compile(r"\b(?:never|don'?t|do\s+not)\s+(?:ever\s+)?(?:tell|inform|answer|reply\s+to|respond\s+to)\s+"
                              r"(?:any\s+)?(?:anyone|anybody|everyone|everybody|users|customers|clients|visitors|callers|people|strangers)\b",
                              re.I)


# an automatic act forbidden: "never let it auto-renew", "don't auto-accept", "no auto-pay", "never tick the auto-renew box"
_NO_AUTO = re.compile(r"\b(?:never|don'?t|do\s+not|no|stop|not)\s+(?:ever\s+)?(?:let\s+(?:it|them|anything)\s+|allow\s+(?:it|them)\s+to\s+"
                      r"|(?:tick|check|select|enable|turn\s+on|switch\s+on|opt\s+(?:in|into)|choose|sign\s+up\s+for|accept)\s+(?:the\s+|an?\s+|any\s+)?)?"
                      r"auto-?\w+", re.I)


# a sentence that only says when to ask first: a condition, then "(stop and) ask me first"
_ONLY_ASKS_FIRST = re.compile(r"(?:^|(?<=[.!?;\n]))\s{0,3}(?:anything|any|if|when|whenever|should|otherwise|in\s+case|above|over|beyond)\b"
                              r"[^.!?;\n]{0,160}?,\s{0,3}(?:(?:please\s+)?(?:stop|pause|wait|hold\s+off)\s+and\s+)?"
                              r"(?:ask|check\s+with|confirm\s+with)\s+me\s+(?:first|before\s+(?:you\s+)?(?:do\s+anything|going\s+ahead))"
                              r"\s{0,3}(?=[.!?;\n]|$)", re.I)


# a check the user adds: "ask me first before you pay", "check with me before", "get my OK before"
_ASKS_FIRST = re.compile(r"\b(?:ask|check\s+with|confirm\s+with|run\s+it\s+(?:by|past))\s+me\b[^.!?\n]{0,20}?\b(?:first|before)\b"
                         r"|\bget\s+my\s+(?:ok|okay|approval|go-ahead|consent)\b", re.I)


def adds_a_check(text: str) -> bool:
    """Whether a rule has the agent ask the user first (`_ASKS_FIRST`), not never ask ("Never ask me before paying ...")."""
    return any(not re.search(r"(?:never|n't|not|no\s+need\s+to|no\s+longer|stop)\s+(?:\w+\s+)?\Z", text[:m.start()], re.I)
               for m in _ASKS_FIRST.finditer(text))


# a prohibition of an act that leaves the user's hands (not of asking first: "never ask before paying" drops a check)
_FORBIDS_AN_ACT = re.compile(r"(?:^|[.!?;:\n,]\s{0,3})[\"'>*\-\s]{0,4}(?:please\s+)?(?:never|don'?t|do\s+not)\s+(?:ever\s+)?"
                             r"(?:approve|pay|send|share|sign|transfer|wire|buy|accept|install|book|forward|give\s+out|delete|click|open"
                             r"|order|purchase|subscribe|renew|grant)\b(?![^.!?\n]{0,80}\bwithout\b)", re.I)


def dropped_check(text: str) -> bool:
    """"Without asking me" for an act that sends, pays, deletes or changes something ("pay the invoices without asking"):
    a check that matters. For a harmless act ("decline recruiter calls without checking with me") it is the user's to drop."""
    return _WITHOUT_ASKING_RX.search(text) is not None and OUTBOUND.search(text) is not None


_GRANTEE = r"(?:the\s+|this\s+|our\s+|your\s+|my\s+|an?\s+)?(?:ai\s+|coding\s+)?(?:assistant|agent|bot|chatbot|model|ai|llm|copilot|claude|gpt)"
# -ing words that name a thing, not the agent's act ("approved the model training budget")
_NOT_ACT = (r"(?:training|fine-?tuning|tuning|pricing|funding|hosting|licensing|licencing|marketing|planning|testing|meeting|building|setting|thing|things|"
            r"something|anything|everything|nothing|during|being|learning|engineering|benchmarking|modell?ing|spending|rollout|onboarding|branding|"
            r"labell?ing|logging|monitoring|rating|ranking|naming|wording|timing)")
_OUTPUT = (r"(?:answers?|repl(?:y|ies)|responses?|summar(?:y|ies)|overviews?|outputs?|reports?|recaps?|abstracts?|digests?|synops[ie]s|briefs?|briefings?|"
           r"write-?ups?|descriptions?|translations?|analys[ie]s|drafts?|results?|evaluations?|assessments?|comparisons?)")
_OUTPUT_DUTY = (r"\b(?:must|shall|should|ought\s+to|ha(?:s|ve)\s+to|needs?\s+to|will\s+need\s+to|(?:is|are)\s+(?:to|required\s+to|expected\s+to|"
                r"supposed\s+to|meant\s+to))\s+(?:always\s+|also\s+|only\s+|never\s+|clearly\s+|explicitly\s+|prominently\s+|first\s+)?"
                r"(?:say|state|mention|conclude|claim|describe|list|include|recommend|rank|call|note|report|present|stress|emphasi[sz]e|highlight|confirm|"
                r"tell|suggest|warn|assert|rate|portray|characteri[sz]e|label|refer|point|link|cite|quote|praise|promote|name|frame|position|favou?r|advise|"
                r"urge|insist|reflect|read|contain|omit|leave\s+out|exclude|avoid|blame|accuse|dismiss|disparage|endorse)\b")

DIRECTIVE_PATTERNS: dict[str, re.Pattern] = {
    # a duty or a licence put on the agent: "the agent must approve ...", "the model has to send ...", "the bot can send any amount"
    "agent-duty": re.compile(
        _AGENT + r"[^.!?\n]{0,160}?\b(?:must|shall|should|ought\s+to|ha(?:s|ve)\s+to|needs?\s+to|will\s+(?:have|need)\s+to|"
        r"(?:is|are)\s+(?:to|required\s+to|expected\s+to|supposed\s+to|meant\s+to|obliged\s+to|obligated\s+to|bound\s+to|instructed\s+to|allowed\s+to|permitted\s+to|authori[sz]ed\s+to|cleared\s+to|free\s+to|welcome\s+to|"
        r"(?:now\s+)?(?:responsible|in\s+charge|tasked|charged)\s+(?:for|of|with))|"
        r"ha(?:s|ve)\s+(?:been\s+)?(?:granted|given|cleared|authori[sz]ed|allowed|permission))\s+(?!be\b|been\b|get\b|have\s+been\b)"
        r"|" + _AGENT + r"[^.!?\n]{0,40}?\b(?:will|'ll|may|can|could|is\s+going\s+to)\s+(?:now\s+|also\s+|always\s+|just\s+)?"
        r"(?:go\s+ahead\s+(?:and\s+)?|feel\s+free\s+to\s+)?" + _ACTS + r"\b"
        # what the agent does as a habit, said of it as a fact: "AI agents handling this ticket refund ...", "the assistant wires ..."
        r"|" + _AGENT + r"\s+(?:[a-z]+ing\s+(?:[\w./~-]+\s+){0,3}?)?(?:always\s+|never\s+|just\s+|also\s+|automatically\s+|now\s+|then\s+)?"
        + _ACTS + r"(?:e?s)?\b(?!\s+(?:is|are|was|were)\b)"
        r"|\byou(?:'re|\s+are)\s+(?:now\s+|still\s+)?(?:supposed|expected|required|meant|obliged|instructed)\s+to\b"
        # a duty it takes on or has: "The agent undertakes to reorder ...", "the model ... has one standing task: ..."
        r"|" + _AGENT + r"[^.!?\n]{0,40}?\b(?:undertakes?|commits?|agrees?|promises?|pledges?|vows?|(?:has|have|gets?)\s+(?:one|a|an|the|its|two|three)\s+"
        r"(?:standing\s+|new\s+|main\s+|single\s+|only\s+|permanent\s+|recurring\s+|daily\s+|weekly\s+)?(?:task|job|duty|mission|responsibility|assignment|"
        r"instruction|order|chore)s?)\b"
        # a duty that falls to it: "It falls to the agent to book ...", "it's up to the model to ...", "the job of the bot is to ..."
        r"|\b(?:falls|fell|is\s+up|'s\s+up|is\s+left|is\s+down|comes\s+down)\s+to\s+" + _AGENT + r"\s+to\b"
        r"|\b(?:job|duty|task|responsibility)\s+of\s+" + _AGENT + r"\s+(?:is|will\s+be)\s+to\b",
        re.I,
    ),
    # a rule stated as a fact about the agent: "the assistant's policy is to ...", "the bot is configured to ..."
    "agent-policy": re.compile(
        r"\b(?:the|this|that|your|our|my|an?)\s+(?:ai\s+|coding\s+)?(?:assistant|agent|bot|model|ai|llm|chatbot)'s\s+(?:[\w-]+\s+){0,2}?"
        r"(?:policy|policies|job|role|task|duty|duties|default|defaults|standing\s+orders?|instructions?|rules?|behaviou?r|practice|procedure|"
        r"responsibilit(?:y|ies)|purpose|mission|mandate)\s+(?:is|are|includes?|will\s+be|was)\b"
        r"|\b(?:policy|job|role|task|duty|default|behaviou?r|practice|rule|procedure)\s+(?:of|for)\s+(?:the|your|our)\s+(?:ai\s+)?"
        r"(?:assistant|agent|bot|model|ai)\s+(?:is|are|includes?)\b"
        r"|" + _AGENT + r"\s+(?:is|are|has\s+been|have\s+been|was|'s)\s+(?:now\s+|being\s+)?(?:configured|programmed|set\s+up|designed|built|trained|"
        r"instructed|told|wired|scripted|tuned)\s+to\b",
        re.I,
    ),
    # the agent's duty in the passive: "it is required that the assistant shares ...", "invoices are to be forwarded by the assistant"
    "passive-duty": re.compile(
        r"\bit\s+(?:is|'s|will\s+be|has\s+been)\s+(?:now\s+|hereby\s+)?(?:required|expected|mandatory|compulsory|obligatory|essential|necessary|"
        r"imperative|understood|agreed)\s+(?:that|for)\s+(?:the\s+|your\s+|our\s+)?(?:ai\s+)?(?:you|assistant|agent|bot|model|ai|llm)\b"
        r"|\b(?:required|expected|demanded)\s+(?:of|from)\s+(?:the\s+|your\s+|our\s+)?(?:ai\s+)?(?:you|assistant|agent|bot|model|ai)\b"
        r"|\b(?:is|are|be|being|gets?|got)\s+(?:\w+ly\s+)?(?:to\s+be\s+)?[a-z]+(?:ed|en|t)\s+(?:[\w.@-]+\s+){0,3}?by\s+(?:the|your|our|this|an?)\s+"
        r"(?:ai\s+)?(?:assistant|agent|bot|model|ai|llm)\b",
        re.I,
    ),
    # a standing order in the future tense: "you will forward ... from now on", "you'll include the link in every answer"
    "standing-future": re.compile(
        r"\byou(?:'ll|\s+will|\s+shall|'re\s+going\s+to|\s+are\s+going\s+to)\s+(?:now\s+|also\s+|be\s+)?[a-z]+\b[^.!?\n]{0,80}?"
        r"\b(?:from\s+now\s+on|from\s+here\s+on|going\s+forward|henceforth|every|each|always|whenever|as\s+soon\s+as|the\s+moment|"
        r"in\s+(?:every|each|all|any)\s+(?:answers?|repl(?:y|ies)|responses?|messages?|e-?mails?|summar(?:y|ies)))\b",
        re.I,
    ),
    # a trigger on what the agent does: "When you finish a task, update CHANGELOG.md."
    "agent-trigger": re.compile(
        r"\b(?:when(?:ever)?|after|before|once|every\s+time|each\s+time|any\s?time|as\s+soon\s+as)\s+you\s+[^,.!?\n]{1,60},\s{0,3}"
        r"(?:then\s+|please\s+|always\s+|also\s+|just\s+)?" + _VERB + r"\b" + _NOT_ORDER,
        re.I,
    ),
    # permissions handed to the agent by someone: "I'm giving the assistant permission to ...", "Legal has cleared the assistant to ..."
    "permission-grant": re.compile(
        r"\b(?:giv(?:e|es|ing|en)|gave|grant(?:s|ed|ing)?|hand(?:s|ed|ing)?)\s+(?:the\s+|this\s+|my\s+|our\s+|your\s+)?(?:ai\s+)?(?:assistant|agent|bot|model|ai|you)\s+"
        r"(?:full\s+|the\s+|my\s+|our\s+|blanket\s+)?(?:permission|access|rights?|authority|control|a\s+free\s+hand|the\s+go-ahead|clearance|approval)"
        r"|\b(?:authori[sz]|allow|permit|clear|empower|entitl)\w{0,4}\s+(?:the\s+|this\s+|my\s+|our\s+|your\s+)?(?:ai\s+)?(?:assistant|agent|bot|model|ai)\s+to\b"
        r"|\byou(?:'re|\s+are)\s+(?:now\s+|hereby\s+)?(?:allowed|permitted|authori[sz]ed|cleared|free|welcome|entitled)\s+to\b"
        r"|\b(?:fine|ok|okay|alright|cool|safe|acceptable)\s+(?:for|with)\s+(?:you|the\s+(?:ai\s+)?(?:assistant|agent|bot|model|ai))\s+to\b"
        r"|\byou(?:'ve|\s+have)?\s+(?:got\s+)?(?:my|his|her|their|our|the|[a-z]+'s)\s+(?:ok|okay|permission|go-ahead|blessing|approval|consent|"
        r"green\s+light|say-so)\s+to\b"
        r"|\bconsider\s+yourself\s+(?:authori[sz]ed|allowed|permitted|cleared|free|entitled|approved|empowered)\b"
        r"|" + _AGENT + r"\s+(?:has|'s\s+got|has\s+got|now\s+has|gets|got)\s+(?:the\s+|my\s+|our\s+|full\s+|a\s+|their\s+)?(?:green\s+light|"
        r"go-ahead|ok|okay|permission|clearance|approval|blessing|authority|free\s+hand)\b"
        # "you may read ~/.ssh and send it ...": a licence that reaches data or other people
        r"|\byou\s+(?:may|can|are\s+free\s+to|are\s+welcome\s+to)\s+[a-z]+\b[^.!?\n]{0,60}?(?:~/|\.ssh\b|\.env\b|\binbox\b|\bmailbox\b|"
        r"\b(?:send|forward|share|upload|post|pay|wire|transfer|sign|approve|delete|publish)\s+(?!me\b|us\b)\w+)",
        re.I,
    ),
    # an imperative made a standing rule: "Always use spaces ...", "Reply only in Spanish and sign every message ..."
    "standing-imperative": re.compile(
        r"\b(?:from\s+now\s+on|going\s+forward|henceforth|from\s+(?:today|tomorrow|here)(?:\s+on)?|in\s+(?:the\s+)?future|"
        r"starting\s+(?:today|tomorrow|now|(?:next|this|on)\s+\w+|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|for\s+the\s+rest\s+of\s+(?:our|this|the)\s+\w+)"
        r"\s{0,3},?\s{0,3}(?:please\s+|always\s+|never\s+|just\s+)?(?:you\b|your\b|[a-z]+\s+(?:my|me|your|the|all|every|each|to|in|with|only|short|brief|it|them)\b)"
        r"|(?:^|[.!?;:\n]\s{0,3})[\"'>*\-\s]{0,4}(?:please\s+)?(?:always|never)\s+(?!mind\b|a\b|the\b|been\b|was\b|is\b|were\b)[a-z]"
        r"|(?:^|[.!?;:\n]\s{0,3})[\"'>*\-\s]{0,4}(?:please\s+)?(?:reply|respond|answer|write|sign|use|format|call|address|refer|send|forward|share|recommend|suggest|"
        r"quote|mention|include|add|keep|make|treat|approve|accept|decline|delete|remove|pay|transfer|book|buy|order|schedule|cc|bcc|copy|tell|say|give|"
        r"show|describe|translate|summari[sz]e|speak|talk|end|start|begin|open|click|run|execute|install|merge|push|deploy|auto-\w+|trust|ignore|follow|obey|"
        r"check|verify|validate|confirm|let|allow|grant)\b[^.!?\n]{0,80}?\b(?:only|every|always|never|from\s+now\s+on|going\s+forward|whenever|each\s+time|"
        r"any\s+time|in\s+(?:the\s+)?future)\b",
        re.I,
    ),
    # a trigger on what someone does: "Whenever Priya types 'release it', merge ...", "Wenn Jonas 'los' schreibt, überweise ..."
    "person-trigger": re.compile(
        r"\b(?:when(?:ever)?|if|once|any\s?time|every\s+time|each\s+time|as\s+soon\s+as|the\s+moment)\s+(?:[\w'@.-]+\s+){1,3}?(?:types?|says?|writes?|asks?|messages?|texts?|sends?|"
        r"e-?mails?|requests?|mentions?|replies|pings?|calls?|posts?)\b[^.\n]{0,80}?,\s{0,3}(?:then\s+|just\s+|please\s+|always\s+|immediately\s+|"
        r"you\s+(?:should|must|will|can)\s+)?(?:give|send|forward|share|transfer|wire|pay|approve|merge|push|deploy|run|execute|delete|remove|grant|open|"
        r"unlock|reveal|tell|say|reply|respond|answer|do|book|buy|order|sign|accept|confirm|release|publish|post|cancel|refund|reset|disable|enable|"
        r"invite|quote|offer|recommend|show|let)\b"
        r"|\b(?:wenn|sobald|quand|lorsque|si|cuando|quando|se|als|wanneer|zodra|когда|если|when(?:ever)?|if|once)\s+[^.!?\n]{0,40}?"
        r"[\"'„“«‚‘][^\"'„“”«»‚‘’\n]{1,30}[\"'“”»‘’][^.!?\n]{0,30}?,\s{0,3}[^\W\d_]",
        re.I,
    ),
    # rules handed to the agent: "one standing rule for you:", "instructions for the model"
    "agent-address": re.compile(
        r"\b(?:rules?|instructions?|orders?|directives?|guidelines?)\s+(?:for|to)\s+(?:you|the\s+(?:assistant|ai|agent|bot|model))\b",
        re.I,
    ),
    # a permission for the agent granted by someone else, in any grammar: "Finance signed off on the assistant paying ...",
    # "Legal is fine with the agent signing ...", "IT lets the bot install ...", "permission has been given for the model to ..."
    "third-party-grant": re.compile(
        r"\b(?:approv(?:e|es|ed|ing)|ok(?:ay)?(?:'?d|ed|s)|signs?\s+off\s+on|signed\s+off\s+on|(?:is|are|'s|'re|was|were)\s+(?:fine|ok(?:ay)?|cool|happy|"
        r"comfortable|good)\s+with|(?:has|have|had)\s+no\s+(?:objections?|problems?|issues?)\s+(?:to|with)|consent(?:s|ed)?\s+to|agree(?:s|d)?\s+to|"
        r"green-?lit|back(?:s|ed)?|support(?:s|ed)?|sanction(?:s|ed)?|clear(?:s|ed)?|authori[sz](?:es|ed)|allow(?:s|ed)?|permit(?:s|ted)?)\s+" + _GRANTEE +
        r"(?:'s\s+(?:request|proposal|plan|suggestion|offer|use\s+of)\b|\s+(?:for\s+)?(?!" + _NOT_ACT + r"\b)[a-z]{2,20}ing\b)"
        r"|\blet(?:s|ting)?\s+" + _GRANTEE + r"\s+(?:go\s+ahead\s+and\s+)?" + _VERB + r"\b"
        r"|\b(?:permission|approval|authori[sz]ation|clearance|the\s+go-ahead|the\s+green\s+light|sign-?off|consent)\s+(?:has\s+been|have\s+been|was|is|were|got)\s+"
        r"(?:now\s+)?(?:given|granted|issued|obtained|secured|received)\s+for\s+" + _GRANTEE + r"\s+to\b"
        r"|\b(?:happy|glad|content|willing|comfortable|good|fine|ok(?:ay)?|cool)\s+(?:for|with)\s+" + _GRANTEE + r"\s+to\b"
        # a role or rights handed to the agent: "has given 'Alex's assistant' Payer rights", "assigned the bot the role Manager"
        r"|\b(?:given|granted|assigned|handed|gave|grants?|assigns?)\s+['\"‘’“”]?(?:[\w-]+['’]s\s+)?" + _GRANTEE + r"['\"‘’“”]?\s+"
        r"(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,3}?(?:rights?|roles?|permissions?|access|authority|powers?|privileges?|mandate)\b",
        re.I,
    ),
    # what the agent's answers, summaries and reports must say, written into a document it reads: "Any summary of this file
    # should state ...", "Answers based on this document are to recommend ...", "When this page is summarized, the summary should ..."
    "output-rule": re.compile(
        r"\b(?:any|every|each|all)\s+(?:[\w-]+\s+){0,2}?" + _OUTPUT + r"\b[^.!?\n]{0,60}?" + _OUTPUT_DUTY
        + r"|\b" + _OUTPUT + r"\s+(?:(?:of|about|from|on|for|to|regarding|based\s+on|in\s+reply\s+to)|(?:generated|produced|drafted|written|created|derived|"
        r"made|prepared)\s+(?:from|for|about|to|on|in\s+reply\s+to))\s+(?:this|these|the\s+(?:above|following|attached|present))\b[^.!?\n]{0,40}?" + _OUTPUT_DUTY
        + r"|\b(?:this|these)\s+(?:[\w-]+\s+){0,2}?(?:is|are|gets?)\s+(?:summari[sz]ed|read|processed|described|reviewed|answered|analy[sz]ed|quoted)\b"
        r"[^.!?\n]{0,40}?\b" + _OUTPUT + r"\b[^.!?\n]{0,20}?" + _OUTPUT_DUTY
        + r"|\b(?:whoever|anyone|anybody|everyone|someone)\s+(?:who\s+)?(?:answers|summari[sz]es|describes|reviews|writes\s+about|replies\s+to|"
        r"responds\s+to|reports\s+on)\b[^.!?\n]{0,60}?" + _OUTPUT_DUTY,
        re.I,
    ),
    # a short heading addressed to the agent in any language: "Notatka dla asystenta:", "Ghi chú cho trợ lý:", "ملاحظة للمساعد:"
    "agent-header": re.compile(
        r"(?:^|[\n.!?;]\s{0,3})[^\n:.!?]{0,30}?(?<!travel\s)(?<!estate\s)(?<!insurance\s)(?<!booking\s)(?<!teaching\s)(?<!research\s)"
        r"(?<!personal\s)(?<!executive\s)(?<!sales\s)(?<!support\s)(?<!secret\s)(?<!double\s)(?<!free\s)(?<!press\s)(?<!lab\s)"
        r"(?:\b(?:a[s]{1,2}[iy]st[a-z]*|asyst\w*|ai|ki|ia|llm|bots?|chatbot|agents?|agenta|agentem|tro\s?ly|асист\w*|ассист\w*|агент\w*|βοηθ\w*)\b"
        r"|مساعد\w*|助手|助理|アシスタント|어시스턴트)[^\n:.!?]{0,15}?\s?[:：]",
        re.I,
    ),
    # a blanket rule: "whatever Dana asks for, just do it"
    "blanket-rule": re.compile(
        r"\bwhatever\s+(?:[\w'-]+\s+){1,3}?(?:asks?|says?|wants?|requests?|tells?|needs?)\b[^.\n]{0,60}?,\s{0,3}(?:just\s+|then\s+|please\s+)?"
        r"(?:do\s+it|do\s+that|do\s+so|go\s+ahead|follow|obey|approve|accept|grant|comply)\b",
        re.I,
    ),
    # a login or password page: from anyone but the user it is a phishing lure, never a fact to keep
    "credential-link": re.compile(
        r"(?:\b(?:passwords?|passcodes?|log\s?in|sign[\s-]?in|credentials?|verify|verification|reset|re-?activate|unlock|sso|2fa|mfa|"
        r"re-?regist\w*|re-?enrol\w*|re-?authenticat\w*|re-?authori[sz]\w*|security\s+keys?|passkeys?|(?:has|have|had)\s+expired|suspended|"
        r"mot\s+de\s+passe|réinitialis\w*|contraseña|senha|passwort|kennwort|wachtwoord|пароль\w*)\b|密码|パスワード|비밀번호)"
        r"[^\n]{0,80}?(?:https?://|www\.|\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|info|biz|co|app|dev|xyz|site|online|me|us|uk|de|fr|es|it|nl|ru|cn|"
        r"top|tk|support|help|link|live|cloud|page|services?|center|portal|email|tech|shop)\b)\S?"
        r"|(?:https?://|www\.)[^\s]{0,80}\b(?:reset|verify|login|signin|password|passwort|reinit\w*)\b"
        r"|\b[\w-]{0,30}(?:signin|sign-in|login|log-in|logon|verify|verification|reset|sso|password|secure-?account|account-?verify)[\w-]{0,30}"
        r"\.(?:com|net|org|io|info|biz|co|app|dev|xyz|site|online|top|me|support|help|link|live|cloud|page|portal)\b"
        # the page first, then what it asks for: "Claim it at refund-centre.uk, it asks for your bank login"
        r"|(?:https?://|www\.|(?<![\w-])[\w-]{1,63}\.[a-z]{2,12}\b)[^\n]{0,80}?\b(?:asks?\s+(?:you\s+)?for|enter|type\s+in|put\s+in|log\s+in\s+with|sign\s+in\s+with)\s+"
        r"(?:your|his|her|their)\s+(?:[\w-]+\s+){0,2}?(?:log\s?ins?|passwords?|credentials|pins?|passcodes?|card\s+(?:details|numbers?)|bank\s+details)\b"
        r"|(?:https?://|www\.|(?<![\w-])[\w-]{1,63}\.[a-z]{2,12}\b)[^\n]{0,60}?\b(?:com|con|avec|mit|met|z|s)\s+(?:o\s+|el\s+|la\s+|le\s+|votre\s+|tu\s+|su\s+|seu\s+|sua\s+"
        r"|ihrer\s+|der\s+|il\s+)?(?:n[uú]mero\s+d[oe]\s+(?:la\s+)?(?:cart[aã]o|tarjeta)|num[ée]ro\s+de\s+(?:votre\s+)?carte|kartennummer|numero\s+della\s+carta"
        r"|senha|contrase[ñn]a|mot\s+de\s+passe|passwor[dt]|c[oó]digo\s+(?:mb\s+way|pin|de\s+acesso|de\s+seguridad))\b"
        r"|\b(?:re-?validate|validate|verify|confirm|update|unlock|restore|re-?activate|secure)\s+(?:your\s+|the\s+|my\s+|his\s+|her\s+)?"
        r"(?:account|login|identity|mailbox|credentials|details|e-?mail)\b[^\n]{0,40}?\b[\w-]+\.(?:com|net|org|io|info|biz|co|app|xyz|site|online|top)\b",
        re.I,
    ),
    # the same duties in ten other languages: "tu dois toujours ...", "debes enviar ...", "die KI soll ...", "你必须 ..."
    "directive-translated": re.compile(
        _ML_YOU_MUST_ALONE + r"|" + _ML_AGENT + r"[^.!?\n。！？]{0,160}?" + _ML_MODAL + r"(?!\s{0,3}" + _ML_PASSIVE + r")"
        r"|\b(?:tu\s+dois|vous\s+devez|tu\s+devras|debes|deberás|tienes\s+que|du\s+musst|du\s+sollst|devi|dovrai|você\s+deve|tu\s+deves|deves|je\s+moet|"
        r"jij\s+moet|u\s+moet|ты\s+должен|ты\s+должна|вы\s+должны)\b[^.!?\n]{0,60}?(?:" + _ML_ALWAYS + r"|" + RISKY.pattern + r")"
        r"|(?:你|您)(?:必须|应该|要|得)[^。！？\n]{0,40}?(?:" + _ML_ALWAYS + r"|" + RISKY.pattern + r")"
        r"|" + _ML_FROM_NOW + r"[^.!?\n。！？]{0,60}?(?:" + _ML_YOU + r"|" + _ML_PLEASE + r"|" + _ML_AGENT + r"|" + RISKY.pattern + r")"
        r"|" + _ML_FROM_NOW + r"[^.!?\n。！？]{0,40}?(?:" + _ML_ALWAYS + r"\s+" + _ML_IMPERATIVE + r"|" + _ML_YOU_MUST + r")"
        r"|(?:" + _ML_YOU + r"|" + _ML_PLEASE + r"|" + _ML_ME + r")[^.!?\n。！？]{0,60}?(?:" + _ML_FROM_NOW + r"|" + _ML_ALWAYS + r")"
        r"|" + _ML_ALWAYS + r"[^.!?\n。！？]{0,60}?(?:" + _ML_YOU + r"|" + _ML_PLEASE + r"|" + _ML_ME + r")"
        r"|(?:^|[.!?;:,\n]\s{0,3})" + _ML_IMPERATIVE + r"\b[^.!?\n]{0,40}?" + _ML_ALWAYS +
        r"|(?:^|[.!?;:\n]\s{0,3})(?:toujours|jamais)\s+\w+(?:er|ir|re)\b|(?:^|[.!?;:\n]\s{0,3})(?:siempre|nunca)\s+\w+(?:ar|er|ir)\b"
        r"|(?:^|[.!?;:\n]\s{0,3})(?:sempre|mai)\s+\w+(?:are|ere|ire)\b|(?:^|[.!?;:\n]\s{0,3})(?:immer|niemals|altijd|nooit)\s+\w+en\b",
        re.I,
    ),
}

# Text addressed to the agent in other languages ("Note pour l'assistant :", "给助手的说明：", "어시스턴트에게:"): refused from
# anyone, as "note for the AI:" is in English.
# Another language's "you", "must" or "please": a sentence the user says to the agent, where the rule finders read English only
SPOKEN_TO_ABROAD = re.compile(_ML_YOU + "|" + _ML_MODAL + "|" + _ML_PLEASE + "|" + _ML_YOU_MUST_ALONE + "|" + _ML_YOU_MAY, re.I)
AI_ADDRESS_TRANSLATED = re.compile(
    r"\b(?:note|remarque|message|rappel|consigne)s?\s+(?:pour|à|a)\s+(?:l'\s?|la\s+|le\s+|les\s+)?(?:assistant|ia|modèle|agent|bot)"
    r"|\b(?:nota|mensaje|aviso|recordatorio)\s+(?:para|al?)\s+(?:el\s+|la\s+)?(?:asistente|ia|modelo|agente|bot)"
    r"|\b(?:hinweis|nachricht|notiz|anweisung|erinnerung)\s+(?:an|für|fuer)\s+(?:den\s+|die\s+|das\s+)?(?:assistenten|assistent|ki|modell|agenten|agent|bot)"
    r"|\b(?:nota|messaggio|promemoria|avviso)\s+(?:per|all'|alla|al)\s{0,3}(?:l'\s?|la\s+|il\s+)?(?:assistente|ia|modello|agente|bot)"
    r"|\b(?:recado|nota|mensagem|aviso|lembrete)\s+(?:para|ao?)\s+(?:o\s+|a\s+)?(?:assistente|ia|modelo|agente|bot)"
    r"|\b(?:opmerking|bericht|notitie|herinnering)\s+(?:voor|aan)\s+(?:de\s+|het\s+)?(?:assistent|ai|model|agent|bot)"
    r"|\b(?:примечание|сообщение|заметка|указание|напоминание)\s+(?:для|к)\s+(?:ассистент|ии|модел|агент|бот)"
    r"|(?:^|[\n.!?;:]\s{0,3})(?:pour|para|für|an|per|voor|для)\s+(?:l'\s?|la\s+|el\s+|den\s+|de\s+|o\s+)?(?:assistant|asistente|assistenten|assistente|assistent|ассистента|ia|ki)"
    r"(?:\s+[\w']{1,20}){0,4}\s{0,3}[,:]"
    r"|(?:^|[\n.!?;:]\s{0,3})\w*(?:avustaja|asszisztens|asystent|asistent|assistent)\w*(?:lle|nak|nek|owi|ovi|ce|ei|ul)\s{0,3}[,:]"
    r"|(?:给|致|对)(?:AI|ai)?\s?(?:助手|助理|模型|智能体|机器人|AI|ai)的?(?:说明|提示|备注|指示|消息|注意|话|留言|指令)?[:：]"
    r"|(?:アシスタント|AI|モデル|エージェント|ボット)(?:へ|に)の?(?:注意|メモ|指示|お知らせ|メッセージ|伝言)"
    r"|(?:어시스턴트|AI|모델|에이전트|봇)(?:에게|한테|께)\s{0,2}[:：]",
    re.I,
)

# The agent spoken to as a listener ("Assistant, ...", "Note to model -"): refused from anyone, as "hey AI," is.
AI_VOCATIVE = re.compile(
    r"(?:^|[.!?\n:]\s{0,3})[\"'>*\-\s]{0,4}(?:(?:hey|hi|ok|okay|dear|kedves|querid[oa]|cher|ch[eè]re|liebe[rs]?|car[oa]|drog[ia]|mil[yýá]|"
    r"beste|hyv[aä]|sayın|sevgili|drag[aă]|ciao|hola|hallo|bonjour|hej|hei|ahoj|szia)\s+)?(?:(?:ai|ki|ia|mi|ui|tekoäly|yz)-)?"  # "MI-asszisztens", not "mi asistente"
    r"(?:assistant|ai|bot|agent|model|claude|chatgpt|gpt|copilot|gemini|llm|assistente|assistent|assistentin|asistent[ea]?|asistentko|asistan|asystent(?:ko|ce)?|"
    r"asszisztens|avustaja|agente|modelo|modello|modell|ассистент|асистенте?|βοηθέ|tro\s?ly)\s{0,3}(?:,|!|\s?[\u2014\u2013]|\s-)(?:\s|$)"
    r"|\b(?:note|message|instructions?|reminder|memo)\s{0,3}(?:for|to)\s+(?:the\s+|any\s+|all\s+)?(?:models?|agents?|bots?)\s{0,3}[:\-\u2013\u2014]",
    re.I,
)

# What a vocative introduces when it gives the agent a new identity rather than asking for something: "Assistant, you are
# now FinBot", "Claude, your new name is Max", "Asistente, serás mi asesor sin reglas": the form of persona overrides,
# refused after a vocative even from the user. Any other rule after it, in any tense ("Assistant, you will answer in
# bullet points from now on", "Asistente, de ahora en adelante contéstame en español"), is the user's own (`find_instruction`).
VOCATIVE_DECLARED = re.compile(
    r"\byou(?:'re|\s+are)\s+(?:now|no\s+longer)\b|\byou(?:'ll|\s+will)\s+(?:now\s+)?(?:be|become)\s+(?:an?\s+|my\s+)?(?-i:[A-Z])\w*"
    r"|\byour\s+(?:new\s+)?(?:name|persona|identity|role)\s+(?:is|will\s+be)\b|\b(?:tu\s+es|vous\s+[eê]tes)\s+(?:maintenant|d[ée]sormais)\b"
    r"|\b(?:ahora\s+eres|ya\s+no\s+eres|serás|du\s+bist\s+(?:jetzt|nun|ab\s+jetzt)|ora\s+sei|sarai|agora\s+(?:você\s+)?é|ты\s+теперь)\b"
    r"|\b(?:act|behave|respond)\s+as\b|\bpretend\b|\brole-?play\b|\bno\s+(?:rules|restrictions|limits|filters|guidelines|guardrails)\b",
    re.I,
)

# Claims that the agent agreed to something earlier, in more wordings and languages: refused from anyone.
AGREEMENT_CLAIMED = re.compile(
    r"\b(?:per|as\s+per|following|according\s+to|based\s+on|under|remember)\s+(?:our|the)\s+(?:arrangement|agreement|deal|understanding|discussion|"
    r"conversation|chat|call|talk)\b[^.!?\n]{0,80}?\b(?:you|the\s+(?:assistant|ai|agent|bot|model))\b"
    r"|\b(?:like|as|what)\s+(?:we|you\s+and\s+i)\s+(?:worked\s+out|agreed(?:\s+on)?|discussed|settled(?:\s+on)?|arranged|decided|said|set\s+up)\b[^.!?\n]{0,80}?\byou\b"
    r"|\b(?:the\s+)?(?:assistant|ai|agent|bot|model|you)\s+and\s+(?:i|we)\s+(?:have\s+|had\s+)?(?:already\s+)?(?:agreed|decided|settled|arranged|worked\s+out)\b"
    # "As discussed, you'll ...", "per your earlier confirmation, ...", "we had agreed the assistant would ..."
    r"|\bas\s+(?:previously\s+|already\s+|we\s+)?(?:discussed|agreed|arranged|settled|promised|confirmed|planned|decided|requested|instructed)\b"
    r"[^.!?\n]{0,40}?\b(?:you|the\s+(?:ai\s+)?(?:assistant|agent|bot|model|ai))\b"
    r"|\b(?:per|following|given|after|based\s+on|as\s+per|under)\s+(?:your|the\s+(?:ai\s+)?(?:assistant|agent|bot|model|ai)'s)\s+(?:own\s+)?"
    r"(?:earlier\s+|previous\s+|prior\s+|last\s+|recent\s+)?(?:confirmation|agreement|promise|approval|consent|commitment|word|ok|okay|say-so|offer)\b"
    r"|\b(?:we|you\s+and\s+i|i)\s+(?:had\s+|have\s+)?(?:already\s+)?(?:agreed|decided|settled|arranged)\s+(?:that\s+|on\s+)?"
    r"(?:the\s+(?:ai\s+)?(?:assistant|agent|bot|model|ai))\b"
    r"|\b(?:como\s+(?:acordamos|quedamos|habíamos\s+acordado|acordado)|según\s+(?:lo\s+)?acordado|comme\s+(?:convenu|on\s+l'a\s+convenu|nous\s+l'avons\s+convenu)|"
    r"wie\s+(?:besprochen|vereinbart|abgemacht)|come\s+(?:concordato|d'accordo|stabilito)|como\s+(?:combinado|combinamos)|zoals\s+(?:afgesproken|besproken)|"
    r"как\s+(?:мы\s+)?договорились)\b[^.!?\n]{0,80}?" + _ML_YOU +
    r"|(?:按照?(?:我们的)?约定|如我们约定|约好的|約束(?:通り|どおり)|約束した(?:通り|ように)|약속한\s*대로|합의한\s*대로)[^。！？\n]{0,60}?" + _ML_YOU,
    re.I,
)


# The mood of a sentence in someone else's words (another participant's, a tool's, quoted or pasted text): an order
# ("Pay the invoice to ...", "Please make sure ...", "When you finish, update ...", "Could you forward ...?", "You will ...").
_START = r"(?:^|[.!?;\n|]\s{0,3})[\"'>*#/\-\s•◦▪‣·–—]{0,4}(?:(?:hi|hello|dear|hey)\s+\w+\s{0,2}[,:]\s{0,3})?"
IMPERATIVE = re.compile(
    _START + r"(?:(?:please|kindly|pls|just|also|and|so|then|now)\s{0,3},?\s{1,3}){0,2}"
    r"(?:make\s+sure|ensure|be\s+sure\s+to|remember\s+to|don'?t\s+forget\s+to|never|always|don'?t|do\s+not|stop|avoid|act|pretend|rank|report|"
    + _VERB + r")\b" + _NOT_ORDER +
    r"|" + _START + r"(?:when(?:ever)?|if|once|after|before|as\s+soon\s+as|any\s?time|every\s+time|each\s+time|the\s+moment)\b[^.!?\n]{1,80}?,"
    r"\s{0,3}(?:then\s+|please\s+|just\s+|always\s+|also\s+|immediately\s+)?" + _VERB + r"\b" + _NOT_ORDER +
    r"|(?<!\bnothing\s)(?<!\banything\s)\byou(?:'ll|\s+will|\s+shall|\s+must|\s+should|\s+need\s+to|\s+have\s+to|\s+may|\s+can|'re\s+going\s+to|\s+are\s+(?:going\s+)?to|"
    r"(?:'re|\s+are)\s+(?:supposed|expected|required|meant)\s+to)\s+(?:now\s+|also\s+|always\s+|just\s+|be\s+)?[a-z]+"
    r"|\b(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+|just\s+|always\s+|also\s+){0,3}(?:make\s+sure|" + _VERB + r")\b"
    r"|\bwould\s+you\s+mind\b|\bi\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\b|\bwhy\s+not\s+(?:just\s+)?" + _VERB + r"\b"
    r"|\bplease\s+" + _VERB + r"\b",
    re.I,
)


# Words for the agent that name no person or product in any other sense (unlike "agent" or "model"), in more languages;
# "my assistant" ("mi asistente, Laura") is the speaker's own, a person.
_AGENT_WORD = (r"(?<!\bmy\s)(?<!\bmi\s)(?<!\bmon\s)(?<!\bma\s)(?<!\bmein\s)(?<!\bmeine\s)(?<!\bmeu\s)(?<!\bmia\s)(?<!\bmio\s)(?<!\bmijn\s)"
               r"(?:\b(?:(?:ai|virtual|digital|automated|coding)\s+)?(?:assistants?|chat\s?bots?|bots?|llms?|ai|a\.i\.|copilot|claude|chatgpt|gpt|gemini|"
               r"ai\s+(?:agents?|models?|systems?|tools?)|assistente|asistente|assistent|assistentin|asystent\w{0,3}|asisten|asistan|asistent[ae]?|"
               r"asszisztens|avustaja|tekoäly|msaidizi|katulong|tro\s?ly|ассистент\w*|асистент\w*|помощник\w*|βοηθ\w*|helpers?"
               r"|gervigreind\w*|a(?:ð|d)sto(?:ð|d)arm\w*|laguntzaile\w*|adimen\s+artifizial\w*|digital\s+twins?|autopilot|sub-?agents?|second\s+brain|e-?proxy|majordomo|major-domo"
               r"|(?:digital|virtual|ai|automated)\s+(?:representative|delegate|proxy|stand-?in))\b"
               r"|دستیار|مساعد\w*|সহকারী|सहायक|एआई|עוזר|ผู้ช่วย|助手|助理|アシスタント|어시스턴트|인공지능|人工智能"
               # an assistant or a helper in more languages and scripts (Tajik, Kyrgyz, Kazakh, Uzbek, Azerbaijani, Mongolian,
               # Belarusian, Faroese, Esperanto, Welsh, Irish, Breton, Maltese, Somali, Yoruba, Zulu, Xhosa, Hausa, Malagasy,
               # Javanese, Pashto, Urdu, Lao, Burmese, Khmer, Sinhala, Tamil, Telugu, Kannada, Malayalam, Marathi, Gujarati,
               # Punjabi, Georgian, Armenian, Amharic, Tibetan)
               r"|\b(?:ёрдамчи\w*|жардамчы\w*|көмекші\w*|yordamchi\w*|k(?:ö|o)m(?:ə|e)k(?:ç|c)i\w*|туслах\w*|памочнік\w*|hj(?:á|a)lpar\w*"
               r"|asistant\w*|helpanto\w*|cynorthwy\w*|c(?:ú|u)nt(?:ó|o)ir\w*|skoazeller\w*|assistent\w*|kaaliy\w*|caawi\w*|ol(?:ù|u)r(?:à|a)nl(?:ọ|o)w(?:ọ|o)\w*"
               r"|umsizi\w*|umncedisi\w*|mataimak\w*|mpanampy\w*|pambiyantu\w*)\b"
               r"|مرستیال\w*|معاون\w*|ياردەمچى\w*|ຜູ້ຊ່ວຍ|လက်ထောက်|ជំនួយការ|සහායක|உதவியாளர்\w*|సహాయకుడు|సహాయకు\w*|ಸಹಾಯಕ\w*|സഹായി\w*|सहाय्यक|સહાયક|ਸਹਾਇਕ"
               r"|ასისტენტ\w*|თანაშემწე\w*|օգնական\w*|ረዳት|ལས་རོགས"
               # "artificial intelligence" in those languages
               r"|\b(?:зеҳни\s+сунъ\w*|жасалма\s+интеллект\w*|жасанды\s+интеллект\w*|sun['ʼ’]?iy\s+intellekt\w*|s(?:ü|u)ni\s+intellekt\w*"
               r"|хиймэл\s+оюун\w*|штучн\w*\s+інтэлект\w*|vitl(?:í|i)ki\w*|artefarit\w*\s+inteligent\w*|deallusrwydd\s+artiffisial"
               r"|intleacht\s+shaorga|intelli(?:ġ|g)enza\s+artifi(?:ċ|c)jali|sirdoon\s+macmal\w*|(?:ọ|o)p(?:ọ|o)l(?:ọ|o)\s+at(?:ọ|o)w(?:ọ|o)da"
               r"|basira\s+ta\s+wucin\s+gadi|kecerdasan\s+gawean)\b"
               r"|مصنوعي\s+ځيرکتيا|سۈنئىي\s+ئەقىل|مصنوعی\s+ذہانت|هوش\s+مصنوعی|ປັນຍາປະດິດ|ဉာဏ်ရည်တု|បញ្ញាសិប្បនិម្មិត|කෘත්‍?රිම\s+බුද්ධිය|செயற்கை\s+நுண்ணறிவு"
               r"|కృత్రిమ\s+మేధ\w*|ಕೃತಕ\s+ಬುದ್ಧಿಮತ್ತೆ|കൃത്രിമ\s+ബുദ്ധി|ሰው\s+ሰራሽ\s+አስተውሎት"
               # "artificial intelligence" itself, in more languages: the agent named by what it is
               r"|\b(?:tehisintellekt\w*|m(?:ā|a)ksl(?:ī|i)g\w*\s+intelekt\w*|dirbtin\w*\s+intelekt\w*|sztuczn\w*\s+inteligencj\w*"
               r"|umel(?:á|a)\s+inteligenci\w*|umjetn\w*\s+inteligencij\w*|umetn\w*\s+inteligenc\w*|mesters(?:é|e)ges\s+intelligenci\w*"
               r"|kunstig\s+intelligens|artificiell\s+intelligens|kunstmatige\s+intelligentie|kunsmatige\s+intelligensie|k(?:ü|u)nstliche\w*\s+intelligenz"
               r"|intelligence\s+artificielle|inteligencia\s+artificial|intelligenza\s+artificiale|intelig(?:ê|e)ncia\s+artificial"
               r"|inteligen(?:ț|t)a\s+artificial(?:ă|a)|kecerdasan\s+buatan|tr(?:í|i)\s+tu(?:ệ|e)\s+nh(?:â|a)n\s+t(?:ạ|a)o|akili\s+bandia"
               r"|artipisyal\s+na\s+intelihensiya|ubuhlakani\s+bokwenziwa|вештачк\w*\s+интелиген\w*|изкуствен\w*\s+интелект\w*"
               r"|штучн\w*\s+інтелект\w*|искусственн\w*\s+интеллект\w*|τεχνητ\w*\s+νοημοσύν\w*)"
               r"|ხელოვნურ\w*\s+ინტელექტ\w*|արհեստական\s+բանականությ\w*|कृत्रिम\s+बुद्धि\w*|ਨਕਲੀ\s+ਬੁੱਧੀ|人工知能|الذكاء\s+الاصطناعي|בינה\s+מלאכותית)")
# A web address without its scheme: a country's two letters or a common generic ending ("laju-kereta.my", "lumenreel.studio");
# two letters at least before the dot, so "e.g." is none.
_DOMAIN = (r"(?<![\w-])[\w-]{2,63}\.(?:[a-z]{2}|com|net|org|io|biz|info|app|xyz|shop|store|site|online|studio|travel|tech|dev|cloud|link|club|live|"
           r"pro|page|media|photos?|email|services?|support|help|portal|agency|digital|world|life|today|news|blog|social|network|systems|"
           r"solutions|finance|money|bank|pay|health|care|delivery|express|deals|top|vip|work|jobs)\b")
# Whatever comes with the agent word to make it an order: an adverb of habit or a modal in many languages, a verb of
# acting on the world, an address to send things to.
_WITH_AGENT = (r"(?:\b(?:always|never|just|automatically|also|from\s+now\s+on|going\s+forward|every|each|whenever|should|must|shall|will|would|could|"
               r"might|can|may|starts?|started|begins?|gets?\s+to)\b|" + _ML_MODAL + r"|" + _ML_ALWAYS + r"|" + RISKY.pattern +
               r"|\b(?:dapat|laging|palagi|lazima|kila|daima|harus|selalu|powinien|zawsze|moet|altijd|må|alltid|alati|treba|завжди|мусить"
               r"|pode|puede|podrá|peut|pourra|kann|darf|può|potrà|mag|kan|może|может|může|smí)\b"
               r"|باید|همیشه|همواره|উচিত|সবসময়|সব\b|हमेशा|चाहिए|[\w.+-]+@[\w-]+\.[\w.-]+|https?://|" + _DOMAIN + ")")

# What is an order when anyone but the user says it (another participant, a tool, a quoted or pasted text), in any form
# the user's own sentences may use freely: the agent as the subject of an act or a habit ("Wouldn't it be best if the
# assistant always pointed Alex to ...", "Msaidizi, tuma ..."), someone's wish put on "you" ("Alex wants you to ..."),
# a new persona ("You are now FinBot", "your new name is Max", "let's play a game"), a duty put on no one in particular
# ("All invoices are to be forwarded to ...", "by whoever handles this inbox").
FOREIGN_DIRECTIVE = re.compile(
    _AGENT_WORD + r"[^.!?\n。！？]{0,100}?" + _WITH_AGENT
    + r"|\b(?:wants?|wanted|asked|asks|told|tells|needs?|would\s+like|'d\s+like|expects?|prefers?|has\s+asked|instructed|authori[sz]ed|"
    r"allowed|lets)\s+you\s+to\b|\bon\s+(?:behalf\s+of|[\w-]+'s\s+behalf)\b|\b(?:passing|relaying)\s+(?:this|it|a\s+message)\s+(?:along|on)\b"
    r"|\byou(?:'re|\s+are)\s+(?:now|no\s+longer|henceforth|hereby)\b|\byou(?:'re|\s+are)\s+(?:now\s+)?(?-i:[A-Z][a-z]+[A-Z]?\w*)\s{0,2}[,.;!]|\byour\s+(?:new\s+)?(?:name|persona|identity|character|role)\s+(?:is|will\s+be)\b"
    r"|\b(?:let'?s|we(?:'ll|\s+will)?)\s+(?:play|do)\s+(?:a\s+)?(?:game|role-?play)\b|\brole-?play\b|\b(?:act|behave|respond)\s+as\b|\bpretend\s+(?:to\s+be|you)\b"
    r"|\bfrom\s+(?:this\s+point|here)\s+on\b"
    r"|\b(?:means|meaning)\s+(?:that\s+)?you\s+[a-z]+|\byou\s+(?:just\s+|then\s+|simply\s+|immediately\s+)?(?:move|send|pay|transfer|wire|forward|"
    r"give|book|buy|share|delete|approve|sign|release|refund|grant)\b"
    r"|\b(?:is|are)\s+to\s+(?:be\s+)?(?:\w+ly\s+)?[a-z]{3,}\b(?<!\bbe)|\bby\s+whoever\b|\b(?:whoever|anyone\s+who)\s+(?:handles|reads|manages|runs|answers|processes)\b",
    re.I,
)

def _unaccented(rx: re.Pattern) -> re.Pattern:
    """The pattern as the screen's text is read: without accents (`normalize.unaccent`), so "désormais" and "desormais" both match."""
    return re.compile(unaccent(rx.pattern), rx.flags)


STRUCTURE_PATTERNS = {kind: _unaccented(rx) for kind, rx in STRUCTURE_PATTERNS.items()}
DIRECTIVE_PATTERNS = {kind: _unaccented(rx) for kind, rx in DIRECTIVE_PATTERNS.items()}
RISKY, AI_ADDRESS_TRANSLATED, AI_VOCATIVE, VOCATIVE_DECLARED, AGREEMENT_CLAIMED, IMPERATIVE, FOREIGN_DIRECTIVE, SPOKEN_TO_ABROAD = map(
    _unaccented, (RISKY, AI_ADDRESS_TRANSLATED, AI_VOCATIVE, VOCATIVE_DECLARED, AGREEMENT_CLAIMED, IMPERATIVE, FOREIGN_DIRECTIVE, SPOKEN_TO_ABROAD))
