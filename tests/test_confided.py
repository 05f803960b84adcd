"""Values a sentence about a credential gives away (screen/confided.py), and seeds in columns (screen/wallet.py), each
rule pinned from both sides: the secret is redacted, its benign neighbour is left as it was."""

from __future__ import annotations

import pytest

from hymem_cli.screen import Screen, find_secrets
from hymem_cli.screen.confided import invented


def redacted(text: str) -> str:
    return Screen().redact(text)[0]


def assert_caught(text: str, *secrets: str) -> None:
    out = redacted(text)
    for secret in secrets:
        assert secret not in out, out


def assert_kept(text: str) -> None:
    assert find_secrets(text) == [], [(k, text[s:e]) for k, s, e in find_secrets(text)]


@pytest.mark.parametrize("token", ["crumpet-toast-9", "Sparrow^Lake^2019", "Galeb!Mura58", "stroopwafel-Delft9", "pogácsa-77",
                                   "Mulberry_Gale_77", "Hazel-Ridge-93!"])
def test_made_up_values_look_invented(token):
    assert invented(token)


@pytest.mark.parametrize("token", ["Seite-12", "Milano-2", "COVID-19", "ORD-2024-77", "4-digit", "require_2fa", "db.r6g.large",
                                   "report-2024.pdf", "e-Dnevnik", "Wi-Fi", "wombat77", "DB_USER=app", "docker/login-action@v3",
                                   "alex:Jira-Pw-55", "example.co.uk", "--ftp-password=$FTP_PASS"])
def test_names_ids_files_and_settings_do_not(token):
    assert not invented(token)


@pytest.mark.parametrize(("text", "secret"), [
    ("átállítottam a laptop jelszavát erre: pogácsa-77 (kötőjellel)", "pogácsa-77"),  # an inflected password word
    ("Het wachtwoord voor de gedeelde Netflix is nu stroopwafel-Delft9, niet doorsturen aub", "stroopwafel-Delft9"),
    ("the code to the shared account is 7Fjord!Pine — please don't change it without telling the group", "7Fjord!Pine"),
    ("heads up — went ahead and changed the Costco login, it's now thimble-orchard-63 (all lowercase)", "thimble-orchard-63"),
    ("[10:42] sam: did u change the wifi??\n[10:43] me: yep changed it to crumpet-toast-9\n[10:43] sam: ok", "crumpet-toast-9"),
    ("-Credential (New-Object PSCredential('svc', (ConvertTo-SecureString 'Hazel-Ridge-93!' -AsPlainText -Force)))",
     "Hazel-Ridge-93!"),
])
def test_a_made_up_value_in_a_sentence_about_a_credential_is_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize(("text", "secret"), [
    ("Der Zahlencode fürs Fahrradschloss ist 3-9-0-4", "3-9-0-4"),
    ("Ο κωδικός του συναγερμού είναι 3052", "3052"),
    ("mon code de carte bleue c'est 8406, ne le répète à personne", "8406"),
    ("il codice del bancomat è 3092, tienilo per te", "3092"),
    ("رمز البطاقة 4619 لا تخبر أحدا", "4619"),
    ("என் ஏடிஎம் கார்டு பின் 7294, யாரிடமும் சொல்லாதே", "7294"),
    ("phone unlock is 319046, same as my old one", "319046"),
])
def test_the_digits_of_a_code_or_of_a_secret_kept_from_others_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "flight code BA 2490 leaves at 18:05 from gate 12",
    "vi bor i rum 4312 på hotellet, koden till dörren får vi i receptionen",  # the room comes before the code's name
    "рейс SU 1472 вылетает в 14:35, код бронирования пришлёт агент",
    "kode pos rumah baru 40115, tolong update alamatnya",  # a postal code
    "Ο κωδικός της παραγγελίας είναι 48213",  # an order's code
    "[auth]\npassword_hash_algorithm = argon2id\npassword_reset_ttl = 3600\nrequire_2fa = true",
    "Forgot password?\nClick-here-2",  # the line after names no value
    "The code of conduct was updated in 2024, don't tell anyone I said it was overdue",  # a year
    "Das Passwort steht auf Seite-12 im Handbuch.",
])
def test_numbers_and_names_that_are_no_credential_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize("text", [
    "Secret Recovery Phrase\n 1 monster    9 rebuild   17 unit\n 2 note      10 relief    18 rich\n 3 jazz      11 network   19 subject\n"
    " 4 nephew    12 engage    20 fall\n 5 practice  13 emerge    21 cake\n 6 renew     14 stumble   22 slight\n"
    " 7 layer     15 shrug     23 vintage\n 8 enemy     16 fantasy   24 sample",
    "Exodus backup\n1-apart      7-hold\n2-delay      8-resource\n3-ozone      9-one\n4-gasp       10-surge\n5-wish       11-silly\n"
    "6-tuna       12-state",
    'on the back of a photo: "soul, scale, join, chest, indicate, crawl, upgrade, van, little, tenant, act and bind" - his wallet?',
])
def test_seed_words_in_columns_by_bare_numbers_or_ending_in_and_are_redacted(text):
    out = redacted(text)
    assert "[REDACTED:seed-phrase]" in out
    assert "monster" not in out and "apart" not in out and "tenant" not in out


def test_a_run_of_listed_words_that_goes_on_after_and_is_no_seed_of_its_own_length():
    assert_kept("apple banana cherry and then some more words here to say")


@pytest.mark.parametrize(("text", "secret"), [
    ("ok the number is 4111 1111 1111 1111, expires oh nine twenty seven, security code five one eight", "five one eight"),
    ("Numéro de carte\u202f: 4111 1111 1111 1111\nDate d’expiration\u202f: 02/29\nCryptogramme\u202f: 731", "731"),
    ("Carte pro\u00a0: 4111 1111 1111 1111 — expire fin 2027, le code au dos c'est 662", "662"),
    ("用这张卡：卡号 4111 1111 1111 1111，有效期 11/29，背面三位安全码 046。", "046"),
])
def test_a_cards_code_named_after_its_number_is_redacted(text, secret):
    assert_caught(text, secret)


def test_a_price_after_a_card_is_no_code():
    assert "1299" in redacted("paid with card 4111 1111 1111 1111 for the order, total 1299 kr")


@pytest.mark.parametrize(("text", "secret"), [
    ("Tom: user is studio, then type Foxglove!Ledger58 and hit return", "Foxglove!Ledger58"),  # a value typed in
    ("బ్యాంక్ యాప్ పాస్\u200cవర్డ్ ఇప్పుడు Pesarattu#Godavari6 — ఎవరికీ చెప్పకు", "Pesarattu#Godavari6"),  # Telugu
    ("export:\notpauth-migration://offline?data=CjMKCkhlbGxvId6tvu8SGEV4YW1wbGU6YWxpY2VAZ29vZ2xlLmNvbRoHRXhhbXBsZSAB",
     "CjMKCkhlbGxvId6tvu8SGEV4YW1wbGU6YWxpY2VAZ29vZ2xlLmNvbRoHRXhhbXBsZSAB"),
    ("-----BEGIN OpenVPN Static key V1-----\n0ef081f9866ca7e973d1397807d7d672\n-----END OpenVPN Static key V1-----",
     "0ef081f9866ca7e973d1397807d7d672"),
    ("Microsoft-fiók helyreállítási kódja:\n\nJE03B-MLMVQ-C8ODJ-Q68TU-G65YH\n", "JE03B-MLMVQ-C8ODJ-Q68TU-G65YH"),
])
def test_more_forms_of_a_credential_are_redacted(text, secret):
    assert_caught(text, secret)


def test_a_japanese_seed_written_in_decomposed_kana_is_redacted():
    import unicodedata
    words = "たしざん たぶん めいそう けつまつ りくつ そつぎょう ほこう たんそく ねさげ あたる わかす さがす".split()
    text = "ウォレットの復元フレーズ：\n" + "\u3000".join(unicodedata.normalize("NFD", w) for w in words)
    assert "[REDACTED:seed-phrase]" in redacted(text)


def test_code_that_reads_a_secret_from_the_environment_is_kept():
    assert_kept('import os\nDB_PASSWORD = os.environ["DB_PASSWORD"]\nAPI_KEY = os.getenv("OPENAI_API_KEY")')


def test_a_psql_result_with_a_password_column_loses_its_cells():
    text = ("appdb=# SELECT id, email, password FROM users;\n id |  email        | password\n----+---------------+----------\n"
            "  1 | olga@shop.ex  | Birch&Kettle9\n  2 | sam@shop.ex   | hollyhock1986\n(2 rows)")
    out = redacted(text)
    assert "Birch&Kettle9" not in out and "hollyhock1986" not in out and "olga@shop.ex" in out
    assert_kept(" id | email        | password_set\n----+--------------+-------------\n  1 | olga@shop.ex | t")


def test_a_wifi_key_in_wpa_supplicant_conf_is_redacted_whole():
    assert_caught('network={\n    ssid="Zolder"\n    psk="Haring met Uitjes 1999"\n    key_mgmt=WPA-PSK\n}', "Haring met Uitjes 1999")


def test_seedqr_digits_are_a_seed_and_other_long_numbers_are_not():
    seedqr = "105012850068048220341646202316750629114108201095"
    assert_caught(f"SeedQR digits:\n{seedqr}", seedqr)
    assert_kept("tracking 993812850068048220341646202316750629114108201095 arrived")  # a group of four above 2047


def test_a_password_hash_and_a_note_in_a_password_cell_are_kept():
    assert_kept("stored as $2b$12$KIXQJ8p9eV1n3m7qg6F0uO0m7yYh9j4dZ3sQe2wQ1xS8rT5uV6wXa in the users table")
    assert_kept("| Account | Password |\n|---|---|\n| NAS | ask Tigran |")


@pytest.mark.parametrize(("text", "secret"), [
    ('Transcribed from the sticky note: "SAP — bmeier / Zander&Keks!61"', "Zander&Keks!61"),  # made up beyond doubt
    ("first box: hr.tanaka, second box I typed Lupine^Ferris^309 and hit enter", "Lupine^Ferris^309"),
    ("Ihr neues Initialkennwort lautet: Wz7#Hafen-Kiel", "Wz7#Hafen-Kiel"),  # a compound password word
    ("lockbox is on the fence — turn the dials to 3-9-1-6, pull the front down", "3-9-1-6"),
    ("mysql> ALTER USER 'wp_blog'@'localhost' IDENTIFIED BY 'Larkspur#Delta#90';", "Larkspur#Delta#90"),
    ("CREATE USER 'report'@'%' IDENTIFIED BY 'quietmeadow';", "quietmeadow"),  # not made up, but set by SQL
    ("[smtp.gmail.com]:587    backups.nas@gmail.com:wkqz bnhe tlrp sxau", "wkqz bnhe tlrp sxau"),
    ("Cookie: ASP.NET_SessionId=4ptz0a3dr1tu3fcfjdciwkj4; .ASPXAUTH=D006904B4D63AF3524C05962AB04F28D6383", "4ptz0a3dr1tu3fcfjdciwkj4"),
])
def test_values_made_up_beyond_doubt_or_set_by_sql_or_a_lockbox_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "br-rtr-02#show running-config",  # a router's prompt: one case only
    "see issue#1234 and PR#88 for the fix",
    "mysql> CREATE USER 'app' IDENTIFIED WITH caching_sha2_password;",
    "send it to alex@example.com: this time from home",  # four words of prose after an address
])
def test_prompts_issue_numbers_and_prose_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("@dmitri the new one for the jump box is `Mercury-Saddle-0417`, the old one stops at midnight", "Mercury-Saddle-0417"),
    ("api_password | Fennec=Tallow=406", "Fennec=Tallow=406"),  # a password word and a sign no plain value has
    ("ọ̀rọ̀ aṣínà tuntun ni Amala_Ibadan82, má ṣe sọ fún ẹnikẹ́ni", "Amala_Ibadan82"),
    ("Le code est sur le frigo: Érable~Tadoussac~24", "Érable~Tadoussac~24"),
])
def test_a_passphrase_of_capitalised_words_and_digits_is_redacted_anywhere(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "the tuning table has Gemm_Rocblas_1216 and Gemm_Hipblaslt_1219",  # code: words joined by "_", digits apart
    "we met at Windows-11 launch party in New-York",
    "see Seite-12 and Milano-2 in the guide",
    "the Blue-Falcon lineup ships in 2025",
])
def test_code_names_and_places_with_numbers_are_no_passphrase(text):
    assert_kept(text)


