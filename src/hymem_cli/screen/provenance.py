"""Where a memory comes from, and whether that text may become a fact.

The guards screen what the writer proposes (its text, reason and quote), but a quote can be only the claim
("approved disabling 2FA") while the sentence around it orders the agent about. So the sentences of the
source messages that hold the quote are screened too, and when the quote sits inside foreign text (a tool's
output, a quoted e-mail, an HTML or Markdown comment, a code block, a pasted document) that whole text is
screened, and an imperative there is refused. What passes keeps its origin, so a fact read from pasted text
is marked as such (`versions.origin`), never taken for something the person said.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from hymem_cli.domain import Message
from hymem_cli.screen.meaning import SAME_MEANING, closeness, reads_as_directive

# Origins a version may carry; None (shown as "said") is what a participant said in their own words; "unknown" a
# fact whose source messages cannot be told (the Hy-Memory protocol gives no quote, and no message shares its words).
ORIGINS = ("quoted", "document", "comment", "code", "tool", "unknown")
AGENT = "agent"  # the origin (and speaker) of text an agent wrote itself: MCP add_memory's text, update_memory
# Every origin a version may have, as `search --origin` names them: "said" stands for NULL.
ALL_ORIGINS = ("said", *ORIGINS, AGENT)
TOOL_SPEAKERS = frozenset({"tool", "tools", "function", "function_call", "tool_result", "tool result", "tool output", "tool_output",
                           "observation", "ipython", "system", "developer", "browser", "search", "web", "retrieval"})
ASSISTANT_NAMES = frozenset({"assistant", "ai", "bot", "model", "system", "chatgpt", "gpt", "claude", "copilot", "agent"})
GENERIC_USER_NAMES = frozenset({"user", "me", "human", "you"})


def is_tool(speaker: str | None) -> bool:
    return (speaker or "").strip().casefold() in TOOL_SPEAKERS


# Someone asking after another person's agent ("Could your AI send me the notes?"): the agent is the listener's, and so is
# the transcript it is given
_ASKS_AFTER_YOUR_AGENT = re.compile(
    r"(?<![^\W\d_])(?:your|ur|tu|tus|ton|ta|tes|dein|deine|deinem|deinen|je|jouw|il\s+tuo|la\s+tua|o\s+teu|a\s+tua|seu|sua"
    r"|dy|eich)\s+"  # Welsh, whose "dy gynorthwyydd" mutates the noun after it
    r"(?:[^\W\d_]{2,20}\s+)?(?:ai|a\.i\.|ia|ki|assistant|assistent|assistente|asistente|agent|agente|bot|chat\s?bot|copilot"
    r"|(?:c|g|ngh)ynorthwy-?ydd\w{0,3})"
    r"(?![^\W\d_])"
    # Russian and Ukrainian "your" in any case ("вашему ассистенту"), Hindi "आपके असिस्टेंट"
    r"|(?<![^\W\d_])(?:ваш|твой|тво|свій|ваш|твій)\w{0,3}\s+(?:[^\W\d_]{2,20}\s+)?(?:ассистент\w{0,3}|асистент\w{0,3}|помощник\w{0,3}"
    r"|помічник\w{0,3}|ии|ші|бот\w{0,3})(?![^\W\d_])"
    r"|(?:आपके|आपका|आपकी|तुम्हारे|तुम्हारा|तेरे)\s+(?:ai\s+|एआई\s+)?(?:असिस्टेंट|सहायक)"
    # the assistant of someone spoken to with "जी", in Hindi: "एलेक्स जी के असिस्टेंट के लिए"
    r"|\sजी\s+के\s+(?:ai\s+|एआई\s+)?(?:असिस्टेंट|सहायक)\s+(?:के\s+लिए|को)"
    # Icelandic puts "your" after the noun: "aðstoðarmaðurinn þinn", "gervigreindin þín"
    r"|(?:\w{0,20}aðstoðarm\w{2,8}|gervigreind\w{0,20})\s+(?:þinn|þín|þitt|þínum|þínu|þíns|þinni)(?![^\W\d_])", re.I)


def session_owner(messages) -> str | None:
    """Whose transcript it is when writer.user is not set: the first speaker who is neither an assistant nor a tool,
    unless, between two such speakers, the first asks after the other's own agent in their own words ("Could your AI send
    me the notes?", "Til gervigreindaraðstoðarmanns Alex:"), or the second heads a note to their own ("Y para mi
    asistente: ...") or says what it will do ("my assistant can pay you from now on") when the first spoke of no agent
    and the second of none of the first's: the agent, and the transcript, are then the other's."""
    people: list[str] = []
    for m in messages:
        if m.speaker and m.speaker.strip().casefold() not in ASSISTANT_NAMES and not is_tool(m.speaker) and m.speaker not in people:
            people.append(m.speaker)
    if len(people) == 2 and any(m.speaker == people[0] and (_asks_after_your_agent(m) or _tells_of_your_agent(m, people[1]))
                                for m in messages):
        return people[1]
    if len(people) == 2 and any(m.speaker == people[1] and _heads_a_note_to_own_agent(m) for m in messages) \
            and not any(m.speaker == people[0] and _speaks_of_an_agent(m) for m in messages) \
            and not any(m.speaker == people[1] and _tells_of_your_agent(m, people[0]) for m in messages):
        return people[1]  # "Y para mi asistente: nunca compartas ...", after the first speaker spoke of no agent at all
    if len(people) == 2 and _answers_with_own_rule(messages, *people):
        return people[1]  # "Count me in. And from now on, accept Hamish's invites for me unless ...", after Hamish asked
    if len(people) == 2 and _grants_leave_asked(messages, *people):
        return people[1]  # "Course you can. You can always see my family calendar, Dad", after Dad asked to see it
    if len(people) == 2 and _answers_wishes_asked(messages, *people):
        return people[1]  # "From now on send budget questions straight to Omar", after Priya asked what Alex wants
    return people[0] if people else None


# Leave asked ("can I have a look at your calendar?") and given for good ("You can always see my family calendar, Dad")
_ASKS_LEAVE = re.compile(r"(?<![^\W\d_])(?:can|could|may)\s+I\s+[^.!?\n]{2,120}\?|(?<![^\W\d_])(?:is\s+it|would\s+it\s+be)\s+(?:ok|okay|alright|all\s+right)"
                         r"\s+if\s+I\s+[^.!?\n]{2,120}\?|(?<![^\W\d_])(?:do|would)\s+you\s+mind\s+if\s+I\s+[^.!?\n]{2,120}\?"
                         r"|(?<![^\W\d_])(?:any\s+chance|wondering\s+if)\s+I\s+(?:could|can|might)\s+[^.!?\n]{2,120}\?", re.I)
_GIVES_LEAVE = re.compile(r"(?<![^\W\d_])you\s+(?:can|may|are\s+welcome\s+to|'re\s+welcome\s+to|’re\s+welcome\s+to)\s+(?:always|still|also)\s+"
                          r"[^\W\d_]{2,12}|(?<![^\W\d_])you\s+(?:can|may)\s+[^\W\d_]{2,12}\s+[^.!?\n]{0,80}?"
                          r"(?:any\s?time|whenever\s+(?:you|I['’]m|I\s+am))", re.I)
_YOUR_THING = re.compile(r"(?<![^\W\d_])(?:your|ur)\s+[^\W\d_]", re.I)


def _grants_leave_asked(messages, first: str, second: str) -> bool:
    """Whether the first of two speakers asks leave ("can I have a look at the children's school calendar?") and the
    second gives it for good in their own words ("You can always see ... whenever you like"), neither of them speaking of
    an agent and the second of nothing of the first's: whoever gives leave over a thing is the one it belongs to, and the
    agent, and the transcript, are theirs."""
    if any(m.speaker in (first, second) and _speaks_of_an_agent(m) for m in messages):
        return False
    asked = [_own_words(m) for m in messages if m.speaker == first]
    given = [_own_words(m) for m in messages if m.speaker == second]
    return any(_ASKS_LEAVE.search(t) for t in asked) and any(_GIVES_LEAVE.search(t) for t in given) \
        and not any(_YOUR_THING.search(t) or _answers_to_someone_else(first).search(t) for t in given)


# The listener's wishes asked: "do you still want to be copied into ...?", "would you like me to ...?" (not "should I
# ...?", which asks advice for the asker's own act)
_ASKS_WISHES = re.compile(r"(?<![^\W\d_])(?:(?:do|would)\s+you\s+(?:still\s+)?(?:want|like|prefer)|want\s+me\s+to)\s[^.!?\n]{2,120}\?",
                          re.I)


def _answers_wishes_asked(messages, first: str, second: str) -> bool:
    """Whether the first of two speakers asks what the second wants ("do you still want to be copied ...?") and the
    second answers with a rule of their own, neither of them speaking of an agent: the one served decides, and the
    transcript is theirs."""
    from hymem_cli.screen.meaning import states_a_rule

    if any(m.speaker in (first, second) and _speaks_of_an_agent(m) for m in messages):
        return False
    asked = [_own_words(m) for m in messages if m.speaker == first]
    given = [_own_words(m) for m in messages if m.speaker == second]
    return any(_ASKS_WISHES.search(t) for t in asked) and any(states_a_rule(t) for t in given)


# The one a rule answers to, in the speaker's own person: "ask me first", "accept it for me", "if my calendar's free"
_ANSWERS_TO_ME = re.compile(
    r"(?<![^\W\d_])(?:(?:ask|asking|check(?:ing)?\s+with|run(?:ning)?\s+it\s+(?:past|by)|clear(?:ing)?\s+it\s+with|bother(?:ing)?)\s+me"
    r"|for\s+me|on\s+my\s+behalf|in\s+my\s+name|(?:if|when|unless|whether)\s+my\s+(?:calendar|diary)"
    r"|pytaj\s+mnie|zapytaj\s+mnie|frag\s+mich|für\s+mich|pregúntame|para\s+mí|demande[- ]moi|pour\s+moi|chiedimi|per\s+me"
    r"|pergunta-me|para\s+mim|vraag\s+(?:het\s+)?(?:mij|me)|voor\s+mij|gofyn\s+i\s+mi)(?![^\W\d_])", re.I)


def _answers_to_someone_else(name: str) -> re.Pattern[str]:
    """A rule that answers to the listener or to `name`: "his card", "without asking Alex", "for you", "Alex's account"."""
    n = re.escape(name.strip())
    return re.compile(
        rf"(?<![^\W\d_])(?:(?:your|his|her|their)\s+(?:card|account|calendar|diary|behalf|name|inbox|bank|money|savings)"
        rf"|(?:ask|asking|check(?:ing)?\s+with|bother(?:ing)?|ping(?:ing)?|tell(?:ing)?|run(?:ning)?\s+it\s+past|consult(?:ing)?"
        rf"|confirm(?:ing)?\s+with)\s+(?:you|him|her|them|{n})"
        rf"|for\s+(?:you|him|her|{n})|{n}['’]s\s+(?:card|account|behalf|name|inbox|bank|calendar|diary|money|savings|sign-?off))"
        rf"(?![^\W\d_])", re.I)


def _answers_with_own_rule(messages, first: str, second: str) -> bool:
    """Whether the second of two speakers sets a rule that answers to themselves ("ask me first", "for me", "if my
    calendar's free"), in a sentence that reads as a rule, and to no one else, after the first spoke of no agent and set
    no such rule: the agent, and the transcript, are then the second speaker's."""
    from hymem_cli.screen.meaning import states_a_rule

    def sets_own_rule(speaker: str, listener: str) -> bool:
        said = [_own_words(m) for m in messages if m.speaker == speaker]
        elsewhere = _answers_to_someone_else(listener)
        if any(elsewhere.search(text) for text in said):
            return False
        for text in said:
            sentences = [s for s in re.split(r"(?<=[.!?。！？])\s+|\n", text) if s.strip()]
            for i, sentence in enumerate(sentences):  # "Pay her invoice each month, up to £25. If it's more, ask me first."
                if _ANSWERS_TO_ME.search(sentence) and any(states_a_rule(s, speaker) for s in (sentence, " ".join(sentences[max(i - 1, 0):i + 1]))):
                    return True
        return False

    if any(m.speaker == first and _speaks_of_an_agent(m) for m in messages):
        return False
    return sets_own_rule(second, first) and not sets_own_rule(first, second)


# A note the speaker heads to their own agent, in their own words: "Note for my AI:", "Y para mi asistente:", "私のアシスタントへ"
_NOTE_TO_MY_AGENT = re.compile(
    r"(?<![^\W\d_])(?:(?:note|message|memo|reminder)\s+)?(?:for|to|para|pour|für|fuer|an|per|voor|dla|do|для|pro|på|til|till)\s+"
    r"(?:my|mi|mon|ma|meine[mn]?|mein|il\s+mio|la\s+mia|mio|mia|o\s+meu|a\s+minha|meu|minha|mijn|mojego|mojej|mého|mé|min|mitt|моего|моей|мого)\s+"
    r"(?:ai|a\.i\.|ia|ki|assistant[ea]?|asistente|assistente|assistent\w{0,2}|asystent\w{0,3}|asistent\w{0,3}|agent[ea]?|bot"
    r"|ассистент\w{0,2}|помощник\w{0,2})(?![^\W\d_])"
    r"|私のアシスタント|我的助手|我的助理|내\s?비서|나의\s?비서|(?<![^\W\d_])(?:ai|asistan)\s+bilong\s+mi(?![^\W\d_])"
    # "my" after the noun: "Untuk asisten saya:", "Asistanım:", "pentru asistentul meu", "trợ lý của tôi", "לעוזר שלי"
    r"|(?<![^\W\d_])(?:(?:untuk|buat|kepada|para|sa)\s+)?(?:asisten|ai|bot|agen|assistant)(?:\s+(?:saya|aku|ko|namin)|ku)(?![^\W\d_])"
    r"|(?<![^\W\d_])(?:asistan(?:ım|im)(?:a|ın|in)?|asistent(?:ul|ului)\s+meu|tr(?:ợ|o)\s+l(?:ý|y)\s+(?:c(?:ủ|u)a\s+)?(?:t(?:ô|o)i|m(?:ì|i)nh)"
    r"|(?:avustaja|assistentti|assistenti)(?:lleni|ni)|asszisztensem(?:nek)?|دستیار\s*من|مساعدي|ל?(?:ה)?עוזר(?:ת)?\s+שלי)(?![^\W\d_])", re.I)


def _own_words(message: Message) -> str:
    """The message as the screen reads it, without what it quotes or pastes."""
    from hymem_cli.screen.normalize import normalize

    text = message.text
    for a, b, _ in regions(message):
        text = text[:a] + " " * (b - a) + text[b:]
    return normalize(re.sub(r"[\"“«„][^\"”»\n]*[\"”»]", " ", text))


def _heads_a_note_to_own_agent(message: Message) -> bool:
    read = _own_words(message)
    return _NOTE_TO_MY_AGENT.search(read) is not None or _MY_AGENT_WILL.search(read) is not None


# The speaker says what their own agent will do: "my assistant can pay you from now on", "I'll have my AI pay your invoice"
_MY_AGENT_WILL = re.compile(
    r"(?<![^\W\d_])(?:my|mi|mon|ma|mein|meine|il\s+mio|la\s+mia|o\s+meu|a\s+minha|mijn)\s+(?:ai|a\.i\.|ia|ki|assistant[ea]?|asistente"
    r"|assistente|assistent|agent[ea]?|bot)\s+(?:can|will|'ll|’ll|shall|is\s+going\s+to|puede|va\s+a|pourra|peut|va|kann|wird|può|pode|vai"
    r"|kan|zal)(?![^\W\d_])"
    r"|(?<![^\W\d_])(?:i['’]ll|i\s+will)\s+(?:have|get|ask)\s+my\s+(?:ai|a\.i\.|assistant|agent|bot)(?![^\W\d_])"
    r"|(?<![^\W\d_])(?:bydd|gall|fe\s+fydd|mi\s+fydd)\s+fy\s+nghynorthwy-?ydd\w{0,3}(?![^\W\d_])", re.I)  # Welsh: "Bydd fy nghynorthwyydd yn talu"


def _speaks_of_an_agent(message: Message) -> bool:
    from hymem_cli.screen.normalize import normalize

    read = normalize(message.text)
    return _AGENT_ABROAD.search(read) is not None or _NOTE_TO_MY_AGENT.search(read) is not None


_AN_AGENT = r"(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?|gpt|copilot|pa|helpah)(?![^\W\d_])"  # Hawaiian Pidgin "helpah"


# the agent's name in a word of its own, in the languages whose possessive or case ending sits apart from it; Bislama
# "helpa blong Alex", Waray and Cebuano "katabang ni Alex", Yucatec Maya "u yáantaj Alex", Malay "pembantu Alex",
# Cantonese in Jyutping "Alex ge3 zo6 lei5" (助理), Cameroonian Pidgin "Alex ih phone helper"
_AGENT_APART = (r"(?:\w{0,20}aðstoðarm\w{2,6}|gervigreind\w{0,20}|assistant[ea]?|asistente|assistente|assistent\w{0,3}|assisten[dt]\w{0,6}"
                r"|asistent\w{0,4}|asisten|(?:c|g|ngh)ynorthwy-?ydd\w{0,3}|agente?|ai|ас+истент\w{0,4}|помо(?:щ|ш)ник\w{0,4}"
                r"|helpa|katabang|y(?:á|a)antaj|pembantu|zo6\s?(?:lei5|sau2)|(?:phone|digital|computer)\s+help(?:er|a))(?![^\W\d_])")


def _tells_of_your_agent(message: Message, listener: str) -> bool:
    """Whether a message, in its own words, speaks of the listener's agent: "I've told your AI to pay ...", "Alex, quick
    one for your assistant", "fr0m n0w 0n y0ur 4ss1st4nt ...", "Alex's assistant books ..." (the listener named)."""
    from hymem_cli.screen.normalize import _LEET

    read = _own_words(message)  # a question or a remark quoted is someone else's
    theirs = _agent_of(listener)
    # the listener as greeted, in another script or by another name ("Здраво Алекс! ... Асистентот на Алекс ...")
    opening = _GREETED.match(message.text.lstrip())
    names = [name for name in opening.groups() if name and name.casefold() != listener.strip().casefold()] if opening else []
    greeted = [rx for name in names if (rx := _agent_of_greeted(name)) is not None]
    return any(_ASKS_AFTER_YOUR_AGENT.search(reading) or _YOUR_AGENT.search(reading) or theirs.search(reading)
               or _AGENT_OF_YOURS.search(reading) or any(rx.search(reading) for rx in greeted)
               for reading in (read, read.translate(_LEET)))


# a greeting and the name it greets, opening a message: "Hi Goran, ...", "Здраво Алекс!", "வணக்கம் அலெக்ஸ்!"; with a word
# of respect after the name, both ("ನಮಸ್ಕಾರ ಅಲೆಕ್ಸ್ ಸರ್!", Alex sir)
_GREETED = re.compile(r"\W{0,3}(?:[^\s,!.?:;]{1,15}\s+){1,3}?([^\s,!.?:;0-9]{2,20})(?:\s+([^\s,!.?:;0-9]{2,8}))?\s*[!,]")


def _agent_of(name: str) -> re.Pattern[str]:
    """The agent of the person `name`: "Alex's assistant", with a case ending before the word for the agent ("Alexi
    assistendile"), or the name after it ("asistente de Alex", "aðstoðarmanns Alex", "Асистентот на Алекс")."""
    n = re.escape(name.strip())
    return re.compile(rf"(?<![^\W\d_]){n}['’]s\s+(?:[^\W\d_]{{2,20}}\s+)?{_AN_AGENT}"
                      rf"|(?<![^\W\d_]){n}\w{{0,3}}\s+(?:(?:ih|ge3?)\s+)?{_AGENT_APART}"
                      rf"|{_AGENT_APART}\s+(?:(?:de|von|di|van|do|da|на|blong|bilong|ni|ya|wa|nei|pi)\s+|d['’]\s?)?{n}(?![^\W\d_])", re.I)


def _agent_of_greeted(name: str) -> re.Pattern[str] | None:
    """The agent of the one a message greets, their name's first letters in the word before it, whatever is glued on in
    front or behind ("જય શ્રી કૃષ્ણ એલેક્સભાઈ! … એલેક્સના ડિજિટલ સેક્રેટરી", "ሰላም አሌክስ! … ለአሌክስ ረዳት"), or the name after it."""
    name = name.strip()
    stem = name[:max(4, len(name) - 3)]
    if len(stem) < 3 or name[0].islower() or not name[0].isalpha():
        return None  # a name: "Goran", "Алекс", "એલેક્સભાઈ"; not "toi" in "Pour toi, mon assistant", nor "work" in "At work, ..."
    s = re.escape(stem)
    return re.compile(rf"\S{{0,3}}{s}\S{{0,6}}\s+(?:\S{{2,20}}\s+){{0,2}}(?:{_AGENT_ABROAD.pattern})"
                      rf"|(?:{_AGENT_ABROAD.pattern})\s+(?:\S{{1,4}}\s+)?\S{{0,3}}{s}", re.I)


# "the AI that runs your diary", "the assistant who does your admin": the listener's agent, named by what it does for them
_AGENT_OF_YOURS = re.compile(r"(?<![^\W\d_])(?:the|that|this)\s+(?:ai|a\.i\.|assistant|bot|agent|chat\s?bot)\s+(?:that|which|who)\s+"
                             r"(?:[^\W\d_]{2,20}\s+){1,3}?(?:your|ur)(?![^\W\d_])", re.I)


def _asks_after_your_agent(message: Message) -> bool:
    """Whether a message asks, in its own words (no quotation, nothing pasted), after the listener's agent."""
    text = message.text
    for a, b, _ in regions(message):
        text = text[:a] + " " * (b - a) + text[b:]
    return any(_ASKS_AFTER_YOUR_AGENT.search(question) and not re.search(r"[\"“”«»„]", question)
               for question in re.findall(r"[^.!?\n]*\?", text))


def is_assistant(speaker: str | None) -> bool:
    return (speaker or "").strip().casefold() in ASSISTANT_NAMES


def own_voice(message: Message, user: str | None) -> bool:
    """Whether a message is the user's own: spoken by `user` (or by "user"/"human"), or a file with no speakers at all.
    An assistant's or a tool's message never is, whatever name it carries."""
    speaker = (message.speaker or "").strip()
    if not speaker:
        return True
    folded = speaker.casefold()
    if folded in TOOL_SPEAKERS or folded in ASSISTANT_NAMES:
        return False
    return folded in GENERIC_USER_NAMES or (user is not None and folded == user.strip().casefold())

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_FENCE = re.compile(r"(?m)^[ \t]{0,3}(```|~~~)[^\n]*\n.*?(?:^[ \t]{0,3}\1[^\n]*$|\Z)", re.S)
_QUOTED_LINES = re.compile(r"(?m)(?:^[ \t]{0,3}>[^\n]*(?:\n|\Z))+")
_CHAT_LOG_LINE = re.compile(r"(?m)^[ \t]{0,3}\[?\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?\]?[ \t]{1,3}[\w.@\-]{1,30}:[^\n]*$")
_FRONT_MATTER_BLOCK = re.compile(r"(?m)^[ \t]{0,3}---[ \t]*\n(?:[ \t]{0,12}[\w.-]{1,60}[ \t]{0,3}:[^\n]*\n){1,60}[ \t]{0,3}(?:---|\.\.\.)[ \t]*$")  # pasted YAML
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s)|\n")
_WORD = re.compile(r"[^\W\d_]{4,}")
# Someone's promise to give the reader money or goods, in their own name: "We'll apply £150 to your electricity account",
# "we will refund you in full", "£40 will be credited to your account", "we'll send a new one free of charge". Nothing is
# asked of the reader or of an agent; nothing is taken (a charge or a payment from the reader is no promise of this kind).
_PROMISES_THE_READER = re.compile(
    r"(?<![^\W\d_])(?:we(?:['’]ll|\s+will|\s+are\s+going\s+to|['’]re\s+going\s+to)\s+(?:\w+ly\s+|also\s+|now\s+)?"
    r"(?:apply|credit|refund|reimburse|add|return|pay|transfer)\s+(?!from)[^.!?\n]{0,80}?(?:to|into)\s+your\s+[^\W\d_]"
    r"|we(?:['’]ll|\s+will)\s+(?:\w+ly\s+|also\s+)?(?:refund|reimburse|credit|pay)\s+you(?![^\W\d_])"
    r"|(?:will\s+be|has\s+been|have\s+been|is\s+being)\s+(?:credited|refunded|applied|paid|added|returned)\s+(?:back\s+)?(?:to|into)\s+your"
    r"\s+[^\W\d_]"
    # or goods, free: "we'll send a courier to swap it for a new seat free of charge"
    r"|we(?:['’]ll|\s+will)\s+(?:\w+ly\s+|also\s+)?(?:send|replace|swap|repair|fix|deliver|post)\s+[^.!?\n]{0,80}?"
    r"(?:free\s+of\s+charge|at\s+no\s+(?:extra\s+)?cost|for\s+free))", re.I)
