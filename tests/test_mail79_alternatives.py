"""Which alternative of a message is read: the HTML one a mail client shows, unless its visible
words are far fewer than the plain one's (a newsletter whose HTML is pictures of its text, their
alt words shown by no client, sends the text in its plain part). The pieces are mail-parser 4.8.0's
`tests/mails/mail_test_5` (a French newsletter: its plain part, and the rows of its HTML one), cut;
the offer's words are what such a newsletter's picture says."""

from minirag.ingest.convert import convert_document
from minirag.ingest.mapi_body import body_markdown

HEADER = (b"From: Marina de Carlance <contact@carlance.fr>\r\nTo: rollierjocelyne@fake.com\r\n"
          b"Subject: =?UTF-8?Q?Je_pr=C3=A9pare_mon_=C3=A9t=C3=A9_z=C3=A9ro_complexe_!?=\r\n"
          b"MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"b7e\"\r\n\r\n")
BROWSER = ("Si ce message ne s'affiche pas correctement, veuillez cliquer\nici.\u00a0"
           "<https://t2d857ce9.emailsys2a.net/mailing/136/1071579/4531494/9012/cbec6aad81/index.html>\n")
OFFER = ("Je pr\u00e9pare mon \u00e9t\u00e9 z\u00e9ro complexe ! Du 8 mars au 8 avril, -30 % sur les "
         "forfaits \u00e9pilation jambes enti\u00e8res, maillot et aisselles, et un soin hydratant "
         "offert pour tout forfait achet\u00e9 en institut. Prenez rendez-vous d\u00e8s aujourd'hui "
         "aupr\u00e8s de votre institut Carlance ou r\u00e9servez en ligne sur notre site.\n\n")
VALID = ("* Offre valable du 8 mars au 8 avril 2017, dans tous les instituts\nCarlance, non cumulable "
         "avec d'autres promotions en cours.\n")
ROWS = ("<table><tr><td><a href=\"https://t2d857ce9.emailsys2a.net/mailing/136/1071579/4531494/9012/"
        "cbec6aad81/index.html\">Si ce message ne s'affiche pas correctement, veuillez cliquer ici.</a>"
        "</td></tr></table>")
PICTURE = ("<table><tr><td><img width=\"540\" src=\"cid:FWMAIL0d11ff4c87dfeab6cd1051bab808f635\" "
           "alt=\"Je pr\u00e9pare mon \u00e9t\u00e9 z\u00e9ro complexe !\" /></td></tr></table>")
VALID_ROW = ("<table><tr><td>* Offre valable du 8 mars au 8 avril 2017, dans tous les instituts Carlance, "
             "non cumulable avec d'autres promotions en cours.</td></tr></table>")


def _message(plain: str, html: str) -> bytes:
    return HEADER + b"".join(
        b"--b7e\r\nContent-Type: text/" + kind + b"; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        + text.encode() + b"\r\n" for kind, text in ((b"plain", plain), (b"html", html))) + b"--b7e--\r\n"


def _body(data: bytes) -> str:
    return convert_document(data, ".eml", "newsletter.eml").markdown.split("\n\n", 2)[2]


def test_an_html_alternative_of_pictures_gives_way_to_the_plain_one_that_says_the_offer():
    body = _body(_message(BROWSER + "\n" + OFFER + VALID, f"<html><body>{ROWS}{PICTURE}</body></html>"))
    assert "-30 % sur les forfaits" in body  # the HTML's words were only the link to the browser
    assert body.startswith("Si ce message ne s'affiche pas correctement")


def test_alternatives_that_say_the_same_read_the_html():
    # mail_test_5 as sent: its offer is in a picture with no alt text in both parts.
    body = _body(_message(BROWSER + "\n" + VALID, f"<html><body>{ROWS}{PICTURE}{VALID_ROW}</body></html>"))
    assert body.startswith("| [Si ce message ne s'affiche pas correctement, veuillez cliquer ici.](https://")


def test_a_plain_part_that_only_sends_the_reader_to_the_browser_leaves_the_html_read():
    body = _body(_message(BROWSER, f"<html><body>{ROWS}<p>{OFFER}</p>{VALID_ROW}</body></html>"))
    assert "-30 % sur les forfaits" in body and body.startswith("| [Si ce message")


def test_an_outlook_body_is_chosen_by_the_same_rule():
    # (.msg and winmail.dat bodies: PR_BODY beside PR_HTML)
    plain = BROWSER + "\n" + OFFER + VALID
    assert "-30 % sur les forfaits" in body_markdown(plain, f"<html><body>{ROWS}{PICTURE}</body></html>", None)
    assert body_markdown(BROWSER, f"<p>{OFFER}</p>", None).startswith("Je pr\u00e9pare")
