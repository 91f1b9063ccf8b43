"""GET /xmltv.php"""

from ott.auth.playlist_access import xtream_access
from ott.channels.edge import redirect_reply, xtream_call, xtream_params
from ott.channels.xtream import xtream_guide
from ott.channels.xtream_params import XtreamParams
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply


@api_handler(reply=None, params=XtreamParams, statuses=(302, 400, 401, 429))
def lambda_handler(request: ApiRequest[XtreamParams, None]) -> Reply:
    """An Xtream login's guide (XMLTV): a redirect to the programme guide's export of the subscriber's zone (gzip,
    ETag and 304, channels before programmes, the archive's past days, each programme's catchup-id), as the
    subscriber playlist's url-tvg names it. 401 for a wrong login."""
    params, call = xtream_params(request, XtreamParams), xtream_call(request)
    return redirect_reply(xtream_guide(xtream_access(), params, call))
