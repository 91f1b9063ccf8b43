"""The traffic model: what an operator's devices ask of the platform, per device and day, and how it peaks.

These are the model's stated assumptions (docs/capacity.md explains each); everything per request (calls, units,
item sizes, CPU, reply and log bytes) is measured by `bench.capacity.measure`. Change a number here and run
`make capacity` to see its effect.
"""

from dataclasses import dataclass

SECONDS_A_DAY = 86_400
DAYS_A_MONTH = 30
DEVICE_COUNTS = (1_000_000, 10_000_000)

# The evening peak, as a multiple of the day's mean rate (the floor: at least 5×).
PEAK_FACTOR = 5.0
# A synchronised reboot (a firmware update, a city's power cut) of this share of devices within this many
# seconds, on top of the evening peak: each rebooting device makes its start-up requests once.
REBOOT_SHARE = 0.10
REBOOT_SECONDS = 300

# The largest audience's share of the requests that depend on where the device is (its network, its zone) or
# on what it clicks: the biggest network's prefix, the most watched zone's guide, the most clicked poster.
LARGEST_AUDIENCE = 0.30

# Requests of a kind an edge cache may answer (public replies keyed by URL and Accept-Language) and the share
# of those it answers without asking the API (stated, not measured: see docs/capacity.md).
EDGE_HIT_RATIO = 0.90

# Reply compression: devices accept gzip, and the API compresses replies from 1 KB (MinimumCompressionSize).
COMPRESSED_FROM_BYTES = 1024


@dataclass(frozen=True)
class Demand:
    """A request kind's share of a device's day: `per_device_day` requests on average by each device that makes it,
    `at_start_up` whether a rebooting device makes it (once), `with_token` whether devices send their bearer token
    with it, `share` the devices that make it (the Xtream players')."""

    per_device_day: float
    at_start_up: bool = False
    with_token: bool = False
    share: float = 1.0


# The share of devices that are stock players signed in with an Xtream login (TiviMate, IPTV Smarters on the
# subscribers' own Android TV boxes, sticks and smart TVs) rather than the operator's app. Stated, not measured
# (docs/capacity.md): set above what an operator whose set-top boxes run its own app expects, so that the model
# errs on the heavy side; replace it with the count of the deployed platform's Xtream logins.
XTREAM_SHARE = 0.20
# How often such a player reloads its lists, playlist and guide: at each of its two wakes a day and once more while
# on (TiviMate and IPTV Smarters reload at start and every few hours).
XTREAM_REFRESHES = 3


# Per device and day. A set-top box wakes about twice a day (whereami, a token refresh, the guide's channels and
# the launcher's block at each wake), keeps an hour's access token fresh while on (about 8 hours), refreshes its
# guide every few hours and browses schedules, opens the home screen (the launcher) several times and clicks a
# poster about once a day; a phone confirmation is a sign-up's or a re-verification's, rare per device.
DEMAND: dict[str, Demand] = {
    "registry whereami": Demand(2, at_start_up=True),
    "registry lists": Demand(0.1),
    "token refresh": Demand(8, at_start_up=True),
    "token anonymous": Demand(0.002),
    "guide channels (zone)": Demand(5.4, at_start_up=True),
    "guide channels (address)": Demand(0.6),
    "guide schedule (zone)": Demand(18),
    "guide schedule (address)": Demand(2),
    "guide xmltv (zone)": Demand(0.05),
    "launcher posters": Demand(8, at_start_up=True, with_token=True),
    "launcher poster": Demand(1, with_token=True),
    "launcher click": Demand(1),
    "phone confirm": Demand(0.001, with_token=True),
    "phone verify": Demand(0.003, with_token=True),
    "phone checkCode": Demand(0.001, with_token=True),
    # A stock player's requests (docs/channels.md, "The Xtream Codes player API"), per player and day: at each
    # refresh its account's info, its categories and channels, the four VOD and series lists (empty here), the
    # M3U (players in M3U mode; counted for all, on the heavy side) and the guide (xmltv.php, then the export it
    # redirects to); the now and next of each channel it browses; /live/ at each zap (a new screen every time, on
    # the heavy side: zapping within a minute reuses the screen and writes nothing).
    "xtream account info": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "xtream live categories": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "xtream live streams": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "xtream vod and series lists": Demand(4 * XTREAM_REFRESHES, share=XTREAM_SHARE),
    "xtream get.php": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "xtream xmltv.php": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "guide xmltv (zone) of Xtream players": Demand(XTREAM_REFRESHES, at_start_up=True, share=XTREAM_SHARE),
    "xtream short epg": Demand(40, share=XTREAM_SHARE),
    "xtream live": Demand(30, at_start_up=True, share=XTREAM_SHARE),
}

# What a player then downloads from S3 (xmltv.php → the guide's export → a presigned S3 address, neither the API nor
# CloudFront): the zone's whole export, gzip. Stated for a zone of 150 channels, 31 programmes a day each, 14 days (a
# week back for catch-up, a week ahead), at 80 bytes a programme (63 and 109 measured, gzip, on the two real guides
# of ../shared/data/xmltv): about 5 MB.
EXPORT_BYTES = 150 * 31 * 14 * 80
EXPORT_DOWNLOADS = ("guide xmltv (zone) of Xtream players",)

# Machine clients, whatever the number of devices (per second): the stream-authorization component's poll of
# GET /channels (a few instances every few seconds) and the encoders' list and status updates.
MACHINE_RATES: dict[str, float] = {
    "channels list": 2.0,
    "nichecontent list": 5.0,
    "nichecontent updateStatus": 1.0,
}