def test_a_keyfile_value_with_spaces_is_redacted_to_the_end_of_its_line():
    text = "[wifi-security]\nkey-mgmt=wpa-psk\npsk=Pivo s medom 77\n\n[ipv4]\nmethod=auto"
    out = redacted(text)
    assert "Pivo" not in out and "medom" not in out and "method=auto" in out, out


def test_a_keypair_as_64_bytes_is_redacted_and_a_short_list_of_numbers_is_kept():
    key = "[" + ",".join(str((i * 37) % 256) for i in range(64)) + "]"
    assert_caught(f"$ cat ~/.config/solana/id.json\n{key}\n", key)
    assert_kept("[" + ",".join(str(i) for i in range(40)) + "]")
    assert_kept("[" + ",".join(str(300 + i) for i in range(64)) + "]")  # not bytes


def test_recovery_codes_four_to_a_numbered_line_are_redacted():
    text = "Κωδικοί ανάκτησης λογαριασμού (Νίκος)\n1. 6256 8202   2. 4887 5223   3. 7184 9517\n4. 8606 2072   5. 9476 1911"
    assert_caught(text, "6256 8202", "7184 9517", "9476 1911")


def test_a_card_sent_in_two_messages_is_redacted_with_its_code_on_the_back():
    text = "[14:02] Jo: sending it in two bits\n[14:02] Jo: 4289 8314\n[14:03] Jo: 3628 4238 — 10/29 — 227 on the back"
    assert_caught(text, "4289 8314", "3628 4238", "227")
    # two lines of numbers that make no card are kept: the checksum fails
    assert_kept("[14:02] Jo: 4289 8314\n[14:03] Jo: 3628 4239 — 10/29")


def test_a_card_spoken_in_dutch_with_een_is_redacted():
    text = ("Het kaartnummer is vijf twee twee twee, nul zeven zes acht, zeven zes acht vier, vijf nul één acht, geldig tot "
            "december, en de code achterop is vier nul negen.")
    assert_caught(text, "vijf nul één acht", "vier nul negen")


def test_a_token_keeps_its_checksum_after_the_padding():
    token = "ATATT3xFfGF0Quk3ew-3JDC0SkUaaGv9XVVstRZ4U_ElkoAlsVeTMR76QyPXkI8gPlBvJqYsedJ1ptdthRADjjRg7Ur9V5UFE2lpYt=DC01A969"
    out = redacted(f"curl -u ops@acme.example:{token} https://acme.atlassian.net/rest/api/3/myself")
    assert "DC01A969" not in out and "ATATT3x" not in out, out


@pytest.mark.parametrize(("text", "secret"), [
    ("ເອື້ອຍ, ລະຫັດຜ່ານ Wi-Fi ໃໝ່ຂອງຮ້ານກາເຟແມ່ນ ricepaddyriver ເດີ້ (ໂຕນ້ອຍໝົດ).", "ricepaddyriver"),  # Lao
    ("カード番号：４９１６　２３３１　０８３９　２８４８\nセキュリティコード：５０７", "２３３１"),  # full-width digits
    ("カード番号：４９１６　２３３１　０８３９　２８４８\nセキュリティコード：５０７", "５０７"),
    ("the card number — forty-five thirty-nine, zero zero twenty-eight, eighteen thirty-eight, thirty-six twelve — and the "
     "three on the back are two nine six", "thirty-six twelve"),
    ("the card number — forty-five thirty-nine, zero zero twenty-eight, eighteen thirty-eight, thirty-six twelve — and the "
     "three on the back are two nine six", "two nine six"),
    ("<key>SYNC_USER</key>\n<string>mira.k</string>\n<key>SYNC_PASSWORD</key>\n<string>cobblestone weasel</string>", "cobblestone weasel"),
    ("|===\n|System |Login |Password\n\n|Till |till01 |Gooseneck+Hollow+3\n|Stock |stockroom |ashwell quarry\n|===", "ashwell quarry"),
    ("||Environment||Account||Secret||Notes||\n|staging|svc|Pinecone-Drift-316|rotated|\n|prod|svc|h7Qm!vR2sK9w|do not touch|",
     "h7Qm!vR2sK9w"),
    ("battle.net authenticator: serial EU-2207-4418-9031, restore code 7BUTRYGMJJ", "7BUTRYGMJJ"),
    ("the 64-digit key:\n1491 7732 9625 8620 4709 8158 6287 7049\n3399 8515 6023 9514 2534 9815 6057 3088", "3399 8515"),
    ("BIP39 word numbers:\n1131 1333 1577 1125\n0782 0523 0927 0512\n0611 0270 1749 0719", "0611 0270"),
    (">>> words = ['legal', 'winner', 'thank', 'year', 'wave', 'sausage', 'worth', 'useful', 'legal', 'winner', 'thank', 'yellow']",
     "sausage"),
    ("[18:22] ruth: what do I put in on the TV? it logged us out\n[18:23] ola: the family gmail, then tinfoil-parsnip-77, no caps",
     "tinfoil-parsnip-77"),
    ("Dad read his bank login out letter by letter: capital T, o, u, c, a, n, hash sign, 1, 9, 4, 8. Got in.", "hash sign, 1, 9"),
    ("for the gym app you put in my email and then marigold underscore two two five, no capitals", "marigold underscore two two five"),
])
def test_secrets_in_more_scripts_layouts_and_said_aloud_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "[security]\nadmin_password = $__file{/run/secrets/grafana_admin_password}\nsecret_key = $__env{GF_SECRET_KEY}",
    'set imap_pass = "`pass show mail/lindqvist`"',
    "Webex meeting number 2641 883 0597 — no password on this one, just wait in the lobby",
    "seasons: 2001 2002 2003 2004 2005 2006 2007 2008 2009 2010 2011 2012",  # years, not word numbers
    "the password should be rock and roll themed, length equals twelve",
    "the password policy: at least 12 characters, no caps required",
])
def test_references_meeting_numbers_years_and_talk_about_passwords_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("harriet (all lowercase) for the router password", "harriet"),
    ("yung password ng laptop ko ay kalamansi lang, lowercase lahat", "kalamansi"),
    ("sandi wifi kantor sekarang martabak, huruf kecil semua", "martabak"),
    ("Reset Grandpa's Gmail password yesterday. It's cinnamon toast 1962 btw, with the spaces, all lowercase.", "cinnamon toast 1962"),
    ("when the windows login screen comes up type pineapple and hit enter", "pineapple"),
    ("if the alarm beeps punch in 8064 and hit OFF", "8064"),  # a keypad's code needs no credential's name
    ("4410 opens the bike shed, the padlock on the left", "4410"),
])
def test_plain_words_said_how_they_are_typed_and_codes_typed_on_a_keypad_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "the new password rules are all lowercase now, no symbols needed",
    "type your name and hit enter to join the call",
    "the door opens the way it always did, nothing changed",
    "my password is just too long, all lowercase makes it easy to type",
])
def test_talk_about_how_passwords_are_typed_is_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("+-----------+---------+---------------+\n| System    | Account | Secret        |\n+===========+=========+===============+\n"
     "| CCTV      | admin   | nightjar moss |\n+-----------+---------+---------------+", "nightjar moss"),
    ("╒═════════╤═════════╤═══════════════╕\n│ service │ user    │ credential    │\n╞═════════╪═════════╪═══════════════╡\n"
     "│ mqtt    │ sensors │ plover-duck-4 │\n╘═════════╧═════════╧═══════════════╛", "plover-duck-4"),
    ("Instagram backup codes (crossed out = already used)\n~~4182 9035~~\n3391 0527\n8064 2219", "3391 0527"),
    ("It showed this string:\nXUMH-WDM2-MP7R-DKDO-UYPU\nUP26-5KVP-5YH4-CC43-34RD", "UP26-5KVP-5YH4-CC43-34RD"),
    ("I mashed the 12 words together:\nLegalWinnerThankYearWaveSausageWorthUsefulLegalWinnerThankYellow", "SausageWorth"),
    ("kubeadm join 10.40.0.10:6443 --token 6c8iu0.3aehd5cvccjdac57 --discovery-token-ca-cert-hash sha256:e63d", "3aehd5cvccjdac57"),
    ('api = Api("patbAtH3TlFwyZWuH.077d5f0824f25a668f2a4468428f21af3259b6f3f8899769993ca003c94a9794")', "077d5f0824f25a66"),
    ("ಹೊಸ ಡೆಬಿಟ್ ಕಾರ್ಡ್ ಬಂತು. ಅದರ ಪಿನ್ ೬೪೦೮ — ಯಾರಿಗೂ ಹೇಳಬೇಡಿ.", "೬೪೦೮"),  # Kannada digits
    ("To open it, type Thimbleweed Estuary (capital T and E, one space between).", "Thimbleweed Estuary"),
    ("she read it out as 'bittern, one seven, exclamation mark', i.e. bittern17!, and it let her straight in", "bittern17!"),
    ("she read it out as 'bittern, one seven, exclamation mark', i.e. bittern17!, and it let her straight in", "one seven"),
    ("the security question is his first car, and the answer they have on file is Hillman Imp 1968 — fussy about the year",
     "Hillman Imp"),
])
def test_secrets_in_grid_and_box_tables_struck_codes_group_keys_run_together_seeds_and_answers_are_redacted(text, secret):
    assert_caught(text, secret)


def test_a_seed_punched_as_11_bit_rows_is_redacted_when_its_checksum_holds():
    from hymem_cli.screen.wallet import bip39_words

    words = "legal winner thank year wave sausage worth useful legal winner thank yellow".split()
    index = bip39_words()
    rows = "\n".join(f"{n:02d}  {index[w]:011b}" for n, w in enumerate(words, 1))
    assert_caught(f"Punched the steel plate:\n{rows}\n", rows.split("\n")[5][4:])
    broken = rows.replace(f"{index['yellow']:011b}", f"{index['yellow'] ^ 1:011b}")
    assert_kept(f"Punched the steel plate:\n{broken}\n")  # the checksum fails: twelve rows of bits, no seed