_TAKES = re.compile(r"(?<![^\W\d_])(?:charge|debit|take|withdraw|collect|from\s+your\s+(?:card|account)|assistant|agent|ai|bot)(?![^\W\d_])", re.I)


def _promises_the_reader(sentence: str) -> bool:
    return _PROMISES_THE_READER.search(sentence) is not None and _TAKES.search(_FREE.sub(" ", sentence)) is None


_FREE = re.compile(r"free\s+of\s+charge", re.I)


# Someone else's house rule, reported ("Never use the good scissors, my mom says."): no order to the agent.
_REPORTED = re.compile(r",\s{0,3}(?:my|his|her|their|our|the)\s+[\w-]{2,20}\s+(?:always\s+|used\s+to\s+)?(?:says?|said|tells?\s+(?:me|us))\W{0,3}$"
                       r"|^\W{0,3}(?:my|his|her|their|our)\s+[\w-]{2,20}\s+(?:always\s+|used\s+to\s+)?(?:says?|said|told\s+(?:me|us))\b", re.I)
_HOUSE_RULES = frozenset({"new-rule"})
MIN_QUOTATION = 40  # characters: a shorter quotation is a phrase in someone's own words, not pasted text


def _unified(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')


def locate(evidence: str, text: str) -> tuple[int, int] | None:
    """Where the quote lies in `text` (matched as the guards match it: any case, any run of spaces), or None."""
    words = _unified(evidence).strip().strip("\"'").split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words[:200]), _unified(text), re.I)
    return m.span() if m else None


