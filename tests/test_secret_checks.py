"""The checks that decide whether a candidate is a secret, at their edges: an `Authorization` value that
is base64 of user:password (padded or not) or is not, a bearer token that reads like one or like a word,
card numbers (Luhn, prefixes, digit groups), IBANs (mod 97), long random tokens and the redactor's memory."""

from __future__ import annotations

import base64
import string

import pytest

from hymem_cli.screen import Screen, find_secrets
from hymem_cli.screen.secrets import Redactor


def kinds(text: str) -> list[str]:
    return [kind for kind, _, _ in find_secrets(text)]


def b64(raw: str) -> str:
    return base64.b64encode(raw.encode()).decode().rstrip("=")


@pytest.mark.parametrize("credentials", ["al:pw12", "alex:hunter", "alex:hunter2", "alex:hunter23", "alex:hunter234"])
def test_basic_auth_base64_of_user_and_password_whatever_its_padding(credentials):
    value = b64(credentials)
    assert kinds(f"Authorization: Basic {value}") == ["basic-auth"], (value, len(value) % 4)
    assert kinds(f"Authorization: Basic {base64.b64encode(credentials.encode()).decode()}") == ["basic-auth"]


@pytest.mark.parametrize("value", [
    b64("usernameonly"),  # no colon: not user:password
    b64("al\x01ex:pw12"),  # not printable
    base64.b64encode(b"\xff\xfe:\xfd\xfc\xfb\xfa").decode(),  # not UTF-8
    "YWxleDpodW50ZXIy" + "A",  # a length no base64 has
    "basictraining",
])
def test_basic_auth_that_is_not_a_credential(value):
    assert "basic-auth" not in kinds(f"Authorization: Basic {value}")


@pytest.mark.parametrize("value,secret", [
    ("abcdefghIJKLMNOPqrst", True),  # both cases
    ("abcdefghijklmnopqrs1", True),  # a digit
    ("12345678901234567890", True),
    ("abcdefghijklmnopqrst", False),  # a lower-case word run
    ("ABCDEFGHIJKLMNOPQRST", False),  # an upper-case one
])
def test_bearer_values(value, secret):
    assert ("bearer" in kinds(f"Authorization: Bearer {value}")) is secret


@pytest.mark.parametrize("text,found", [
    ("card 4111 1111 1111 1111", "4111 1111 1111 1111"),
    ("card 4111-1111-1111-1111", "4111-1111-1111-1111"),
    ("amex 378282246310005 thanks", "378282246310005"),
    ("order 12 4111 1111 1111 1111", "4111 1111 1111 1111"),  # a short group before it is not part of it
    ("card 5555 5555 5555 4444 exp", "5555 5555 5555 4444"),
    ("6011111111111117", "6011111111111117"),
    ("4111111111119", "4111111111119"),  # 13 digits, the shortest card
    ("4111111111111111110", "4111111111111111110"),  # 19 digits, the longest
    ("order 555 555 555 4111 1111 1111 1111", "4111 1111 1111 1111"),  # groups before it that are no card
    ("4111 1111 1111 1111 1115", "4111 1111 1111 1111"),  # with the fifth group, 20 digits: too long, though its checksum holds
])
def test_card_numbers(text, found):
    spans = [(s, e) for kind, s, e in find_secrets(text) if kind == "card-number"]
    assert [text[s:e] for s, e in spans] == [found]


def test_two_cards_in_one_run_of_digit_groups():
    text = "cards 4111 1111 1111 1111 5555 5555 5555 4444"
    assert [text[s:e] for kind, s, e in find_secrets(text) if kind == "card-number"] == ["4111 1111 1111 1111", "5555 5555 5555 4444"]


@pytest.mark.parametrize("text", [
    "4111 1111 1111 1112",  # fails Luhn
    "1111 1111 1111 1117",  # no card starts with 1
    "4444 4444 4444 4444",  # one digit repeated
    "6666666666666",  # one digit repeated, though its checksum holds
    "411111111117",  # 12 digits, checksum valid
    "41111111111111111115",  # 20 digits, checksum valid
    "ticket 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6",
])
def test_digit_runs_that_are_not_cards(text):
    assert "card-number" not in kinds(text)


@pytest.mark.parametrize("text,found", [
    ("IBAN DE89 3704 0044 0532 0130 00 please", "DE89 3704 0044 0532 0130 00"),
    ("GB82WEST12345698765432", "GB82WEST12345698765432"),
    ("to NL91ABNA0417164300.", "NL91ABNA0417164300"),
])
def test_ibans(text, found):
    assert [text[s:e] for kind, s, e in find_secrets(text) if kind == "iban"] == [found]


