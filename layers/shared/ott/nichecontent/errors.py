"""Why an encoder's request is not accepted. Encoders resend until they get a 2xx, so each answer says
whether resending can ever help: a malformed request (400) and an impossible move (409) must be changed,
an unknown item (404) does not exist here."""

from ott.errors import DomainError, InvalidInput, NotFound


class MalformedUpdate(InvalidInput):
    """A parameter is missing or malformed, or the combination is not one the spec allows."""


class ImpossibleMove(DomainError):
    """The item's status does not allow this move now (spec document 3, section 3.B)."""

    code = "conflict"
    status = 409


class ItemConflict(ImpossibleMove):
    """An item with this id is queued already, from another source: content to encode again gets a new id."""


class UnknownItem(NotFound):
    """No item has this id."""