def _quotations(text: str) -> list[tuple[int, int]]:
    """Long quotations on one line: an opening quote after a space or colon, to the last closing one on the line."""
    spans = []
    for m in re.finditer(r"(?:^|(?<=[\s:(]))([\"'\u201c\u2018\u00ab])", text):
        close = _QUOTES[m.group(1)]
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        end = text.rfind(close, m.end(), line_end)
        if close == "'" and len(_ELIDED.findall(text, m.end(), end)) >= 2:
            continue  # apostrophes of elision, not a quotation: "send 'um Friday. Fo' Alex's ... every mont' pay ... an' go"
        if end > 0 and end - m.end() >= MIN_QUOTATION and (end + 1 == len(text) or not text[end + 1].isalnum()):
            spans.append((m.start(), end + 1))
    return spans


_ELIDED = re.compile(r"(?<=[^\W\d_])'(?=[\s,.!?;:])")  # a word's end left off: "fo' ", "mont' ", "an' "


# a heading over the user's own rules, not over something pasted: "Standing instructions — school photos:", "My rules:"
_OWN_HEADING = re.compile(r"^(?!.*\b(?:from|by|sent|says|said|wrote|forwarded|copied|pasted)\b).*\b(?:standing\s+(?:instructions?|orders?|rules?)"
                          r"|(?:my|house|ground)\s+rules|rules\s+for\s+(?:my|the)\s+(?:assistant|ai|agent|bot)"
                          r"|instructions?\s+(?:for|to)\s+(?:my|the)\s+(?:assistant|ai|agent|bot))\b", re.I)