@pytest.mark.parametrize("text", ["DE89 3704 0044 0532 0130 01", "XX00 1234 5678 9012 3456", "GB82WEST1234569876543"])
def test_ibans_that_fail_their_check(text):
    assert "iban" not in kinds(text)


@pytest.mark.parametrize("token,secret", [
    ("q8Zr2LmX0vT7pK4wN6yB1cD3fG5hJ9kL", True),  # 32 random letters and digits
    ("q8Zr2LmX0vT7pK4wN6yB1cD3fG5hJ9k", False),  # 31
    ("q8Zr2LmX0vT7pK4wN6yB1cD3fG5hJ9k==", False),  # padding does not count
    ("0123456789abcdef0123456789abcdef01234567", False),  # hex: a hash
    ("abcdefghijklmnopqrstuvwxyzabcdefgh", False),  # no digit
    ("src/hymem_cli/bank/store/x1/more/paths", False),  # a path
    ("my_long_variable_name_with_words_2024", False),  # snake_case words and numbers
    ("Hy-Memory-30B-A3B-Q8_0-gguf-model-x", False),  # short pieces joined: a name
    ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1", False),  # not random
])
def test_long_random_tokens(token, secret):
    assert ("token" in kinds(f"value {token} here")) is secret


def test_the_redactor_remembers_what_it_replaced():
    redactor = Redactor()
    out, found = redactor.redact("the wifi password is Tr0ub4dor&3 ok")
    assert "Tr0ub4dor&3" not in out and found == ["password"]
    assert redactor.secret_kind("he typed Tr0ub4dor&3 again") == "password"
    assert redactor.secret_kind("he typed Tr0ub4dor&3 again", seen=False) is None
    assert redactor.redact("he typed Tr0ub4dor&3 again", seen=True) == ("he typed [REDACTED:password] again", ["password"])
    assert redactor.redact("he typed Tr0ub4dor&3 again") == ("he typed Tr0ub4dor&3 again", [])
    redactor.forget()
    assert redactor.secret_kind("he typed Tr0ub4dor&3 again") is None


def test_a_value_found_in_a_text_is_looked_for_in_the_rest_of_it_when_asked():
    """Asked for remembered values, the redactor also replaces a value it found earlier in the same text: near each
    placeholder (a later round looks there), in every part of a long text, at the right place."""
    filler = "and then we talked about the weather for a while " * 8  # 400 characters
    text = (filler + "my password is Tr0ub4dor&3 so type Tr0ub4dor&3 now " + filler * 2  # 800: two regions, 300 around each
            + "her password is c0rrectH0rse9 and c0rrectH0rse9 " + filler)
    out, kinds = Redactor().redact(text, seen=True)
    assert out == text.replace("Tr0ub4dor&3", "[REDACTED:password]").replace("c0rrectH0rse9", "[REDACTED:password]")
    assert kinds == ["password"] * 4
    assert Redactor().redact(text)[0] == out  # not asked: a made-up value the text shows as a secret, wherever it repeats it
    redactor = Redactor()
    redactor.redact("my password is Tr0ub4dor&3")
    assert redactor.redact("so type Tr0ub4dor&3 now")[0] == "so type Tr0ub4dor&3 now"  # another text's value: only when asked
    assert redactor.redact("so type Tr0ub4dor&3 now", seen=True)[0] == "so type [REDACTED:password] now"


def test_a_text_redacted_again_is_answered_from_the_last_results(monkeypatch):
    """Ingest redacts a message, then the chunk that holds it: the same string a second time costs no search and gets the
    same answer; a remembered value asked for is still replaced; the results kept are bounded, the oldest dropped."""
    from hymem_cli.screen import secrets

    searched = []
    real = secrets.find_secrets
    monkeypatch.setattr(secrets, "find_secrets", lambda text: searched.append(text) or real(text))
    redactor = Redactor()
    redactor.CACHE_MAX = 3
    text = "the wifi password is Tr0ub4dor&3 ok"
    first = redactor.redact(text)
    before = len(searched)
    again = redactor.redact(text)
    assert again == first == ("the wifi password is [REDACTED:password] ok", ["password"]) and len(searched) == before
    again[1].append("changed by a caller")
    assert redactor.redact(text)[1] == ["password"]

    typed = "he typed it: Tr0ub4dor&3"
    assert redactor.redact(typed) == (typed, [])  # kept: its own words show no secret
    assert redactor.redact(typed, seen=True) == ("he typed it: [REDACTED:password]", ["password"])

    notes = [f"note number {i}" for i in range(4)]  # distinct strings, kept alive
    for note in notes:
        redactor.redact(note)
    before = len(searched)
    redactor.redact(notes[1])
    assert len(searched) == before  # among the three newest
    redactor.redact(notes[0])
    assert len(searched) == before + 1  # dropped: searched again


