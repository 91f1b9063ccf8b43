"""GET /1/niche-content/list.json"""

from ott.http.handler import api_handler
from ott.http.request import ApiRequest
from ott.nichecontent.models import ContentList
from ott.nichecontent.params import ListParams
from ott.nichecontent.service import content_page
from ott.nichecontent.settings import encoder_keys
from ott.nichecontent.store import niche_store


@api_handler(params=ListParams, reply=ContentList, api_keys=encoder_keys)
def lambda_handler(request: ApiRequest[ListParams, None]) -> ContentList:
    """Items awaiting encoding, 20 a page (`p` from 1), oldest first, with the total awaiting."""
    return content_page(niche_store(), request.params.p)
