"""An operator's configuration file checked whole (issue 10): every problem listed at once, nothing accepted
when there is one; what the spec repairs is repaired and reported as a warning."""

import copy

import pytest

from ott.channels.validation import ConfigurationError, validate_configuration


def hls(stream_id: int, **fields) -> dict:
    return {"id": stream_id, "url": f"http://origin/{stream_id}.m3u8", "protected_path": "/s/%(filename)s", **fields}


VALID = {
    "title": "Demo",
    "channels": [
        {"id": 1, "alias": "one", "title": "One", "streams": [hls(1), hls(2)]},
        {
            "id": 2,
            "alias": "two",
            "title": "Two",
            "streams": [{"id": 1, "type": "HLS_VARIANT", "url": "", "substreams": [hls(1), hls(2)]}],
        },
        {
            "id": 3,
            "alias": "three",
            "title": "Three",
            "streams": [{"id": 1, "type": "UDP", "url": "udp://@239.1.1.1:5000"}],
        },
    ],
    "categories": [{"title": "News", "channels": [1, 2]}],
}


def document(**changes) -> dict:
    """VALID with `changes` applied: keys are paths such as "channels.0.streams.1.url"; None removes."""
    result = copy.deepcopy(VALID)
    for path, value in changes.items():
        *parents, last = path.split(".")
        target = result
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        key = int(last) if isinstance(target, list) else last
        if value is None:
            del target[key]
        else:
            target[key] = value
    return result


def problems_of(doc: dict) -> list[str]:
    with pytest.raises(ConfigurationError) as caught:
        validate_configuration(doc)
    return caught.value.problems


def test_the_valid_file_passes_without_warnings():
    result = validate_configuration(VALID)
    assert result.warnings == []
    assert result.channel_list.model_dump(mode="json", exclude_none=True)["categories"] == VALID["categories"]


@pytest.mark.parametrize(
    "path",
    [
        "title",
        "channels",
        "channels.0.id",
        "channels.0.alias",
        "channels.0.title",
        "channels.0.streams",
        "channels.0.streams.0.id",
        "channels.0.streams.0.url",
        "categories.0.title",
        "categories.0.channels",
    ],
)
def test_a_missing_required_field_is_refused(path):
    assert problems_of(document(**{path: None})) == [f"{place(path)}: Field required"]


def place(path: str) -> str:
    return "".join(f"[{part}]" if part.isdigit() else f".{part}" for part in path.split(".")).lstrip(".")


def test_a_missing_regexp_list_is_refused_and_type_defaults_to_include():
    assert problems_of(document(**{"channels.2.streams.0.user_agents": {"type": "EXCLUDE"}})) == [
        "channels[2].streams[0].user_agents.regexp_list: Field required"
    ]


def test_an_empty_channel_list_is_refused():
    assert problems_of(document(channels=[], categories=[])) == [
        "channels: List should have at least 1 item after validation, not 0"
    ]


@pytest.mark.parametrize(
    ("path", "value", "problem"),
    [
        ("channels.1.id", 1, "channels[1].id: 1 is already used by channels[0]"),
        ("channels.2.alias", "one", "channels[2].alias: 'one' is already used by channels[0]"),
        ("channels.0.streams.1.id", 1, "channels[0].streams[1].id: 1 is already used by channels[0].streams[0]"),
        (
            "channels.1.streams.0.substreams.1.id",
            1,
            "channels[1].streams[0].substreams[1].id: 1 is already used by channels[1].streams[0].substreams[0]",
        ),
    ],
)
def test_duplicate_identifiers_are_refused(path, value, problem):
    assert problems_of(document(**{path: value})) == [problem]


def test_the_same_stream_id_in_two_channels_is_fine():
    assert validate_configuration(document(**{"channels.2.streams.0.id": 1})).warnings == []


