"""GET /staff/launcher/daily.json"""

from datetime import UTC, datetime

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.launcher.models import DailyClicks
from ott.launcher.params import DailyClicksParams
from ott.launcher.service import daily_clicks
from ott.launcher.store import launcher_store
from ott.staff import Area


@staff_route(Area.LAUNCHER, reply=DailyClicks, params=DailyClicksParams)
def lambda_handler(request: ApiRequest[DailyClicksParams, None]) -> DailyClicks:
    """A poster's clicks per UTC day over the last `days` days (1-90, 30 by default), oldest first, for a chart:
    each day's lifetime count at its last hourly snapshot less the day before's."""
    return daily_clicks(launcher_store(), request.account, request.params, datetime.now(UTC))
