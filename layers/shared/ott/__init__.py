"""Shared layer of the OTT platform: models, domain logic and data access of every service.

Lambda finds this package at /opt/python; tests and the local stack import it from an
editable install of the repository (see pyproject.toml).
"""

from pydantic._internal import _config as _pydantic_config

# Every model of the platform builds its validator and serializer on first use, not when its class is made
# (pydantic's `defer_build`, made the default here rather than in each of some 150 models' configurations): a
# function's import then pays only for the classes, and its first request for the few models its route uses of the
# many its modules define (a guide reader imports the registry's, the staff pages' ...). A SnapStart function builds
# its routes' models before its snapshot (ott.snapstart). tests/platform/test_snapstart.py checks that it holds.
_pydantic_config.config_defaults["defer_build"] = True
