"""redact's patterns against the other detectors (#51): recall on a planted corpus (every
kind redact finds, in the forms chat logs hold them), hits on text with nothing to find
(a clean bench corpus) and on the fixtures' real message texts, and speed in MB/s.

    python -m pip install detect-secrets phonenumbers   # optional: their columns
    python bench/redact_compare.py --gitleaks PATH/TO/gitleaks/config/gitleaks.toml

The detectors: chatpipe's Scanner (ops/redact_patterns.py); gitleaks' default rules
(github.com/gitleaks/gitleaks, MIT; its config/gitleaks.toml read as data, each rule's
regular expression compiled with Python's ``re`` where it compiles, its keywords as the
prefilter and its entropy floor applied, as gitleaks applies them; rules whose Go syntax
Python refuses are counted and left out); Yelp's detect-secrets 1.5 with its default
plugins and filters (``scan_file``, a text a line); and Google's libphonenumber
(``phonenumbers``, its matcher at ``VALID`` leniency, US as the default region) for
phone numbers. A planted value is found when the detector reports something on its line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import corpus  # noqa: E402 - the bench corpus's generator

from chatpipe.ops.redact_patterns import Scanner  # noqa: E402

MIX = "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"


def rep(text: str, n: int) -> str:
    return (text * (n // len(text) + 1))[:n]


def planted() -> list[tuple[str, str]]:
    """(kind, a line of text holding one fake value), put together from pieces."""
    key = "MIIEowIBAAKCAQEAtq2l3VfOxJ8B+aGkqXfJm5Qf0rH1n1dQeXh3b9mZzJk2"
    # (an access key id's 16 characters are base32: A-Z and 2-7)
    access, secret = "AK" + "IAZ7Q2XK4M6P3R5T3V", "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
    return [
        (
            "PRIVATE_KEY",
            f"-----BEGIN OPENSSH PRIVATE KEY----- {key} -----END OPENSSH PRIVATE KEY-----",
        ),
        ("PRIVATE_KEY", f"-----BEGIN RSA PRIVATE KEY----- {key} {key}"),  # its END cut off
        ("ANTHROPIC_KEY", "export ANTHROPIC_API_KEY=sk-ant-" + "api03-" + rep(MIX, 93) + "AA"),
        ("OPENAI_KEY", "key sk-" + "proj-" + rep(MIX, 40) + "T3Blbk" + "FJ" + rep(MIX, 40)),
        ("STRIPE_KEY", "stripe rk_" + "live_" + rep(MIX, 24)),
        ("GITHUB_TOKEN", "token github_" + "pat_" + rep(MIX, 22) + "_" + rep(MIX, 59)),
        ("GITHUB_TOKEN", "GH_TOKEN=gh" + "p_" + rep(MIX, 36)),
        ("GITLAB_TOKEN", "use glpat" + "-" + rep(MIX, 20)),
        ("HF_TOKEN", "login with hf" + "_" + rep(MIX, 34)),
        ("NPM_TOKEN", "//registry.npmjs.org/:_authToken=npm" + "_" + rep(MIX, 36)),
        ("PYPI_TOKEN", "password = pypi" + "-AgEIcHlwaS5vcmc" + rep(MIX, 70)),
        ("SLACK_TOKEN", "bot xoxb" + "-2401234567-2401234567890-" + rep(MIX, 24)),
        ("GOOGLE_OAUTH", "client secret GOCSPX" + "-" + rep(MIX, 28)),
        ("GOOGLE_API_KEY", "maps key AI" + "za" + rep(MIX, 35)),
        ("AWS_ACCESS_KEY", "id " + access),
        ("AWS_SECRET_KEY", "aws_secret_access_key = " + secret),
        ("AWS_SECRET_KEY", f"my keys: {access} {secret}"),  # no label: beside its id
        ("SENDGRID_KEY", "SENDGRID SG" + "." + rep(MIX, 22) + "." + rep(MIX, 43)),
        ("JWT", "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0." + rep(MIX, 43)),
        ("BEARER_TOKEN", "Authorization: Bearer " + rep(MIX, 40)),
        ("URL_PASSWORD", "postgres://app:" + "s3cr3t-Pa55" + "@db.internal.example:5432/app"),
        ("URL_PASSWORD", "https://u:" + "p@ss/w0rd" + "@example.com/x"),
        ("EMAIL", "write to maria.garcia+work@correo.example.es"),
        ("EMAIL", "jurgen.müller@example.de"),
        ("PHONE", "call +49 30 901820 44"),
        ("PHONE", "call +4915123456789"),
        ("PHONE", "call (415) 555-0132"),
        ("PHONE", "call 555 123 4567"),
        ("IP_ADDRESS", "server 198.51.100.23 is down"),
        ("IP_ADDRESS", "v6 2001:db8:85a3::8a2e:370:7334"),
        ("CARD_NUMBER", "card 4539 1488 0343 6467"),
    ]


def chatpipe(kinds: tuple[str, ...] | None = None) -> Callable[[str], int]:
    scanner = Scanner(kinds)
    return lambda text: sum(1 for _ in scanner.scan(text))


def gitleaks(path: Path) -> tuple[Callable[[str], int], int, int]:
    """A detector of gitleaks' rules: (count hits in a text, rules used, rules left out)."""
    import tomllib

    rules, skipped = [], 0
    for rule in tomllib.loads(path.read_text())["rules"]:
        if "regex" not in rule:  # (path-only rules)
            skipped += 1
            continue
        source = rule["regex"].replace(r"\z", r"\Z")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # (a POSIX class Python reads otherwise)
                pattern = re.compile(source)
        except (re.error, FutureWarning):
            skipped += 1
            continue
        keywords = [k.lower() for k in rule.get("keywords", [])]
        rules.append((pattern, keywords, rule.get("entropy"), rule.get("secretGroup", 0)))

    def hits(text: str) -> int:
        lower = text.lower()
        count = 0
        for pattern, keywords, entropy, group in rules:
            if keywords and not any(k in lower for k in keywords):
                continue
            for found in pattern.finditer(text):
                value = found.group(group if group else (1 if pattern.groups else 0)) or ""
                if entropy and _entropy(value) < entropy:
                    continue
                count += 1
        return count

    return hits, len(rules), skipped


