"""Which numbers the service accepts: Russian mobile numbers, written 79…, +79… or 89…."""

import re

from ott.errors import InvalidValue

FORM = re.compile(r"^(?:\+7|7|8)(9\d{9})$")


def normalize(text: str) -> str:
    """The number as 7XXXXXXXXXX, or InvalidValue (HTTP 422)."""
    match = FORM.fullmatch(text.strip())
    if not match:
        raise InvalidValue("phone must be 11 digits starting with 79, +79 or 89")
    import phonenumbers  # deferred: only `confirm` needs the numbering plan

    number = phonenumbers.parse(f"+7{match.group(1)}")
    if phonenumbers.number_type(number) != phonenumbers.PhoneNumberType.MOBILE:
        raise InvalidValue("phone is not a Russian mobile number")
    return f"7{match.group(1)}"
