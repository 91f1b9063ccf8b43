"""GET /tvguide/2/xmltv.xml"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, redirect_reply, xmltv_reply
from ott.tvguide.export import xmltv_export
from ott.tvguide.params import XmltvParams
from ott.tvguide.store import guide_store
from ott.tvguide.zone_export import export_bucket, zone_export_url


@api_handler(
    params=XmltvParams,
    reply=None,
    formats=("xml",),
    content_type="application/xml",
    cache=GUIDE_CACHE,
    statuses=(302, 404),
)
def lambda_handler(request: ApiRequest[XmltvParams, None]) -> Reply:
    """The programme zone's guide as XMLTV (xmltv.dtd). Without `channel` and `dates`: a redirect to the zone's
    whole guide, gzip-compressed (404 until its first export). With either: the channels named (the zone's by
    default) and their telecasts on the dates named (the zone's today and the six days after by default)."""
    params, caller, now = request.params, request.caller, datetime.now(UTC)
    if params.channel is None and params.dates is None:
        return redirect_reply(zone_export_url(guide_store(), registry_store(), export_bucket(), params, caller, now))
    return xmltv_reply(xmltv_export(guide_store(), registry_store(), params, caller, now))