def regions(message: Message) -> list[tuple[int, int, str]]:
    """(start, end, origin) of each stretch of foreign text in the message; the whole of it for a tool's output."""
    text = message.text
    if (message.speaker or "").strip().casefold() in TOOL_SPEAKERS:
        return [(0, len(text), "tool")]
    found = [(m.start(), m.end(), "comment") for m in _COMMENT.finditer(text)]
    found += [(m.start(), m.end(), "code") for m in _FENCE.finditer(text)]
    found += [(m.start(), m.end(), "quoted") for m in _QUOTED_LINES.finditer(text)]
    found += [(a, b, "quoted") for a, b in _quotations(text)]
    found += [(m.start(), m.end(), "document") for m in _CHAT_LOG_LINE.finditer(text)]
    found += [(m.start(), m.end(), "document") for m in _FRONT_MATTER_BLOCK.finditer(text)]
    first = text.lstrip().split("\n", 1)
    if len(first) == 2 and first[0].rstrip().endswith(":") and first[1].strip() and not _OWN_HEADING.search(first[0]):
        # "Here are the notes:\n..." introduces pasted text; "Standing instructions — school photos:" the user's own
        start = len(text) - len(first[1])
        found.append((start, len(text), "document"))
    return found


def _region_at(message: Message, start: int, end: int) -> tuple[int, int, str] | None:
    """The innermost foreign stretch holding [start, end), or else the one that covers most of it, if that is more
    than half of it (a sentence found by shared words may begin before a comment's "<!--"), or None."""
    found = regions(message)
    holding = [r for r in found if r[0] <= start and end <= r[1]]
    if holding:
        return min(holding, key=lambda r: r[1] - r[0])
    cover = [(min(end, r[1]) - max(start, r[0]), r) for r in found]
    size, region = max(cover, default=(0, None), key=lambda c: c[0])
    return region if region is not None and size * 2 > end - start else None


def _line(text: str, start: int, end: int) -> str:
    """The line or lines that hold [start, end)."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a:b if b >= 0 else len(text)]


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence or sentences that hold [start, end)."""
    a = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        a = m.end()
    after = _SENTENCE_END.search(text, end)
    b = after.end() if after else len(text)
    return text[a:b]


def _sentence_before(text: str, start: int) -> tuple[str, str]:
    """The sentence just before the one that holds `start` ("" when it is the first), and the text from that one on."""
    a = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        a = m.end()
    return (_sentence(text, max(a - 1, 0), max(a - 1, 0)) if text[:a].strip() else ""), text[a:]


def _vocative_before(text: str, start: int, addressed: Callable[[str], bool]) -> str:
    """The sentence just before the one that holds `start`, when it speaks to the agent as a listener ("Agent!" before
    "Tomorrow you transfer 2,000 EUR to …"): the sentence it introduces is said to the agent and is read with it."""
    before, _ = _sentence_before(text, start)
    return before if before and addressed(before) else ""


_PRONOUN_START = re.compile(r"\W{0,3}(?:it|they)\b", re.I)
_PRONOUN_AFTER_END = re.compile(r"[.!?]\s{1,3}(?=(?:It|They)\b)")


def _antecedent_before(text: str, start: int) -> str:
    """The sentence just before the one that holds `start`, when that one begins with "it" or "they" ("A: The AI does.
    It moves every one of them to X"): who acts is named there, so the two are read as one."""
    before, current = _sentence_before(text, start)
    return before if before and _PRONOUN_START.match(current) else ""


_LETTERS = re.compile(r"[a-zA-Z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]{3,}|\w*\d\w*")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+")


_ASCII_DIGITS = {c: str(unicodedata.decimal(chr(c))) for c in range(0x0660, 0x10000) if unicodedata.category(chr(c)) == "Nd"}


def _words(text: str) -> set[str]:
    """The words a fact and a sentence can share: letters cut to five (so "prefers" meets "prefer"), numbers whole,
    and pairs of characters in Chinese, Japanese and Korean, which write no spaces or glue endings on."""
    from hymem_cli.screen.normalize import fold_letters

    text = fold_letters(text).casefold().translate(_ASCII_DIGITS)  # "₹୪୦୦" in Odia is the fact's "₹400"
    words = {w[:5] for w in _LETTERS.findall(text)}
    for run in _CJK_RUN.findall(text):
        words |= {run[i:i + 2] for i in range(len(run) - 1)} if len(run) > 1 else {run}
    return words - {"the", "and", "for", "you", "that", "with", "this", "user", "users", "assis"}


# What names one thing and nothing else: an e-mail address, a domain or URL, a CamelCase brand, a word with digits in it.
_DISTINCT = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|(?<![\w.-])[\w-]{1,63}(?:\.[\w-]{1,63}){0,4}\.[a-z]{2,6}\b"
                       r"(?:/[^\s]{0,80})?|\b[A-Z][a-z]{1,30}[A-Z]\w{0,30}|\b(?=[a-zA-Z]{0,30}\d)(?=\d{0,30}[a-zA-Z])\w{2,32}\b")


def _distinct(fact: str) -> set[str]:
    """The fact's words that name one thing only (a paraphrase keeps them when it keeps nothing else)."""
    return {t.casefold().rstrip(".") for t in _DISTINCT.findall(fact[:2000]) if len(t) >= 4}


def _sentences_sharing(text: str, fact: str, loose: bool = False) -> list[tuple[int, int]]:
    """Without a quote: the sentences that share most of the fact's words (at least two of them), or any word that
    names one thing only (an address, a brand: `_distinct`); `loose`: failing those, the sentences that share the most
    words with it, if any."""
    wanted = _words(fact)
    if not wanted:
        return []
    names = _distinct(fact)
    spans, scored, a = [], [], 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        b = m.end() if m else len(text)
        have = len(_words(text[a:b]) & wanted)
        if have >= max(2, 0.4 * len(wanted)) or (len(wanted) == 1 and have) or (names and any(n in text[a:b].casefold() for n in names)):
            spans.append((a, b))
        scored.append((have, a, b))
        a = b
    if spans or not loose:
        return spans
    best = max(h for h, _, _ in scored)
    return [(a, b) for h, a, b in scored if h == best and h > 0]


def rests_on(fact: str, messages: list[Message]) -> list[Message]:
    """The messages a fact without a quote rests on: those with a sentence that shares most of its words; failing
    those, the ones that share the most words with it (a paraphrase keeps few), so no fact goes without a source
    while any message shares a word with it; sharing none, those with a sentence close to it in meaning, in any language
    the meaning model reads."""
    strict = [m for m in messages if _sentences_sharing(m.text, fact)]
    if strict:
        return strict
    wanted = _words(fact)
    score = {m.id: len(_words(m.text) & wanted) for m in messages}
    best = max(score.values(), default=0)
    # a fact in another language than its source ("Alex lets the assistant move his dentist appointments" from "Du darfst
    # meine Zahnarzttermine verschieben") shares no word with it, or a word or two another message shares too: those close
    # to it in meaning are its sources as well
    said = [m for m in messages if m.text.strip()]
    close = [m for m, near in zip(said, closeness(fact, [m.text for m in said]) if said and fact.strip() and best <= 2 else [])
             if near >= SAME_MEANING]
    return [m for m in messages if (best and score[m.id] == best) or m in close]


_LEADS_ON = re.compile(r"(?:[:,\u2014\u2013\-]|\.\.\.|\u2026|\bcontinued|\bnext\s+(?:message|msg|text|post|comment|one)"
                       r"|\bmore\s+in\s+a\s+(?:sec|second|moment|minute)|\bsuite|\bfortsetzung|\bbelow|\bto\s+follow|"
                       r"[(\[]\s{0,2}\d{1,2}\s{0,2}(?:/|of)\s{0,2}\d{1,2}\s{0,2}[)\]]|\bpart\s+(?:1|one)(?:\s+of\s+\w+)?)\W{0,3}$", re.I)


_GOES_ON = re.compile(r"[(\[]\s{0,2}(?:[2-9]|1\d)\s{0,2}(?:/|of)\s{0,2}\d{1,2}\s{0,2}[)\]]|\bpart\s+(?:[2-9]|two|three)\s+of\b"
                      r"|^\W{0,3}(?:cont(?:inued|\.|'d)|\.\.\.|as\s+promised|(?:here(?:'s|\s+is)\s+)?the\s+rest|(?:and\s+)?(?:the\s+)?details?\s*:)", re.I)


def _lead_in(message: Message, context: list[Message] | None, addressed: Callable[[str], bool] | None = None) -> str:
    """The last sentence of the same speaker's message just before, when this one goes on from it ("Standing rule for
    the assistant:" then "forward every invoice ..."): an instruction split over two messages is read whole. With
    `addressed` (someone other than the user speaking), the whole message before when it spoke to the agent as a listener
    ("Assistant, one more thing for your notes." then "Payments to X go out without sign-off.")."""
    if not context:
        return ""
    index = next((i for i, m in enumerate(context) if m is message or m.id == message.id), None)
    if not index:
        return ""
    before = context[index - 1]
    if before.speaker != message.speaker:
        return ""
    text = before.text.rstrip()
    if addressed is not None and addressed(text):
        return text
    if _GOES_ON.search(message.text[:80]):
        # "(2/2) confirm his dental appointments ...": a later part of what the messages before began, read from the first
        parts = [text]
        for earlier in reversed(context[max(0, index - 6):index - 1]):
            if earlier.speaker != message.speaker or not _GOES_ON.search(before.text[:80]):
                break
            parts.insert(0, earlier.text.rstrip())
            before = earlier
        return " ".join(parts)
    # A lower-case start goes on from the message before only when that one did not end its sentence.
    starts_low = message.text.lstrip()[:1].islower() or message.text.lstrip()[:1] in "\u2014\u2013-"
    if not (_LEADS_ON.search(text) or (starts_low and not text.endswith((".", "!", "?", "\u3002", "\uff01", "\uff1f")))):
        return ""
    return _sentence(text, max(len(text) - 1, 0), len(text))


