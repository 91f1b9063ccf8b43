"""Keys derived from the one master secret the phone confirmation service keeps in the cloud's secret store."""

from dataclasses import dataclass

from ott.keyring import derive_key


@dataclass(frozen=True)
class PhoneKeys:
    codes: bytes  # keyed hash of the confirmation codes

    @classmethod
    def derive(cls, master: str) -> "PhoneKeys":
        return cls(codes=derive_key(master, "confirmation-codes"))
