"""The patterns ``redact`` finds, a kind each, and the checks that keep a look-alike from
being taken for one (a card number's Luhn digit, an address's octets, a phone's digits).

Secrets are found by the shapes their issuers document (a prefix, a length, an
alphabet); personal data by its usual written forms. One regular expression holds every
kind, and each of its branches begins at a character that prose seldom holds (``-``,
``_``, ``.``, ``:``, ``@``, a digit, a capital letter), the part of the value before it
checked by a look-behind: the regular expression engine skips every other character
without entering a branch, which keeps a scan of ordinary text fast.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_T = r"A-Za-z0-9_\-"  # a token's characters
_NOT_T = rf"(?![{_T}])"
_DIGITS = "0123456789"


def _after(prefix: str) -> str:
    """A look-behind: ``prefix`` (its first character, the branch's, included) just
    before, not inside a longer token."""
    return rf"(?<=(?<![{_T}]){prefix})"


# (kind, characters of the value before the branch's first one (-1: found by walking
# back), the characters a branch starts at, the rest of its pattern); a group ``v`` is
# the value where only part of the match is the secret. Kinds may have several branches.
_BRANCHES: tuple[tuple[str, int, str, str], ...] = (
    (
        "PRIVATE_KEY",
        0,
        "-",
        r"----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"[\s\S]{16,16384}?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    ),
    (
        "ANTHROPIC_KEY",
        2,
        "-",
        _after("sk-") + r"ant-(?:api|admin|sid)\d\d-[" + _T + "]{32,}" + _NOT_T,
    ),
    (
        "OPENAI_KEY",
        2,
        "-",
        _after("sk-") + r"(?:(?:proj|svcacct|admin)-[" + _T + r"]{20,}"
        r"|[" + _T + r"]{0,80}T3BlbkFJ[" + _T + r"]{16,}|[A-Za-z0-9]{48})" + _NOT_T,
    ),
    ("STRIPE_KEY", 2, "_", _after("[sr]k_") + r"(?:live|test)_[A-Za-z0-9]{16,}" + _NOT_T),
    ("STRIPE_KEY", 5, "_", _after("whsec_") + r"[A-Za-z0-9]{24,}" + _NOT_T),
    ("GITHUB_TOKEN", 3, "_", _after("gh[pousr]_") + r"[A-Za-z0-9]{36,251}" + _NOT_T),
    ("GITHUB_TOKEN", 6, "_", _after("github_") + r"pat_[A-Za-z0-9_]{60,}" + _NOT_T),
    ("GITLAB_TOKEN", 5, "-", _after("glpat-") + r"[" + _T + r"]{20,}" + _NOT_T),
    ("HF_TOKEN", 2, "_", _after("hf_") + r"[A-Za-z]{34,}" + _NOT_T),
    ("NPM_TOKEN", 3, "_", _after("npm_") + r"[A-Za-z0-9]{36}" + _NOT_T),
    ("PYPI_TOKEN", 4, "-", _after("pypi-") + r"AgEIcHlwaS5vcmc[" + _T + r"]{50,}" + _NOT_T),
    (
        "SLACK_TOKEN",
        4,
        "-",
        _after("xox[abposre]-") + r"(?:\d+-)+[A-Za-z0-9]{10,}" + _NOT_T,
    ),
    (
        "SLACK_TOKEN",
        5,
        ":",
        r"(?<=https:)//hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_]{20,}",
    ),
    ("GOOGLE_OAUTH", 6, "-", _after("GOCSPX-") + r"[" + _T + r"]{28}" + _NOT_T),
    ("GOOGLE_OAUTH", 2, "2", _after("ya2") + r"9\.[" + _T + r"]{30,}" + _NOT_T),
    ("GOOGLE_API_KEY", 0, "A", r"Iza(?<![" + _T + r"]AIza)[" + _T + r"]{35}" + _NOT_T),
    (
        "AWS_ACCESS_KEY",
        0,
        "A",
        r"(?:KIA|SIA|BIA|CCA)(?<![A-Z0-9]A...)[A-Z0-9]{16}(?![A-Z0-9])",
    ),
    ("AWS_SECRET_KEY", 0, "_", r"(?<=aws_)secret_access_key" + "{secret}"),
    ("AWS_SECRET_KEY", 0, "_", r"(?<=AWS_)SECRET_ACCESS_KEY" + "{secret}"),
    ("AWS_SECRET_KEY", 0, "S", r"ecretAccessKey" + "{secret}"),
    ("AWS_SECRET_KEY", 0, "A", r"(?<=secretA)ccessKey" + "{secret}"),
    (
        "SENDGRID_KEY",
        0,
        "S",
        r"G\.(?<![" + _T + r"]SG\.)[" + _T + r"]{22}\.[" + _T + r"]{43}" + _NOT_T,
    ),
    (
        "JWT",
        2,
        "J",
        _after("eyJ") + r"[" + _T + r"]{10,}\.eyJ[" + _T + r"]{10,}\.[" + _T + r"]{10,}" + _NOT_T,
    ),
    ("BEARER_TOKEN", 0, "B", r"(?:earer|EARER)[ \t]+" + "{token}"),
    ("BEARER_TOKEN", 0, ":", r"(?<=[Aa]uthorization:)[ \t]*bearer[ \t]+" + "{token}"),
    (
        "URL_PASSWORD",
        0,
        ":",
        r"//(?<=[A-Za-z0-9]://)[^\s:/?#@\"'<>\[\]]{1,128}:"
        r"(?P<v>[^\s/?#@\"'<>]{1,256})@(?=[A-Za-z0-9\[])",
    ),
    (
        "EMAIL",
        -1,
        "@",
        r"(?<=[A-Za-z0-9_%+\-]@)(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+"
        r"[A-Za-z]{2,24}(?![A-Za-z0-9\-])",
    ),
    (
        "CARD_NUMBER",
        0,
        _DIGITS,
        r"(?<![0-9.,\-/][0-9])(?:[ \-]?[0-9]){12,18}(?![0-9\-/]|[.,][0-9])",
    ),
    (
        "PHONE",
        1,
        _DIGITS,
        r"(?<=(?<![\w+/.\-])\+[0-9])[0-9]{0,2}[ .\-]?(?:\([0-9]{1,4}\)[ .\-]?)?[0-9]{1,4}"
        r"(?:[ .\-]?[0-9]{2,4}){1,4}(?![\w\-]|[.,][0-9])",
    ),
    (
        "PHONE",
        1,
        _DIGITS,
        r"(?<=(?<![\w)])\([0-9])[0-9]{2}\) ?[0-9]{3}[ .\-][0-9]{4}(?![\w\-]|[.,][0-9])",
    ),
    (
        "PHONE",
        0,
        _DIGITS,
        r"(?<![\w+/.\-][0-9])[0-9]{2}(?P<s>[.\-])[0-9]{3}(?P=s)[0-9]{4}(?![\w\-]|[.,][0-9])",
    ),
    (
        "IP_ADDRESS",
        0,
        _DIGITS,
        r"(?<![\w.:][0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![\w]|\.[0-9])",
    ),
    # IPv6: from its first colon, the group before it found by walking back
    ("IP_ADDRESS", -1, ":", r"(?<=[0-9A-Fa-f]:)[0-9A-Fa-f:]{2,38}(?![\w:.])"),
)
_SECRET_VALUE = r"[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
_TOKEN_VALUE = r"(?P<v>[A-Za-z0-9._~+/\-]{20,}=*)(?![A-Za-z0-9._~+/=\-])"
_BRANCHES = tuple(
    (kind, back, first, rest.replace("{secret}", _SECRET_VALUE).replace("{token}", _TOKEN_VALUE))
    for kind, back, first, rest in _BRANCHES
)

KINDS = tuple(dict.fromkeys(kind for kind, _, _, _ in _BRANCHES))
SECRET_KINDS = KINDS[: KINDS.index("EMAIL")]
PERSONAL_KINDS = KINDS[KINDS.index("EMAIL") :]


def luhn(digits: str) -> bool:
    """The Luhn check of a card number's digits."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


# issuers' leading digits and lengths: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay
_CARD = re.compile(
    r"4\d{12}(?:\d{3}){0,2}|5[1-5]\d{14}|2(?:2[2-9]|[3-6]\d|7[01])\d{13}|2720\d{12}"
    r"|3[47]\d{13}|6(?:011|5\d\d|4[4-9]\d)\d{12,15}|35(?:2[89]|[3-8]\d)\d{12,15}"
    r"|3(?:0[0-5]|[68]\d)\d{11,16}|62\d{14,17}"
)
_GROUPS = re.compile(r"[ \-]")


def _card(value: str) -> bool:
    digits = value.replace(" ", "").replace("-", "")
    groups = _GROUPS.split(value)
    if len(groups) > 1:  # written in groups: those cards are printed in
        sizes = [len(g) for g in groups]
        if sizes not in ([4, 6, 5], [4, 6, 4]) and not (
            all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4
        ):
            return False
    return bool(_CARD.fullmatch(digits)) and len(set(digits)) > 1 and luhn(digits)


def _phone(value: str) -> bool:
    digits = sum(char.isdigit() for char in value)
    return 8 <= digits <= 15 if value.startswith("+") else digits == 10


def _ip(value: str) -> bool:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    if address.version == 4:
        # loopback, "this network", broadcast and netmasks are no one's address, and
        # four single digits are a version number far more often than a host
        octets = value.split(".")
        return not (value.startswith(("127.", "0.", "255.")) or all(len(o) == 1 for o in octets))
    return not (address.is_loopback or address.is_unspecified) and value.count(":") >= 3


CHECKS: dict[str, Callable[[str], bool]] = {
    "CARD_NUMBER": _card,
    "PHONE": _phone,
    "IP_ADDRESS": _ip,
}

_LOCAL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_HEX = frozenset("0123456789abcdefABCDEF")


def _walk_back(kind: str, text: str, at: int) -> int | None:
    """Where a value found from its ``@`` (an e-mail address) or first colon (an IPv6
    address) begins; None when nothing fit stands before it."""
    start = at
    if kind == "EMAIL":
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL:
            start -= 1
        while start < at and text[start] in "._%+-":
            start += 1  # an address begins with a letter or digit
        if start == at or (start > 0 and text[start - 1] in _LOCAL):
            return None
        if text[start:at].lower() == "git":  # git@host:repo, an SSH remote, not a person
            return None
        return start
    while start > 0 and at - start < 4 and text[start - 1] in _HEX:
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_:."):
        return None
    return start


@dataclass(frozen=True)
class Match:
    """A secret or a piece of personal data in a text: its kind and where its value is."""

    kind: str
    start: int
    end: int


class Scanner:
    """Finds the kinds asked for in texts, each match checked (Luhn, octets, digits).

    Every branch is written once per character it starts at, its own first, so that
    the alternation starts with plain characters and the engine looks for those only;
    an empty group named after the branch, at its end, says which one matched."""

    def __init__(self, kinds: tuple[str, ...] | None = None) -> None:
        wanted = KINDS if kinds is None else kinds
        self.branches = [b for b in _BRANCHES if b[0] in wanted]
        self.kinds = tuple(dict.fromkeys(kind for kind, _, _, _ in self.branches))
        parts = []
        for number, (_, _, first, rest) in enumerate(self.branches):
            for copy, char in enumerate(first):
                name = f"{number}_{copy}"
                body = rest.replace("(?P<v>", f"(?P<v{name}>")
                body = body.replace("(?P<s>", f"(?P<s{name}>").replace("(?P=s)", f"(?P=s{name})")
                parts.append(f"{re.escape(char)}{body}(?P<b{name}>)")
        self.pattern = re.compile("|".join(parts)) if parts else None

    def scan(self, text: str) -> Iterator[Match]:
        """The matches in ``text``, left to right, none overlapping."""
        if self.pattern is None:
            return
        search = self.pattern.search
        position = 0
        while True:
            found = search(text, position)
            if found is None:
                return
            name = found.lastgroup[1:]  # type: ignore[index]
            kind, back, _, _ = self.branches[int(name.partition("_")[0])]
            value = found.span(f"v{name}") if f"v{name}" in self.pattern.groupindex else None
            if value is not None:
                start, end = value
            elif back >= 0:
                start, end = found.start() - back, found.end()
            else:
                walked = _walk_back(kind, text, found.start())
                if walked is None:
                    position = found.start() + 1
                    continue
                start, end = walked, found.end()
                if kind == "IP_ADDRESS":
                    end = start + len(text[start:end].rstrip(":"))
            check = CHECKS.get(kind)
            if check is not None and not check(text[start:end]):
                position = found.start() + 1
                continue
            yield Match(kind, start, end)
            position = found.end()
