"""Shared layer of the OTT platform: models, domain logic and data access of every service.

Lambda finds this package at /opt/python; tests and the local stack import it from an
editable install of the repository (see pyproject.toml).
"""