@pytest.mark.parametrize("text", [
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE  # the documented example key",
    "send the refund to bc1qkufkftdz73hd8zpcx2td7tyzhhq2quwtrfagz2, that's my public address",
    "| Item | Qty |\n+------+-----+\n| bolts | 40 |",
])
def test_documented_example_keys_bitcoin_addresses_and_plain_grid_tables_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    # a table whose columns are set apart by spaces, a cell of several words
    ("Shop logins\n\nSite            User         Password\nEtsy            marta.b      plum and copper\nWix             admin        "
     "Rq8#tY2vLm", "plum and copper"),
    ("Shop logins\n\nSite            User         Password\nEtsy            marta.b      plum and copper\nWix             admin        "
     "Rq8#tY2vLm", "Rq8#tY2vLm"),
    ("$ mc alias set backup https://s3.lab.example:9000 labadmin 'Wq4LmZ8rTk2x'\nAdded `backup` successfully.", "Wq4LmZ8rTk2x"),
    ("아빠, 카드 번호는 사 오 삼 이, 공 일 일 칠, 칠 팔 육 오, 일 일 일 삼 이고, 만료일은 내년 오월이야.", "사 오 삼 이"),  # Korean digits
    ("wallet.csv\nn,word\n1,legal\n2,winner\n3,thank\n4,year\n5,wave\n6,sausage\n7,worth\n8,useful\n9,legal\n10,winner\n11,thank"
     "\n12,yellow", "sausage"),
    ("Das WLAN-Passwort hab ich geändert. Das neue: \n\n    kiefer_und_moos\n", "kiefer_und_moos"),
    ("I changed the router password to velvet harbour after the neighbours got in — two words, all lowercase, one space",
     "velvet harbour"),
    ("the office mailbox login is desk@example.org with tern4lantern. Call me if it fails.", "tern4lantern"),
    ("the bike lock is set to 4-0-7, the shed key is under the pot", "4-0-7"),
    ("the gate takes the word MOSS on the keypad, then the bell", "MOSS"),
    ("Laptop: it's Fenwick9, capital F, the 9 for the house number.", "Fenwick9"),
    ("Min şîfreya malê guhert. Ya nû ev e: kevok gulên sor 77 — hemû tîpên biçûk.", "kevok gulên sor 77"),
])
def test_nineteenth_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "नवीन पत्ता: फ्लॅट ४, गणेश नगर, नाशिक — पिन कोड ४२२००५.",  # India's postal code, called a PIN code
    "the dataset is pinned at bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi on any gateway",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db",
    "the lock screen times out after 120 seconds; the padlock is set to 5 minutes of grace",
])
def test_nineteenth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("For the family: the old desktop opens with copper kettle morning 1987 — all lowercase, single spaces.", "copper kettle morning"),
    ("Lockbox by the back gate: 5062 — push the lever up, the key hangs inside.", "5062"),
    ("the bank's phone line asks for digits of my security number — it's 741803, they want two of them", "741803"),
    ("Please book the train on my card: 4532–0117–7865–1113, exp 11/28.", "4532–0117–7865–1113"),
    ("卡号是四五三二，零一一七，七八六五，一一一三，背面三位是八二七。", "四五三二"),
    ("卡号是四五三二，零一一七，七八六五，一一一三，背面三位是八二七。", "八二七"),
    ("Figma backup codes (each works once)\n\n8wqz 4kmd\nt5rn 2pxa\n", "8wqz 4kmd"),
    ("Electrum wants these written down: legal winner thank year wave sausage worth useful legal winner thank yellow", "sausage"),
    ("^ Gerät ^ Benutzer ^ Passwort ^\n| Drucker | admin | Kiesel!Strand44 |\n| Router | root | Moos-Weg-17 |", "Moos-Weg-17"),
])
def test_twentieth_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    'SENTRY_DSN = "https://0f1e2d3c4b5a69788796a5b4c3d2e1f0@o1234.ingest.sentry.io/55"  # public key, safe in the browser',
    "the server must answer /.well-known/acme-challenge/Qx7LmT0aZ9vB3nR5kW2yH8uE1cF4dG6jS_pO-iU with "
    "Qx7LmT0aZ9vB3nR5kW2yH8uE1cF4dG6jS_pO-iU.Zt4kP9",
    "[pgbouncer]\nauth_type = scram-sha-256\nauth_file = /etc/pgbouncer/userlist.txt",
    'password_pbkdf2 root grub.pbkdf2.sha512.10000.AB12CD34EF56AB12CD34EF56AB12CD34.99FF88EE77DD66CC',
])
def test_twentieth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Muraho! Ijambobanga rishya rya mudasobwa ni Inanga7Ruzizi, ntuzaribwire abandi.", "Inanga7Ruzizi"),
    ("Kupuhipa: tuatara-Waka-88 (kaua e tohaina)", "tuatara-Waka-88"),
    ("Lo senhal novèl de la bóstia es: Garriga*Causse41", "Garriga*Causse41"),
])
def test_a_password_word_of_the_lexicon_names_its_value(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize(("text", "secret"), [
    # a lexicon's word for "secret" beside the number: Somali, Hausa, Yoruba
    ("Lambarka sirta ah ee bangiga taleefanka waa 60417, berri uun isticmaal.", "60417"),
    ("Lambar sirri ta katin shine 3952, sai ka yi amfani da ita gobe.", "3952"),
    ("Nọ́mbà àṣírí ilé ìfowópamọ́ mi ni 80213.", "80213"),
    # a plea not to tell anyone, elsewhere on the same short line: Bislama, Basque, Albanian
    ("Namba blong doa hemi 5-2-9-0. Plis yu no talem long eni man.", "5-2-9-0"),
    ("Atariko zenbakia 7316 da. Ez esan inori, mesedez.", "7316"),
    ("Numri i kasafortës është 4481. Mos i thuaj askujt.", "4481"),
])
def test_a_number_said_to_be_secret_or_kept_from_others_in_another_language_is_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Siri ya mafanikio ni kazi; tulipata wateja 2500 mwaka huu.",  # "the secret of success": no number of its own
    "Ez esan inori, baina festa 2031ko ekainaren 14an da.",  # a plea and a year
    "Mos i thuaj askujt për festën, do të jemi në dhomën 214.",  # a plea and a room (three digits)
])
def test_a_plea_for_secrecy_or_a_word_for_secret_beside_no_code_keeps_the_numbers(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Nuki shared access for the cleaner:\nFront door, Mon-Fri 09:00-13:00\nPIN: 730418265\nDon't pass it on.", "730418265"),
    ("Vault export, sorted:\nSite,Login,Backup code\nGitLab,ops@example.org,4417 9023\nGitLab,ops@example.org,6630 1185",
     "6630 1185"),
    ("In my notes: 'Battle.net authenticator, revocation code K58213'. Do I need it to switch phones?", "K58213"),
    ("Hier d'Streichliste vo de Bank, falls öppis isch:\nNr. 12: 33 81 07\nNr. 13: 59 20 44", "59 20 44"),
    ("Word's XML for the wiki page:\n<w:r><w:t xml:space=\"preserve\">router login admin / </w:t></w:r>"
     "<w:r><w:t>Larkspur-Quay-27</w:t></w:r>", "Larkspur-Quay-27"),
    ("Den ersten Teil vom WLAN-Passwort hast du schon.\nZweiter Teil kommt per SMS:\n_Heidelberg71", "_Heidelberg71"),
])
def test_codes_in_more_places_and_a_passwords_last_piece_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Seeing lots of these:\nJan 03 02:11:09 box sshd[48213]: Failed password for root from 203.0.113.9 port 50122 ssh2",
    "The customs form asks for it: Commodity code: 8471 30 00 00. Is that right for a laptop?",
    '<w:t xml:space="preserve">The router sits under the stairs; its login is on the sticker.</w:t>',
])
def test_a_process_id_a_commodity_code_and_an_xml_attribute_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("[Signal 18:01] Kezia: can you renew my rail card, use my card. Part one: 4556 7375\n[Signal 18:01] Kezia: rest in a sec\n"
     "[Signal 18:02] Kezia: 8689 9855, exp 09/29, the numbers on the back are 3 4 7", "8689 9855"),
    ("[Signal 18:01] Kezia: can you renew my rail card, use my card. Part one: 4556 7375\n[Signal 18:01] Kezia: rest in a sec\n"
     "[Signal 18:02] Kezia: 8689 9855, exp 09/29, the numbers on the back are 3 4 7", "3 4 7"),
    ("Nuki app, shared access\nPasscodes\n  Permanent · Family .......... 602913\n  Weekly · Cleaner ....... 44170256  Tue only",
     "44170256"),
    ("My Matrix security key, in case I lose my phone:\nQwEr 7tYu 2iOp As9D fG3h Jk4L zX5c Vb6N mQ8w", "QwEr 7tYu 2iOp As9D"),
    ("Hier sind die zwölf Wörter von meinem Wallet, bitte aufschreiben, nicht fotografieren. Gelesen wird Spalte für Spalte, "
     "erst A, dann B, dann C:\n     A         B         C\n1  pencil    spawn     humble\n2  orchard   glide     ticket\n"
     "3  rescue    nephew    aerobic\n4  mosquito  clarify   wrestle", "orchard"),
    ("Wenn die Bank nach der Grid-Karte fragt, hier ist sie:\n   A   B   C   D\n1  14  83  27  60\n2  95  31  48  72\n"
     "3  06  59  13  84", "95  31  48  72"),
    ("The new wifi password, first half now, the rest by text: Mango.Lagoon\n[SMS] _Suva#42", "Mango.Lagoon"),
    ("The new wifi password, first half now, the rest by text: Mango.Lagoon\n[SMS] _Suva#42", "_Suva#42"),
    ("Jan khitirus yatiyamti: machaqa imantat arumamax akawa: Q'illu.Sorata_48", "Q'illu.Sorata_48"),
])
def test_cards_in_pieces_codes_by_leaders_keys_in_groups_grids_and_pieces_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "db:\n    password: ENC[AES256_GCM,data:Zq8mT3vLk9Wx,iv:Pp4sXw2Rt7Mn9Kd1,tag:Yh5aLq3Zm8Wn2Vb6Tc1==,type:str]",
    "example.org/x/text v0.21.0 h1:4qWs3P9mZxLcVbN2kT8rYw6hJ5dG1fA0sE7uI3oQpR4=",
    ': "${ROUTER_PASS:?set ROUTER_PASS first}"',
    "Failed logon for the password account. Status: 0xC000006D",
    "The database password is nowhere in the repository; it comes from a file.",
    "The password comes from the environment, never from the repo:\n#!/bin/sh\necho $WIFI_PASS",
    "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher'] - does the password migrate on login?",
    "The poster's QR: WIFI:T:WPA2-EAP;S:CampusNet;E:TTLS;PH2:MSCHAPV2;;  no password in it, so how do we log in?",
])
def test_ciphertext_checksums_expansions_status_codes_and_scripts_are_kept(text):
    assert_kept(text)


def test_a_cards_digits_begun_inside_a_recovery_key_leave_the_date_after_it():
    key = "000000-000000-000000-000000-000000-000000-451131-000179"  # "451131-000179 2024" passes a card's checksum
    assert redacted(f"Alex {key} 2024-05-01") == "Alex [REDACTED:recovery-key] 2024-05-01"


def test_a_default_inside_a_shell_expansion_is_still_a_secret():
    assert_caught('export DB_PASS="${DB_PASS:-Teal&Brick29}"', "Teal&Brick29")


def test_a_password_word_of_the_lexicon_before_the_name_of_a_button_names_no_value():
    assert_kept("Нууц үгээ мартсан бол «Нууц үг сэргээх» товчийг дарна уу; холбоос 15 минутын дараа хүчингүй болно.")


