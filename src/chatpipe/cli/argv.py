"""The commands, and the command line as click should see it: the command an argument
list names, and each option moved where click takes it."""

from __future__ import annotations

# each command as "module:function" in this package, in the order help lists them; its
# name is the function's, without the trailing _ that keeps a builtin's name free. A run
# imports and builds only the command it names.
_WHERE = (
    "convert:convert",
    "buffer:buffer",
    "template:template",
    "tokenize:tokenize",
    "openai_dicts:openai",
    "trim:trim",
    "count:count",
    "filter:filter_",
    "filter:merge",
    "validate:validate",
    "stats:stats",
    "show:show",
    "select:select",
    "grep:grep",
    "sample:head",
    "sample:sample",
    "sample:split",
    "dedupe_redact:dedupe",
    "dedupe_redact:redact",
)
# command name -> (module, function)
COMMANDS = {
    function.rstrip("_"): (module, function)
    for module, function in (entry.split(":") for entry in _WHERE)
}
# root options that take a value, so the value is not mistaken for a command name
ROOT_VALUED = ("--max-record-bytes", "--max-depth", "--max-yaml-values")


def _root_part(argv: list[str]) -> tuple[list[str], int | None]:
    """The arguments before the first that is not an option (or an option's value), and
    that argument's index (None when there is none)."""
    skip = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg in ROOT_VALUED:
            skip = True
        elif not arg.startswith("-"):
            return argv[:i], i
    return list(argv), None


def invoked_command(argv: list[str]) -> str | None:
    """The command an argument list names, past the root options; None for help and typos."""
    _, at = _root_part(argv)
    return argv[at] if at is not None and argv[at] in COMMANDS else None


def asks_version(argv: list[str]) -> bool:
    """Whether the root options ask for the version (no command needs building)."""
    return "--version" in _root_part(argv)[0]


def _is_talk_flag(arg: str) -> bool:
    """-v, -vv..., --verbose, -q, --quiet: options of every command."""
    return arg in ("--verbose", "-q", "--quiet") or (
        len(arg) > 1 and arg[0] == "-" and set(arg[1:]) == {"v"}
    )


def arrange(argv: list[str]) -> list[str]:
    """The command line with each option where click takes it: the root's limits
    (``--max-depth``...) may also come after the command, and ``-v``/``-q`` before it."""
    args = list(argv)
    _, at = _root_part(args)
    if at is None or args[at] not in COMMANDS:
        return args
    before, command, after = args[:at], args[at], args[at + 1 :]
    talk = [arg for arg in before if _is_talk_flag(arg)]
    before = [arg for arg in before if not _is_talk_flag(arg)]
    roots: list[str] = []
    rest: list[str] = []
    tokens = iter(after)
    for arg in tokens:
        if arg == "--":  # what follows is files, whatever it looks like
            rest.append(arg)
            rest.extend(tokens)
            break
        if arg in ROOT_VALUED:
            roots.append(arg)
            value = next(tokens, None)
            if value is not None:
                roots.append(value)
        elif arg.startswith(tuple(f"{name}=" for name in ROOT_VALUED)):
            roots.append(arg)
        else:
            rest.append(arg)
    return [*before, *roots, command, *talk, *rest]