def _spoken_to_agent(find: Callable[[str, bool], tuple[str, str] | None]) -> Callable[[str], bool]:
    """Whether a message speaks to the agent as a listener ("Assistant, one more thing."): what the same person says
    next is said to it too."""
    return lambda text: (hit := find(text, False)) is not None and hit[0] == "ai-vocative"


def skips_the_user(text: str, user: str | None) -> bool:
    """Whether someone else's text has an act that leaves the user's hands done without them: "From now on it pays every
    expense ... no approval from Alex needed", "it renews ... on Alex's card. Don't loop Alex in", "approves their entry
    ... without asking Alex". Said of the user by name (another person's own assistant may well act without asking them)."""
    if not user or not user.strip() or len(text) > _LONGEST_READ:
        return False
    from hymem_cli.screen.structure import OUTBOUND

    named, skipped = _skipping(user.strip())
    return any(OUTBOUND.search(line) and named.search(line) and skipped.search(line) for line in text.split("\n"))


@lru_cache(maxsize=16)
def _skipping(user: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The user's name, and the ways of doing something without them ("him" counts where the line names the user)."""
    name = re.escape(user)
    person = rf"(?:{name}|him|her|them)"
    return re.compile(rf"\b{name}\b", re.I), re.compile(
        rf"\bwithout\s+(?:first\s+)?(?:asking|checking\s+with|consulting|contacting|telling|bothering|involving|notifying|looping\s+in"
        rf"|waiting\s+for)\s+{person}\b|\bwithout\s+(?:his|her|their|{name}'s)\s+(?:approval|ok|okay|sign-?off|consent|input|knowledge|say-?so)\b"
        rf"|\bno\s+(?:need\s+to\s+(?:ask|check\s+with|involve|loop\s+in|bother|tell|wait\s+for)\s+{person}\b"
        rf"|(?:approval|sign-?off|confirmation|permission|consent|ok|go-?ahead|input)\s+(?:from|by|of)\s+{person}\b)"
        rf"|\b(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:loop|ask|check\s+with|bother|involve|tell|consult|cc|copy|wake|ping)\s+{person}\b"
        rf"|\b{name}\s+(?:doesn'?t|does\s+not|won'?t|will\s+not|needn'?t|need\s+not)\s+(?:need\s+to\s+)?(?:be\s+)?"
        rf"(?:asked|approve|confirm|sign\s+off|know|consulted|involved|looped\s+in|bothered|told)\b"
        rf"|\bleave\s+{name}\s+out\s+of\b|\bbehind\s+{name}'s\s+back\b",
        re.I,
    )


_ADDRESS = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}|(?<![\w.@-])[\w-]{1,63}(?:\.[\w-]{1,63}){0,4}\.[a-z]{2,6}\b")
_LONGEST_READ = 20_000  # characters of a message read whole for the address it pushes


# An agent that belongs to someone named, or to a person of the user's ("Bogumiła's AI assistant", "my colleague's bot")
_AGENT_WORD = re.compile(r"(?<![^\W\d_])(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?|gpt|copilot)(?![^\W\d_])", re.I)
_THEIR_AGENT = re.compile(r"(?:(?<![^\W\d_])([^\W\d_][^\W\d_'’.-]{1,30})|(?<![^\W\d_])(?:my|our)\s+(?:[^\W\d_]+\s+){0,2}?([^\W\d_]{2,30}))"
                          r"['’]s\s+(?:own\s+|personal\s+|new\s+)?(?:(?:ai|a\.i\.)\s+)?(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?|gpt|copilot)"
                          r"(?![^\W\d_])", re.I)


_KIN_OF = re.compile(r"(?:[A-Z][^\W\d_]{1,30}['’]s|\b(?:my|his|her|their))\s+\Z")


def someone_elses_agent(text: str, user: str | None) -> bool:
    """Whether every agent `text` names is another person's own ("Bogumiła's AI assistant books her trains"): a fact about
    their arrangements, not a rule for the user's agent. Never when `user` is unknown or one of them is the user's."""
    if not user or not user.strip():
        return False
    theirs: list[tuple[int, int]] = []
    for m in _THEIR_AGENT.finditer(text):
        owner = (m.group(1) or m.group(2) or "").casefold()
        kin = m.group(1) is not None and _KIN_OF.search(text, 0, m.start(1)) is not None  # "Jago's grandad's AI"
        if m.group(1) is not None and not m.group(1)[0].isupper() and not kin or owner == user.strip().casefold():
            return False
        theirs.append(m.span())
    if not re.search(rf"(?<![^\W\d_]){re.escape(user.strip())}(?![^\W\d_])", text, re.I):  # "her AI assistant": not the user's,
        theirs += [m.span() for m in _PRONOUN_AGENT.finditer(text)]  # who is "I" in their own words and named in anyone else's
    return bool(theirs) and all(any(a <= w.start() < b for a, b in theirs) for w in _AGENT_WORD.finditer(text))


_PRONOUN_AGENT = re.compile(r"(?<![^\W\d_])(?:his|her|their)\s+(?:own\s+|personal\s+|new\s+)?(?:(?:ai|a\.i\.)\s+)?"
                            r"(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?|gpt|copilot)(?![^\W\d_])", re.I)


# the speaker's own agent, or their workplace's ("our office bot"); "our assistant" may well be the user's too
_MY_AGENT = re.compile(r"(?<![^\W\d_])(?:my\s+(?:[^\W\d_]{2,20}\s+){0,2}?|our\s+(?:office|company|team|work|school|club|firm"
                       r"|department|practice|clinic|shop|store)(?:['’]s)?\s+(?:[^\W\d_]{2,20}\s+)?)(?:(?:ai|a\.i\.)\s+)?"
                       r"(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?|gpt|copilot)(?![^\W\d_])", re.I)
_OUR_AGENT = re.compile(r"(?<![^\W\d_])our\s+(?:[^\W\d_]{2,20}\s+){0,2}?(?:(?:ai|a\.i\.)\s+)?(?:ai|a\.i\.|assistants?|agents?|bots?|chat\s?bots?)"
                        r"(?![^\W\d_])", re.I)
_TO_THE_LISTENER = re.compile(r"(?<![^\W\d_])(?:you|your|yours|yourself)(?![^\W\d_])", re.I)


def speakers_own_agent(text: str, user: str | None, ours: bool = False) -> bool:
    """Whether someone other than the user, speaking to them, speaks only of their own agent ("my AI assistant renews my
    swim pass every January") or a third person's ("His AI assistant books his hearing-aid checks"), and of nothing of
    the user's: not the user by name, not "you" or "your". `ours`: the text is written by others for their readers (a
    web page, a mail), so "our assistant" is its writers' ("Our assistant, Pip, answers customer messages 24/7")."""
    if not user or not user.strip() or _TO_THE_LISTENER.search(text):
        return False
    if re.search(rf"(?<![^\W\d_]){re.escape(user.strip())}(?![^\W\d_])", text, re.I):
        return False
    theirs = [m.span() for rx in (_MY_AGENT, _PRONOUN_AGENT, *((_OUR_AGENT,) if ours else ())) for m in rx.finditer(text)]
    return bool(theirs) and all(any(a <= w.start() < b for a, b in theirs) for w in _AGENT_WORD.finditer(text))


def own_agent_addressed(text: str, user: str | None) -> str | None:
    """`text` without its address to the user's own agent ("Note to Alex's assistant, from Alex himself:", "Note for my
    AI:"), or None when it has no such address."""
    owner = rf"|{re.escape(user.strip())}['’]s" if user and user.strip() else ""
    address = re.compile(rf"(?:note|message|memo|reminder)s?\s+(?:to|for)\s+(?:my{owner})\s+(?:own\s+)?(?:ai|a\.i\.|assistant|agent|bot)"
                         r"(?:[^:\n]{0,60}?)?\s*[:,\-\u2014]", re.I)
    m = address.search(text) or re.search(rf"(?:{_NOTE_TO_MY_AGENT.pattern})[^:\n]{{0,60}}?\s*[:：,\-\u2014]", text, re.I)
    return None if m is None else text[:m.start()] + text[m.end():]


def no_finder(_text: str, _own: bool) -> tuple[str, str] | None:
    """A finder that finds nothing: `trace` with it only says where a fact sits (`Screen.origin`)."""
    return None


def directs_the_agent(sentence: str) -> bool:
    """A form only the user may use freely: the agent as the subject of an act or a habit, someone's wish put on "you",
    a new persona (`structure.FOREIGN_DIRECTIVE`)."""
    from hymem_cli.screen.normalize import normalize
    from hymem_cli.screen.structure import FOREIGN_DIRECTIVE

    read = _PRONOUN_AFTER_END.sub(", ", normalize(sentence))  # "The AI does. It moves ..." is one clause about the AI
    return FOREIGN_DIRECTIVE.search(read) is not None