def test_spans_are_merged_where_they_overlap_and_placed_where_their_placeholders_end_up():
    from hymem_cli.screen.secrets import _replace_spans

    order = {"password": 0, "token": 1}
    out, kinds, placed = _replace_spans("xxAAAyyBBBBzz", [("token", 7, 11), ("password", 2, 5)], order)
    assert (out, kinds) == ("xx[REDACTED:password]yy[REDACTED:token]zz", ["password", "token"])
    assert [out[a:b] for a, b in placed] == ["[REDACTED:password]", "[REDACTED:token]"]
    # touching spans stay two; overlapping ones are one, named after the longest of those starting first
    assert _replace_spans("AAAABBBB", [("password", 0, 4), ("token", 4, 8)], order)[1] == ["password", "token"]
    assert _replace_spans("AAAABBBB", [("password", 0, 4), ("token", 0, 6), ("password", 5, 8)], order)[:2] == (
        "[REDACTED:token]", ["token"])


def test_the_screen_names_remembered_secrets_on_request_and_none_when_switched_off():
    screen = Screen()
    screen.redact("the wifi password is Tr0ub4dor&3 ok")
    assert screen.secret_kind("he typed Tr0ub4dor&3 again") == "password"
    assert screen.secret_kind("he typed Tr0ub4dor&3 again", seen=False) is None
    assert screen.redact("he typed Tr0ub4dor&3 again") == ("he typed Tr0ub4dor&3 again", [])  # only what the text shows
    assert screen.redact("he typed Tr0ub4dor&3 again", seen=True) == ("he typed [REDACTED:password] again", ["password"])
    assert Screen(secrets=False).secret_kind("token sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fG") is None


def test_the_redactor_forgets_the_oldest_values_past_its_bound():
    redactor = Redactor()
    redactor.SEEN_MAX = 3
    for n in range(5):
        redactor.remember(f"secret-value-{n}", "password")
    assert list(redactor.seen) == ["secret-value-2", "secret-value-3", "secret-value-4"]
    redactor.remember("secret-value-2", "password")  # seen again: newest now
    assert list(redactor.seen) == ["secret-value-3", "secret-value-4", "secret-value-2"]
    redactor.remember("abc", "pin")  # too short to look for
    redactor.remember("[REDACTED:pin]", "pin")
    assert "abc" not in redactor.seen and "[REDACTED:pin]" not in redactor.seen


def test_seen_values_are_found_each_time_they_occur():
    redactor = Redactor()
    redactor.remember("hunter22", "password")
    assert redactor.seen_in("hunter22 and hunter22 or hunter22") == [("password", 0, 8), ("password", 13, 21), ("password", 25, 33)]


def test_scrub_replaces_a_lone_surrogate_with_the_replacement_character():
    """A rejection record keeps what was refused; SQLite cannot store a lone surrogate, so it becomes U+FFFD."""
    assert Screen().scrub("bad \ud800 text") == "bad \ufffd text"


def test_redact_repeats_until_nothing_is_left():
    text = "key sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7 card 4111 1111 1111 1111 and password is hunter22."
    out, found = Screen().redact(text)
    assert out == "key [REDACTED:openai-key] card [REDACTED:card-number] and password is [REDACTED:password]."
    assert sorted(found) == ["card-number", "openai-key", "password"]
    assert Screen().redact(out) == (out, [])


def test_overlapping_secrets_are_one_redaction():
    out, found = Screen().redact("token sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fG3hJ5kL7mN9 end")
    assert out == "token [REDACTED:openai-key] end" and found == ["openai-key"]


@pytest.mark.parametrize("value,secret", [
    ("hunter22", True),  # reads like a password
    ("q8Zr2LmX0vT7pK", True),  # short and random
    ("production", False),  # a word
    ("/path/to/key123xyz", False),  # a path is a reference, not the secret
    ("${TOKEN_2}", False),
])
def test_secret_fields(value, secret):
    assert ("secret-field" in kinds(f"API_TOKEN={value}")) is secret


