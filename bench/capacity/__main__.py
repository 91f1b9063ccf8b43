"""`make capacity`: measure what each request costs, apply the traffic model for 1 M and 10 M devices, print the
tables and write them into docs/capacity.md (between its markers; the prose around them is kept)."""

import sys
from pathlib import Path

from bench.capacity import traffic
from bench.capacity.measure import measure
from bench.capacity.model import run
from bench.capacity.report import BEGIN, END, generated
from local.template import ROOT, Template

DOCUMENT = ROOT / "docs" / "capacity.md"
AUTHORIZER_KINDS = ["authorizer (token)", "authorizer (no token)"]


def write_into(document: Path, text: str) -> None:
    current = document.read_text(encoding="utf-8")
    before, _, rest = current.partition(BEGIN)
    _, _, after = rest.partition(END)
    document.write_text(before + text + after, encoding="utf-8")


def main() -> int:
    measured = measure([*traffic.DEMAND, *AUTHORIZER_KINDS, *traffic.MACHINE_RATES])
    template = Template()
    results = [
        (run(devices, measured, template, edge=True), run(devices, measured, template, edge=False))
        for devices in traffic.DEVICE_COUNTS
    ]
    text = generated(results)
    print(text)
    write_into(DOCUMENT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
