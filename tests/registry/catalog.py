"""A small registry catalog of every kind of entry, the unit and contract tests' registry."""

CATALOG = {
    "territories": [
        {"territoryId": 1, "name": "Россия", "parentId": 0, "content_languages": ["ru"]},
        {"territoryId": 2, "name": "Центральный федеральный округ", "parentId": 1, "timezone": 10800},
        {"territoryId": 3, "name": "Москва", "parentId": 2, "timezone": 10800},
        {"territoryId": 4, "name": "Московская область", "parentId": 2, "timezone": 10800},
        {"territoryId": 5, "name": "Королёв", "parentId": 4, "timezone": 10800},
        {"territoryId": 6, "name": "Северо-Западный федеральный округ", "parentId": 1},
        {"territoryId": 7, "name": "Санкт-Петербург", "parentId": 6, "timezone": 10800},
        {"territoryId": 10, "name": "Казахстан", "parentId": 0},
        {"territoryId": 11, "name": "Алматы", "parentId": 10, "timezone": 18000},
    ],
    "contractors": [
        {"contractorId": 1, "name": "ООО «Демо Телеком»", "brandName": "Демо ТВ", "territories": [2], "areas": [1]},
        {"contractorId": 2, "name": "АО «Северная сеть»", "brandName": "Север", "territories": [6], "areas": [2]},
        {"contractorId": 3, "name": "ТОО «Степь»", "brandName": "Ёлка ТВ", "territories": [10]},
    ],
    "services": [
        {
            "id": 1,
            "type": "registry",
            "name": "Registry",
            "provider": 1,
            "apiVersions": [{"majorVersion": 2, "minorVersion": 6, "location": "{base_url}/registry/2/"}],
        },
        {
            "id": 2,
            "type": "auth",
            "name": "Auth",
            "provider": 1,
            "availableTo": {"contractors": [1]},
            "apiVersions": [
                {"majorVersion": 2, "minorVersion": 0, "location": "https://auth-a.example/auth/2/"},
                {"majorVersion": 2, "minorVersion": 0, "location": "https://auth-b.example/auth/2/"},
            ],
        },
        {
            "id": 3,
            "type": "tv_guide",
            "name": "Guide",
            "provider": 2,
            "availableTo": {"territories": [6]},
            "apiVersions": [{"majorVersion": 2, "minorVersion": 0, "location": "https://guide.example/tvguide/2/"}],
        },
        {
            "id": 4,
            "type": "iptv",
            "name": "IPTV",
            "provider": 1,
            "availableTo": {"clients": ["second-stb-*"]},
            "apiVersions": [{"majorVersion": 1, "minorVersion": 0, "location": "https://iptv.example/"}],
        },
        {
            "id": 5,
            "type": "films",
            "name": "Films",
            "provider": 2,
            "availableTo": {"contractors": [2]},
            "apiVersions": [{"majorVersion": 3, "minorVersion": 1, "location": "https://films.example/"}],
        },
    ],
    "areas": [{"areaId": 1, "name": "Москва", "cost": 0}, {"areaId": 2, "name": "Петербург", "cost": 10}],
    "hubs": [
        {"name": "h1", "addresses": [{"hostname": "h1.example", "port": 411}], "areas": [1]},
        {"name": "h2", "addresses": [{"hostname": "h2.example", "port": 411}], "areas": [2]},
        {
            "name": "h3",
            "addresses": [{"hostname": "h3.example", "port": 411}],
            "areas": [1, 2],
            "nodeAddress": {"hostname": "10.0.0.3", "port": 4111},
        },
    ],
    "hubIsolations": [
        {"fromHub": "h1", "toHub": "h2", "tthSearch": "FULL", "textSearch": True, "u2u": True},
        {"fromHub": "h2", "toHub": "h3"},
    ],
    "prefixes": [
        {"CIDR": "198.51.0.0/16", "contractor": 1},
        {"CIDR": "198.51.100.0/24", "contractor": 2, "territories": [7], "peersAccess": True},
        {"CIDR": "10.1.0.0/24", "NAT": "203.0.113.0/24", "contractor": 1, "territories": [5]},
        {"CIDR": "10.0.0.0/8", "NAT": "203.0.113.7", "contractor": 1, "territories": [3]},
        {"CIDR": "2001:db8::/32", "contractor": 2},
        {"CIDR": "2001:db8:1::/48", "contractor": 1, "territories": [5]},
    ],
}