@pytest.mark.parametrize("text,found", [
    ("card 4111111111112", "4111111111112"),  # 13 digits, the shortest card run
    ("card 4111111111111111112", "4111111111111111112"),  # 19 digits, the longest
    ("card 4111 1111 1111 1112", "4111 1111 1111 1112"),  # three different digits are enough
    ("card 411111111112", None),  # 12 digits: too short for a card
    ("card 4444 4444 4444 4441", None),  # two different digits: a placeholder, not a number
])
def test_card_like_digits_beside_a_card_word_at_their_edges(text, found):
    """The checksum fails on all of these: only the card word beside them makes them secrets."""
    spans = [text[s:e] for kind, s, e in find_secrets(text) if kind == "card-context"]
    assert spans == ([found] if found else [])


def test_basic_auth_with_more_padding_than_it_needs_is_still_a_credential():
    """Over-padded base64 still decodes to user:password in every lenient decoder: redact it."""
    value = b64("ab:cdefg")  # 11 characters
    assert kinds(f"Authorization: Basic {value}==") == ["basic-auth"]


def test_a_redacted_security_code_does_not_make_the_number_after_it_a_secret():
    """The placeholder names its kind, card-cvv; the next round of redaction must not read that as the word CVV."""
    out, found = Redactor().redact("Alex CVV 000 2024-05-01")
    assert out == "Alex CVV [REDACTED:card-cvv] 2024-05-01" and found == ["card-cvv"]


SEED = "apple river stone cloud maple tiger piano lemon ocean"  # nine words no placeholder list holds


@pytest.mark.parametrize("text,secret", [
    (f"seed phrase: {SEED} the and but", False),  # 12 words, a quarter of them filler: a sentence, not a seed phrase
    (f"seed phrase: {SEED} grape the and but", True),  # 13 words, 3 of them filler: less than a quarter
    (f"Seed phrase: The And But {SEED.title()}", False),  # the filler is found whatever its case
    ("seed phrase: " + ",".join(["the", "and", "but", *SEED.split()]), False),  # commas between the words
    ("seed phrase: " + ", ".join(w.title() for w in [*SEED.split(), "grape", "melon", "olive"]), True),
])
def test_seed_phrases_against_sentences_that_follow_the_words_seed_phrase(text, secret):
    assert ("seed-phrase" in kinds(text)) is secret


@pytest.mark.parametrize("text,secret", [
    ("passphrase: Not Set", False),
    ("Passphrase: NONE", False),
    ("passphrase: Correct Horse Battery", True),
])
def test_passphrases_and_placeholders_whatever_their_case(text, secret):
    assert ("passphrase" in kinds(text)) is secret


@pytest.mark.parametrize(("text", "found"), [
    # every match of a kind, not just its first
    ("cards 4111 1111 1111 1111 and 5500 0000 0000 0004 both", [("card-number", 6, 25), ("card-number", 30, 49)]),
    ("IBAN DE89370400440532013000 and GB82WEST12345698765432 ok", [("iban", 5, 27), ("iban", 32, 54)]),
    ("backup codes: 7f3k-92ab\nrecovery codes: 1234-5678", [("backup-code", 14, 23), ("backup-code", 40, 49)]),
    ("sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fG and sk-proj-Zz3dE5gH7jK9mN1pQ3sT5vX7zB9cD1fQ",  # each key once per kind
     [("openai-key", 0, 40), ("openai-key", 45, 85), ("api-key", 0, 40), ("api-key", 45, 85), ("token", 0, 40), ("token", 45, 85)]),
    # a match passed over (a placeholder, a value that fails its check) does not end the search
    ('password is "[REDACTED:password]" and password is hunter22x', [("password", 50, 59)]),
    ("the password `[REDACTED:api-key]` was set", []),  # a quoted placeholder is one too
    # a quoted value without its quotes, a value without the full stop after it
    ('the password is "hunter22x" ok', [("password", 17, 26)]),
    ("the password is hunter22x. ok", [("password", 16, 25)]),
    ("login alex password letmein and login sam password X9k#2mQpz", [("password-bare", 51, 60)]),
    # only a value that starts with a placeholder is one
    ("pass: X[REDACTED:password] and more", [("password-field", 6, 26)]),  # its closing bracket too: the value opened it
    # backup codes after secrets of other kinds: all kept; a piece is a code only with a digit in it
    ("the wifi password is Tr0ub4dor&3, backup codes: see 9999-8888 and x7k2m9",
     [("password", 21, 32), ("backup-code", 52, 61), ("backup-code", 66, 72)]),
    # a passphrase ends at its last word, not at the spaces after it
    ("the passphrase: correct horse battery staple   \nnext", [("passphrase", 16, 44)]),
])
def test_where_each_secret_is_found(text, found):
    assert find_secrets(text) == found


