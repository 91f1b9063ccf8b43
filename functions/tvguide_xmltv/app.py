"""GET /tvguide/2/xmltv.xml"""

from datetime import UTC, datetime

from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.registry.location import registry_store
from ott.tvguide.edge import GUIDE_CACHE, xmltv_reply
from ott.tvguide.export import xmltv_export
from ott.tvguide.params import XmltvParams
from ott.tvguide.store import guide_store


@api_handler(params=XmltvParams, reply=None, formats=("xml",), content_type="application/xml", cache=GUIDE_CACHE)
def lambda_handler(request: ApiRequest[XmltvParams, None]) -> Reply:
    """The programme zone's guide as XMLTV (xmltv.dtd): the channels named (all by default) and their telecasts
    on the dates named (the zone's today and the six days after by default)."""
    answer = xmltv_export(guide_store(), registry_store(), request.params, request.caller, datetime.now(UTC))
    return xmltv_reply(answer)
