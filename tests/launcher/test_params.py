"""The launcher's query parameters as they arrive in the query string (issue 9): the switches take `true` or
`false`, `time_travel` is ISO 8601 or seconds since the epoch, `id` is decimal digits."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from ott.launcher.params import PosterParams, PostersParams

NINE_UTC = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2025-03-01T12:00:00+03:00",
        "2025-03-01T12:00:00 03:00",  # a `+` the client left unencoded arrives as a space
        "2025-03-01T09:00:00Z",
        "2025-03-01T09:00:00",  # no offset: UTC
        "20250301T090000Z",
        "1740819600",
    ],
)
def test_time_travel_is_iso_8601_or_epoch_seconds(text):
    assert PostersParams.model_validate({"statistics": "true", "time_travel": text}).time_travel == NINE_UTC


@pytest.mark.parametrize("text", ["yesterday", "", "1740819600000000", "-5", "2025-13-01", "x" * 41])
def test_other_timestamps_are_refused(text):
    with pytest.raises(ValidationError):
        PostersParams.model_validate({"time_travel": text})


def test_switches_take_true_or_false_only():
    params = PostersParams.model_validate({"moderation": "true", "statistics": "false"})
    assert (params.moderation, params.statistics) == (True, False)
    for value in ("yes", "1", "True", ""):
        with pytest.raises(ValidationError):
            PostersParams.model_validate({"moderation": value})


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("5", True),
        ("18446744073709551615", True),
        ("0", False),
        ("+5", False),
        (" 5", False),
        ("1_0", False),
        ("18446744073709551616", False),
    ],
)
def test_the_collection_id_is_decimal_digits(text, valid):
    if valid:
        assert PosterParams.model_validate({"id": text}).id == int(text)
    else:
        with pytest.raises(ValidationError):
            PosterParams.model_validate({"id": text})
    with pytest.raises(ValidationError):
        PosterParams.model_validate({})
