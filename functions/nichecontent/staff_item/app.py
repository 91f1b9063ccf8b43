"""GET /staff/niche-content/item.json"""

from ott.http.request import ApiRequest
from ott.http.staff import staff_route
from ott.nichecontent.models import NicheItem
from ott.nichecontent.service import item_history
from ott.nichecontent.staff import ItemParams
from ott.nichecontent.store import niche_store
from ott.staff import Area


@staff_route(Area.NICHE_CONTENT, reply=NicheItem, params=ItemParams, statuses=(404,))
def lambda_handler(request: ApiRequest[ItemParams, None]) -> NicheItem:
    """An item with its history of transitions: when, what caused each (an encoder's update, the queue's retry
    or timeout, an operator), which encoder or operator."""
    return item_history(niche_store(), request.account, request.params.id)
