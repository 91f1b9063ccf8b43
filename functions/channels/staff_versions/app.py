"""GET /staff/channels/versions.json"""

from ott.channels.service import version_list
from ott.channels.staff import VersionList
from ott.channels.store import channel_store
from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area


@staff_route(Area.CHANNELS, reply=VersionList)
def lambda_handler(request: ApiRequest[None, None]) -> VersionList:
    """The kept versions of the channel configuration, newest first: who loaded each, when, from which file, its
    size and warnings, and which one `GET /channels` serves."""
    return version_list(channel_store(), request.account)