def _entropy(text: str) -> float:
    if not text:
        return 0.0
    return -sum(
        n / len(text) * math.log2(n / len(text)) for n in (text.count(c) for c in set(text))
    )


def detect_secrets() -> Callable[[list[str]], list[int]] | None:
    """detect-secrets over lines: the hits on each (scan_file on a file of them)."""
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def per_line(lines: list[str]) -> list[int]:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as out:
            out.write("\n".join(" ".join(line.splitlines()) for line in lines) + "\n")
        counts = [0] * len(lines)
        with default_settings():
            for secret in scan_file(out.name):
                counts[secret.line_number - 1] += 1
        Path(out.name).unlink()
        return counts

    return per_line


def phonenumbers_matcher() -> Callable[[str], int] | None:
    try:
        import phonenumbers
    except ImportError:
        return None
    leniency = phonenumbers.Leniency.VALID
    return lambda text: sum(1 for _ in phonenumbers.PhoneNumberMatcher(text, "US", leniency))


def clean_texts(count: int) -> list[str]:
    rng, texts = random.Random(11), []
    for message in corpus.messages(rng):  # (an endless session)
        if isinstance(message.get("content"), str):
            texts.append(message["content"])
            if len(texts) == count:
                return texts
    return texts


def fixture_texts() -> list[str]:
    """Every string value of the JSON and JSONL fixtures (message texts, titles, tool
    arguments, metadata): real data with, as far as anyone knows, no secret in it."""
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            if len(value) > 3 and not value.startswith("data:"):
                texts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted((ROOT / "fixtures").glob("*.json*")):
        raw = path.read_text(encoding="utf-8", errors="replace")
        try:
            walk(json.loads(raw))
        except ValueError:
            for line in raw.splitlines():
                with contextlib.suppress(ValueError):
                    walk(json.loads(line))
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gitleaks", type=Path, help="gitleaks' config/gitleaks.toml")
    parser.add_argument("--clean", type=int, default=20_000, help="clean corpus texts")
    args = parser.parse_args()
    plants = planted()
    clean, fixtures = clean_texts(args.clean), fixture_texts()
    sizes = {
        "clean": sum(len(t.encode()) for t in clean) / 1e6,
        "fixtures": sum(len(t.encode()) for t in fixtures) / 1e6,
    }
    print(
        f"planted: {len(plants)} values of {len({k for k, _ in plants})} kinds; clean corpus: "
        f"{len(clean):,} texts, {sizes['clean']:.1f} MB; fixtures: {len(fixtures):,} strings, "
        f"{sizes['fixtures']:.2f} MB\n"
    )
    detectors: dict[str, Callable[[str], int]] = {
        "chatpipe": chatpipe(),
        "chatpipe, secrets only": chatpipe(tuple(k for k in Scanner().kinds if k not in PERSONAL)),
    }
    if args.gitleaks is not None:
        hits, used, left = gitleaks(args.gitleaks)
        detectors[f"gitleaks rules ({used} used, {left} left out)"] = hits
    phones = phonenumbers_matcher()
    if phones is not None:
        detectors["phonenumbers (phones only)"] = phones
    print(
        f"{'detector':44} {'secrets':>8} {'personal':>9} {'clean hits':>11} {'fixture hits':>13}"
        f" {'MB/s':>7}"
    )
    for name, hits in detectors.items():
        found = [bool(hits(text)) for _, text in plants]
        started = time.perf_counter()
        clean_hits = sum(hits(t) for t in clean)
        speed = sizes["clean"] / (time.perf_counter() - started)
        fixture_hits = sum(hits(t) for t in fixtures)
        print(
            f"{name:44} {_recall(plants, found)} {clean_hits:>11} {fixture_hits:>13} {speed:>7.1f}"
        )
        print(
            f"{'':44} missed: {', '.join(k for (k, _), f in zip(plants, found, strict=True) if not f)}"
        )
    lines = detect_secrets()
    if lines is not None:
        started = time.perf_counter()
        clean_hits = sum(lines(clean))
        speed = sizes["clean"] / (time.perf_counter() - started)
        found = [bool(n) for n in lines([t for _, t in plants])]
        name = "detect-secrets (default plugins, filters)"
        print(
            f"{name:44} {_recall(plants, found)} {clean_hits:>11} {sum(lines(fixtures)):>13} "
            f"{speed:>7.2f}"
        )
        print(
            f"{'':44} missed: {', '.join(k for (k, _), f in zip(plants, found, strict=True) if not f)}"
        )


def _recall(plants: list[tuple[str, str]], found: list[bool]) -> str:
    """Planted values found: of the secrets, of the personal data."""
    secret = [f for (k, _), f in zip(plants, found, strict=True) if k not in PERSONAL]
    personal = [f for (k, _), f in zip(plants, found, strict=True) if k in PERSONAL]
    return f"{sum(secret):>3}/{len(secret):<4} {sum(personal):>3}/{len(personal):<5}"


PERSONAL = ("EMAIL", "PHONE", "IP_ADDRESS", "CARD_NUMBER")

if __name__ == "__main__":
    main()
