"""Requests and replies of the phone confirmation service (spec document 1, 2 and 4.B)."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

RequestId = Annotated[StrictStr, Field(min_length=1, max_length=64)] | StrictInt


class Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ConfirmRequest(Body):
    phone: Annotated[StrictStr, Field(max_length=32)]
    request_id: Annotated[StrictStr, Field(max_length=64)] | None = None


class VerifyRequest(Body):
    request_id: RequestId  # the spec declares an integer here and a string elsewhere: both are accepted


class CheckCodeRequest(Body):
    request_id: RequestId
    code: Annotated[StrictStr, Field(max_length=16)]


Result = Literal["ok", "error"]
Channel = Literal["sim-push", "call", "sms"]
CodeInput = Literal["4_digit_code", "no_code"]


class ConfirmReply(BaseModel):
    result: Result
    request_id: str
    type: Channel
    code_input_required: CodeInput
    ttl: int
    timeout: int
    error: str | None = None


class VerifyReply(BaseModel):
    result: Result
    status: Literal["confirmed", "unconfirmed"]
    code_input_required: CodeInput
    error_attempts: int
    max_attempts: int
    ttl: int
    error: str | None = None


class CheckCodeReply(BaseModel):
    result: Result
    error: str | None = None