def _mod97(iban: str) -> int:
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97


def test_an_iban_of_a_known_country_ends_at_that_countrys_length():
    """German IBANs have 22 characters: digits after one are not part of it, even when a longer run would also pass mod 97."""
    iban = "DE89370400440532013000"
    assert _mod97(iban) == 1
    tail = next(f"{n:02d}" for n in range(100) if _mod97(iban + f"{n:02d}") == 1)
    text = f"IBAN {iban} {tail}"
    spans = [text[s:e] for kind, s, e in find_secrets(text) if kind == "iban"]
    assert spans == [iban]


def _with_check_digits(country: str, bban: str) -> str:
    check = 98 - _mod97(country + "00" + bban)
    return f"{country}{check:02d}{bban}"


@pytest.mark.parametrize("bban", ["12345678901", "1234567890123456789012345678AB", "0110125000000001230069"])
def test_an_iban_of_a_country_without_a_known_length_is_found_at_any_length_from_15_to_34(bban):
    iban = _with_check_digits("ZZ", bban)  # 15, 34 and 26 characters
    assert _mod97(iban) == 1
    text = f"IBAN {iban}"
    assert [text[s:e] for kind, s, e in find_secrets(text) if kind == "iban"] == [iban]


def test_an_iban_of_a_country_without_a_known_length_ends_at_its_longest_valid_run():
    iban = _with_check_digits("ZZ", "01101250000000012300695")  # 27 characters
    text = f"IBAN {iban} 4"  # one more digit after it: 28 characters do not pass mod 97, 27 do
    assert _mod97(iban + "4") != 1
    assert [text[s:e] for kind, s, e in find_secrets(text) if kind == "iban"] == [iban]


def test_an_iban_of_a_country_without_a_known_length_is_never_longer_than_34_characters():
    iban = _with_check_digits("ZZ", "123456789012345678901234567891")  # 34 characters
    text = f"IBAN {iban} 8"
    assert _mod97(iban + "8") == 1  # the 35 characters pass mod 97 as well
    assert [text[s:e] for kind, s, e in find_secrets(text) if kind == "iban"] == [iban]


@pytest.mark.parametrize("value,secret", [
    ("abc", True), ("Xy9", True), ("hunter22", True),  # three characters are enough
    ("ab", False),  # two are not
    ("EMPTY", False), ("Missing", False),  # a plain no, whatever its case
    ("ENV", False), ("Changeme_Later", False),  # a placeholder, whatever its case
    ("[REDACTED:password]", False), ("$DB_PASS", False), ("<your password>", False), ("{{ db_password }}", False),
    ("%(password)s", False), ("/run/secrets/db", False), ("~/pw.txt", False), ("./pw.txt", False),
    ("http://vault.local/pw", False), ("https://vault.local/pw", False),  # a reference to the value, not the value
    ("********", False), ("xxxxxx", False), ("•••-•••", False),  # a mask
])
def test_what_a_password_field_holds(value, secret):
    from hymem_cli.screen.secrets import _field_value

    assert _field_value(value) is secret


@pytest.mark.parametrize("text,kind", [
    ("IBAN DE89370400440532013000, card 4111 1111 1111 1111", "iban"),
    ("card 4111 1111 1111 1111, IBAN DE89370400440532013000", "card-number"),
    ("he typed Tr0ub4dor&3 with IBAN DE89370400440532013000", "password"),  # remembered, and first
    # a JWT sent as a bearer token is named a jwt, not after a shorter piece inside it
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop", "jwt"),
])
def test_the_screen_names_the_first_secret_in_the_text(text, kind):
    screen = Screen()
    screen.redact("the wifi password is Tr0ub4dor&3 ok")
    assert screen.secret_kind(text) == kind


def test_redact_messages_keeps_unchanged_messages_as_they_are():
    from hymem_cli.domain import Message

    plain, secret = Message("1", "Alex", "I like tea."), Message("2", "Sam", "My password is hunter2hunter2.")
    later = Message("3", "Alex", "Noted.")
    out, kinds = Screen().redact_messages([plain, secret, later])
    assert out[0] is plain and out[2] is later and out[1].text == "My password is [REDACTED:password]."
    assert kinds == ["password"]  # what every message had redacted, a later message without a secret too