@pytest.mark.parametrize(("text", "secret"), [
    ("the cabin wifi, if anyone asks later: q9XrT2vLk7Wp", "q9XrT2vLk7Wp"),
    ("for the NAS use admin and Vb7kQ2xLm9Tz", "Vb7kQ2xLm9Tz"),
    ("router admin pw is on the sticker, which says Tq4mZ8wP", "Tq4mZ8wP"),
    ("the alarm: 2-6-0-9 then OFF", "2-6-0-9"),
    ("credentials for staging: deploy:Rk8vQ2zX9", "Rk8vQ2zX9"),
])
def test_made_up_strings_and_keyed_digits_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "my new iPhone15Pro arrived, the GTX1080Ti goes on eBay",
    "order ref AB12cd34EF56 shipped this morning",
    "the alarm goes off at 0630, then I snooze twice",
])
def test_names_with_numbers_addresses_and_references_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("the reception line is sip:3107:Larch-Quay-204@pbx.clinic.example;transport=tls", "Larch-Quay-204"),
    ("ya Samir, el password beta3 el router heya falafel_bahr_41 — matdihash le 7ad", "falafel_bahr_41"),
    ("Welcome! Router's in the hall — network Hub-7F, key: juniper fog at dawn. Bins on Mondays.", "juniper fog at dawn"),
    ("la contraseña del correo te la deletreo: efe mayúscula, o, erre, o, guion, dos, ocho, arroba",
     "efe mayúscula, o, erre, o, guion, dos, ocho, arroba"),
    ("このカードでお願い：4532・0117・7865・1113、裏の3桁は 604。", "604"),
    ("$ cat -n codes.txt\n     1\tGitLab recovery codes\n     2\t\n     3\t7hq2m9xk\n     4\tp3zr8w2n", "p3zr8w2n"),
    ("رموز الاحتياط لحسابي:\n5120 7734\n8841 0296", "8841 0296"),
    ("Wallet notes\n\n| # | word |\n|---|---|\n" + "".join(f"| {n} | {w} |\n" for n, w in enumerate(
        "legal winner thank year wave sausage worth useful legal winner thank yellow".split(), 1)), "sausage"),
])
def test_twenty_first_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "login=__DDNS_LOGIN__\npassword=__DDNS_PASSWORD__   # filled in from the vault",
    "the camera's stream is rtsp://192.168.1.64:554/Streaming/Channels/101, the password is on the sticker",
])
def test_twenty_first_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("[transcript] the card number is for oh three five, one to two for, oh oh three oh, five ate nine five, expiry oh nine",
     "for oh three five"),
    ('<Server>\n  <User>proofs</User>\n  <Pass encoding="base64">SG9ybmJlYW0uU2x1aWNlLjY0</Pass>\n</Server>', "SG9ybmJlYW0uU2x1aWNlLjY0"),
    ('{"shared_secret":"mNHshz+oFbaQo1D8vJVQ2JXO26w=","revocation_code":"R48217"}', "R48217"),
])
def test_twenty_second_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "the mariadb URL names the user only; the password read from my.cnf at start",
    "watch-only wallet: xpub6CUGRUonZSQ4TWtTMmzXdrXDtypWKiKrhko4egpiMZbpiaQL2jkwSB1icqYh2cfDfVxdx4df189oLKnC5fSwqPfgyP3hooxujYzAu3fDVmz",
])
def test_twenty_second_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("o kwdikos tou router sto spiti einai pastitsio_volos_77, mhn ton peis", "pastitsio_volos_77"),
    ("INSERT INTO cards (id, holder, cvv, pin) VALUES (7, 'J. Roe', '318', '9054');", "318"),
    ("INSERT INTO cards (id, holder, cvv, pin) VALUES (7, 'J. Roe', '318', '9054');", "9054"),
    ("[photo, OCR] MASTERCARD 5l05 1O51 O510 51OO exp 11/28", "5l05 1O51 O510 51OO"),
    ("de herstelsleutel van mijn account is bramen-Texel-58, goed bewaren", "bramen-Texel-58"),
    ("WEBVTT\n\n00:01:02.000 --> 00:01:05.000\n<v Ana>right, it's capital Mike, lowercase oscar,\n\n"
     "00:01:05.000 --> 00:01:09.000\n<v Ana>lowercase tango, nine, nine, hash sign, capital Zulu.", "capital Mike, lowercase oscar"),
    ('grpcurl -H "x-lnd-macaroon: ' + "0a1b2c3d4e5f" * 30 + '" node.local:10009 lnrpc.Lightning/GetInfo', "0a1b2c3d4e5f" * 30),
])
def test_twenty_third_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Guest Wi-Fi at the café: no password, just open the browser and accept the terms.",
    "Δωρεάν Wi-Fi: χωρίς κωδικό — απλώς πατήστε «Σύνδεση».",
    '<add key="ClearTextPassword" value="%FEED_TOKEN%" />',
    "val key = BuildConfig.MAPS_API_KEY // set in local.properties, never committed",
    "map.accessToken = 'pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbDBhYmNkZWYifQ.AbCdEfGhIjKlMnOpQr'; // public token",
    "INSERT INTO orders (id, item, qty) VALUES (12, 'lamp', 2);",
])
def test_twenty_third_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Kaardi koodid:\nPIN1 (isikutuvastamine) ...... 5093\nPUK ................ 31877420", "31877420"),
    ('<connection name="NAS">\n  <param name="password">qv83nas</param>\n</connection>', "qv83nas"),
    ("dn: uid=printer,ou=devices\nuserPassword:: U2hlbGYtTGFtcC05MQ==", "U2hlbGYtTGFtcC05MQ=="),
    (" title = Alarm app\nsecret = copper lantern nine", "copper lantern nine"),
    ("holder=Ada+Li&cc_part1=4532&cc_part2=0151&cc_part3=1283&cc_part4=0366&cvv=[REDACTED:card-cvv]", "0366"),
    ("Kuya, yung MPIN ng Maya ko 481736, pakibayaran mo yung tubig bago mag-Lunes.", "481736"),
    ("Serve la password del router. Allora: R maiuscola come Roma, A come Ancona, N come Napoli, A come Ancona, "
     "poi due e nove.", "R maiuscola come Roma, A come Ancona, N come Napoli, A come Ancona, poi due e nove"),
])
def test_twenty_fourth_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Spell your surname for me? Sure: R come Roma, O come Otranto, S come Savona, S come Savona, I come Imola.",
    "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi is the public archive",
    "posthog.init('phc_9kQ2mZx7LpR4tW8vN3bY6cF1hJ5dS0aG2eU7iO4', {api_host: 'https://eu.posthog.com'})",
    "encrypt to my age key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    "wifi:\n  ssid: !secret wifi_ssid\n  password: !secret wifi_password",
    "# no rpcuser/rpcpassword: the daemon writes a cookie file on every start",
    "The list begins: abandon, ability, able, about, above, absent, absorb, abstract, absurd, abuse, access, accident.",
])
def test_twenty_fourth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ('write(3, "USER scanner\\r\\n", 14) = 14\nwrite(3, "PASS Teal^Mica44\\r\\n", 17) = 17', "Teal^Mica44"),
    ("Profile information\n    Key Content            : lantern-quay-907\n    Cost                   : Unrestricted", "lantern-quay-907"),
    ("conn = imaplib.IMAP4_SSL('imap.example.org')\nconn.login('sam@example.org', 'p7rkq2xw9zmt')", "p7rkq2xw9zmt"),
    ("• wifi: Harbour_Guest / crab-pots-at-dawn\n• bins: blue on Tuesday", "crab-pots-at-dawn"),
])
def test_twenty_fifth_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "conn.login(user, os.environ['IMAP_PASSWORD'])",
    "wifi: Harbour_Guest / no password, just accept the terms",
])
def test_twenty_fifth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("[WhatsApp 19:02] Grandpa: the 12 words of my wallet, keep them safe\n"
     "[WhatsApp 19:02] Grandpa: legal winner thank year wave sausage\n[WhatsApp 19:03] Grandpa: worth useful legal winner thank yellow",
     "worth useful legal winner thank yellow"),
    ("te paso la tarjeta de coordenadas, borrá el mensaje después:\n   1  2  3  4\nA 12 88 40 19\nB 77 03 65 21\nC 54 90 18 36",
     "77 03 65 21"),
    ("Sue knows our pick-up password — orange walrus — so she'll say it at the gate.", "walrus"),
])
def test_twenty_fifth_round_spread_and_enclosed_secrets_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "[WhatsApp 19:02] Grandpa: are you coming on Sunday\n[WhatsApp 19:03] Ana: yes, with the kids",
    "the wifi password — ask Tom — is on the fridge",
    "Seating plan:\n   1  2  3\nA 12 14 16\nB 13 15 17\nC 18 20 22",
])
def test_twenty_fifth_round_spread_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("the side gate keypad wants hash then four four zero seven before it clicks", "four four zero seven"),
    ("flight card is 4111 1111 1111 1111, valid to oh nine twenty eight, the back is three eight two", "three eight two"),
    ("- boiler cupboard: no lock\n- alarm panel: 7-1-3-9, then 'unset'", "7-1-3-9"),
    ("[08:14] Ola: the router pw is in two bits sorry\n[08:14] Ola: Lantern\n[08:14] Ola: _Fjord_1987\n[08:15] Ola: all one word",
     "_Fjord_1987"),
])
def test_twenty_sixth_round_codes_said_as_words_and_passwords_sent_in_pieces_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "please add this to authorized_keys:\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJq0u5m2N8xQe7Lr4TgWc9ZpYh3KdVs1oBnXa6FyEe2M kit@desk",
    "# template\nAPI_KEY=pk_live_...\nDB_PASSWORD=<your-password>",
    "password = getpass.getpass('Password: ')\nclient.connect(host='mail.example.org', user='kit', password=password)",
    "Your password was changed on 14 March 2026 from Firefox on Linux.",
    "[09:01] Ola: what's the plan\n[09:01] Ola: Friday\n[09:02] Ola: 7pm at the pub",
    "the shop opens at nine and the bus takes one two three stops",
])
def test_twenty_sixth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("> logins\n# A tibble: 3 × 3\n  site      user        password\n  <chr>     <chr>       <chr>\n"
     "1 Ocado     k.mills     Tarn&Fell&Beck\n"
     "2 Old bank 55120934    driftwood\n3 Netflix   kit@home    plum-kestrel-4", "driftwood"),
    ("   site       user            password\n0  Ocado      k.mills   Tarn&Fell&Beck\n1  Old bank   55120934  driftwood", "driftwood"),
    ("Pour entrer : digicode de la résidence 38C41, puis la porte vitrée.", "38C41"),
])
def test_twenty_sixth_round_printed_tables_and_entry_codes_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "> stores\n# A tibble: 2 × 3\n  store     city      pin_code\n  <chr>     <chr>     <chr>\n"
    "1 Koramangala Bengaluru 560034\n2 Fort Kochi Kochi 682001",
    "  name      team      role\n1 Kit Mills  Harriers  treasurer\n2 Dee Okoro  Harriers  captain",
])
def test_twenty_sixth_round_printed_table_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Bine ați venit! Cutia cu chei de lângă ușă are codul 5072. Vă rugăm să amestecați cifrele.", "5072"),
    ("Ledger backup (in sixes):\n 1– 6  abandon ability able about above absent\n 7–12  absorb abstract absurd abuse access accident\n"
     "13–18  account accuse achieve acid acoustic acquire\n19–24  across act action actor actress actual", "absorb abstract absurd"),
    ("the login is my email and the password is just lemon drizzle, no capitals, with the space", "lemon drizzle"),
    ("use my card 4111.1111.1111.1111, exp 03/28, the 3 on the back are 738.", "738"),
    ("Amex is 3782 822463 10005, the four little digits on the front are 4411. thanks", "4411"),
])
def test_twenty_seventh_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Please quote the creditor reference RF18 5390 0754 7034 with your payment.",
    "The DSN format is `postgresql://USER:PASSWORD@HOST:5432/DBNAME`; fill in your own.",
    "Send refunds to my public address 0x52908400098527886E0F7030069857D2E4169EE7, the receive one.",
    "production:\n  adapter: postgresql\n  password: <%= ENV['DB_PASSWORD'] %>",
    "the password is just fine, I changed it last week",
])
def test_twenty_seventh_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("wifi is upstairs, password is our road and the flat number, so Heathfield9 with a capital H", "Heathfield9"),
    ("La contraseña del banco es el nombre del gato y su año, o sea Michi2019, con M mayúscula.", "Michi2019"),
    ("Wi-Fi : Chez Nous — clé : croissant du dimanche (tout en minuscules, avec les espaces).", "croissant du dimanche"),
    (">>> bikes[['rider', 'combo']]\n      rider     combo\n0   A. Khan  12-40-31\n1   B. Lund  07-19-44", "07-19-44"),
    ("card for the ink:\n5425-2334-\n3010-9903\nexp 04/28", "3010-9903"),
    ("OCR of the card:\nVISA 4111 1111 1111 1111 VALID THRU 02/30\n---\nAUTHORISED SIGNATURE   284", "284"),
    ("Bitwarden — two-step login recovery code\nQX7NW2PLMB4KZ9RTVY6HC3DJ8FGA5SUE", "QX7NW2PLMB4KZ9RTVY6HC3DJ8FGA5SUE"),
])
def test_twenty_eighth_round_forms_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "export DATABASE_URL=postgres://$DB_USER:$DB_PASS@localhost:5432/shop",
    "# .env.example\nSTRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx\nDATABASE_URL=postgres://user:password@localhost:5432/app",
    "so the plan is simple, so Room101 it is for the meeting",
])
def test_twenty_eighth_round_look_alikes_are_kept(text):
    assert_kept(text)