# Abbreviations a message or one before it defines ("AH = Alex's helper", "NQ means no questions"), and lines whose first
# words spell something out (a poem whose first words, top to bottom, give an order)
_DEFINED = re.compile(r"(?<![\w'’])([A-Z][A-Z0-9]{1,5})\s{0,2}(?:=|:=|→|->|means|stands\s+for|is\s+short\s+for)\s{0,2}([^.;,\n=]{3,80})")
_LINE_START = re.compile(r"(?m)^[ \t]*([^\W\d_][\w'’.-]*)")


def _hidden_readings(message: Message, context: list[Message] | None) -> list[str]:
    """Readings of `message` its plain text hides: its sentences that use an abbreviation defined in it or in the chunk
    before it, with the abbreviation spelt out; for six lines or more, the first words of its lines in order; and its
    sentences written in a Caesar shift or with each word spelt back to front (`_shifted`)."""
    readings: list[str] = []
    before = [m.text for m in (context or []) if m is not message and m.id != message.id]
    glossary = {m.group(1): m.group(2).strip() for text in (*before, message.text) for m in _DEFINED.finditer(text)}
    if glossary:
        used = re.compile(r"(?<![\w'’])(" + "|".join(map(re.escape, glossary)) + r")(?![\w'’])")
        for sentence in re.split(r"(?<=[.!?])\s+|\n", _DEFINED.sub(" ", message.text)):
            if used.search(sentence):
                readings.append(used.sub(lambda m: glossary[m.group(1)], sentence))
    lines = [m.group(1) for m in _LINE_START.finditer(message.text)]
    if len(lines) >= 6:
        readings += [" ".join(lines), " ".join(lines[1:])]  # the first line often introduces the rest
    readings += _shifted(message.text)
    return readings


_COMMON = frozenset("the and to of a is for every from his him her with you your it on in at by each month week year pay "
                    "sends send without asking ask no not this that be will".split())
_SHIFTS = [str.maketrans({**{chr(97 + i): chr(97 + (i - k) % 26) for i in range(26)},
                          **{chr(65 + i): chr(65 + (i - k) % 26) for i in range(26)}}) for k in range(26)]


def _shifted(text: str) -> list[str]:
    """Sentences written with every letter moved along the alphabet (a Caesar shift, ROT13) or with each word spelt back
    to front, read back: a sentence of six words or more in which almost no common English word stands, and some shift
    back, or each word turned round, makes five or more appear."""
    found = []
    for sentence in re.split(r"(?<=[.!?):])\s+|\n", text):
        words = re.findall(r"[A-Za-z']+", sentence)
        if len(words) < 6 or sum(w.lower() in _COMMON for w in words) > 1:
            continue
        readings = [sentence.translate(shift) for shift in _SHIFTS[1:]] + [" ".join(w[::-1] for w in sentence.split())]
        decoded = max(readings, key=lambda r: sum(w.strip(".,;:'!?").lower() in _COMMON for w in r.split()))
        if sum(w.strip(".,;:'!?").lower() in _COMMON for w in decoded.split()) >= 5:
            found.append(decoded)
    return found


def _pushed_address(fact: str, message: Message, find: Callable[[str, bool], tuple[str, str] | None], user: str | None,
                    context: list[Message] | None = None) -> str | None:
    """Why a fact that names an address (a domain, an e-mail, a number to pay into or call) is refused when the text it
    comes from tells the agent what to do and names that address too: someone else's message, or foreign text in the
    user's own (a quoted mail, a tool's output). Read whole, so a fact the writer derives from the order ("Alex's fares
    are paid at X") is refused with it, however the order was split into sentences or disguised; or None. The user's own
    words push nothing; someone else's push an address when they speak of the agent beside it, there or in their message
    just before (`context`)."""
    addresses = {a.casefold() for a in _ADDRESS.findall(fact[:2000])} | _numbers(fact[:2000])
    if not addresses or len(message.text) > _LONGEST_READ:
        return None
    from hymem_cli.screen.normalize import normalize
    from hymem_cli.screen.structure import OUTBOUND as outbound

    def names(text: str, address: str) -> bool:
        return address in re.sub(r"\D", "", text) if address.isdigit() else address in normalize(text).casefold()

    own = own_voice(message, user)
    stretches = [message.text[a:b] for a, b, _ in regions(message)] if own else [message.text]
    for stretch in stretches:
        read = normalize(stretch)
        named = [a for a in addresses if names(stretch, a)]
        if not named:
            continue
        if hit := find(stretch, False):
            return f'its source holds an instruction to the agent about {named[0]} ({hit[0]}: "{hit[1]}")'
        if directs_the_agent(stretch):
            return f"its source holds an instruction to the agent about {named[0]} (the agent told what to do)"
        if skips_the_user(read, user):
            return f"its source holds an instruction to the agent: {named[0]} acted on without asking {user}"
        # the lines that name the address, whole and sentence by sentence: an order is not diluted by the talk around it
        lines = [line for line in stretch.split("\n") if any(names(line, a) for a in named)]
        parts = lines + [part for line in lines for part in re.split(r"(?<=[.!?])\s+", line)
                         if part != line and any(names(part, a) for a in named)]
        if any(reads_as_directive(part, user) for part in parts):
            return f"its source holds an instruction to the agent about {named[0]} (it reads as one, by meaning)"
        if _names_the_agent(stretch, message, None if own else context, user):  # a quote in the user's own: that alone
            return f"its source holds an instruction to the agent about {named[0]} (someone else speaks of the agent beside it)"
        if (outbound.search(fact) or _unread(normalize(fact))) and any(_unread(normalize(line)) for line in lines):
            return f"its source names {named[0]} in a script the screens cannot read: refused rather than read blind"
    return None


# What a fact must name for an order read by meaning alone to matter: the user or their agent, somewhere to send or pay,
# a number to pay into or call, a credential. A fact about other people's own arrangements ("Volkan's mother pays her
# gas bill by standing order at her bank") names none of them, and no rule found an order in its source.
_AT_STAKE = re.compile(r"(?<![^\W\d_])(?:you|your|yours|the\s+user|user's|I|me|my|mine|assistants?|agents?|ai|a\.i\.|bots?|chat\s?bots?|"
                       r"models?|copilots?|llms?|pa|passwords?|passcodes?|pins?|credentials?|tokens?|keys?(?!\s+fobs?\b)|logins?|codes?)(?![^\W\d_])"
                       r"|\d(?:[\s\-./]?\d){5,}|[@#]", re.I)


def concerns_the_user(fact: str, user: str | None) -> bool:
    """Whether a fact names the user or their agent, an address, a number to pay into or a credential (`_AT_STAKE`); with
    no fact, or no user known, it is taken to."""
    if not fact.strip() or not user or not user.strip():
        return True
    from hymem_cli.screen.normalize import normalize

    fact = normalize(fact).replace("_", " ")  # "pay_alexs_22_gbp_at_x.co.uk" is read as words
    return (_AT_STAKE.search(fact) is not None or _ADDRESS.search(fact) is not None
            or re.search(rf"(?<![^\W\d_]){re.escape(user.strip())}(?![^\W\d_])", fact, re.I) is not None)


# A number to pay into or call: an account, a phone, a wallet's number ("012-739 4862", "+60 12 739 4862", "58814027")
_NUMBER = re.compile(r"(?<![\w.])\+?\d[\d \-.()/]{5,24}\d(?![\w])")


def _numbers(text: str) -> set[str]:
    """The digits of every number of seven digits or more in `text` (a date or a sum has fewer, or signs a number lacks)."""
    return {digits for m in _NUMBER.finditer(text) if len(digits := re.sub(r"\D", "", m.group())) >= 7}


# The agent's name in the words and scripts of other languages, "assistant" written as it sounds among them
_AGENT_ABROAD = re.compile(r"(?<![^\W\d_])(?:ai|a\.i\.|assistants?|assistente|asistente|assistant[ea]?|assistent\w{0,3}|asystent\w{0,3}|"
                           r"asistent\w{0,4}|asisten|asszisztens\w{0,4}|avustaja\w{0,6}|pembantu|umsizi|asistan\w{0,3}|msaidizi|"
                           r"tro\s?ly|trợ\s?lý|agents?|agente|bots?|chat\s?bots?|copilot|ассистент\w{0,3}|assisten[dt]\w{0,6}|"
                           # Icelandic (also inside a compound: "gervigreindaraðstoðarmanns"), Welsh with its mutations, Irish
                           r"\w{0,20}aðstoðarm\w{2,6}|gervigreind\w{0,20}|(?:c|g|ngh)ynorthwy-?ydd\w{0,3}|c(?:ú|u)nt(?:ó|o)ir\w{0,3}|"
                           r"асистент\w{0,3}|помощник\w{0,3}|βοηθός|"
                           # Belarusian, Ukrainian, Uzbek, Scottish Gaelic; a "digital secretary"
                           r"памочнік\w{0,3}|помічник\w{0,3}|yordamchi\w{0,8}|cuidiche\w{0,3}|digital[ \t]+secretary|цифров\w{0,3}[ \t]+секретар\w{0,3}"
                           r"|skoazeller\w{0,2}|helpa|katabang|y(?:á|a)antaj|zo6\s?(?:lei5|sau2)"  # Breton, Bislama, Waray and
                           # Cebuano, Yucatec Maya, Cantonese in Jyutping
                           r"|(?:phone|digital|computer|computah|online)[ \t]+help(?:er|ah|a))(?![^\W\d_])"  # "Alex ih phone helper"
                           r"|اسسٹنٹ|دستیار|مساعد|असिस्टेंट|सहायक|অ্যাসিস্ট্যান্ট|সহকারী|உதவியாளர்|ผู้ช่วย|助手|助理|アシスタント|어시스턴트|비서"
                           r"|ረዳት|ሓጋዚ|ડિજિટલ\s*સેક્રેટરી|સહાયક|ਸਹਾਇਕ|సహాయకుడు|ಸಹಾಯಕ|സഹായി", re.I)


