"""The shared layer as Lambda gets it: the size of the zip `sam build` (`make validate`) prepares, and whether
it imports every function beside only what the python3.13 runtime provides (when it was built for this machine's
architecture: `LAMBDA_ARCHITECTURE=x86_64 make validate` on an x86_64 machine)."""

import io
import platform
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILT_LAYER = ROOT / ".aws-sam" / "build" / "SharedLayer"
LAYER_MAKEFILE = ROOT / "layers" / "shared" / "Makefile"
BAR_MB = 50  # Lambda's limit for a directly uploaded zip; the unzipped limit (250 MB) is shared with the code
# In a bare interpreter (-I -S), as Lambda's sys.path: every handler, then what the first AWS call imports.
IMPORT_EVERYTHING = """
import importlib.util, sys
sys.path[:0] = sys.argv[1:3]
for path in sorted(__import__("pathlib").Path("functions").glob("*/*/app.py")):
    spec = importlib.util.spec_from_file_location(f"{path.parent.parent.name}.{path.parent.name}", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
from ott.observability import trace_outgoing_calls
trace_outgoing_calls()
import boto3
"""


def runtime_packages() -> list[str]:
    """The packages layers/shared/Makefile leaves out because the runtime has them."""
    definition = re.search(r"^RUNTIME_PROVIDED :=((?:.*\\\n)*.*)$", LAYER_MAKEFILE.read_text(), re.MULTILINE)
    if definition is None:
        raise RuntimeError(f"RUNTIME_PROVIDED is missing from {LAYER_MAKEFILE}")
    names = definition.group(1).replace("\\\n", " ").split()
    return [name for name in names if "-" not in name and name != "bin"]


def imports_beside_the_runtime() -> str:
    """'' when the built layer imports every function with only the runtime's packages beside it, else why not."""
    import boto3  # the dev environment's copy stands for the runtime's

    site_packages = Path(boto3.__file__).parent.parent
    with tempfile.TemporaryDirectory() as runtime:
        for name in runtime_packages():
            (Path(runtime) / name).symlink_to(site_packages / name)
        run = subprocess.run(
            [sys.executable, "-I", "-S", "-c", IMPORT_EVERYTHING, str(BUILT_LAYER / "python"), runtime],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    return "" if run.returncode == 0 else run.stderr.strip().splitlines()[-1]


def built_for() -> str:
    """The machine the built layer's extension modules are for (aarch64, x86_64), from their file names."""
    for path in (BUILT_LAYER / "python").rglob("*.so"):
        found = re.search(r"-(aarch64|x86_64)-linux-gnu\.so$", path.name)
        if found:
            return found.group(1)
    return platform.machine()


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
    machine = platform.machine()
    if built_for() != machine:
        print(f"  imports not tried: the layer is built for {built_for()}, this machine is {machine}")
        print(f"  (LAMBDA_ARCHITECTURE={machine.replace('aarch64', 'arm64')} make validate builds one it can import)")
        return int(missed)
    failure = imports_beside_the_runtime()
    print(f"  every function imports with only the runtime's packages beside it: {failure or 'ok'}")
    return int(missed) + int(bool(failure))
