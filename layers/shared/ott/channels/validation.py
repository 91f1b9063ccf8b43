"""A whole operator configuration file checked at once: every problem is listed, nothing is accepted when
there is one. What the spec says to repair is repaired and reported as a warning: invalid regular
expressions are dropped, duplicate categories merged, a category's channel list deduplicated and cleared
of channels that do not exist."""

import re
from dataclasses import dataclass

from pydantic import ValidationError

from ott.channels.models import Category, Channel, ChannelList, Settings, StreamSource, UserAgentRegexps
from ott.text import unsafe_text
from ott.wire import problems_of


class ConfigurationError(ValueError):
    """The file is not a valid configuration; `problems` lists every one, each named by its place."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the channel configuration:\n" + "\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class ValidConfiguration:
    channel_list: ChannelList
    warnings: list[str]


def validate_configuration(document: object) -> ValidConfiguration:
    """The repaired configuration and what was repaired; ConfigurationError listing every problem."""
    problems = unsafe_text(document) + duplicate_problems(document)
    try:
        channel_list = ChannelList.model_validate(document)
    except ValidationError as error:
        problems += problems_of(error, nowhere="file")
    if problems:
        raise ConfigurationError(problems)
    warnings: list[str] = []
    return ValidConfiguration(repaired(channel_list, warnings), warnings)


def duplicate_problems(document: object) -> list[str]:
    """Duplicate channel ids and aliases, stream ids within a channel, substream ids within a stream.
    Read from the document itself, so that they are found even where other fields are malformed."""
    channels = document.get("channels") if isinstance(document, dict) else None
    if not isinstance(channels, list):
        return []
    problems = repeated("channels", "id", channels) + repeated("channels", "alias", channels)
    for i, channel in enumerate(channels):
        streams = members(channel, "streams")
        problems += repeated(f"channels[{i}].streams", "id", streams)
        for j, stream in enumerate(streams):
            problems += repeated(f"channels[{i}].streams[{j}].substreams", "id", members(stream, "substreams"))
    return problems


def members(entry: object, key: str) -> list:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value if isinstance(value, list) else []


def repeated(where: str, key: str, entries: list) -> list[str]:
    first: dict[int | str, int] = {}
    problems = []
    for index, entry in enumerate(entries):
        value = entry.get(key) if isinstance(entry, dict) else None
        if not isinstance(value, int | str) or isinstance(value, bool):
            continue  # absent or malformed: the model reports it
        if value in first:
            problems.append(f"{where}[{index}].{key}: {value!r} is already used by {where}[{first[value]}]")
        else:
            first[value] = index
    return problems


def repaired(channel_list: ChannelList, warnings: list[str]) -> ChannelList:
    channels = [
        channel.model_copy(
            update={
                "streams": [
                    repaired_stream(s, f"channels[{i}].streams[{j}]", warnings) for j, s in enumerate(channel.streams)
                ]
            }
        )
        for i, channel in enumerate(channel_list.channels)
    ]
    settings = None
    if channel_list.settings is not None:
        settings = [
            Settings(
                access_denied_channels_display_control=usable_rules(
                    entry.access_denied_channels_display_control,
                    f"settings[{i}].access_denied_channels_display_control",
                    warnings,
                )
            )
            for i, entry in enumerate(channel_list.settings)
        ]
    categories = None
    if channel_list.categories is not None:
        categories = merged_categories(channel_list.categories, channels, warnings)
    return channel_list.model_copy(update={"channels": channels, "categories": categories, "settings": settings})


def repaired_stream(stream: StreamSource, where: str, warnings: list[str]) -> StreamSource:
    update: dict[str, object] = {"user_agents": usable_rules(stream.user_agents, f"{where}.user_agents", warnings)}
    if stream.substreams is not None:
        update["substreams"] = [
            repaired_stream(substream, f"{where}.substreams[{k}]", warnings)
            for k, substream in enumerate(stream.substreams)
        ]
    return stream.model_copy(update=update)


def usable_rules(rules: UserAgentRegexps | None, where: str, warnings: list[str]) -> UserAgentRegexps | None:
    """The rules without the expressions Python's `re` cannot compile (the spec: "an invalid expression is
    dropped")."""
    if rules is None:
        return None
    kept = []
    for index, expression in enumerate(rules.regexp_list):
        try:
            re.compile(expression)
            costly = costly_expression(expression)
        except (re.error, RecursionError, OverflowError) as error:
            warnings.append(f"{where}.regexp_list[{index}]: invalid regular expression dropped ({error})")
        else:
            if costly:
                warnings.append(f"{where}.regexp_list[{index}]: regular expression dropped: {costly}")
            else:
                kept.append(expression)
    if rules.regexp_list and not kept:
        audience = "no User-Agent" if rules.type == "INCLUDE" else "every User-Agent"
        warnings.append(f"{where}: no expression is left, so the rule now gives to {audience}")
    return rules.model_copy(update={"regexp_list": kept})