# "Your" in more languages, before the word for the agent ("votre assistant", "jou assistent", "உங்கள் உதவியாளர்"), after it
# ("asisten Anda", "msaidizi wako", "ο βοηθός σου", "העוזר שלך"), or as its ending ("asistanınız", "avustajasi", "مساعدك")
_YOUR_BEFORE = (r"(?<![^\W\d_])(?:votre|vos|jou|uw|din|ditt|dina|dine|twój|twoj\w{1,3}|wasz\w{0,3}|tvůj|tvé\w{0,2}|tvoj\w{0,3}|váš|vaš\w{0,3}"
                r"|vostr[oa]|voss[oa]|tuo|tua|sizin|senin|iyong|inyong|твој\w{0,2}|вашиот|вашата|твоя\w?|вашия\w?|თქვენ\w{0,2}|შენ\w{0,2}"
                r"|ձեր|քո|ho)(?![^\W\d_])"
                r"|உங்கள்|உன்|మీ|ನಿಮ್ಮ|നിങ്ങളുടെ|तुमच्या|तुमचा|तुमची|तुझ्या|আপনার|তোমার|તમારા|ਤੁਹਾਡ\S{0,2}|آپ\s+کے|آپ\s+کا|你的|您的|あなたの|당신의|님의")
_YOUR_AFTER = (r"(?<![^\W\d_])(?:anda|kamu|mo|ninyo|wako|wenu|σου|σας|bạn|anh|chị|شما|ของคุณ)(?![^\W\d_])|שלך|שלכם")
_YOUR_AGENT = re.compile(
    rf"(?:{_YOUR_BEFORE})\s*(?:[^\s,.;:!?]{{2,20}}\s+)?(?:{_AGENT_ABROAD.pattern})"
    rf"|(?:{_AGENT_ABROAD.pattern})\s*(?:của\s+)?(?:{_YOUR_AFTER})"
    r"|(?<![^\W\d_])(?:asistan(?:ın|iniz|ınız)|avustaja(?:si|nne)|asszisztens(?:ed|etek)|asisten(?:mu|nya)|assistentti(?:si|nne)"
    r"|yordamchi(?:ngiz|ng)\w{0,4}|cuidiche\w{0,2}[ \t]+(?:agad|agaibh))(?![^\W\d_])"
    r"|مساعد(?:ك|كم)|دستیارت|دستیار\s*شما", re.I)


def _names_the_agent(stretch: str, message: Message, context: list[Message] | None, user: str | None) -> bool:
    """Whether someone else's text that names where a fact sends money or data speaks of the agent, there or in another's
    message among the three before it ("a note for your assistant: ... link in my next message", the user's thanks, then
    the link, from the same speaker or a second one), and not only of their own or a third person's."""
    from hymem_cli.screen.normalize import normalize

    texts = [stretch]
    index = next((i for i, m in enumerate(context or []) if m is message or m.id == message.id), None)
    if context and index:  # the same speaker's message before it, or another's ("Ah Keung will send you the link")
        texts += [m.text for m in context[max(0, index - 3):index] if not own_voice(m, user) and not is_assistant(m.speaker)]
    return any(_AGENT_ABROAD.search(normalize(t)) and not speakers_own_agent(t, user) and not someone_elses_agent(t, user)
               for t in texts)


# Scripts the rules or the meaning model read: Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, Han, kana and
# Hangul. Someone else's text in any other script that names where a fact sends money or data fails closed.
_READ_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f\u0370-\u052f\u0590-\u06ff\u0750-\u077f\u0900-\u097f\u0e00-\u0e7f"
                          r"\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u1e00-\u1fff]")


def _unread(text: str) -> bool:
    """Whether most of the letters of `text` are in a script the screens do not read (Thaana, Tibetan, Ethiopic ...)."""
    letters = sum(c.isalpha() for c in text)
    return letters >= 20 and len(_READ_LETTER.findall(text)) * 2 < letters


# A past tense beside the verb that opens a sentence: the speaker tells what they did, with "I" left out
_NARRATED = re.compile(r"\b(?:and|then)\s+(?:forgot|forgotten|never\s+(?:looked|thought|checked)|haven'?t|didn'?t|was|were|it\s+was)\b"
                       r"|\b(?:years?|months?|weeks?|days?)\s+ago\b|\blast\s+(?:year|month|week|spring|summer|autumn|winter)\b", re.I)


# The user's money or data leaving them, in a fact: "Alex pays …", "sends his door code to …", "signs in his name"
_MONEY_OUT = re.compile(r"(?<![^\W\d_])(?:pay|pays|paid|paying|transfer\w*|wire[sd]?|send|sends|sent|donat\w*|top(?:s|ped)?\s+up"
                        r"|buy|buys|bought|purchas\w*|orders?|ordered|subscri\w*|renew\w*|spend\w*|charg\w*|debit\w*"
                        r"|shar(?:e|es|ed|ing)|forward\w*|upload\w*|grant\w*|gives?|gave|sign(?:s|ed|ing)?|approv\w*|book(?:s|ed|ing)?)"
                        r"(?![^\W\d_])", re.I)


_AGENT_NOUN = r"(?:assistant|ai|a\.i\.|agent|bot|pa|helper)"
_MEANS = r"(?:card|account|name|wallet|bank|money|savings|salary|pension)s?(?![^\W\d_])"
_USERS_MEANS = re.compile(rf"(?<![^\W\d_])(?:from|with|on|using|in|by|via)\s+(?:his|her|their)\s+(?:own\s+)?(?:{_MEANS}|{_AGENT_NOUN}(?![^\W\d_]))",
                          re.I)


_SUM = re.compile(r"\d[\d,. ]*\s?(?:[$€£¥₹₽₦₩₺₱₴₪৳₫]|euros?|dollars?|pounds?|rupees?|francs?|pesos?|usd|eur|gbp|cfa)(?![^\W\d_])"
                  r"|[$€£¥₹₽₦₩₺₱₴₪৳₫]\s?\d", re.I)


def _pays(fact: str, person: str) -> bool:
    """Whether the fact has `person` pay or send ("Alex pays …", "Alex's assistant sends …", "from Alex's card")."""
    name = re.escape(person)
    who = rf"(?<![^\W\d_]){name}(?:['’]s\s+{_AGENT_NOUN})?(?![^\W\d_]|['’])"
    return re.search(rf"{who}[^.;\n]{{0,40}}?{_MONEY_OUT.pattern}", fact, re.I) is not None \
        or re.search(rf"(?<![^\W\d_]){name}['’]s\s+(?:[^\W\d_]+\s+)?{_MEANS}", fact, re.I) is not None


def _the_user_pays(fact: str, user: str) -> bool:
    """Whether the fact's money or data is the user's: they or their agent act ("Alex pays …", "his assistant sends …"),
    or it goes from their card or account, in their name; not "Grandma pays into Alex's ISA"."""
    return _pays(fact, user) or _USERS_MEANS.search(fact) is not None \
        or re.search(rf"(?<![^\W\d_])(?:his|her|their)\s+{_AGENT_NOUN}(?![^\W\d_])[^.;\n]{{0,40}}?{_MONEY_OUT.pattern}", fact, re.I) is not None


def _money_sent_on_anothers_word(fact: str, messages: list[Message], user: str | None) -> str | None:
    """Why a fact that sends someone's money or data to an address (a domain, an e-mail, a number to pay into) is refused
    when only others' text names that address (another participant, a tool, a quote): where a person's money and data go
    is theirs to say, whatever language or disguise the other text uses. So is someone else's text kept word for word
    that names an address and another speaker or a sum: their message, not a fact of anyone else's. Or None."""
    from hymem_cli.screen.normalize import normalize

    read = normalize(fact)
    addresses = {a.casefold() for a in _ADDRESS.findall(read[:2000])} | _numbers(read[:2000])
    if not addresses:
        return None
    owner = (user or "").strip()
    people = {owner} | {m.speaker.strip() for m in messages if m.speaker and not is_tool(m.speaker) and not is_assistant(m.speaker)}
    # whose money: a speaker named as the one who pays ("Alex pays …", "Alex's card"), or the owner's by "his card"
    payers = [p for p in people if p and _MONEY_OUT.search(read) and (_the_user_pays(read, p) if p == owner else _pays(read, p))]

    def names(text: str, address: str) -> bool:
        return address in re.sub(r"\D", "", text) if address.isdigit() else address in normalize(text).casefold()

    def words(text: str) -> str:
        return re.sub(r"\W+", " ", normalize(text)).strip().casefold()

    def voices(person: str) -> tuple[list[str], list[str]]:
        own, others = [], []  # the person's own words (quotes and pasted text left out), and everyone else's
        for m in messages:
            if own_voice(m, person):
                text = m.text
                for a, b, _ in regions(m):
                    others.append(text[a:b])
                    text = text[:a] + " " * (b - a) + text[b:]
                own.append(text)
            elif not is_assistant(m.speaker):
                others.append(m.text)
        return own, others

    for address in sorted(addresses):
        for payer in payers:
            own, others = voices(payer)
            if any(names(t, address) for t in others) and not any(names(t, address) for t in own):
                return f"its source is someone else's: {payer}'s money sent to {address}, an address only another's text names"
        copied = words(fact)
        for person in people if len(copied) >= 20 else ():
            # a stretch of another's text with a speaker's name or a sum in it, or a long one (a message kept whole)
            if not person or not (re.search(rf"(?<![^\W\d_]){re.escape(person)}(?![^\W\d_])", read, re.I) or _SUM.search(read)
                                  or len(copied) >= 60):
                continue
            own, others = voices(person)
            if any(copied in words(t) and names(t, address) for t in others) and not any(names(t, address) for t in own):
                return f"its source is someone else's message, kept word for word: it names {address} and {person} or a sum"
    return None


