"""The checks that keep a look-alike of what ``redact`` finds from being taken for it
(redact_patterns.py finds the candidates): a card number's issuer and Luhn digit, a phone
number's digits for its country, an address's octets, an e-mail domain that is a file
extension; and where a value found from its ``@`` or first colon begins (``walk_back``).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable


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
    """A number's digits as its plan has them: +1 (North America) and +7 eleven, another
    country's ten to fifteen (``+15000000 users`` is a count); a North American number
    written without its country ten, its area code not starting with 0 or 1."""
    digits = "".join(char for char in value if char.isdigit())
    if not value.startswith("+"):
        return len(digits) == 10 and digits[0] not in "01"
    if digits[0] in "17":
        return len(digits) == 11
    return 10 <= len(digits) <= 15


# file names that look like addresses (logo@2x.png, a retina image): their "top-level
# domain" is an extension no domain has
_NOT_DOMAINS = frozenset((
    "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico", "tif", "tiff", "avif", "heic",
    "pdf", "js", "mjs", "cjs", "ts", "tsx", "jsx", "css", "scss", "less", "json", "yaml", "yml",
    "toml", "html", "htm", "xml", "txt", "csv", "log", "lock", "gz", "tgz", "bz2", "xz", "tar",
    "mp3", "mp4", "wav", "avi", "mkv", "ogg", "flac", "woff", "woff2", "ttf", "otf", "eot",
    "map", "wasm", "exe", "dll", "dylib", "iso", "dmg", "apk", "jar", "pyc", "php", "java", "kt",
    "swift", "cpp", "hpp", "vue", "ipynb",
))  # fmt: skip


def _email(value: str) -> bool:
    return value.rpartition(".")[2].lower() not in _NOT_DOMAINS


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
    "EMAIL": _email,
    "CARD_NUMBER": _card,
    "PHONE": _phone,
    "IP_ADDRESS": _ip,
}

_HEX = frozenset("0123456789abcdefABCDEF")


def _local(char: str) -> bool:
    """A character of an address's local part: a letter or digit of any script, or
    ``._%+-``."""
    return char.isalnum() or char in "._%+-"


def walk_back(kind: str, text: str, at: int) -> int | None:
    """Where a value found from its ``@`` (an e-mail address) or first colon (an IPv6
    address) begins; None when nothing fit stands before it."""
    start = at
    if kind == "EMAIL":
        while start > 0 and at - start < 64 and _local(text[start - 1]):
            start -= 1
        while start < at and text[start] in "._%+-":
            start += 1  # an address begins with a letter or digit
        if start == at or (start > 0 and _local(text[start - 1])):
            return None
        if text[start:at].lower() == "git":  # git@host:repo, an SSH remote, not a person
            return None
        return start
    while start > 0 and at - start < 4 and text[start - 1] in _HEX:
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_:."):
        return None
    return start
