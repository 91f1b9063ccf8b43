"""GET /staff/guide/grid.json"""

from datetime import UTC, datetime

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.staff import Area
from ott.tvguide.staff import DayGrid, GridParams, day_grid
from ott.tvguide.store import guide_store


@staff_route(Area.GUIDE, reply=DayGrid, params=GridParams, statuses=(404,))
def lambda_handler(request: ApiRequest[GridParams, None]) -> DayGrid:
    """A `zone`'s local `date` (default: its today) as a grid: a page of its channels (`offset`, `limit`) with
    their telecasts and every detail a cell opens; 404 for a zone not configured."""
    return day_grid(guide_store(), request.account, request.params, datetime.now(UTC))