@pytest.mark.parametrize(
    ("stream", "problem"),
    [
        (
            {"id": 1, "url": "http://o/a.m3u8"},
            "protected_path: HLS needs protected_path containing %(filename)s",
        ),
        (
            {"id": 1, "url": "http://o/a.m3u8", "protected_path": "/segments/"},
            "protected_path: must contain %(filename)s",
        ),
        (
            hls(1, has_timeshift=True),
            "timeshift_url: has_timeshift needs timeshift_url containing %(program_id)s",
        ),
        (
            hls(1, has_timeshift=True, timeshift_url="http://o/ts.m3u8"),
            "timeshift_url: must contain %(program_id)s",
        ),
        (
            hls(1, recordable=True),
            "records_protected_path: recordable needs records_protected_path containing %(date_time)s",
        ),
        (
            hls(1, recordable=True, records_protected_path="/rec/%(filename)s"),
            "records_protected_path: must contain %(date_time)s",
        ),
        (
            {"id": 1, "type": "UDP", "url": "udp://@239.1.1.1:5000", "substreams": [hls(1)]},
            "substreams: substreams are only for HLS_VARIANT, not UDP",
        ),
        (
            hls(1, substreams=[hls(1)]),
            "substreams: substreams are only for HLS_VARIANT, not HLS",
        ),
        (
            {"id": 1, "type": "HLS_VARIANT", "url": "", "substreams": [{"id": 1, "type": "RAW", "url": "http://o/x"}]},
            "substreams: substream 0 is RAW: substreams must be HLS",
        ),
        (
            {"id": 1, "type": "HLS_VARIANT", "url": ""},
            "substreams: HLS_VARIANT with an empty url needs substreams to generate it from",
        ),
        (
            {"id": 1, "type": "UDP", "url": ""},
            "url: may be empty only for HLS_VARIANT, not UDP",
        ),
    ],
)
def test_rules_of_a_stream(stream, problem):
    assert problems_of(document(**{"channels.2.streams": [stream]})) == [f"channels[2].streams[0].{problem}"]


def test_the_flags_off_need_no_template():
    stream = hls(1, has_timeshift=False, recordable=False)
    assert validate_configuration(document(**{"channels.2.streams": [stream]})).warnings == []


def test_nesting_deeper_than_one_level_is_refused():
    variant = {"id": 1, "type": "HLS_VARIANT", "url": "", "substreams": [hls(1)]}
    nested = {**variant, "substreams": [variant]}
    assert problems_of(document(**{"channels.2.streams": [nested]})) == [
        "channels[2].streams[0].substreams: substream 0 is HLS_VARIANT: substreams must be HLS; "
        "substream 0 has substreams: nesting deeper than one level",
    ]


def test_an_hls_substream_with_substreams_is_refused_where_it_stands():
    nested = {"id": 1, "type": "HLS_VARIANT", "url": "", "substreams": [hls(1, substreams=[hls(1)])]}
    assert problems_of(document(**{"channels.2.streams": [nested]})) == [
        "channels[2].streams[0].substreams[0].substreams: substreams are only for HLS_VARIANT, not HLS",
    ]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("timeshift_header", "X: %(stream_id)s", "%(stream_id)s has the wrong conversion: write %(stream_id)d"),
        (
            "timeshift_header",
            "X: %(substream_id)s",
            "%(substream_id)s has the wrong conversion: write %(substream_id)d",
        ),
        ("timeshift_header", "X: %(alias)d", "%(alias)d has the wrong conversion: write %(alias)s"),
        (
            "timeshift_header",
            "X: %(channel)s",
            "unknown macro %(channel)s (this field knows %(alias)s, %(session_id)s, %(stream_id)d, %(substream_id)d)",
        ),
        ("timeshift_header", "X: 100%", "'%' starts no macro (write %% for a percent sign)"),
        ("protected_path", "/s/%(filename)d", "%(filename)d has the wrong conversion: write %(filename)s"),
        (
            "protected_path",
            "/s/%(program_id)s/%(filename)s",
            "%(program_id)s is not a macro of this field (it knows %(filename)s)",
        ),
        ("protected_path", "/s/%20/%(filename)s", "'%2' starts no macro (write %% for a percent sign)"),
        ("url", "http://o/%(session)s.m3u8", "unknown macro %(session)s (this field knows %(session_id)s)"),
        ("url", "http://o/%(session_id)d.m3u8", "%(session_id)d has the wrong conversion: write %(session_id)s"),
    ],
)
def test_macros_are_checked(field, value, problem):
    assert problems_of(document(**{f"channels.0.streams.0.{field}": value})) == [
        f"channels[0].streams[0].{field}: {problem}"
    ]