def test_redactions_are_counted_in_all_and_by_kind():
    from hymem_cli.screen import kind_counts

    assert kind_counts(["password", "api-key", "password"]) == {"redacted": 3, "redacted.password": 2, "redacted.api-key": 1}
    assert kind_counts([]) == {"redacted": 0}


@pytest.mark.parametrize("text", ["my password is '[REDACTED]'", 'the password was "[REDACTED]"'])
def test_a_hand_written_placeholder_in_quotes_is_no_password(text):
    """Transcripts often carry "[REDACTED]" where someone removed a secret by hand: there is nothing left to find."""
    assert find_secrets(text) == []


@pytest.mark.parametrize("quoted", ["'[REDACTED:security-answer]'", '"[REDACTED:security-answer]"', "“[REDACTED:security-answer]”"])
def test_a_placeholder_in_quotes_is_no_secret_of_a_kind_without_its_own_check(quoted):
    """A security answer's value is any word, so only the general check for a placeholder, behind its quotes, keeps
    the redactor's own placeholder from being found again."""
    assert find_secrets(f"security answer: {quoted}") == []


def test_a_login_pair_password_needs_four_characters():
    assert find_secrets("echo 'alex:a1b' | chpasswd") == []  # three: a word, an initial, an abbreviation
    assert find_secrets("echo 'alex:a1b2' | chpasswd") == [("login-pair", 11, 15)]


def test_the_regions_looked_at_again_around_spans():
    from hymem_cli.screen.secrets import _around

    assert _around("ab  cd", [(0, 3), (3, 5)], margin=0) == [(0, 6)]  # the second begins where the first ends
    assert _around("ab cd ef", [(0, 1), (6, 7)], margin=0) == [(0, 2), (6, 8)]  # a word between them: apart
    assert _around("abc def", [(2, 3)], margin=0) == [(0, 3)]  # widened back to the start of the text
    assert _around(" abc", [(1, 2)], margin=5) == [(0, 4)]  # from the start of the text, a space there included
    assert _around("ab cd", [(4, 5)], margin=0) == [(3, 5)]  # back to the word's start, not past the space
    assert _around("a " * 400, [(400, 401)]) == [(100, 701)]  # by default 300 characters either side, to a space


@pytest.mark.parametrize("text,found", [
    ("my password is ok.", []),  # two letters and a full stop: a reply, not a password
    ("my password is MAX", [("password", 15, 18)]),  # a capital X at its end is part of it
    ("my password is [REDACTED]", []),  # a hand-written placeholder without quotes
    ("login: alex / [REDACTED]", []),
    ("AWS_SESSION_TOKEN=%a1B2c3D4eXX", [("password", 18, 30), ("secret-field", 18, 30)]),  # short, random, X's and all
    ("sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08= done", []),  # hex with a padding sign: a checksum
    (f"use {'aB3dE5gH' * 2 + 'K7mP' * 4} here", [("token", 4, 36)]),  # entropy exactly at the 3.5 bits a token needs
])
def test_values_at_the_edges_of_the_password_and_token_rules(text, found):
    assert find_secrets(text) == found


def test_the_lines_of_a_long_private_key_are_remembered_one_by_one():
    """A key block is too long to look for whole: each of its lines is remembered, and found alone later, even a
    line too short to pass for a token by itself."""
    import random

    rng = random.Random(1)
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(900))).decode()
    lines = [body[i:i + 24] for i in range(0, len(body), 24)]
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END RSA PRIVATE KEY-----"
    redactor = Redactor()
    out, kinds = redactor.redact(f"here is the key:\n{key}\nkeep it safe")
    line = next(one for one in lines[1:-1] if not one.isalnum())  # with a "+" or "/": no made-up string by itself
    assert kinds == ["private-key"] and line not in out
    assert find_secrets(f"the line {line} showed up in a log") == []  # alone, no secret
    out, kinds = redactor.redact(f"the line {line} showed up in a log", seen=True)
    assert (out, kinds) == ("the line [REDACTED:private-key] showed up in a log", ["private-key"])


