"""Macros of the component's templates (spec document 3, section 2.A), written as Python's %-formatting
writes a named value: `%(name)s` for text, `%(name)d` for a number. The component fills them in; an
unknown name or a wrong conversion would fail there, at the moment a viewer asks for a stream."""

import re
from dataclasses import dataclass

# Every macro the spec names, with its conversion.
MACROS: dict[str, str] = {
    "session_id": "s",
    "filename": "s",
    "program_id": "s",
    "date_time": "s",
    "alias": "s",
    "stream_id": "d",
    "substream_id": "d",
}

PERCENT = re.compile(r"%(?:\((?P<name>[^()]*)\)(?P<conversion>[a-zA-Z]?)|(?P<other>.?))", re.DOTALL)


@dataclass(frozen=True)
class TemplateField:
    """A field the component fills in: the macros the spec names for it, the one it must contain."""

    allowed: frozenset[str]
    required: str | None = None

    def problems(self, template: str) -> list[str]:
        found = []
        named = set()
        known = ", ".join(sorted(spelled(macro) for macro in self.allowed))
        for match in PERCENT.finditer(template):
            name, conversion, other = match.group("name", "conversion", "other")
            if name is None:
                if other != "%":
                    found.append(f"'%{other}' starts no macro (write %% for a percent sign)")
                continue
            named.add(name)
            if name not in MACROS:
                found.append(f"unknown macro %({name}){conversion} (this field knows {known})")
            elif name not in self.allowed:
                found.append(f"%({name}){conversion} is not a macro of this field (it knows {known})")
            elif conversion != MACROS[name]:
                found.append(f"%({name}){conversion} has the wrong conversion: write {spelled(name)}")
        if self.required and self.required not in named:
            found.append(f"must contain {spelled(self.required)}")
        return found


def spelled(name: str) -> str:
    return f"%({name}){MACROS[name]}"


def escape(text: str) -> str:
    """Text taken literally by the component."""
    return text.replace("%", "%%")


URL = TemplateField(frozenset({"session_id"}))
PROTECTED_PATH = TemplateField(frozenset({"filename"}), required="filename")
TIMESHIFT_URL = TemplateField(frozenset({"program_id"}), required="program_id")
TIMESHIFT_HEADER = TemplateField(frozenset({"alias", "stream_id", "substream_id", "session_id"}))
RECORDS_PROTECTED_PATH = TemplateField(frozenset({"date_time", "filename"}), required="date_time")