# Python's `re` backtracks: a quantifier inside a quantifier (`^(a+)+$`) or a backreference takes time exponential
# in the text's length, and each variable-length repeat multiplies the time by it. Issue 28, finding 5: those are
# dropped at load, at most this many variable-length repeats kept, and the playlist matches at most
# `ott.channels.playlist.MAX_USER_AGENT` characters of a User-Agent.
MAX_VARIABLE_REPEATS = 2


def costly_expression(expression: str) -> str | None:
    """Why matching `expression` could take time beyond a linear or low polynomial bound, or None."""
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    repeats = {sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)}
    variable = 0

    def walk(items: object, repeated: bool) -> str | None:
        nonlocal variable
        for op, argument in items:  # type: ignore[attr-defined]
            found = None
            if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
                return "a backreference (\\1, (?P=name), (?(1)…)) is not accepted"
            if op in repeats:
                low, high, body = argument
                if repeated and high > 1:
                    return "a quantifier inside a quantifier (such as (a+)+) is not accepted"
                variable += high - low > 16  # a ? or {0,5} multiplies the time by little
                found = walk(body, repeated or high > 1)
            elif op is sre.SUBPATTERN:
                found = walk(argument[3], repeated)
            elif op is sre.BRANCH:
                if repeated:
                    return "an alternation inside a quantifier (such as (a|ab)+) is not accepted"
                found = next((why for branch in argument[1] if (why := walk(branch, repeated))), None)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                found = walk(argument[1], repeated)
            elif op is getattr(sre, "ATOMIC_GROUP", None):
                found = walk(argument, repeated)
            if found:
                return found
        return None

    why = walk(sre_parse.parse(expression), False)
    if why is None and variable > MAX_VARIABLE_REPEATS:
        why = f"more than {MAX_VARIABLE_REPEATS} unbounded repeats (*, +, {{m,}}, {{m,n}} past 16) are not accepted"
    return why


def merged_categories(categories: list[Category], channels: list[Channel], warnings: list[str]) -> list[Category]:
    """Categories of one title merged into the first (its place, then the others' channels in order); each
    channel listed once, channels that do not exist removed."""
    existing = {channel.id for channel in channels}
    merged: dict[str, tuple[int, list[int]]] = {}
    for index, category in enumerate(categories):
        if category.title in merged:
            first, listed = merged[category.title]
            warnings.append(f"categories[{index}]: same title as categories[{first}] ({category.title!r}), merged")
            listed.extend(category.channels)
        else:
            merged[category.title] = (index, list(category.channels))
    result = []
    for title, (index, listed) in merged.items():
        kept: list[int] = []
        seen: set[int] = set()
        listed_again: set[int] = set()
        for channel_id in listed:
            if channel_id in seen:
                if channel_id in existing and channel_id not in listed_again:
                    warnings.append(f"categories[{index}].channels: channel {channel_id} is listed again, kept once")
                    listed_again.add(channel_id)
            elif channel_id not in existing:
                warnings.append(f"categories[{index}].channels: channel {channel_id} does not exist, removed")
            else:
                kept.append(channel_id)
            seen.add(channel_id)
        result.append(Category(title=title, channels=kept))
    return result