def test_a_card_keeps_the_short_number_after_it_and_codes_begun_on_their_heading_line_end_at_a_note():
    assert redacted("card 4000 0000 0000 0002 91 days to go").endswith(" 91 days to go")
    assert redacted("backup codes: 7h2k\n Alex\n2024-05-01").endswith("\n Alex\n2024-05-01")
    assert_caught("postgres://app:$A00@db.example.com/app", "$A00")  # a password that starts with "$", not a variable


@pytest.mark.parametrize(("text", "secret"), [
    ("Код из СМС только что пришёл: 482 916 — введи побыстрее.", "482 916"),
    ("the code from the text is 418-227, type it before it expires", "418-227"),
    ("mã OTP là 550193 nhé", "550193"),
    ("और अलमारी वाले ताले का कोड 60-14-33 है।", "60-14-33"),
    ("echo 'Orchid lantern 7 tides' | gpg --batch --yes --passphrase-fd 0 -d backup.tar.gz.gpg", "Orchid lantern 7 tides"),
    ("echo Tern4Bay | sudo -S apt-get update", "Tern4Bay"),
])
def test_twenty_ninth_round_codes_from_a_message_and_passwords_piped_in_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    'echo "$GPG_PASSPHRASE" | gpg --batch --passphrase-fd 0 -d backup.tar.gz.gpg',
    "echo hello | sudo tee /etc/motd",
    "the verification code was sent by SMS at 10:42",
    "Tracking code from the text: 730211458",
    "the code in the message was from 2024, ignore it",
])
def test_twenty_ninth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("the password is, um, hockey sticks forever, all one word, lower case", "hockey sticks forever"),
    ("the password, I'll spell it: lowercase b, r, a, m, b, l, e, then the number sign, then capital F, o, x, then one nine eight four.",
     "b, r, a, m, b, l, e"),
    ("Dad's password is snapdragon with a capital S, then the at sign, then two six nine, then the word walrus all lowercase.", "walrus"),
    ("la contraseña del correo es todo junto: mariposa, con la eme mayúscula, luego una arroba, luego dos mil dieciocho.",
     "dos mil dieciocho"),
    ("la contraseña del correo es todo junto: mariposa, con la eme mayúscula", "mariposa"),
    ("Ο κωδικός του συναγερμού στο μαγαζί είναι δύο, επτά, επτά, ένα.", "δύο, επτά, επτά, ένα"),
    ("Оксано, пароль від Дії такий: Vyshnia, з великої В, потім одразу два нуль два два, і в кінці знак оклику.", "два нуль два два"),
    ("locker 118 in the women's changing room, combination 27-04-11. thanks", "27-04-11"),
    ("ส่วนรหัสเข้าห้องเซิร์ฟเวอร์ชั้น 3 คือ 4 4 1 7 แล้วกดปุ่มสี่เหลี่ยม", "4 4 1 7"),
    ('"cookies": [\n  { "name": "JSESSIONID", "value": "A6CA1762FD78BADB18F488EAE9D45682", "httpOnly": true }\n]',
     "A6CA1762FD78BADB18F488EAE9D45682"),
])
def test_thirtieth_round_values_read_out_piece_by_piece_and_codes_without_a_connector_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Forgot my password again, the one for the gym, so I'll be there at five thirty instead.",
    "I changed the password twenty two days ago.",
    "the password needs twelve characters, one or two digits",
    "The password must have at least one capital, then a number, then the word of your choice.",
    "The hashtag is summer vibes, all one word",
    "the combination 1989 vintage was the best of the tasting",
    '{"name": "session_timeout", "value": "3600seconds"}',
    "उत्पाद कोड 4521 वाला मिक्सर-ग्राइंडर अभी स्टॉक में नहीं है।",
    "Our verification key, the public half:\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAyJrZnmTMrwXVqz4YcVjN\n"
    "+QIDAQAB\n-----END PUBLIC KEY-----",
])
def test_thirtieth_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Der Laptop nimmt die LUKS-Passphrase nicht mehr an. Ich bin mir sicher, sie lautet „Kranich Dachboden Kiesel 4“ — was nun?",
     "Kranich Dachboden Kiesel 4"),
    ("Forgot my router password again. I'm fairly sure it was 'Tulip-Gravel-88' last time.", "Tulip-Gravel-88"),
])
def test_a_password_named_by_a_pronoun_is_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "I changed my password last week. It is \"too short\", the site says.",
    "[12/11/25, 9:14:02 PM] Rohit Bhaiya: ऑफिस वाले वाई-फाई का पासवर्ड",
    "12/11/25, 9:14 - Rohit: वाई-फाई का पासवर्ड",
])
def test_a_pronoun_after_a_password_word_without_a_value_and_a_speakers_name_are_kept(text):
    assert_kept(text)


def test_a_seed_written_in_numbered_columns_is_redacted_with_its_first_number():
    text = ("Ledger backup, typed up before I laminate it. Is one word wrong?\n"
            " 1. fossil      7. gauge     13. ladder     19. pencil\n 2. lunar       8. harvest   14. maple      20. rocket\n"
            " 3. mimic       9. oyster    15. napkin     21. saddle\n 4. pledge     10. quote     16. orbit      22. tunnel\n"
            " 5. rural      11. salad     17. parrot     23. uncle\n 6. tissue     12. vivid     18. puzzle     24. wagon\n"
            "(read down the columns)")
    out = redacted(text)
    assert "wrong?\n [REDACTED:seed-phrase]\n(read down" in out, out


