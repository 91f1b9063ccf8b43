"""A launcher block of every kind of poster, a programme guide that knows some of them, and the launcher's
store over an in-memory database whose clock reads NOW."""

import copy
from datetime import UTC, datetime

from ott.launcher.block import GuideFacts, GuideImage, LauncherBlock, compile_block
from ott.launcher.store import DynamoLauncherStore
from ott.storage.memory import InMemoryDatabase
from tests.fixtures.databases import Clock, memory_database
from tests.fixtures.stores import launcher_store

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

BLOCK = {
    "posters": [
        {
            "id": 1,
            "type": "TELECAST",
            "channel_id": 10,
            "telecast_id": 500,
            "title": "Вечерние новости",
            "is_promo": True,
            "color": "1e90ff",
        },
        {"id": 2, "type": "CHANNEL", "channel_id": 11},
        {
            "id": 3,
            "type": "FILM",
            "film_id": 7,
            "title": "Ирония судьбы",
            "images": [{"url": "https://img.example/3.jpg", "width": 400, "height": 600, "profile": "vertical"}],
        },
        {"id": 4, "type": "YOUTUBE", "youtube_id": "dQw4w9WgXcQ", "title": "Клип"},
        {
            "id": 5,
            "type": "COLLECTION",
            "title": "Новогодняя подборка",
            "attached_posters": [3, 6, 7],
            "related_posters": [1],
        },
        {"id": 6, "type": "VOD", "vod_id": 9, "title": "Только в подборке", "in_block": False},
        {"id": 7, "type": "NOTIFICATION", "title": "Новый тариф", "pre_moderation": True},
        {"id": 8, "type": "FILM", "film_id": 8, "title": "Северу", "available_to": {"contractors": [2]}},
        {
            "id": 9,
            "type": "AD",
            "images": [{"url": "https://ads.example/9.png", "width": 1920, "height": 300, "profile": "promo"}],
            "link": "https://ads.example/go",
            "available_to": {"territories": [4], "clients": ["second-stb-*"]},
            "from": "2025-03-01T00:00:00+03:00",
            "until": "2025-03-08T00:00:00+03:00",
        },
        {"id": 10, "type": "VIEW_LEADERS", "title": "Лидеры просмотров"},
    ]
}


class FakeGuide:
    """Knows telecast 500 on channel 10 and channel 11; records what it was asked."""

    def __init__(self, telecasts=None, channels=None) -> None:
        image = GuideImage(url="https://guide.example/11.png", width=640, height=360, profile="horizontal")
        self.known_telecasts = telecasts or {
            (10, 500): GuideFacts(title="Новости (из программы)", description="Главное за день", duration=1800)
        }
        self.known_channels = channels or {11: GuideFacts(title="Первый демо", images=(image,))}
        self.asked: list[object] = []

    def telecasts(self, keys):
        self.asked.append(("telecasts", set(keys)))
        return {key: self.known_telecasts[key] for key in keys if key in self.known_telecasts}

    def channels(self, channel_ids):
        self.asked.append(("channels", set(channel_ids)))
        return {i: self.known_channels[i] for i in channel_ids if i in self.known_channels}


def block_document() -> dict:
    return copy.deepcopy(BLOCK)


def compiled(document: dict | None = None) -> LauncherBlock:
    return compile_block(block_document() if document is None else document, FakeGuide())


def launcher_at_now(database: InMemoryDatabase | None = None, *, with_registry: bool = False) -> DynamoLauncherStore:
    """The launcher's store over `database` (a fresh one by default), whose clock is set to NOW: the rolling day
    of the statistics and the event ids' expiry count from the moment the domain is told."""
    database = database or memory_database()
    database.clock = Clock(int(NOW.timestamp()))
    return launcher_store(database, with_registry=with_registry)
