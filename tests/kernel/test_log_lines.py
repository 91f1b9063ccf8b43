"""No single log line over 64 KB whatever a request sent (issue 28): a huge message, a huge exception, a huge extra
value are cut with their length said, and the line stays one JSON object with Powertools' keys."""

import io
import json
import logging

import pytest

from ott.observability import LONGEST_LINE, logger


@pytest.fixture
def printed():
    handler = logger.registered_handler
    sink = io.StringIO()
    before = handler.setStream(sink)
    level = logger.log_level
    logger.setLevel(logging.INFO)
    yield sink
    handler.setStream(before)
    logger.setLevel(level)


def lines(sink: io.StringIO) -> list[dict]:
    text = sink.getvalue().splitlines()
    assert all(len(line) <= LONGEST_LINE for line in text)
    return [json.loads(line) for line in text]


def test_a_huge_message_and_extra_value_are_cut_to_one_bounded_line(printed):
    logger.info("[" * 400_000, extra={"problems": ["x" * 1000] * 500})
    [line] = lines(printed)
    assert line["level"] == "INFO" and "service" in line
    assert line["message"].startswith("[[[[") and "400,000 characters, cut" in line["message"]
    assert "characters, cut" in line["problems"]


def test_a_huge_exception_is_cut_to_one_bounded_line(printed):
    try:
        raise ValueError("y" * 500_000)
    except ValueError:
        logger.exception("parsing failed")
    [line] = lines(printed)
    assert line["message"] == "parsing failed" and "characters, cut" in line["exception"]


def test_an_ordinary_line_is_left_as_it_is(printed):
    logger.info("loaded", extra={"count": 3})
    [line] = lines(printed)
    assert line["message"] == "loaded" and line["count"] == 3


def test_a_deeply_nested_message_is_logged_as_text_not_raised(printed):
    """Powertools decodes a message that is JSON text; 5,000 `[` raised RecursionError out of the log call."""
    logger.warning("[" * 5000)
    [line] = lines(printed)
    assert line["message"] == "[" * 5000