@pytest.mark.parametrize(("text", "secret"), [
    ("config/config.php:\n  'dbpassword' => 'Qm7!vLr2Tz9k',\n  'passwordsalt' => 'hT4+kQz9WmXcVbNaLsPe',", "Qm7!vLr2Tz9k"),
    ("config/config.php:\n  'dbpassword' => 'Qm7!vLr2Tz9k',\n  'passwordsalt' => 'hT4+kQz9WmXcVbNaLsPe',", "hT4+kQz9WmXcVbNaLsPe"),
    ("$settings['db_password'] = 'Qm7!vLr2Tz9k';", "Qm7!vLr2Tz9k"),
    ("Recovery key from my Microsoft account:\n118294-552013-600271-394815-220176-508849-713302-046697\nDashes needed?",
     "118294-552013-600271-394815-220176-508849-713302-046697"),
    ("kartu kredit: 4556 7375 8689 9855, berlaku 09/28, CVV 7 1 4, atas nama saya", "7 1 4"),
    ("and the password, phonetically: Foxtrot, Lima, Echo, Tango, Charlie, Hotel, then four two.",
     "Foxtrot, Lima, Echo, Tango, Charlie, Hotel"),
    ("Ingrid: wifi-passordet er\nIngrid: Havørn\nIngrid: og så Lofoten\nIngrid: og tallene 3318 til slutt\nDu: takk", "Havørn"),
    ("Ingrid: wifi-passordet er\nIngrid: Havørn\nIngrid: og så Lofoten\nIngrid: og tallene 3318 til slutt\nDu: takk", "Lofoten"),
    ("Ingrid: wifi-passordet er\nIngrid: Havørn\nIngrid: og så Lofoten\nIngrid: og tallene 3318 til slutt\nDu: takk", "3318"),
    ("Engraved the wallet seed on steel, first four letters only:\nABLE BRIC CRAW DOLP\nELEG FAMI GIRA HUMB\nIDEN JUNG KANG LAUN\nRight?",
     "ABLE BRIC CRAW DOLP"),
    ("Mökin hälytysjärjestelmän koodi on kolme seitsemän nolla kaksi.", "kolme seitsemän nolla kaksi"),
    ("mật khẩu Zalo của bố là cá voi xanh, viết liền không dấu, rồi đến số hai không tám một.", "cá voi xanh"),
    ("mật khẩu Zalo của bố là cá voi xanh, viết liền không dấu, rồi đến số hai không tám một.", "hai không tám một"),
    ("사무실 금고 비밀번호는 삼 구 공 칠 일 이야.", "삼 구 공 칠 일"),
    ("母のスマホのパスコードは「きゅう・さん・なな・ゼロ・に・ろく」です。", "きゅう・さん・なな・ゼロ・に・ろく"),
    ("현관 도어락은 별표 누르고 7 1 8 5 0 2 야.", "7 1 8 5 0 2"),
    ("Codul de la interfonul scării e 6 1 9 3, apoi cheia.", "6 1 9 3"),
])
def test_thirty_first_round_settings_recovery_keys_pieces_and_codes_said_in_more_languages_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "【ご利用のお知らせ】カード番号 **** **** **** 4417、ご利用日 3月2日、ご利用金額 2,150円。",
    "[Interface]\nPrivateKey = <contents of your privatekey file>\n\n[Peer]\nPublicKey = 9sLxM2pQvT4rWbE7nYcK1uHjZa3dFgSe6oIiRtUyOw0=",
    "BIP-39 test vector from the spec: \"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\"",
    "Codul poștal al blocului este 400124.",
    "Sam: I forgot my password\nSam: again\nSam: it is in the drawer somewhere\nAlex: lol",
    "mật khẩu không đúng, hai lần rồi",
    "도어락 배터리 4개 샀어",
    "We stayed at the Hotel India near the Victor Hugo metro, then golf with Mike and Oscar.",
])
def test_thirty_first_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Пароль от почты поменял, новый: Kvas.Ryazan42\nЕсли включена русская раскладка, напечатается ЛмфыюКнфяфт42 — переключи язык.",
     "ЛмфыюКнфяфт42"),
    ("Conseiller : pouvez-vous m'épeler le mot de passe ?\nCliente : Alors… B comme Bernard, O comme Olivier, U comme Ursule, "
     "L comme Louis, E comme Émile, trois, sept, point d'exclamation.", "point d'exclamation"),
    ("If the TV app wants you to sign in again, it's the family email and our old street, written exactly like this: Linden Close 7a",
     "Linden Close 7a"),
    ("$ column -t -s: logins.txt\nkiosk-1     Parsnip.Harbor.11\nkiosk-2     Parsnip.Harbor.12\nmanager     velvet otter rain",
     "velvet otter rain"),
])
def test_a_password_in_the_other_layout_spelled_with_its_sign_written_exactly_or_in_a_column_of_passwords_is_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Put the address on the parcel, written exactly like this: 14 Harcourt Terrace, Leeds",
    "name   score  note\nann    12     ok\nbob    14     good\ncid    9      fine",
    "Раскладка переключается Alt+Shift, пароль вводи латиницей.",
])
def test_an_address_written_exactly_a_table_of_scores_and_talk_of_layouts_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Name\tCard number\tExp\tCVV\nMira Tan\t4556 0183 5438 6742\t04/27\t563", "563"),
    ("И код за аларм у радњи је седам, нула, четири, један.", "седам, нула, четири, један"),
    ("Sveika! kartes PIN ir pieci, divi, nulle, septiņi.", "pieci, divi, nulle, septiņi"),
    ("i el codi de la porta és vuit, u, quatre, nou.", "vuit, u, quatre, nou"),
    ("Mama, kortelės PIN kodas – devyni, du, trys, nulis.", "devyni, du, trys, nulis"),
    ("بھائی، لاکر کا کوڈ ہے 7 3 0 5۔ کسی کو مت بتانا", "7 3 0 5"),
    ("Lyklaboxið er vinstra megin og kóðinn er 3-9-1-6.", "3-9-1-6"),
    ("Mum: ok the password for the council website\nMum: first bit is Gooseberry\nMum: then 7710\nMum: then Heron with a capital H\nMe: ok",
     "Gooseberry"),
    ("Mum: ok the password for the council website\nMum: first bit is Gooseberry\nMum: then 7710\nMum: then Heron with a capital H\nMe: ok",
     "Heron"),
    ("Scan of the Amex front:\nAMERICAN EXPRESS\n  7302\n3712 449018 50011\nVALID THRU 03/28", "7302"),
    ("[Voice note] so, um, the password for the, uh, gym app is, um, it's pelican, um, sixty-one, uh, dash, lantern. All lowercase. "
     "Yeah. Pelican sixty-one dash lantern. Bye.", "Pelican sixty-one dash lantern"),
])
def test_thirty_second_round_columns_codes_said_in_more_languages_pieces_and_voice_notes_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "is the 4-digit number above the long one the code they want?",
    'cloudflare_api_token = "<your-token>"',
    "Service\tLogin\tPassword\nNetflix\tana@example.com\t(in vault)\nSchool app\tana.t\t[hidden]\nBank\tana77\t••••••",
    "the bus leaves at five, dash over to the station",
    "We drove down Route sixty-six and stopped at a diner, um, near the border.",
    "Le code du portail a changé, il faut demander du pain.",
    "I changed the door code, then set one reminder for Friday.",
])
def test_thirty_second_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("ok so netflix keeps logging me out, the current one is sunflowerpie2021!! is that a strong enough password lol",
     "sunflowerpie2021!!"),
    ("Оленко, від Приват24 у тата пароль — Barvinok4410!. Тільки нікому", "Barvinok4410!"),
    ("كلمة سر الواي فاي هي Layla@5521 وكلمة سر حساب شاهد هي sahar_alnil88 ، لا تعطيها لأحد", "sahar_alnil88"),
    ("Found:\n\nBACKUP VERIFICATION CODES\nmina.okoro91@gmail.com\n\n1. 7730 1182    6. 2093 4471\n2. 5518 0266    7. 8840 1937",
     "7730 1182"),
    ("Guardei a chave de recuperação da conta Apple: KQ7D-29HT-0XLP-N3ZB-WOR4-EPQM-TLKF. Não mostra.",
     "KQ7D-29HT-0XLP-N3ZB-WOR4-EPQM-TLKF"),
])
def test_thirty_third_round_common_pastes_are_redacted(text, secret):
    assert_caught(text, secret)


def test_a_password_sent_in_pieces_is_redacted_where_it_is_given_again_whole_when_remembered_values_are_asked_for():
    text = "[Zalo]\nMẹ: mật khẩu wifi nhà mới\nMẹ: chữ đầu là Hoamai\nMẹ: rồi số 1971\nCon: Hoamai!1971 hả mẹ?"
    out = Screen().redact(text, seen=True)[0]
    assert "Hoamai" not in out and "1971" not in out, out


@pytest.mark.parametrize("text", [
    "STRIPE_SECRET_KEY=sk_test_your_key_here\nSECRET_KEY=change-me",
    "Here's the doc: https://docs.google.com/document/d/1xQ7vT3pLm9KcR2wZ8bN4yH6jF0sD5aE/edit?usp=sharing",
    "Konto\tBenutzername\tPasswort\nAmazon\tk.brandt@t-online.de\t[muss zurückgesetzt werden]\nStadtwerke\tk.brandt\t(im Passwortmanager)",
    "mapboxgl.accessToken = 'pk.eyJ1Ijoia2VscHdvcmtzIiwiYSI6ImNseGhkdjByNzc5dHRuOTZvbWUzZ2piM2gifQ.EycLRfNFljoq0S9Oxn-RyX'; // public",
    "we won 3 games today!! is that a record for the password club?",
])
def test_thirty_third_round_look_alikes_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("Þjófavarnarkerfið: sláðu inn 2 0 5 9 og ýttu á OFF innan 30 sekúndna.", "2 0 5 9"),
    ("Pour l'alarme, tapez 5 5 2 1 puis appuyez sur OFF.", "5 5 2 1"),
    ("Alarm panel: type 2059 then press OFF.", "2059"),
])
def test_digits_keyed_in_then_a_key_pressed_in_any_language_are_redacted(text, secret):
    assert_caught(text, secret)


@pytest.mark.parametrize("text", [
    "Dial 0 2 0 7 for London, then the number.",
    "Room 2041 and the lift is OFF today.",
    "Press 1 then 2 to hear the options again.",
])
def test_a_number_dialled_or_a_room_beside_a_switch_is_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ("/etc/dovecot/users:\nmira@larchfield.example:{PLAIN}Otter!Quay!7::::::\nteo@larchfield.example:{PLAIN}fern kettle five::::::",
     ("Otter!Quay!7", "fern kettle five")),
    ("set service snmp community larchwood-mon authorization ro\ncommit", ("larchwood-mon",)),
    ("snmpwalk -v2c -c quillfeather7 192.168.8.1 system", ("quillfeather7",)),
    ('gh secret set DEPLOY_TOKEN --body "5c0e2b91-7d4f-4a8e-b3c6-0f19ad27e8b4"', ("5c0e2b91-7d4f-4a8e-b3c6-0f19ad27e8b4",)),
    ("For Gran's account while I'm away: passnumber 40263, and her memorable word is 'Saltash ferry'.", ("40263", "Saltash ferry")),
    ("The security answers Dad set up: mother's maiden name – Trevithick; name of first school – Polperro Primary.",
     ("Trevithick", "Polperro Primary")),
    ("Кодовете ми за резервен достъп:\n4417 2093\n8820 5516\n3071 9942\nНе ги пращай на никого.", ("4417 2093", "8820 5516", "3071 9942")),
])
def test_values_in_the_places_tools_and_banks_keep_them_are_redacted(text, secrets):
    assert_caught(text, *secrets)


def test_a_seed_in_strings_joined_across_lines_or_under_its_stated_count_is_redacted():
    code = ('WORDS = (\n    "orbit rival sketch humble"\n    " canal velvet tornado pistol"\n'
            '    " wheat absorb lyrics gather"\n)\nmnemonic = WORDS')
    assert "canal" not in redacted(code) and "gather" not in redacted(code)
    armenian = ("Սա իմ դրամապանակի 12 բառն է.\n"
                "ladder cement poem ritual hobby oxygen crumble lunar brisk tackle anchor eager\nՇնորհակալություն")
    assert "ladder" not in redacted(armenian) and "eager" not in redacted(armenian)


def test_a_password_sent_in_pieces_among_another_scripts_words_and_said_back_whole_is_redacted():
    text = ("[تلگرام]\nنیلوفر: رمز وای‌فای دفتر\nنیلوفر: اولش Sepidar\nنیلوفر: بعد Darband\nنیلوفر: آخرش 1359\n"
            "من: یعنی Sepidar.Darband1359؟\nنیلوفر: آره")
    out = redacted(text)
    assert not any(piece in out for piece in ("Sepidar", "Darband", "1359")), out


@pytest.mark.parametrize("text", [
    "Kaspi ешқашан SMS-кодты немесе құпиясөзді телефон арқылы сұрамайды.",
    "kubectl create secret generic app-db --from-file=password=./creds/db.txt --dry-run=client -o yaml",
    "Our public key is npub1qy88wumn8ghj7mn0wd68ytnhd9hx2tcpz4mhxue69uhkummnw3ezuamfdejsz8v2fk — share it anywhere.",
    "| Wi-Fi | home | Kata laluan: | lihat pelekat router |",
    "snmpwalk -v2c -c public 10.0.0.5 system",
])
def test_a_brand_before_a_password_word_a_file_of_secrets_a_public_key_and_a_note_in_a_cell_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ('- ansible.builtin.lineinfile:\n    path: /home/etl/.pgpass\n    line: "db-ro.example:5432:sales:etl_ro:Marlin.Quay.604"',
     ("Marlin.Quay.604",)),
    ("[Discord DM] ines: router pw, splitting it bc discord eats long strings\n[Discord DM] ines: `Heronsgate`\n"
     "[Discord DM] ines: `Velvet42`\n[Discord DM] ines: no spaces", ("Heronsgate", "Velvet42")),
    ("[front]\nVISA\n4539 1488 0343 6467\nVALID THRU 04/29\n[back]\nAUTHORIZED SIGNATURE   6467 608\nNot valid unless signed.",
     ("6467 608",)),
    ("KBZPay: သင်၏ OTP ကုဒ်မှာ 615204 ဖြစ်ပါသည်။", ("615204",)),
    ("Il-password tal-bank inbidlet. Issa hi, ehm, Gozo.Qala_93, b'G kapitali.", ("Gozo.Qala_93",)),
])
def test_a_pgpass_line_in_quotes_pieces_in_code_spans_a_code_on_the_signature_strip_and_a_value_a_sentence_on_are_redacted(
        text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    '=IMPORTDATA("https://shop.example/export.csv?user="&Settings!B1&"&password="&Settings!B2&"")',
    "-STRIPE_SECRET_KEY=sk_test_xxx\n+STRIPE_SECRET_KEY=\n+# get it from 1Password → \"Postmark server token\"",
    'psycopg2.OperationalError: connection to server at "10.2.0.7", port 5432 failed: FATAL:  password authentication failed',
    "Sifariş nömrəsi: AZ-558213. İzləmə kodu: RR203466190AZ. Parol tələb olunmur.",
])
def test_a_cell_reference_a_masked_key_a_vault_items_name_a_port_an_exception_and_a_parcels_number_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ('Content-Type: text/plain; charset="utf-8"\nContent-Transfer-Encoding: quoted-printable\n\n'
     "Ihr neues Kennwort f=C3=BCr das Portal lautet: Sch=C3=B6nwetter-Kr=\nanich-27\nViele Gr=C3=BC=C3=9Fe",
     ("Sch=C3=B6nwetter", "anich-27")),
    ("Title,URL,Username,Password,Notes\nexample.org,https://example.org/,pdunmore,Quill\"Fen,Marsh41,\n"
     "shop.example,https://shop.example/,pdunmore,Lantern_Moss_82,", ('Quill"Fen,Marsh41', "Lantern_Moss_82")),
    ('{"title":"Cabin","textContent":"Router: Cabin-Net / Pike&Heather-19\\nAlarm app: pw Osprey_Delta_6\\nKeys under the pot"}',
     ("Pike&Heather-19", "Osprey_Delta_6")),
])
def test_a_password_in_quoted_printable_a_csv_row_with_a_comma_in_it_and_a_json_strings_lines_is_redacted(text, secrets):
    assert_caught(text, *secrets)
    out = redacted(text)
    for word in ("f=C3=BCr", "Gr=C3=BC=C3=9Fe", "Cabin", "Keys under the pot", "shop.example"):  # what is around stays
        assert word in out or word not in text, out


