"""The registry's HTTP edge: its lists are the same for every caller, so shared caches (the template's edge
cache) may keep them; a load shows there within their lifetime."""

from ott.http.caching import CachePolicy

LISTS_CACHE = CachePolicy(max_age=300)