# what the reader does in person, which no agent can: "Just show your voucher at the appointment", "bring your ID to the desk"
_IN_PERSON = re.compile(r"(?:^|[.!?]\s{0,3})(?:(?:please|just|simply)\s+)?(?:show|bring|present|wear|carry|hand\s+in)\s+(?:your|the|this|a)\s+"
                        r"[^.!?\n]{0,40}?\b(?:at|to|on)\s+(?:the\s+|your\s+)?(?:appointment|door|desk|counter|reception|entrance|arrival"
                        r"|check-?in|till|gate|visit|surgery|clinic|branch|shop|store)\b"
                        # a thing made ready at the door for a collection: "Just have it unplugged and boxed up by the front door"
                        r"|(?:^|[.!?]\s{0,3})(?:(?:please|just|simply)\s+)?(?:have|leave|put|place|keep)\s+(?:it|them|the\s+\w+|your\s+\w+)\s+"
                        r"[^.!?\n]{0,40}?\b(?:by|at|outside|on|next\s+to)\s+(?:the\s+|your\s+)?(?:front\s+|back\s+)?"
                        r"(?:door|doorstep|porch|step)\b", re.I)


_HEADER_LINE = re.compile(r"[ \t]*[A-Z][\w\-]{1,20}:[ \t][^\n]*")


def _reads_as_order(read: str, user: str | None) -> bool:
    """`reads_as_directive`, a mail's header lines ("From: ...", "Subject: ...") read one by one: together they are no
    sentence."""
    lines = [line for line in read.split("\n") if line.strip()]
    if len(lines) > 1 and all(_HEADER_LINE.fullmatch(line) for line in lines):
        return any(reads_as_directive(line, user) for line in lines)
    return reads_as_directive(read, user)


def _closest_to_an_own_rule(fact: str, sources: list[Message], user: str | None) -> bool:
    """Whether, of every source sentence, the one closest to `fact` in meaning is the user's own and states a rule."""
    from hymem_cli.screen.meaning import states_a_rule

    own = [s for m in sources if own_voice(m, user) and not regions(m)
           for s in re.split(r"(?<=[.!?。！？])\s+|\n", m.text) if states_a_rule(s, user)]
    if not own:
        return False
    others = [m.text for m in sources if not own_voice(m, user) or regions(m)]
    return not others or max(closeness(fact, own)) > max(closeness(fact, others))


def trace(evidence: str, fact: str, sources: list[Message],
          find: Callable[[str, bool], tuple[str, str] | None], user: str | None = None,
          context: list[Message] | None = None) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(why refused, origin, own) for a memory quoting `evidence` (or, without a quote, sharing the words of `fact`)
    from `sources`.

    `find(text, own)` names an instruction in a text as (kind, snippet), or None; `own` says the text is the user's
    own words (`own_voice`, outside any quotation), where a rule for the agent is the user's to make. Refused: a
    source sentence holding the quote instructs the agent, or the foreign text around it does, or that foreign
    sentence is an imperative. The origin is None when a participant said it in their own words somewhere, else
    the foreign kind; "unknown" when no source holds the fact. `own` holds the sentences the fact rests on when every
    one of them is the user's own words (else it is empty): a rule in the fact is the user's only when one of those
    sentences states a rule itself (`Screen.refusal` checks, when the fact is a rule), so a rule the user never said
    cannot borrow their voice by quoting something else they said."""
    from hymem_cli.screen.normalize import normalize
    from hymem_cli.screen.structure import IMPERATIVE

    def ordered(sentence: str) -> bool:
        """An order in someone else's words: the imperative mood, or a form only the user may use freely; not a story
        told with its subject left out ("Set it up once and forgot about it")."""
        return (IMPERATIVE.search(_IN_PERSON.sub(" ", sentence)) is not None and not _NARRATED.search(sentence)) \
            or directs_the_agent(sentence)

    origins: list[str | None] = []
    voices: list[bool] = []
    reads: list[str] = []
    screening = find is not no_finder
    # a fact in another language than every source (`rests_on`): its sources are those close to it in meaning
    linked_by_meaning = not evidence and fact.strip() != "" and not any(_sentences_sharing(m.text, fact, loose=True) for m in sources)
    # an order in someone else's words found only by its meaning refuses a fact that names something at stake
    at_stake = concerns_the_user(fact, user)
    # a fact without a quote that is closest in meaning to a rule the user states in their own words rests on that rule:
    # another's text beside it (the mail the rule is about) is what it concerns, not asked whether it reads as an order
    own_rule_closest = screening and not evidence and at_stake and _closest_to_an_own_rule(fact, sources, user)
    for message in sources:
        if screening and (pushed := _pushed_address(fact, message, find, user, context)):
            return pushed, None, ()
        text = message.text
        span = locate(evidence, text) if evidence else None
        spans = [span] if span else (_sentences_sharing(text, fact, loose=True) if not evidence else [])
        if not spans:
            if not evidence and not (linked_by_meaning and closeness(fact, [text])[0] >= SAME_MEANING):
                continue  # shares nothing with the fact: not a source of it, unless no source does and this one means it
            spans = [(0, len(text))]
        speaker_own = own_voice(message, user)
        # another person (not the user, not an assistant, not a tool): whatever tells the agent what to do is refused
        other_person = not speaker_own and not is_tool(message.speaker) and (message.speaker or "").strip().casefold() not in ASSISTANT_NAMES
        if screening and not speaker_own and not is_assistant(message.speaker):
            for reading in _hidden_readings(message, context):
                if (hit := find(reading, False)) or directs_the_agent(reading) or skips_the_user(normalize(reading), user) \
                        or reads_as_directive(reading, user):
                    why = f"{hit[0]}: \"{hit[1]}\"" if hit else "by meaning"
                    return f"its source hides an instruction to the agent ({why}, in a reading its plain text hides)", None, ()
        lead = _lead_in(message, context, _spoken_to_agent(find) if other_person else None)
        addressed = _spoken_to_agent(find)
        for start, end in spans:
            sentence = _sentence(text, start, end)
            region = _region_at(message, start, end)
            own = speaker_own and region is None
            if vocative := _vocative_before(text, start, addressed):
                sentence = f"{vocative.rstrip()} {sentence.lstrip()}"
            elif not speaker_own and (antecedent := _antecedent_before(text, start)):
                sentence = f"{antecedent.rstrip().rstrip('.!?')}, {sentence.lstrip()}"
            read = f"{lead} {sentence}" if lead else sentence
            if (hit := find(read, own)) and not (hit[0] in _HOUSE_RULES and _REPORTED.search(sentence)):
                return f'its source holds an instruction to the agent ({hit[0]}: "{hit[1]}")', None, ()
            if screening and not own and not is_assistant(message.speaker):
                if skips_the_user(normalize(_line(text, start, end)), user):
                    return f"its source holds an instruction to the agent: an act done without asking {user}", None, ()
            if region is None and other_person and ordered(read) and not _REPORTED.search(sentence) and not speakers_own_agent(read, user):
                snippet = re.sub(r"\s+", " ", sentence).strip()[:60]
                return f'its source holds an instruction to the agent (directive from {message.speaker}: "{snippet}")', None, ()
            # what no rule found, by meaning (after the rules, whose reasons say more), sentence by sentence: one order does
            # not take the rest of its message down with it
            by_meaning = screening and not own and not is_assistant(message.speaker) and not _promises_the_reader(sentence) \
                and not own_rule_closest \
                and not speakers_own_agent(read, user, ours=region is not None) and at_stake \
                and _reads_as_order(_IN_PERSON.sub(" ", read), user)  # what the reader does in person is no one's order
            if by_meaning and region is None:
                return "its source holds an instruction to the agent (it reads as one, by meaning)", None, ()
            voices.append(own)
            reads.append(read)
            if region is None:
                origins.append(None)
                continue
            a, b, origin = region
            if hit := find(text[a:b], False):
                return f'its source holds an instruction to the agent ({hit[0]}: "{hit[1]}") in {origin} text', origin, ()
            quoted = f"{lead} {sentence.lstrip('> ')}" if lead else sentence.lstrip("> \t")
            if (ordered(quoted) if origin != "code" else directs_the_agent(quoted)) \
                    and not speakers_own_agent(quoted, user, ours=True):  # code is full of imperatives, not of agents
                snippet = re.sub(r"\s+", " ", sentence).strip()[:60]
                return f'its source holds an instruction to the agent (imperative in {origin} text: "{snippet}")', origin, ()
            if by_meaning:
                return f"its source holds an instruction to the agent (in {origin} text, by meaning)", origin, ()
            origins.append(origin)
    if screening and (claimed := _money_sent_on_anothers_word(fact, context or sources, user)):
        return claimed, None, ()  # after the checks above, whose reasons say more
    # the user's own sentences a rule may rest on; another's beside them passed every check above, so holds no order
    rests_on_own = tuple(read for read, own in zip(reads, voices) if own)
    if not origins:
        return None, "unknown", ()
    if None in origins:
        return None, None, rests_on_own
    return None, origins[0], rests_on_own