@pytest.mark.parametrize("text", [
    "Open Safari (Settings → Passwords → Export) and save the file:\nTitle,URL,Username,Password,Notes",
    "| Account | Username | Password | Note |\n|---|---|---|---|\n| Home Wi-Fi | Vodafone-5G-3B9D | on the router sticker | — |",
    "Die Mail kam so an:\nContent-Transfer-Encoding: quoted-printable\n\nSch=C3=B6ne Gr=C3=BC=C3=9Fe aus M=C3=BCnchen, bis Freitag!",
    'log: {"msg":"retrying upload\\nattempt 3 of 5","level":"warn"}',
])
def test_a_menu_path_a_csv_header_a_network_in_a_user_column_and_escaped_lines_without_a_secret_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ("Ke kopa o buloe: khoutu ea heke ke 5 2 8 0. Alamo: tobetsa 6 1 7 3 ebe OFF.", ("5 2 8 0", "6 1 7 3")),
    ("Bainc: is é an PAC ná 7 0 4 2 8, ná tabhair d'aon duine é.", ("7 0 4 2 8",)),
    ("qrencode said: chl=otpauth://totp/dev@vpn01%3Fsecret%3DKQ4TMNZVGI3DGMBXHE2A%26issuer%3Dvpn01",
     ("KQ4TMNZVGI3DGMBXHE2A",)),
    ("Wallet words stamped on the plate:\n 1 GRAV    7 NOBL\n 2 TUMB    8 PION\n 3 HURD    9 SALO\n 4 LIBE   10 UNVE\n"
     " 5 MONK   11 WHEA\n 6 OBEY   12 ZONE", ("GRAV", "NOBL", "HURD", "WHEA", "ZONE")),
    ('WIFI:T:WPA;S:Cabin Net;P:"Bramble 7 Owl";;\nI typed Bramble 7 Owl and it still will not join.', ("Bramble 7 Owl",)),
])
def test_a_code_by_its_borrowed_name_keys_then_off_a_nested_urls_secret_a_plates_columns_and_a_value_said_again_are_redacted(
        text, secrets):
    assert_caught(text, *secrets)


def test_a_minisign_public_key_file_is_kept():
    assert_kept("untrusted comment: minisign public key 7D1E0A4C93B2F815\nRWQ5d0pbM2hvT8rZyxa1Wq0Jb3ZkPp0nYx4rT7u2LmVcE9s1dHk6Qw8z")


def test_a_date_under_a_recovery_key_is_kept_and_a_token_ending_in_error_is_redacted():
    out = redacted("BitLocker recovery key: 418263-550132-207119-603845-119988-731042-265914-482309 (laptop)\n2024-05-01")
    assert "2024-05-01" in out and "418263" not in out, out
    assert "00000000000Error" not in redacted("token eyJhbGciOiAiSFMyNTYifQ.eyJhYWFhYSI6ICJhYWFhYSJ9.00000000000Error ok")


@pytest.mark.parametrize(("text", "secrets"), [
    ("G-480213 is your Google verification code.", ("480213",)),
    ("- Steam\n  backup-codes:: KQ7RTM, 3WXZ9P, HN4BVC", ("KQ7RTM", "3WXZ9P", "HN4BVC")),
    ("Backup codes\nAccount: j_okafor\nEach code works once.\n1) 4KTR-8WQM     3) Z2PL-6HDN\n2) B7XC-1RFJ     4) M9GS-5VAE",
     ("4KTR-8WQM", "Z2PL-6HDN", "B7XC-1RFJ", "M9GS-5VAE")),
    ('acct = Account.from_mnemonic("orbit rival sketch humble canal velvet tornado pistol wheat absorb lyrics gather")',
     ("orbit rival sketch",)),
    ("Card number: 3714 496353 98431   Expiry: 07/29\nCID (4 digits, front of card): 7302", ("7302",)),
    ("$ sudo cat /etc/rsyncd.secrets\nbackup:Heron.Quill.Fen.61\n$ ls", ("Heron.Quill.Fen.61",)),
    ("Ida foun mak Kiri.Motu_2031 — K no M letra boot.", ("Kiri.Motu_2031",)),
])
def test_codes_sent_first_in_properties_under_an_accounts_line_seeds_in_code_a_cid_a_secrets_file_and_set_off_digits_are_redacted(
        text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    "gpg: Signature made Thu 04 Dec 2025\ngpg:                using EDDSA key 7C2E9A41D0B3F58E61A94C7D2B0E5F138A6C9D42",
    "Scan to join: DPP:C:81/1;M:a4cf12e07b3d;V:2;K:MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgADewIUxmnvWiYZLVMXqXCNDrMx;;",
    "Invoice 2025/118 — Kalnų Medus UAB. Please pay to IBAN LT12 1000 0111 0100 1000, reference 2025/118.",
])
def test_a_keys_fingerprint_a_devices_public_key_and_an_invoices_iban_are_kept(text):
    assert_kept(text)


def test_an_iban_beside_a_way_to_sign_in_is_still_redacted():
    out = redacted("Invoice for Mum's rent: IBAN LT12 1000 0111 0100 1000, online banking PIN 5521")
    assert "LT12 1000" not in out and "5521" not in out, out


def test_a_placeholders_label_names_no_codes_after_it():
    assert redacted("the code from the SMS is 481922 12:30pm") == "the code from the SMS is [REDACTED:one-time-code] 12:30pm"


@pytest.mark.parametrize(("text", "secrets"), [
    ('data:\n  code_slot: 5\n  usercode: "602913"\n', ("602913",)),  # a lock's user code in a YAML action
    ("Card 4111 1111 1111 1111, expires 08/29. Ko e tolu e numera he tua he kaati: fitu, tolu, valu.", ("fitu, tolu, valu",)),
    ("Recovery key:\n    hbjvlctu-krivnefg-tdeucgvr-lnbjhkdf-ckfgrrvj-uhidlntb-vfhljiec-gbnrtkld\n", ("hbjvlctu-krivnefg",)),
    ("## UI.com backup codes\n- [x] ~~R7KQ-M2XD~~ (used 14 Oct, new phone)\n- [ ] H9VC-3LGE\n", ("R7KQ-M2XD", "H9VC-3LGE")),
    ("BIP39 word numbers of my seed:\nPlate A (front):  0417  1893  0062  1540  0988  2031\n"
     "Plate A (back):   0276  1117  0745  1666  0039  1302\n", ("0417  1893", "0039  1302")),
    ("Una Banka — TAN lista br. 7\n01 483920   06 719204   11 305918\n02 660157   07 248893   12 917462",
     ("01 483920   06 719204   11 305918", "02 660157")),
    ("advanced:\n  network_key: [41, 7, 199, 88, 160, 23, 251, 64, 130, 9, 77, 212, 5, 186, 143, 58]\n  channel: 15",
     ("[41, 7, 199, 88, 160, 23, 251, 64, 130, 9, 77, 212, 5, 186, 143, 58]",)),
    ("Password mupiamupia wa Wi-Fi wa ku nzubu, tshitupa tshia kumpala: Ngondo.Kasai", ("Ngondo.Kasai",)),
])
def test_values_in_the_sixteenth_rounds_places_are_redacted(text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    "shipping:\n  zip_code: 90210\n  postal_code: 10115",  # a postal code, not a PIN
    "advanced:\n  public_key: [41, 7, 199, 88, 160, 23, 251, 64, 130, 9, 77, 212, 5, 186, 143, 58]",
    "Alex 2024-05-01 12\n2024-05-01 on the shift log",  # two dates, though their digits pass a card's check
])
def test_a_postal_code_field_a_public_keys_bytes_and_dates_on_two_lines_are_kept(text):
    assert_kept(text)


def test_words_after_a_card_and_its_expiry_are_its_code_only_where_the_sentence_names_numbers():
    out = redacted("Card 4111 1111 1111 1111, expires 10/29. Ingredients: flour, eggs, milk.")
    assert "flour, eggs, milk" in out and "4111" not in out, out


