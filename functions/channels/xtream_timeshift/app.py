"""GET /timeshift/{username}/{password}/{minutes}/{start}/{stream}"""

from ott.auth.playlist_access import xtream_access
from ott.channels.edge import redirect_reply, xtream_call, xtream_path
from ott.channels.store import channel_store
from ott.channels.xtream import timeshift_redirect
from ott.channels.xtream_params import TimeshiftPath
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.tvguide.summaries import guide_schedules


@api_handler(reply=None, statuses=(302, 400, 401, 403, 404, 429))
def lambda_handler(request: ApiRequest[None, None]) -> Reply:
    """Catch-up of an Xtream login's channel (IPTV Simple's `xc`): the programme starting at `start`
    (YYYY-MM-DD:HH-MM in the server's zone, server_info.timezone) redirected into the channel's archive, or the
    archive by time for `minutes`; a start outside the channel's archive days is a 404 that says so."""
    path, call = xtream_path(request, TimeshiftPath), xtream_call(request)
    return redirect_reply(timeshift_redirect(channel_store(), xtream_access(), guide_schedules(), path, call))
