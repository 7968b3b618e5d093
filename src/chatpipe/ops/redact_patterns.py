"""The patterns ``redact`` finds, a kind each (redact_checks.py holds the checks that keep
a look-alike from being taken for one: a card number's Luhn digit, a phone's digits).

Secrets are found by the shapes their issuers document (a prefix, a length, an
alphabet); personal data by its usual written forms. One regular expression holds every
kind, and each of its branches begins at a character that prose seldom holds (``-``,
``_``, ``.``, ``:``, ``@``, a digit, a capital letter), the part of the value before it
checked by a look-behind: the regular expression engine skips every other character
without entering a branch, which keeps a scan of ordinary text fast. An AWS secret key
with no label is found beside its access key id.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .redact_checks import CHECKS, luhn, walk_back

__all__ = ["KINDS", "PERSONAL_KINDS", "SECRET_KINDS", "Match", "Scanner", "luhn"]

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
    # one whose END line was cut off: its header lines, then its lines of base64 (their
    # breaks as they are, or written \n as in a JSON string pasted into a message)
    (
        "PRIVATE_KEY",
        0,
        "-",
        r"----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:(?:\s|\\[nr])*[A-Za-z][\w-]{0,30}:[^\n\\]{0,200})*"
        r"(?:(?:\s|\\[nr])*[A-Za-z0-9+/]{16,}={0,2}){1,400}",
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
    ("HF_TOKEN", 2, "_", _after("hf_") + r"[A-Za-z0-9]{34,}" + _NOT_T),
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
    # a password holding @ or / (unescaped, as people paste them): up to the first @
    # that a host follows (a dotted name, a name and a port, an address in brackets)
    (
        "URL_PASSWORD",
        0,
        ":",
        r"//(?<=[A-Za-z0-9]://)[^\s:/?#@\"'<>\[\]]{1,128}:"
        r"(?P<v>[^\s?#\"'<>]{1,256}?)@(?=(?:[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+"
        r"|[A-Za-z0-9\-]+(?=:[0-9])|\[[0-9A-Fa-f:.]+\]|localhost)(?:[:/?#\s\"'<>]|\Z))",
    ),
    (
        "URL_PASSWORD",
        0,
        ":",
        r"//(?<=[A-Za-z0-9]://)[^\s:/?#@\"'<>\[\]]{1,128}:"
        r"(?P<v>[^\s/?#@\"'<>]{1,256})@(?=[A-Za-z0-9\[])",
    ),
    # an address's local part and domain may hold letters of any script (jürgen@müller.de)
    (
        "EMAIL",
        -1,
        "@",
        r"(?<=[\w%+\-]@)(?:[^\W_](?:[\w\-]{0,61}[^\W_])?\.)+"
        r"[^\W\d_]{2,24}(?![\w\-])",
    ),
    (
        "CARD_NUMBER",
        0,
        _DIGITS,
        r"(?<![0-9.,\-/][0-9])(?:[ \-]?[0-9]){12,18}(?![0-9\-/]|[.,][0-9])",
    ),
    # international: + and digits, single spaces, dots or dashes between (a group in
    # brackets too); how many digits a country's numbers have is checked after
    (
        "PHONE",
        1,
        _DIGITS,
        r"(?<=(?<![\w+/.\-])\+[0-9])(?:[ .\-]?(?:\([0-9]{1,4}\)|[0-9])){6,18}"
        r"(?![\w\-]|[.,][0-9])",
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
        r"(?<![\w+/.\-][0-9])[0-9]{2}(?P<s>[ .\-])[0-9]{3}(?P=s)[0-9]{4}(?![\w\-]|[.,][0-9])",
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
    an empty group named after the branch, at its end, says which one matched. A match
    that fails its check gives way to the branches after it that start at the same place
    (a number that is no card may be a phone number), each tried alone."""

    def __init__(self, kinds: tuple[str, ...] | None = None) -> None:
        wanted = KINDS if kinds is None else kinds
        self.branches = [b for b in _BRANCHES if b[0] in wanted]
        self.kinds = tuple(dict.fromkeys(kind for kind, _, _, _ in self.branches))
        parts, self.alone = [], []
        for number, (_, _, first, rest) in enumerate(self.branches):
            copies = []
            for copy, char in enumerate(first):
                name = f"{number}_{copy}"
                body = rest.replace("(?P<v>", f"(?P<v{name}>")
                body = body.replace("(?P<s>", f"(?P<s{name}>").replace("(?P=s)", f"(?P=s{name})")
                copies.append(f"{re.escape(char)}{body}(?P<b{name}>)")
            parts += copies
            self.alone.append((first, re.compile("|".join(copies))))
        self.pattern = re.compile("|".join(parts)) if parts else None
        self.pairs = "AWS_ACCESS_KEY" in self.kinds and "AWS_SECRET_KEY" in self.kinds

    def scan(self, text: str) -> Iterator[Match]:
        """The matches in ``text``, left to right, none overlapping."""
        if self.pattern is None:
            return
        search = self.pattern.search
        position = last = 0
        while True:
            found = search(text, position)
            if found is None:
                return
            at = found.start()
            match = self._accepted(text, found)
            while match is None:  # the branches after it, alone, at the same place
                found = self._next_branch(text, found)
                if found is None:
                    break
                match = self._accepted(text, found)
            if match is None or found is None:
                position = at + 1
                continue
            if self.pairs and match.kind == "AWS_ACCESS_KEY":
                before = _aws_secret(text, max(last, match.start - _NEAR), match.start)
                if before is not None:
                    yield before
            yield match
            position = last = found.end()
            if self.pairs and match.kind == "AWS_ACCESS_KEY":
                after = _aws_secret(text, match.end, match.end + _NEAR)
                if after is not None:
                    yield after
                    position = last = after.end

    def _number(self, found: re.Match[str]) -> tuple[int, str]:
        name = found.lastgroup[1:]  # type: ignore[index]
        return int(name.partition("_")[0]), name

    def _next_branch(self, text: str, found: re.Match[str]) -> re.Match[str] | None:
        at = found.start()
        for first, alone in self.alone[self._number(found)[0] + 1 :]:
            if text[at] in first:
                again = alone.match(text, at)
                if again is not None:
                    return again
        return None

    def _accepted(self, text: str, found: re.Match[str]) -> Match | None:
        """The match a branch found, its value's span worked out and checked; None when
        the check refuses it."""
        number, name = self._number(found)
        kind, back, _, _ = self.branches[number]
        group = f"v{name}"
        if group in found.re.groupindex and found.span(group) != (-1, -1):
            start, end = found.span(group)
        elif back >= 0:
            start, end = found.start() - back, found.end()
        else:
            walked = walk_back(kind, text, found.start())
            if walked is None:
                return None
            start, end = walked, found.end()
            if kind == "IP_ADDRESS":
                end = start + len(text[start:end].rstrip(":"))
        check = CHECKS.get(kind)
        if check is not None and not check(text[start:end]):
            return None
        return Match(kind, start, end)


# an AWS secret access key with no label, next to its access key id (40 characters of
# base64, both cases and a digit or symbol: not a word, nor a hexadecimal digest)
_NEAR = 100
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def _aws_secret(text: str, start: int, end: int) -> Match | None:
    for found in _AWS_SECRET.finditer(text, start, end):
        value = found.group()
        if (
            any(c.islower() for c in value)
            and any(c.isupper() for c in value)
            and any(c.isdigit() or c in "/+" for c in value)
        ):
            return Match("AWS_SECRET_KEY", found.start(), found.end())
    return None