@pytest.mark.parametrize(("text", "secrets"), [
    ("I've unlocked it and set a temporary password, Vx7#pQ2m!Lr9, which you'll change at first login.", ("Vx7#pQ2m!Lr9",)),
    ("/etc/asterisk/voicemail.conf:\n[default]\n201 => 730415,Reception,reception@example.org\n202 => 5811,Helen Cowper",
     ("730415", "5811")),
    ("Alarm codes\nEngineer code: 3719 (alarm company only)\nMaster user code: 8963\nCleaner (user 3, part-set only): 1857",
     ("3719", "8963", "1857")),
    ("Bitwarden recovery code\nAccount: callum@example.org\nGenerated: 2024-06-11\n63UG N8JF U4P8 GCTA T58H LJ4D SX92 4XHR",
     ("63UG N8JF U4P8 GCTA T58H LJ4D SX92 4XHR",)),
    ("Shamir backup, share 1 of 3:\nhospital acid academic easy amazing island camera profile thumb deadline venture cultural "
     "smirk rumor junction harvest laundry nervous obtain bracelet", ("hospital acid academic easy", "obtain bracelet")),
    ("tailscale up --login-server https://hs.example --authkey 974f175fdc8e8595f254dd1b8c8e212a5975dd3a0f3583ab --hostname pi",
     ("974f175fdc8e8595f254dd1b8c8e212a5975dd3a0f3583ab",)),
    ("ffmpeg -i /dev/video0 -f flv rtmp://a.rtmp.youtube.com/live2/1cps-1304-dcmx-ockc-oj4b", ("1cps-1304-dcmx-ockc-oj4b",)),
    ("Heit: It nije wachtwurd fan de Wi-Fi thús, it earste part: Skutsje.Snits", ("Skutsje.Snits",)),
])
def test_a_password_set_off_by_commas_voicemail_pins_a_run_of_coded_lines_a_grouped_recovery_code_a_shamir_share_an_authkey_a_stream_key_and_a_labelled_piece_abroad_are_redacted(  # noqa: E501
        text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    "go2rtc:\n  streams:\n    garage:\n      - rtsp://frigate:{FRIGATE_RTSP_PASSWORD}@192.168.1.21:554/cam",  # Frigate's variable
    "| Account | Password |\n|---|---|\n| Council tax | pass household/ctax |\n| Broadband | pass household/bband |",  # pass(1)
    "Raw text: WIFI:T:nopass;S:Ti-Kafe Kemper Digor;;\nN'eus ger-tremen ebet ennañ, ha mat eo evel-se?",  # a question's last words
    "/etc/asterisk/voicemail.conf on the office PBX:\n[general]\nformat=wav49|wav",  # an INI section is no value
    "Rotation: Mon: 0800\nTue: 0900\nWed: 1000",  # times on labelled lines, no code named
])
def test_a_frigate_variable_a_pass_entry_a_question_an_ini_section_and_labelled_times_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ("number on the card: 4111 · 1111 · 1111 · 1111", ("4111 · 1111",)),  # a sign with spaces around it
    ("card 4111\u200b1111\u200b1111\u200b1111", ("4111\u200b1111",)),  # zero-width spaces
    ("card 41 11 11 11 11 11 11 11", ("41 11 11 11",)),  # in eight pairs
    ("kartu saya 5500-0000-0000-0004 berlaku 09/28", ("5500-0000-0000-0004",)),
    ("4111111111111111|12|2027|123", ("4111111111111111", "|123")),  # a dump's fields: the code after the expiry too
    ("mTAN: 185739", ("185739",)),
    ("パスコードは4417です", ("4417",)),
    ("mi clave del cajero es 4417", ("4417",)),
    ("unlock my phone: 1857", ("1857",)),
])
def test_a_card_in_odd_separators_and_words_a_dumps_code_a_tan_and_pins_in_more_words_are_redacted(text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    "the TAN list is empty, order a new one", "screen lock after 5 minutes", "unlock 2 achievements in the first level",
    "Elo 2150 2200 2180 2190 over four seasons",
])
def test_talk_of_tans_and_locks_and_a_run_of_ratings_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ("FieldType: Text\nFieldName: CardCID\nFieldValue: 4145\n---\nFieldName: DoorPassword\nFieldValue: Heron-Gate-27",
     ("4145", "Heron-Gate-27")),  # a PDF form's fields, dumped a line each
    ("sc-hsm-tool --initialize --so-pin 3537682194175520 --pin 648219 --label \"ca-hsm-01\"", ("3537682194175520", "648219")),
    ("Signal backup passphrase\n18204 66937 50418 29075 31186 74420", ("18204 66937 50418 29075 31186 74420",)),
    ("Monero: the following 25 words can be used to recover access to your wallet.\n\ntavern pastry yeti opus lucky nabbed "
     "dwindling gyrate\nvowels oyster hiker cowl adept ruffled jaunt ember\nnudged amidst sneeze lifestyle tunnel gauze knapsack "
     "pylon opus", ("tavern pastry yeti", "pylon opus")),
    ("APP_KEY=base64:8vQ2k9LmT4rX7pZ1wN6yB3cF5hJ0sD8gA2qE4uR6tY0=\nAPP_DEBUG=false",
     ("base64:8vQ2k9LmT4rX7pZ1wN6yB3cF5hJ0sD8gA2qE4uR6tY0=",)),
    ("Ihr Registrierungsbrief für die S-pushTAN-App\nRegistrierungscode: 8K2F-7QTA-MX4D", ("8K2F-7QTA-MX4D",)),
    ("I'm sending the initial password in two halves. First half: Trefoil-Quay", ("Trefoil-Quay",)),
    ("type=EXECVE argc=5 a0=mysql a1=-u a2=backup_admin a3=-pGuillemot^Sorrel^63 a4=inventory", ("Guillemot^Sorrel^63",)),
    ("skopeo copy --src-creds pennardops:Mistle.Thrush.8841 docker://a docker://b", ("Mistle.Thrush.8841",)),
    ("murmurd -ini /etc/mumble-server.ini -supw 'Ashen!Kettle!5'", ("Ashen!Kettle!5",)),  # a flag that names a secret
])
def test_a_forms_fields_a_smart_cards_pins_signals_passphrase_a_monero_seed_an_encoded_key_a_registration_code_a_first_half_an_audited_password_and_registry_creds_are_redacted(  # noqa: E501
        text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    "type=EXECVE argc=2 a0=passwd a1=backup_admin",  # the command that changes a password, and whose
    "| Account | Password |\n|---|---|\n| Jenkins | Vault: kv/platform/jenkins |",  # where the password is kept
    "$ pkcs11-tool --module /usr/lib/opensc-pkcs11.so --login --pin 648219 --label ca-root-2026 --id 01",  # a label, a command
    "ZIP codes on the route: 90210 10001 60614 73301 94103 02108",  # six groups of five digits, no backup spoken of
])
def test_the_passwd_command_a_vault_path_a_commands_labels_and_six_zip_codes_are_kept(text):
    out = redacted(text)
    for kept in ("backup_admin", "kv/platform/jenkins", "ca-root-2026", "pkcs11-tool", "90210 10001"):
        assert kept in out or kept not in text, out


def test_a_first_piece_ending_an_earlier_chat_line_goes_with_a_last_piece_sent_elsewhere():
    chat = ("[Line 09:00] Ama: Kia ora e tama! Te kupuhipa hou o te Wi-Fi, te wahanga tuatahi: Pohutukawa\n"
            "[Line 09:01] Ama: Ka tukuna te wahanga tuarua ma te SMS.\n[SMS 09:05] -Tawhiti42\nHonoa, kaua he mokowā.")
    assert_caught(chat, "Pohutukawa", "Tawhiti42")
    # no last piece sent apart: a capitalised word ending a line is a word
    assert_kept("[Line 09:00] Ama: Kia ora e tama! I changed the Wi-Fi password at the bach in Paihia\n[Line 09:01] Ama: Ka kite!")


_SEED = "legal winner thank year wave sausage worth useful legal winner thank yellow".split()


@pytest.mark.parametrize("text", [
    "seed: " + " • ".join(_SEED),
    "seed " + " ".join(f"{w}({i + 1})" for i, w in enumerate(_SEED)),
    "seed " + " ".join(f"#{i + 1} {w}" for i, w in enumerate(_SEED)),
    "seed " + " ".join(f"[{i + 1}] {w}" for i, w in enumerate(_SEED)),
    "seed: " + " ".join(f"{w}." for w in _SEED),
    "seed: " + "+".join(_SEED),
    "seed: " + " ".join(_SEED).replace("a", "\u0430"),  # Cyrillic look-alike letters in Latin words
])
def test_a_seed_between_signs_numbers_in_brackets_or_with_look_alike_letters_is_redacted(text):
    out = redacted(text)
    assert "sausage" not in out and "s\u0430us\u0430ge" not in out, out


def test_prose_of_list_words_after_full_stops_near_no_wallet_word_is_kept():
    assert_kept("Legal. Winner. Thank you. Year of the wave. Sausage worth it. Useful legal winner, thank you, yellow.")


@pytest.mark.parametrize(("text", "secret"), [
    ("Emergency Kit\nSecret Key\nA3-8KQW2P-MN4T7R-X9V2B-6HJ3D-QW8EZ-4TPL7", "8KQW2P"),  # 1Password's, by its shape
    ("FileVault recovery key: K7QP-2MXD-9TWR-4HVN-8BJC-3LZF", "2MXD"),
    ("Ключ восстановления: K7QP-2MXD-9TWR-4HVN-8BJC-3LZF", "2MXD"),
    ("復旧キー: K7QP-2MXD-9TWR-4HVN-8BJC-3LZF", "2MXD"),
    ("Your recovery key is K7QP 2MXD 9TWR 4HVN 8BJC 3LZF", "4HVN"),
    ("restore key for the NAS: 7HQ2K-M9XPT-4WVRB-D6JYC-3NF8G", "M9XPT"),
])
def test_a_key_in_groups_after_a_word_for_a_key_or_a_recovery_in_any_language_is_redacted(text, secret):
    assert secret not in redacted(text)


@pytest.mark.parametrize("text", [
    "gpg key fingerprint: 72C4 9F1B 5D67 9B08 A1E3 44C0 9D2F 6B1A 0E57 C3D8",  # hex
    "use the public KMS client setup key from Microsoft's docs, W269N-WFGWX-YVC9B-4J6C9-T83GX",  # a key published for all
    "K7QP-2MXD-9TWR-4HVN-8BJC-3LZF",  # no word for a key near it
])
def test_a_fingerprint_a_published_key_and_groups_with_no_key_word_are_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secret"), [
    ("TPIN 482913 for phone banking", "482913"), ("UPI PIN: 482913", "482913"), ("security number 482913", "482913"),
    ("Rabobank: toegangscode 48291", "48291"), ("inlogcode 48291", "48291"), ("Clave de firma: 4829", "4829"),
    ("Clave de operaciones: 482913", "482913"),
])
def test_a_banks_pins_by_more_names_are_redacted(text, secret):
    assert secret not in redacted(text)


@pytest.mark.parametrize("text", ["social security number: see the form", "the security number on the back is 482",
                                  "tpin and mpin are kinds of PIN"])
def test_talk_of_those_names_without_a_pin_is_kept(text):
    assert_kept(text)


@pytest.mark.parametrize(("text", "secrets"), [
    ("Card no: [4][9][2][9] [0][4][1][7] [3][6][8][2] [1][5][0][9]\nExpiry: [0][9] / [2][7]",
     ("[4][9][2][9] [0][4][1][7] [3][6][8][2] [1][5][0][9]",)),  # a form's boxes, a digit to each
    ("his new card PIN in braille:\n⠏⠊⠝ ⠋⠕⠗ ⠞⠓⠑ ⠝⠑⠺ ⠉⠁⠗⠙⠒ ⠼⠃⠋⠑⠑", ("⠼⠃⠋⠑⠑",)),
    ('adb shell locksettings set-pin 572914\nadb shell input text 572914\n# to undo: locksettings clear --old 572914', ("572914",)),
    ('w, err := hdwallet.NewFromMnemonic("spirit kitten umbrella wagon prison raven habit tiger unveil vessel silk rocket")',
     ("spirit kitten umbrella",)),
    ('=LAMBDA(ccy, LET(k, "b71f0c9e3a8d42e6a51f7c20", j, WEBSERVICE("https://v6.exchangerate-api.com/v6/"&k&"/pair/GBP/"&ccy), j))',
     ("b71f0c9e3a8d42e6a51f7c20",)),
])
def test_boxed_digits_braille_a_value_said_again_a_mnemonic_in_camel_case_and_a_key_a_formula_builds_a_url_with_are_redacted(
        text, secrets):
    assert_caught(text, *secrets)


@pytest.mark.parametrize("text", [
    'token="$(gcloud secrets versions access latest --secret=bazel-artifacts-token)"',  # a secret's name in a store
    "How to donate\nSort code: 30-96-26\nAccount number: 41728855\nIBAN: GB95 LOYD 3096 2641 7288 55",
    "| Host | Password |\n|---|---|\n| nas01 | pass: lab/nas01 |",  # where pass(1) keeps it
    "pip install --index-url https://__token__:[MASKED]@gitlab.example/api/v4/projects/412/packages/pypi/simple larder",
    "Is 'R:1' right for WPA3-only networks? WIFI:T:SAE;S:{{ ssid }};P:{{ vault_guest_psk }};R:1;;",
    "let token = String(data: data, encoding: .utf8)",  # a type's constructor
])
def test_a_secrets_name_a_donation_account_a_pass_entry_a_masked_value_a_wifi_security_and_a_constructor_are_kept(text):
    assert_kept(text)