def test_every_macro_of_the_spec_in_its_field_passes():
    stream = hls(
        1,
        url="http://o/live.m3u8?s=%(session_id)s&literal=100%%",
        has_timeshift=True,
        timeshift_url="http://o/ts/%(program_id)s.m3u8",
        timeshift_header="X: %(alias)s %(stream_id)d %(substream_id)d %(session_id)s",
        recordable=True,
        records_protected_path="/rec/%(date_time)s/%(filename)s",
    )
    assert validate_configuration(document(**{"channels.0.streams": [stream]})).warnings == []


def test_a_raw_address_is_taken_as_is():
    raw = {"id": 1, "type": "RAW", "url": "http://o/play?a=%20%(x)d"}
    assert validate_configuration(document(**{"channels.2.streams": [raw]})).warnings == []


@pytest.mark.parametrize("character", ["\x00", "\x07", "\x1b", "\ufffe", "\uffff", "\ud800"])
def test_text_refuses_characters_xml_cannot_carry(character):
    problems = problems_of(document(**{"channels.0.title": f"On{character}e"}))
    assert f"channels[0].title: character U+{ord(character):04X} is not allowed in text" in problems


@pytest.mark.parametrize("character", ["\n", "\t", "\r", "\u2028", "\u2029", "\x85", "\x9b"])
def test_titles_are_one_line(character):
    assert problems_of(document(**{"categories.0.title": f"Ne{character}ws"})) == [
        f"categories[0].title: must be one line of text: character U+{ord(character):04X} (a tab, line break or "
        "control) is not"
    ]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("channels.0.alias", "one two"),
        ("channels.0.alias", "x" * 65),
        ("channels.0.logo_url", "javascript:alert(1)"),
        ("channels.0.streams.0.url", "not a url"),
        ("channels.0.streams.0.resolution", "720p"),
        ("channels.0.streams.0.name", "SD"),
        ("channels.0.streams.0.crop_iptv", "1280x720"),
        ("channels.0.streams.0.aspect_ratio", "16/9"),
        ("channels.0.title", "x" * 257),
    ],
)
def test_formats_of_the_spec_are_checked(path, value):
    assert len(problems_of(document(**{path: value}))) == 1


def test_every_problem_of_the_file_is_listed_at_once():
    doc = document(
        **{
            "channels.0.streams.0.bandwidth": "fast",  # malformed field: the stream does not parse
            "channels.0.streams.1.id": 1,  # duplicate in the same channel: still found
            "channels.1.alias": "one",  # duplicate alias: still found although channel 0 is broken
            "channels.1.streams.0.substreams.0.protected_path": None,
            "channels.2.streams.0.type": "DASH",
            "channels.2.title": "\x00",
        }
    )
    assert sorted(problems_of(doc)) == sorted(
        [
            "channels[2].title: character U+0000 is not allowed in text",
            "channels[1].alias: 'one' is already used by channels[0]",
            "channels[0].streams[1].id: 1 is already used by channels[0].streams[0]",
            "channels[0].streams[0].bandwidth: Input should be a valid integer",
            "channels[1].streams[0].substreams[0].protected_path: HLS needs protected_path containing %(filename)s",
            "channels[2].streams[0].type: Input should be 'HLS', 'UDP', 'HLS_VARIANT' or 'RAW'",
        ]
    )


def test_invalid_regular_expressions_are_dropped_with_a_warning():
    rules = {"regexp_list": ["^Mozilla/", "([unclosed", "SmartTV"], "type": "EXCLUDE"}
    result = validate_configuration(
        document(
            **{
                "channels.0.streams.0.user_agents": rules,
                "channels.1.streams.0.substreams.1.user_agents": {"regexp_list": ["*"]},
                "settings": [{"access_denied_channels_display_control": {"regexp_list": ["a{2,1}", "b"]}}],
            }
        )
    )
    channels = result.channel_list.channels
    assert channels[0].streams[0].user_agents.regexp_list == ["^Mozilla/", "SmartTV"]
    assert channels[1].streams[0].substreams[1].user_agents.regexp_list == []
    assert result.channel_list.settings[0].access_denied_channels_display_control.regexp_list == ["b"]
    assert result.warnings == [
        "channels[0].streams[0].user_agents.regexp_list[1]: invalid regular expression dropped "
        "(unterminated character set at position 1)",
        "channels[1].streams[0].substreams[1].user_agents.regexp_list[0]: invalid regular expression dropped "
        "(nothing to repeat at position 0)",
        "channels[1].streams[0].substreams[1].user_agents: no expression is left, so the rule now gives to "
        "no User-Agent",
        "settings[0].access_denied_channels_display_control.regexp_list[0]: invalid regular expression dropped "
        "(min repeat greater than max repeat at position 2)",
    ]