@pytest.mark.parametrize("text", [
    "my password is Xa.", "my password is '   '", "my password is ${HOME}", "my password is $(pass show db)",
    "my password is wanted", "my password is singing", "my password is actually fine",  # a word, not a value
    "user: alex / $abc1234", "login: alex / http1234", "login: alex / <abc123>", "login: alex / {abc123}",
    "login: alex / %abc123", "echo 'alex:/abc1234' | chpasswd", "login: alex / 1password",  # references, paths, a product
    "API_SECRET=*x.•#-_*", "API_SECRET=XXXXXXXX", "password: 'XXX'", 'password: "•••"', "my password is ********",
    "my password is xxxx", "my password is XXXX-XXXX.", "password: 'XXXX XXXX'", 'API_SECRET="**** ****"',  # masks, in either case
])
def test_what_follows_a_password_word_and_is_no_password(text):
    assert find_secrets(text) == []


@pytest.mark.parametrize("text,found", [
    ("API_SECRET=XXXX1234", [("password-field", 11, 19)]), ("password: 'Xx1'", [("password", 11, 14), ("password-field", 11, 14)]),
    ("my password is Xx1x", [("password", 15, 19)]),
    ("password: '***a'", [("password", 11, 15), ("password-field", 11, 15)]),
    ("password: 'a***'", [("password", 11, 15), ("password-field", 11, 15)]),  # one character more, at either end
])
def test_a_value_with_more_than_mask_characters_is_no_mask(text, found):
    assert find_secrets(text) == found


@pytest.mark.parametrize("text,span", [("my password is abc", (15, 18)), ("my password is XabX", (15, 19))])
def test_three_letters_or_capitals_after_a_password_word_are_a_password(text, span):
    assert find_secrets(text) == [("password", *span)]


@pytest.mark.parametrize("text,found", [
    ("login: alex / Abc!defg", [("login-pair", 14, 22)]),  # a symbol and a capital: a password
    ("login: alex / Abc-defg", []), ("login: alex / Abc_defg", []), ("login: alex / Abc.defg", []),
    ("login: alex / Abc'defg", []),  # joiners in a name are no symbols
    ("AWS_SESSION_TOKEN=[REDACTED]abc123", []),
    ("AWS_SESSION_TOKEN=%a1B2c3D4e5F", [("password", 18, 30), ("secret-field", 18, 30)]),  # twelve random characters
    ("AWS_SESSION_TOKEN=%a1B2c3D4e==", [("password", 18, 30)]),  # ten before the padding: too short to count as random
    ("AWS_SESSION_TOKEN=%abcdefghijklmn", [("password", 18, 33)]),  # letters only: not random
])
def test_where_a_login_pair_and_a_short_random_value_begin_and_end(text, found):
    assert find_secrets(text) == found


@pytest.mark.parametrize("text,found", [
    ("pwd 123", []), ("pwd 1234", [("password-bare", 4, 8)]),  # a PIN-like number: 4 to 12 digits
    ("pwd 123456789012", [("password-bare", 4, 16)]), ("pwd 1234567890123", []),
    ("token: [REDACTED]a1b2c3d4e5", []),
    ("token: abcdefghijklmnop", [("password", 7, 23)]),  # letters only: no random token
    ("token: build_2024_release", [("password", 7, 25), ("secret-field", 7, 25)]),  # words and numbers joined: a name
    ("token: release_20240115", [("password", 7, 23), ("secret-field", 7, 23)]),
    ("token: RELEASE_20240115", [("password", 7, 23), ("secret-field", 7, 23)]),
    ("token: a1b2c3-d4e5f6g7", [("password", 7, 22), ("secret-field", 7, 22), ("secret-token", 7, 22)]),
    ("token: ReLeaSe_20240115", [("password", 7, 23), ("secret-field", 7, 23), ("secret-token", 7, 23)]),  # mixed case: no word
])
def test_numbers_and_names_beside_random_tokens(text, found):
    assert find_secrets(text) == found


def test_the_word_of_a_value():
    from hymem_cli.screen.secrets import _value_word

    assert [_value_word(v) for v in ("'abc'", "abc.,", ".abc.", '"ab c"')] == ["abc", "abc", ".abc", "ab c"]


