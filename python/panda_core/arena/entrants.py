"""The arena's entrants from what a user gives: bot specs, ``label=spec`` pairs, a mapping of
labels to specs, or bot objects.

The text form (a string of entrants, one ``-e`` of the command line) is a comma-separated list
of ``[label=]spec``. A label is what comes before the first ``=``, when that part holds no ``:``
and no ``,`` (so ``neural:./a=b.safetensors`` is a spec, not a label). A ``neural:PATH`` or an
``exec:COMMAND`` entrant ends the list: its path or command is all the rest of the text, commas
and ``=`` included, so any path or command can be named
(``-e 'mine=neural:./runs/a,b=1.safetensors'``, ``-e 'js=exec:node "my bot.js" --depth=2,3'``;
the entrants after it go in their own ``-e``). An
``exec:`` command is split as a POSIX shell would (``shlex.split``): quote an argument holding
spaces inside the command, and quote the whole ``-e`` for the shell itself. A bot spec in a list
(Python API) is one entrant, split only into label and spec.

Containment (:attr:`~panda_core.arena.model.Entrant.contained`): a Python bot given by import
path plays in a process of its own through the protocol's adapter unless the arena is run
in-process (:func:`contain`); a bot object cannot be contained.

Everything is checked here, in the process that starts the arena, before any game is played: a
built-in name by the engine's own bot parser, a Python bot by importing it (the workers import
it again; a module that imports here but not there is a worker-side failure, reported as a
forfeit). Labels are what every result, table and plot calls an entrant; they are unique.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from panda_core._args import cut, shown
from panda_core._core import NeuralPolicy, RulesError
from panda_core.arena.errors import ArenaError
from panda_core.arena.model import Entrant
from panda_core.bot_import import (
    EXEC_PREFIX,
    LLM_PREFIX,
    bot_spec_kind,
    exec_command,
    takes_rest,
)
from panda_core.bots import bot_name

__all__ = ["MAX_ENTRANTS", "contain", "parse_entrants", "split_entrants", "with_policies"]

MAX_ENTRANTS = 64
"""Most entrants in one arena (the head-to-head table grows with its square)."""

_LABEL_CHARS = 40


def parse_entrants(entrants: object) -> tuple[Entrant, ...]:
    """The entrants of an arena (see the module docs); :class:`ArenaError` says what is wrong."""
    if isinstance(entrants, str):
        items: list[tuple[str | None, Any]] = list(split_entrants(entrants))
    elif isinstance(entrants, Mapping):
        items = [(_label_arg(label), value) for label, value in entrants.items()]
    elif isinstance(entrants, Sequence):
        items = [_split_label(e) if isinstance(e, str) else (None, e) for e in entrants]
    else:
        raise TypeError(
            "entrants are a list of bot specs ('heuristic', 'ismcts:200', 'pkg.mod:Bot'), "
            f"a comma-separated string, or a mapping of labels to them; got {shown(entrants)}"
        )
    if not 2 <= len(items) <= MAX_ENTRANTS:
        raise ArenaError(
            f"an arena has 2 to {MAX_ENTRANTS} entrants, got {len(items)}: a rating compares "
            "bots, so give at least two (for example your bot and 'heuristic')"
        )
    made = [_entrant(label, value) for label, value in items]
    return _unique_labels(made)


_NEURAL_PATH = "neural:"


def split_entrants(text: str) -> list[tuple[str | None, str]]:
    """The ``(label, spec)`` pairs of a text of entrants (the module docs give the rule)."""
    out: list[tuple[str | None, str]] = []
    rest = text
    while True:
        label, spec = _split_label(rest)
        if takes_rest(spec):  # a path or a command: the rest, commas included
            out.append((label, spec))
            return out
        spec, comma, rest = spec.partition(",")
        out.append((label, spec.strip()))
        if not comma:
            return out


def _split_label(text: str) -> tuple[str | None, str]:
    """``"label=spec"`` or ``"spec"``: the label is the text before the first ``=`` if it holds
    no ``:`` (a spec's) and no ``,`` (the next entrant's)."""
    text = text.strip()
    label, sep, spec = text.partition("=")
    if sep and ":" not in label and "," not in label:
        return _label_arg(label.strip()), spec.strip()
    return None, text


def _label_arg(label: object) -> str:
    if not isinstance(label, str):
        raise TypeError(f"an entrant's label is a str, got {shown(label)}")
    if not label or len(label) > _LABEL_CHARS or not label.isprintable() or "," in label:
        raise ArenaError(
            f"an entrant's label is 1 to {_LABEL_CHARS} printable characters without a comma, "
            f"got {cut(label)!r}"
        )
    return label


def _entrant(label: str | None, value: object) -> Entrant:
    if isinstance(value, str):
        spec = value.strip()
        try:
            kind = bot_spec_kind(spec)  # a missing module or attribute: a BotImportError, now
        except RulesError as err:  # 'ismcts:0', a policy file that does not play
            raise ArenaError(f"bad entrant {cut(spec)!r}: {err}") from err
        if kind == "builtin":
            return Entrant(label=label or spec, spec=spec, builtin=True)
        if kind == "python":
            return Entrant(label=label or spec.rpartition(":")[2], spec=spec, builtin=False)
        if kind == "exec":
            return Entrant(label=label or _command_label(spec), spec=spec, builtin=False)
        if kind == "llm":
            model = spec[len(LLM_PREFIX) :].partition("?")[0] or spec
            return Entrant(label=label or model[:_LABEL_CHARS], spec=spec, builtin=False)
        raise ArenaError(
            f"unknown entrant {cut(spec)!r}: an entrant is a built-in bot ('random', "
            "'heuristic', 'ismcts', 'ismcts:N', 'neural', 'neural:PATH', 'ismcts+neural:N'), a "
            "protocol bot "
            "'exec:COMMAND', a language model 'llm:MODEL' or a Python bot "
            "'package.module:attr', optionally labelled 'label=spec'"
        )
    if callable(value):
        name = label or bot_name(value)
        return Entrant(
            label=name[:_LABEL_CHARS],
            spec=f"<object {bot_name(value)}>",
            builtin=False,
            bot=value,
            contained=_contained_object(value),
        )
    raise TypeError(
        f"an entrant is a bot spec (str) or a bot callable as bot(game, player), got {shown(value)}"
    )


def _contained_object(bot: object) -> bool:
    """Whether a bot object is contained: an :class:`ExecBot` (its process holds only its
    seat's messages; exactly that class: a subclass may run anything here). Any other object
    runs in the arena's processes."""
    from panda_core.protocol.exec_bot import ExecBot

    return type(bot) is ExecBot


def _command_label(spec: str) -> str:
    """An ``exec:`` entrant's default label: the name (without extension) of its last argument
    that is not an option (``exec:node bots/my_bot.js --fast``: ``my_bot``), else the
    program's."""
    argv = exec_command(spec) or ("exec",)
    words = [a for a in argv[1:] if not a.startswith("-")] or [argv[0]]
    name = PurePath(words[-1]).name
    stem = name.rpartition(".")[0] or name
    label = "".join(c if c.isprintable() and c != "," else "_" for c in stem) or "exec"
    return label[:_LABEL_CHARS]


def contain(entrants: tuple[Entrant, ...], contained: bool) -> tuple[Entrant, ...]:
    """The entrants with each Python bot given by import path contained (``True``: in a process
    of its own, the default) or in-process (``False``); the others as they are."""
    return tuple(replace(e, contained=contained) if _is_python_path(e) else e for e in entrants)


def _is_python_path(e: Entrant) -> bool:
    return not e.builtin and e.bot is None and not e.spec.startswith((EXEC_PREFIX, LLM_PREFIX))


def _unique_labels(entrants: Sequence[Entrant]) -> tuple[Entrant, ...]:
    """Entrants with unique labels: a repeated label gets ``#2``, ``#3``… (two copies of one bot
    are two entrants, rated apart: a check of the arena's noise)."""
    seen: dict[str, int] = {}
    out = []
    for e in entrants:
        count = seen.get(e.label, 0) + 1
        seen[e.label] = count
        label = e.label if count == 1 else f"{e.label}#{count}"
        out.append(replace(e, label=label))
    labels = [e.label for e in out]
    if len(set(labels)) != len(labels):  # "a#2" given by hand next to two "a"
        raise ArenaError(f"entrant labels must be unique, got {labels}")
    return tuple(out)


def with_policies(entrants: tuple[Entrant, ...], game: str) -> tuple[Entrant, ...]:
    """The entrants with the hash of the policy each ``neural`` or ``ismcts+neural`` entrant plays
    in ``game``
    (:attr:`Entrant.policy`)."""
    out = []
    for e in entrants:
        if e.builtin and (e.spec == "neural" or e.spec.startswith("neural:")):
            path = e.spec.removeprefix("neural").removeprefix(":")
            policy = NeuralPolicy.load(path) if path else NeuralPolicy.shipped(game)
            e = replace(e, policy=policy.sha256)
        elif e.builtin and e.spec.startswith("ismcts+neural"):
            # ismcts+neural, ismcts+neural:N or ismcts+neural:N:PATH
            parts = e.spec.split(":", 2)
            policy = NeuralPolicy.load(parts[2]) if len(parts) == 3 else NeuralPolicy.shipped(game)
            e = replace(e, policy=policy.sha256)
        out.append(e)
    return tuple(out)