def test_duplicate_categories_are_merged_and_their_channels_cleaned():
    categories = [
        {"title": "News", "channels": [2, 1, 2, 99]},
        {"title": "Kids", "channels": [3]},
        {"title": "News", "channels": [3, 1, 99, 98]},
    ]
    result = validate_configuration(document(categories=categories))
    assert [(c.title, c.channels) for c in result.channel_list.categories] == [("News", [2, 1, 3]), ("Kids", [3])]
    assert result.warnings == [
        "categories[2]: same title as categories[0] ('News'), merged",
        "categories[0].channels: channel 2 is listed again, kept once",
        "categories[0].channels: channel 99 does not exist, removed",
        "categories[0].channels: channel 1 is listed again, kept once",
        "categories[0].channels: channel 98 does not exist, removed",
    ]


def test_a_category_of_nonexistent_channels_stays_empty():
    result = validate_configuration(document(categories=[{"title": "Gone", "channels": [42]}]))
    assert result.channel_list.categories[0].channels == []
    assert result.warnings == ["categories[0].channels: channel 42 does not exist, removed"]


def test_a_document_that_is_not_a_mapping_is_refused():
    assert problems_of(["channels"]) == ["file: Input should be a valid dictionary or instance of ChannelList"]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        (
            "timeshift_url",
            "http://o/%(program_id)d.m3u8",
            "%(program_id)d has the wrong conversion: write %(program_id)s",
        ),
        (
            "timeshift_url",
            "http://o/%(program_id)s/%(session_id)s",
            "%(session_id)s is not a macro of this field (it knows %(program_id)s)",
        ),
        (
            "records_protected_path",
            "/rec/%(date_time)d/%(filename)s",
            "%(date_time)d has the wrong conversion: write %(date_time)s",
        ),
        ("records_protected_path", "/rec/%(program_id)s/%(date_time)s", "%(program_id)s is not a macro of this field"),
    ],
)
def test_macros_of_timeshift_and_recordings_are_checked(field, value, problem):
    stream = hls(1, has_timeshift=True, timeshift_url="http://o/%(program_id)s", recordable=True)
    stream.setdefault("records_protected_path", "/rec/%(date_time)s/%(filename)s")
    problems = problems_of(document(**{"channels.0.streams": [{**stream, field: value}]}))
    assert len(problems) == 1
    assert problems[0].startswith(f"channels[0].streams[0].{field}: {problem}")


def test_an_exclude_rule_left_without_expressions_gives_to_every_user_agent_with_a_warning():
    rules = {"regexp_list": ["(", "["], "type": "EXCLUDE"}
    result = validate_configuration(document(**{"channels.0.streams.0.user_agents": rules}))
    assert result.channel_list.channels[0].streams[0].user_agents.regexp_list == []
    assert result.warnings[-1] == (
        "channels[0].streams[0].user_agents: no expression is left, so the rule now gives to every User-Agent"
    )


def test_a_repaired_configuration_is_valid_as_it_is_and_needs_no_second_repair():
    categories = [{"title": "News", "channels": [1, 1, 42]}, {"title": "News", "channels": [3]}]
    rules = {"regexp_list": ["ok", "("]}
    repaired = validate_configuration(document(categories=categories, **{"channels.0.streams.0.user_agents": rules}))
    assert repaired.warnings
    again = validate_configuration(repaired.channel_list.model_dump(mode="json", exclude_none=True))
    assert again.warnings == []
    assert again.channel_list == repaired.channel_list