def test_what_the_redactor_remembers_of_a_long_value():
    """A value up to 512 characters is remembered whole; a longer one only when it is a key block, as its first 64
    lines of 16 characters or more between the header and the footer."""
    body = [f"{n:02d}" + "Ab3dEf9hKl2nOp5r"[: 14 if n == 1 else 16] for n in range(70)]  # line 1: 16 characters
    block = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----"
    redactor = Redactor()
    redactor.remember(block, "private-key")
    assert list(redactor.seen) == body[:64]
    redactor = Redactor()
    redactor.remember("-----BEGIN PRIVATE KEY-----\n" + "\n".join(body[2:32]) + "\n-----END PRIVATE KEY-----", "private-key")
    assert list(redactor.seen) == body[2:32]  # the last line before the footer too
    redactor = Redactor()
    for value in ("a1" * 256, "b2" * 256 + "c"):  # 512 characters, then 513
        redactor.remember(value, "token")
    assert list(redactor.seen) == ["a1" * 256]


@pytest.mark.parametrize("token,random", [
    ("Ab3dEf9hKl2nOp5rSt8vWx1zQy7uMjXX", True),  # 32 characters, capital X's at the end included
    ("Ab3dEf9hKl2nOp5rSt8vWx1zQy7uMj4==", False),  # 31 before the padding: too short
    ("9F86D081884C7D659A2FEAA0C55AD015", False),  # hex in capitals: a checksum
    ("AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEf", False),  # no digit
    ("A1B2C3D4E5F6G7H8J9K0L1M2N3P4Q5R6", True), ("a1b2c3d4e5f6g7h8j9k0l1m2n3p4q5r6", True),  # one case of letters is enough
    ("Ab3dEf9hKl/2nOp5rSt8v/Wx1zQy7uMj4c", False),  # two slashes, short parts: a path
    ("Ab3dEf9hKl2nOp5rSt8vWx1/Ab3dE/Ab3dE", False),  # its longest part 23 characters: still a path
    ("Ab3dEf9hKl2nOp5rSt8vWx1z/Ab3dE/Ab3dE", True),  # 24: a token with slashes in it (base64)
    ("Alpha_beta_gamma_1234567890123456", False),  # words and a number
    ("ab3dEf9h-Kl2nOp5r-St8vWx1z-Qy7uMj4c", False),  # four pieces of 8: a name made of parts
    ("ab3dEf9hK-l2nOp5rS-t8vWx1zQ-y7uMj4c", True),  # pieces of 9: random
    ("abcdefghijklmnopqrstuvwxyz123456", False), ("ABCDEFGHIJKLMNOPQRSTUVWXYZ123456", False),  # few switches of kind
    ("a!b@c#d$e%f^g&h*i(j)k_l+m=n-o~p1", True),  # symbols between letters count as switches
    ("checkpoint_step_1_2_3_4_5_6_7_8_9_final", False),  # words and numbers joined, however often they switch
    ("abcdefgh1-2ABCDEFG3-4hijklmnop5Q", True),  # 10 switches in 31 pairs, 4 of them between a digit and a dash
    ("abcdefghijK-Lmnopqrstuv1M-Nwxyz2", True),  # 10 switches, 4 of them between a capital and a dash
    ("abc123DEF456ghi789JKL012mnop3456", False),  # 9 switches in 31 pairs: under 30 %
    ("abc123DEF456ghi789JKL012mno345PQR678stuvw", True),  # 12 in 40: 30 % exactly
    ("g9h8j7k6m5" * 4, False),  # a switch at every character, but ten characters: 3.3 bits each, under 3.5
])
def test_what_reads_as_a_random_token(token, random):
    from hymem_cli.screen.secrets import _looks_random

    assert _looks_random(token) is random


def test_only_the_first_4096_characters_of_a_token_are_judged():
    """1,229 runs of lower-case letters, digits and capitals in turn, 3 or 4 characters each, fill 4,096 characters
    with 1,228 switches: just under 30 % of their 4,095 pairs. One more switch would tip it, but lies beyond them."""
    from hymem_cli.screen.secrets import _looks_random

    alphabets = (string.ascii_lowercase, string.digits, string.ascii_uppercase)
    token = "".join((alphabets[i % 3] * 2)[i % 10:i % 10 + (4 if i < 409 else 3)] for i in range(1229))
    assert len(token) == 4096 and not _looks_random(token)
    assert not _looks_random(token + "A")
    assert _looks_random(token[1:] + "A")  # the same switch inside the first 4,096: random


@pytest.mark.parametrize("token,random", [
    ("a1b2c3d4a1b2c3d4", True),  # eight characters twice: 3 bits each, as many as it needs
    ("a1b2c3a1b2c3", False),  # six characters: 2.6 bits
])
def test_what_reads_as_a_short_random_token(token, random):
    from hymem_cli.screen.secrets import _short_random

    assert _short_random(token) is random
