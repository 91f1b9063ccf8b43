"""The launcher block file: every problem listed at once, the programme guide filling what the file leaves
out, and the poster types with their numbers (issue 9, "Posters in")."""

import pytest

from ott.launcher.block import MAX_POSTERS, BlockError, GuideFacts, NoGuide, compile_block
from ott.launcher.models import PosterType
from tests.launcher.data import FakeGuide, block_document, compiled


def problems_of(document, guide=None) -> list[str]:
    with pytest.raises(BlockError) as caught:
        compile_block(document, guide or FakeGuide())
    return caught.value.problems


def with_poster(**fields) -> dict:
    document = block_document()
    document["posters"].append(fields)
    return document


def test_a_valid_block_keeps_the_file_order_and_every_poster():
    block = compiled()
    assert [poster.id for poster in block.posters] == list(range(1, 11))
    assert block.by_id()[9].shown_until.isoformat() == "2025-03-08T00:00:00+03:00"


def test_every_poster_type_has_its_number_and_the_new_kinds_follow_vod():
    assert {kind.name: kind.number for kind in PosterType} == {
        "FILM": 0,
        "TELECAST": 1,
        "CHANNEL": 2,
        "YOUTUBE": 3,
        "NOTIFICATION": 4,
        "COLLECTION": 5,
        "VOD": 6,
        "AD": 7,
        "MIX": 8,
        "VIEW_LEADERS": 9,
        "AGREGATOR": 10,
    }


@pytest.mark.parametrize("kind", ["MIX", "VIEW_LEADERS", "AGREGATOR"])
def test_the_kinds_the_spec_names_without_numbers_are_accepted(kind):
    assert compiled(with_poster(id=50, type=kind, title="Плитка")).by_id()[50].type == kind


def test_color_is_hex_and_sent_with_a_hash_in_capitals():
    assert compiled().by_id()[1].color == "#1E90FF"
    assert any("posters[10].color" in p for p in problems_of(with_poster(id=50, type="MIX", title="x", color="blue")))


def test_problems_of_every_kind_are_listed_at_once():
    document = block_document()
    posters = document["posters"]
    posters[0]["telecast_id"] = None  # a TELECAST without its telecast
    posters[2]["channel_id"] = 3  # a channel id on a FILM
    posters[3]["attached_posters"] = [3]  # members of something that is no collection
    posters[4]["attached_posters"] = [3, 404, 3]  # dangling and repeated
    posters[4]["related_posters"] = [5, 405]  # itself, and dangling
    posters[6]["from"] = "2025-03-02T00:00:00Z"
    posters[6]["until"] = "2025-03-01T00:00:00Z"
    posters[9]["title"] = None  # a VIEW_LEADERS tile needs a title
    posters.append({"id": 1, "type": "FILM", "film_id": 1, "title": "дубль"})
    posters.append({"id": 11, "type": "COLLECTION", "title": "пустая"})
    posters.append({"id": 12, "type": "AD"})  # an ad is its picture
    problems = problems_of(document)
    expected = [
        "posters[0].telecast_id: a TELECAST poster needs one",
        "posters[2].channel_id: not a field of a FILM poster",
        "posters[3].attached_posters: only a COLLECTION has attached or related posters",
        "posters[4].attached_posters: unknown poster 404",
        "posters[4].attached_posters: poster 3 is listed twice",
        "posters[4].related_posters: unknown poster 405",
        "posters[4].related_posters: a poster is not related to itself",
        "posters[6].until: must be later than `from`",
        "posters[9].title: a VIEW_LEADERS poster needs one",
        "posters[10].id: duplicate of posters[0] (1)",
        "posters[11].attached_posters: a COLLECTION needs at least one",
        "posters[12].images: an AD poster needs at least one",
    ]
    assert sorted(problems) == sorted(expected)


def test_entries_invalid_in_themselves_are_reported_with_the_cross_reference_problems_of_others():
    document = block_document()
    document["posters"][2]["width"] = 3  # unknown field: the entry is invalid ...
    document["posters"][4]["attached_posters"] = [3, 404]  # ... yet its id 3 is known; 404 is not
    problems = problems_of(document)
    assert problems == [
        "posters[2].width: Extra inputs are not permitted",
        "posters[4].attached_posters: unknown poster 404",
    ]


def test_a_collection_may_not_contain_itself_through_other_collections():
    document = block_document()
    document["posters"].append({"id": 11, "type": "COLLECTION", "title": "A", "attached_posters": [12]})
    document["posters"].append({"id": 12, "type": "COLLECTION", "title": "B", "attached_posters": [3, 11]})
    document["posters"].append({"id": 13, "type": "COLLECTION", "title": "C", "attached_posters": [13]})
    problems = problems_of(document)
    assert len(problems) == 2
    assert any("collection 11 contains itself (11 → 12 → 11)" in p for p in problems)
    assert any("collection 13 contains itself (13 → 13)" in p for p in problems)


