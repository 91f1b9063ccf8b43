"""The shared layer as Lambda gets it: the size of the zip `sam build` (`make validate`) prepares."""

import io
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILT_LAYER = ROOT / ".aws-sam" / "build" / "SharedLayer"
BAR_MB = 50  # Lambda's limit for a directly uploaded zip; the unzipped limit (250 MB) is shared with the code


def report_layer_size() -> int:
    if not BUILT_LAYER.is_dir():
        print(f"\nShared layer: not built; run `make validate` first ({BUILT_LAYER} is missing)")
        return 1
    buffer, unzipped = io.BytesIO(), 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(BUILT_LAYER.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(BUILT_LAYER))
                unzipped += path.stat().st_size
    zipped_mb, unzipped_mb = len(buffer.getvalue()) / 2**20, unzipped / 2**20
    packages = sorted(path.name for path in (BUILT_LAYER / "python").iterdir() if not path.name.endswith("-info"))
    missed = zipped_mb > BAR_MB or any(name in packages for name in ("botocore", "boto3"))
    print(f"\nShared layer (sam build): {zipped_mb:.1f} MB zipped, {unzipped_mb:.1f} MB unzipped (bar <= {BAR_MB} MB,")
    print(f"  no boto3/botocore of its own) {'MISSED' if missed else 'ok'}")
    return int(missed)
