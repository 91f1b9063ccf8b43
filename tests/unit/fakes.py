"""In-memory stand-ins for the stores, with the same behaviour as the DynamoDB adapters."""

from collections import Counter
from collections.abc import Iterable

from ott.registry.catalog import CatalogIndex, CatalogSnapshot, ContractorEntry, HubEntry, PrefixEntry, TerritoryNode
from ott.registry.models import Area, HubIsolation
from ott.registry.store import KnownInfoReport, Selection


class InMemoryRegistryStore:
    def __init__(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
        self.reports: list[KnownInfoReport] = []
        self.reads: Counter[str] = Counter()

    def index(self) -> CatalogIndex:
        self.reads["index"] += 1
        return self.snapshot.index

    def select(
        self, contractor_ids: Iterable[int] = (), territory_ids: Iterable[int] = (), prefix_keys: Iterable[str] = ()
    ) -> Selection:
        self.reads["select"] += 1
        contractors, territories, keys = set(contractor_ids), set(territory_ids), set(prefix_keys)
        return Selection(
            contractors={c.contractor_id: c for c in self.snapshot.contractors if c.contractor_id in contractors},
            territories={t.territory_id: t for t in self.snapshot.territories if t.territory_id in territories},
            prefixes=[p for p in self.snapshot.prefixes if p.key in keys],
        )

    def territories(self) -> list[TerritoryNode]:
        return list(self.snapshot.territories)

    def contractors(self) -> list[ContractorEntry]:
        return list(self.snapshot.contractors)

    def areas(self) -> list[Area]:
        return list(self.snapshot.areas)

    def hubs(self) -> list[HubEntry]:
        return list(self.snapshot.hubs)

    def hub_isolations(self) -> list[HubIsolation]:
        return list(self.snapshot.hub_isolations)

    def prefixes(self) -> list[PrefixEntry]:
        return list(self.snapshot.prefixes)

    def save_report(self, report: KnownInfoReport) -> None:
        self.reports.append(report)

    def replace_catalog(self, snapshot: CatalogSnapshot) -> None:
        self.snapshot = snapshot