def test_collections_may_relate_to_each_other_and_share_members():
    document = block_document()
    document["posters"].append(
        {"id": 11, "type": "COLLECTION", "title": "A", "attached_posters": [3, 5], "related_posters": [12]}
    )
    document["posters"].append(
        {"id": 12, "type": "COLLECTION", "title": "B", "attached_posters": [3, 5], "related_posters": [11]}
    )
    assert [p.id for p in compiled(document).posters][-2:] == [11, 12]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", "До\x00ска"),
        ("title", "Доска\ufffe"),
        ("title", "две\nстроки"),
        ("title", "звонок\x07"),
        ("title", "C1\x85"),
        ("title", "   "),
        ("description", "текст \x1b[31m"),
        ("description", "\ud800"),
    ],
)
def test_text_with_control_characters_nul_or_non_characters_is_refused(field, value):
    problems = problems_of(with_poster(**{"id": 50, "type": "FILM", "film_id": 1, "title": "ok", field: value}))
    assert len(problems) == 1
    assert problems[0].startswith(f"posters[10].{field}:")


def test_a_description_may_span_lines():
    document = with_poster(id=50, type="FILM", film_id=1, title="ok", description="первая\nвторая\tс табуляцией")
    assert compiled(document).by_id()[50].description.count("\n") == 1


AD = {
    "id": 50,
    "type": "AD",
    "images": [{"url": "https://a.example/1.png", "width": 1, "height": 1, "profile": "promo"}],
}


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"link": "javascript:alert(1)"}, "link"),
        ({"link": "/relative/path"}, "link"),
        ({"link": "https://exa mple.org/"}, "link"),
        (
            {"images": [{"url": "ftp://img.example/a.png", "width": 1, "height": 1, "profile": "promo"}]},
            "images[0].url",
        ),
        (
            {"images": [{"url": "https://img.example/a.png", "width": 0, "height": 1, "profile": "promo"}]},
            "images[0].width",
        ),
        (
            {"images": [{"url": "https://img.example/a.png", "width": 1, "height": 1, "profile": "square"}]},
            "images[0].profile",
        ),
        ({"type": "YOUTUBE", "title": "clip", "youtube_id": "too-short"}, "youtube_id"),
        ({"available_to": {"clients": ["Second STB"]}}, "available_to.clients[0]"),
        ({"available_to": {"regions": [1]}}, "available_to.regions"),
        ({"from": "2025-03-01T00:00:00"}, "from"),  # no offset: whose midnight?
        ({"is_promo": "sometimes"}, "is_promo"),
        ({"id": 0}, "id"),
        ({"type": "BANNER"}, "type"),
    ],
)
def test_malformed_values_are_refused(fields, where):
    (problem,) = problems_of(with_poster(**{**AD, **fields}))
    assert problem.startswith(f"posters[10].{where}: ")


def test_the_file_must_hold_a_list_of_posters_and_nothing_else():
    assert problems_of([]) == ["the file must be a mapping with a `posters` list"]
    assert problems_of({"posters": {"id": 1}}) == ["posters: must be a list"]
    assert problems_of({"posters": [], "banners": []}) == ["banners: unknown field"]


def test_a_block_has_a_bounded_number_of_posters():
    document = {"posters": [{"id": i, "type": "MIX", "title": "m"} for i in range(1, MAX_POSTERS + 2)]}
    assert problems_of(document) == [f"posters: {MAX_POSTERS + 1} posters, at most {MAX_POSTERS}"]


def test_the_guide_fills_what_the_file_leaves_out_and_the_file_wins():
    block = compiled()
    telecast, channel = block.by_id()[1], block.by_id()[2]
    assert telecast.title == "Вечерние новости"  # the file's, not the guide's
    assert (telecast.description, telecast.duration) == ("Главное за день", 1800)
    assert channel.title == "Первый демо"
    assert [image.url for image in channel.images] == ["https://guide.example/11.png"]


def test_the_guide_is_asked_only_about_posters_missing_something():
    guide = FakeGuide()
    document = block_document()
    document["posters"][0].update(description="d", duration=60, images=document["posters"][2]["images"])
    compile_block(document, guide)
    assert guide.asked == [("channels", {11})]


def test_without_the_guide_a_telecast_or_channel_poster_needs_its_title_in_the_file():
    problems = problems_of(block_document(), NoGuide())
    assert problems == ["posters[1].title: not in the file, and the programme guide has none for channel 11"]
    document = block_document()
    document["posters"][1]["title"] = "Первый демо"
    assert compile_block(document, NoGuide()).by_id()[2].images == []


def test_what_the_guide_gives_is_checked_like_the_file():
    guide = FakeGuide(channels={11: GuideFacts(title="Пер\x00вый")})
    problems = problems_of(block_document(), guide)
    assert len(problems) == 1
    assert problems[0].startswith("posters[1].title:")
    assert problems[0].endswith("(from the programme guide)")


def test_a_key_holding_control_characters_is_named_escaped_in_the_problems():
    document = with_poster(**{**AD, "\x1b[2Jtitle": "x"})
    document["\x1b]0;owned\x07"] = []
    problems = problems_of(document)
    assert problems == [
        "'\\x1b]0;owned\\x07': unknown field",
        "posters[10].'\\x1b[2Jtitle': Extra inputs are not permitted",
    ]


def test_a_telecast_poster_names_any_telecast_of_the_guide_whose_ids_are_uint64():
    # The guide's telecast ids are 53-bit (Telecast.id is uint64): a poster must be able to name one.
    guide_telecast = 2**52 + 12345
    guide = FakeGuide(telecasts={(10, guide_telecast): GuideFacts(title="Ночной эфир", duration=3600)})
    document = block_document()
    document["posters"][0].update(telecast_id=guide_telecast, title=None, duration=None)
    poster = compile_block(document, guide).by_id()[1]
    assert (poster.telecast_id, poster.title, poster.duration) == (guide_telecast, "Ночной эфир", 3600)
