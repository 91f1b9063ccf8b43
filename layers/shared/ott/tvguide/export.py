"""The guide of a zone as an XMLTV document (xmltv.dtd), for players that read XMLTV (Kodi, TiviMate,
Jellyfin): `GET /tvguide/2/xmltv.xml?channel=…&dates=…`."""

from datetime import datetime

from lxml import etree

from ott.callers import Caller
from ott.errors import InvalidInput
from ott.registry.location import RegistryStore
from ott.text import FORBIDDEN_IN_XML
from ott.tvguide.config import GuideConfig
from ott.tvguide.mapping import UNDETERMINED
from ott.tvguide.models import Profile
from ott.tvguide.params import XmltvParams
from ott.tvguide.ports import GuideStore
from ott.tvguide.records import ChannelRecord, GuideTelecast
from ott.tvguide.service import (
    SCHEDULE_MAX_AGE,
    Answer,
    Request,
    bounded,
    chronological,
    end_of,
    export_days,
    zone_channels,
)
from ott.tvguide.xmltv import PROGRAMME_CHILDREN
from ott.tvguide.zones import Zone

DOCTYPE = '<!DOCTYPE tv SYSTEM "xmltv.dtd">'
GENERATOR = {"generator-info-name": "ott-platform tvguide/2"}
# Lambda answers API Gateway with at most 6 MB.
EXPORT_LIMIT_BYTES = 5_000_000
IMAGE_TYPES = {Profile.MAIN: "poster", Profile.IMAGE2: "backdrop", Profile.PREVIEW: "still"}
PROGRAMME_ORDER = {tag: position for position, tag in enumerate(PROGRAMME_CHILDREN)}


def xmltv_time(telecast_time, zone: Zone) -> str:
    return telecast_time.astimezone(zone.tz).strftime("%Y%m%d%H%M%S %z")


def clean(text: str) -> str:
    return FORBIDDEN_IN_XML.sub("\ufffd", text)


def texts(parent: etree._Element, tag: str, by_language: dict[str, str]) -> None:
    for lang, text in by_language.items():
        element = etree.SubElement(parent, tag)
        if lang != UNDETERMINED:
            element.set("lang", lang)
        element.text = clean(text)


def channel_element(record: ChannelRecord, config: GuideConfig) -> etree._Element:
    """The channel's display-names, icons and urls as its newest guide gave them (with `lang`, sizes, `system`),
    then the names only earlier guides gave; the configuration's logo and site take the place of the guides'."""
    channel, override = record.channel, config.override(record.channel.alias)
    element = etree.Element("channel", id=clean(channel.alias))
    kept = {tag: [child for child in channel.kept if child[0] == tag] for tag in ("display-name", "icon", "url")}
    for name in kept["display-name"]:
        as_given(element, name)
    given = {
        (name[2].get("lang", UNDETERMINED) if len(name) > 2 else UNDETERMINED, name[1]) for name in kept["display-name"]
    }
    earlier = {lang: text for lang, text in channel.titles.items() if (lang, text) not in given}
    texts(element, "display-name", earlier if given or earlier else {UNDETERMINED: channel.alias})
    links = (
        ("icon", override.logo_url if override else None, channel.logo_url),
        ("url", override.promo_url if override else None, channel.promo_url),
    )
    for tag, configured, held in links:
        if configured or not kept[tag]:
            link(element, tag, configured or held)
        for child in [] if configured else kept[tag]:
            as_given(element, child)
    return element


def link(parent: etree._Element, tag: str, address: str | None) -> None:
    if address and tag == "icon":
        etree.SubElement(parent, "icon", src=address)
    elif address:
        etree.SubElement(parent, tag).text = address


def programme_element(telecast: GuideTelecast, zone: Zone) -> etree._Element:
    element = etree.Element(
        "programme",
        start=xmltv_time(telecast.start, zone),
        stop=xmltv_time(end_of(telecast), zone),
        channel=clean(telecast.alias),
    )
    # IPTV Simple's catch-up id (issue 29): what a channel's catch-up address takes as `{catchup-id}`, the stream
    # component's %(program_id)s. Not in xmltv.dtd; players that do not know it pass it over.
    element.set("catchup-id", str(telecast.id))
    texts(element, "title", telecast.titles)  # none when the source gave none (docs/tvguide.md, "Export")
    texts(element, "desc", telecast.descriptions)
    # What the source gave of a kind is exported as given; the API's fields stand in for a telecast kept without it.
    given = {kept[0] for kept in telecast.kept}
    if "category" not in given:
        languages = telecast.category_langs or [UNDETERMINED] * len(telecast.categories)
        for category, lang in zip(telecast.categories, languages, strict=True):
            texts(element, "category", {lang: category.title})
    if "icon" not in given and "image" not in given:
        images(element, telecast)
    if telecast.url and "url" not in given:
        etree.SubElement(element, "url").text = telecast.url
    if telecast.age_restriction is not None and "rating" not in given:
        rating = etree.SubElement(element, "rating", system="age")
        etree.SubElement(rating, "value").text = f"{telecast.age_restriction}+"
    for kept in telecast.kept:
        as_given(element, kept)
    element[:] = sorted(element, key=lambda child: PROGRAMME_ORDER[child.tag])
    return element


def images(element: etree._Element, telecast: GuideTelecast) -> None:
    for image in telecast.images:
        if image.profile == Profile.IMAGE:
            icon = etree.SubElement(element, "icon", src=image.location)
            if image.width and image.height:
                icon.set("width", str(image.width))
                icon.set("height", str(image.height))
        elif image.profile in IMAGE_TYPES:
            etree.SubElement(element, "image", type=IMAGE_TYPES[image.profile]).text = image.location


def as_given(parent: etree._Element, compact: list) -> None:
    """The element xmltv.as_given made `compact` of, under `parent`."""
    tag, text, *rest = compact
    element = etree.SubElement(parent, tag, {name: clean(value) for name, value in (rest[0] if rest else {}).items()})
    if text:
        element.text = clean(text)
    for child in rest[1] if len(rest) > 1 else ():
        as_given(element, child)


def xmltv_export(
    store: GuideStore, registry: RegistryStore, params: XmltvParams, caller: Caller, now: datetime
) -> Answer[str]:
    """The channels named (all by default) with their telecasts on the dates named (by default the zone's
    today and the six days after), times with the zone's offset."""
    request = Request(store, registry, params, caller, now)
    catalogue = store.catalogue(params.channel)
    zone = request.zone(catalogue.config)
    root = etree.Element("tv", GENERATOR)
    named = sorted(catalogue.channels) if params.channel is not None or zone is None else zone_channels(catalogue, zone)
    records = [catalogue.channels[number] for number in sorted(named)]
    for record in records:
        root.append(channel_element(record, catalogue.config))
    if zone is not None:
        dates = export_days(zone, now, params.dates)
        keys = [(zone.name, record.channel.channel_id, day) for record in records for day in dates]
        bounded(keys)
        for telecast in sorted(chronological(store.days(keys), zone), key=lambda t: (t.channel_id, t.start)):
            root.append(programme_element(telecast, zone))
    # Indented: elements with children hold whitespace, which readers such as python-xmltvalt expect in <rating>.
    data = etree.tostring(root, encoding="UTF-8", xml_declaration=True, doctype=DOCTYPE, pretty_print=True)
    if len(data) > EXPORT_LIMIT_BYTES:
        raise InvalidInput(f"the export would be {len(data) // 1_000_000} MB: name fewer channels or dates")
    return request.answer(data.decode("utf-8"), SCHEDULE_MAX_AGE)
