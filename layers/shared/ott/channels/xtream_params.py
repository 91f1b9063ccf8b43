"""What the Xtream Codes routes take (issue 29), as players send it: the username and password in the query (or a
POST form: IPTV Smarters), in the path for playback; every value bounded, anything else a clear 400."""

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ott.errors import InvalidInput
from ott.wire import problems_of

# Platform-made logins are letters and digits; a player may send anything, which is looked up and not found.
Credential = Annotated[str, Field(max_length=64, pattern=r"^[A-Za-z0-9._@+-]*$")]
Number = Annotated[str, Field(max_length=10, pattern=r"^[0-9]{1,10}$")]

M = TypeVar("M", bound=BaseModel)


class XtreamParams(BaseModel):
    """`get.php`, `xmltv.php`: the login. `type` and `output` are the link's own (`m3u_plus`, `m3u8` or `ts`)."""

    model_config = ConfigDict(extra="ignore")

    username: Credential = ""
    password: Credential = ""
    type: Annotated[str, Field(max_length=16, pattern=r"^[a-z0-9_]*$")] = "m3u_plus"
    output: Annotated[str, Field(max_length=8, pattern=r"^[a-z0-9]*$")] = "ts"


class PlayerApiParams(BaseModel):
    """`player_api.php`: the login, the action (none: the account's user_info and server_info) and its values."""

    model_config = ConfigDict(extra="ignore")

    username: Credential = ""
    password: Credential = ""
    action: Annotated[str, Field(max_length=32, pattern=r"^[a-z_]*$")] = ""
    category_id: Number | None = None
    stream_id: Number | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 4


class LivePath(BaseModel):
    """`/live/{username}/{password}/{stream}`: the stream is `{stream_id}.{ext}` (ts, m3u8...: the address the
    player is sent to is the channel's own, whatever the extension)."""

    model_config = ConfigDict(extra="ignore")

    username: Credential
    password: Credential
    stream: Annotated[str, Field(max_length=16, pattern=r"^[0-9]{1,10}\.[A-Za-z0-9]{1,5}$")]

    @property
    def stream_id(self) -> int:
        return int(self.stream.split(".", 1)[0])


class TimeshiftPath(LivePath):
    """`/timeshift/{username}/{password}/{minutes}/{start}/{stream}`: the start in the server's time zone (the
    subscriber's programme zone, as player_api's server_info says), `YYYY-MM-DD:HH-MM`."""

    minutes: Annotated[str, Field(max_length=4, pattern=r"^[0-9]{1,4}$")]
    start: Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}:[0-9]{2}-[0-9]{2}$")]


def parsed(model: type[M], values: dict[str, Any] | None) -> M:
    """`values` as `model`, or a 400 naming each problem (never echoing the value)."""
    try:
        return model.model_validate(values or {})
    except ValidationError as error:
        raise InvalidInput("; ".join(problems_of(error))) from None
