"""GET, POST /player_api.php"""

from ott.auth.playlist_access import xtream_access
from ott.channels.edge import xtream_call, xtream_json_reply, xtream_params
from ott.channels.store import channel_store
from ott.channels.xtream import player_api
from ott.channels.xtream_params import PlayerApiParams
from ott.http.handler import api_handler
from ott.http.request import ApiRequest, Reply
from ott.tvguide.summaries import guide_schedules


@api_handler(reply=None, params=PlayerApiParams, content_type="application/json", statuses=(400, 404, 429))
def lambda_handler(request: ApiRequest[PlayerApiParams, None]) -> Reply:
    """The Xtream Codes player API of stock players: without `action` the login's user_info and server_info;
    get_live_categories, get_live_streams (category_id), get_short_epg and get_simple_data_table (stream_id);
    the VOD and series lists are empty. A wrong login answers `{"user_info": {"auth": 0}}`."""
    params, call = xtream_params(request, PlayerApiParams), xtream_call(request)
    return xtream_json_reply(player_api(channel_store(), xtream_access(), guide_schedules(), params, call))
