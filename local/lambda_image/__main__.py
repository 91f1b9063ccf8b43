"""`python -m local.lambda_image`: make sure Docker holds the Lambda base image `sam local` runs the functions in,
for every runtime and architecture of template.yaml's functions, under the name SAM CLI looks for
(`public.ecr.aws/lambda/python:3.13-x86_64`), so that `sam local … --skip-pull-image` finds it. The architecture is
this machine's (`local_architecture()`: Docker here runs its own architecture's images only), whatever the
template's `Architecture` parameter defaults to; `make sam-local` builds and serves with that parameter set to it.

An image already there is kept (a pulled one, or one this script built from the same recipe). Otherwise the image
is pulled; where no registry is reachable, it is built from Debian's packages and PyPI: a bookworm root file
system from `debootstrap --variant=minbase`, the runtime's Python (Debian's python3 for 3.11, else a local build of
that version, e.g. pyenv's, copied in as /var/lang with the Debian libraries its extension modules link to:
`LIBRARIES`), `awslambdaric` and boto3 in /var/runtime (Lambda's runtime
provides boto3; the layer leaves it out), and `bootstrap` (beside this file) as /var/runtime/bootstrap. SAM CLI adds
the Runtime Interface Emulator it carries on top. The image is labelled with a hash of its recipe: a changed recipe
builds it again; an unchanged one is never built twice.

`--print-tags` only prints the names the template needs; `--no-pull` skips the registry."""

import argparse
import hashlib
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BOOTSTRAP = HERE / "bootstrap"
REQUIREMENTS = ROOT / "requirements-dev.txt"
SUITE = "bookworm"
MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")
DEBIAN_PYTHON = "3.11"  # bookworm's python3
AWSLAMBDARIC = "awslambdaric==4.2.2"
# What Lambda's own python images hold besides Python: certificates, and the libraries lxml and cryptography's
# wheels expect from the system (glibc only) are already in minbase.
PACKAGES = ("ca-certificates",)
# What a Python built on bookworm (pyenv's) links its extension modules to beyond minbase (ssl, ctypes, sqlite3, bz2,
# pyexpat, readline, curses, uuid), for a runtime Debian has no python3 of; tkinter is left out.
LIBRARIES = (
    "libssl3",
    "libffi8",
    "libsqlite3-0",
    "libbz2-1.0",
    "libexpat1",
    "libreadline8",
    "libncursesw6",
    "libuuid1",
)
# Not copied from that build: what building against it or testing it needs, never running it.
NOT_COPIED = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "include", "config-*", "*.a", "pkgconfig")
LABEL = "org.ott-platform.lambda-image.recipe"
RECIPE_VERSION = 2  # one more whenever `build` puts something else into the image
ENVIRONMENT = {
    "LANG": "en_US.UTF-8",
    "TZ": ":/etc/localtime",
    "PATH": "/var/lang/bin:/usr/local/bin:/usr/bin:/bin:/opt/bin",
    "LD_LIBRARY_PATH": "/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib",
    "LAMBDA_TASK_ROOT": "/var/task",
    "LAMBDA_RUNTIME_DIR": "/var/runtime",
}
PLATFORMS = {"x86_64": "manylinux2014_x86_64", "arm64": "manylinux2014_aarch64"}
DEBIAN_ARCHITECTURES = {"x86_64": "amd64", "arm64": "arm64"}


def tag(runtime: str, architecture: str) -> str:
    """The name SAM CLI gives a runtime's base image (samcli.local.docker.lambda_image)."""
    return f"public.ecr.aws/lambda/python:{runtime.removeprefix('python')}-{architecture}"


def local_architecture() -> str:
    """The Lambda architecture Docker runs here: this machine's (`SAM_LOCAL_ARCHITECTURE` says otherwise, for a
    machine that emulates the other one)."""
    machine = platform.machine().lower()
    return os.environ.get("SAM_LOCAL_ARCHITECTURE") or ("arm64" if machine in ("aarch64", "arm64") else "x86_64")


def runtimes_of_template() -> list[tuple[str, str]]:
    """Every runtime of template.yaml's functions, each on this machine's architecture: the template's own is a
    parameter (`Architecture`), which `make sam-local` sets to that."""
    from local.template import Template  # the project's virtualenv (cfn-lint) reads the template

    runtimes = {spec["Properties"]["Runtime"] for spec in Template().of_type("AWS::Serverless::Function").values()}
    return [(runtime, local_architecture()) for runtime in sorted(runtimes)]


def boto3_requirements() -> list[str]:
    """The boto3 the project pins, standing for the one Lambda's runtime provides."""
    lines = REQUIREMENTS.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.split("==")[0].strip() in ("boto3", "botocore")]


def recipe(runtime: str, architecture: str) -> str:
    """The hash of what goes into the image (not of this file's wording: a reformatted script builds nothing)."""
    inputs = [RECIPE_VERSION, runtime, architecture, SUITE, AWSLAMBDARIC, PACKAGES, LIBRARIES, NOT_COPIED]
    inputs += [ENVIRONMENT, boto3_requirements()]
    parts = [BOOTSTRAP.read_bytes(), json.dumps(inputs).encode()]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def docker(*args: str, timeout: float | None = None, check: bool = True, **kwargs: Any) -> subprocess.CompletedProcess:
    command = ["docker", *args]
    return subprocess.run(command, check=check, timeout=timeout, text=True, capture_output=True, **kwargs)  # noqa: S603


def label_of(name: str) -> str | None:
    """The image's recipe label ("" for an image this script did not build), None when Docker has no such image."""
    found = docker("image", "inspect", "--format", "{{json .Config.Labels}}", name, check=False)
    if found.returncode != 0:
        return None
    return (json.loads(found.stdout.strip() or "null") or {}).get(LABEL, "")


def pulled(name: str) -> bool:
    try:
        return docker("pull", name, timeout=60, check=False).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def python_prefix(version: str) -> Path:
    """The installation prefix of a local CPython of `version` (pyenv's, or any `pythonX.Y` on PATH)."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(
        str(p / "bin" / f"python{version}") for p in Path("~/.pyenv/versions").expanduser().glob(f"{version}.*")
    )
    for candidate in filter(None, candidates):
        probe = subprocess.run(  # noqa: S603
            [candidate, "-c", "import sys; print(sys.base_prefix); print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = probe.stdout.split()
        if probe.returncode == 0 and len(lines) == 2 and lines[1] == version:
            return Path(lines[0])
    raise SystemExit(f"no local Python {version} to copy into the image (install it, e.g. `pyenv install {version}`)")


def build(runtime: str, architecture: str, name: str, label: str) -> None:
    version = runtime.removeprefix("python")
    if shutil.which("debootstrap") is None:
        raise SystemExit("debootstrap is needed to build the Lambda image: apt-get install debootstrap")
    with tempfile.TemporaryDirectory(prefix="lambda-image-") as work:
        rootfs = Path(work) / "rootfs"
        try:
            build_in(rootfs, version, architecture, name, label)
        finally:
            unmount_under(rootfs)  # before the folder goes: never delete through a mount


def unmount_under(rootfs: Path) -> None:
    """What debootstrap mounted in the root file system (/proc, /sys...) and left there when stopped midway."""
    mounts = Path("/proc/mounts").read_text(encoding="utf-8").split("\n")
    points = [line.split()[1] for line in mounts if line.split()[1:2] and line.split()[1].startswith(f"{rootfs}/")]
    for point in sorted(points, reverse=True):
        subprocess.run(["umount", "-l", point], check=False)  # noqa: S603, S607


def build_in(rootfs: Path, version: str, architecture: str, name: str, label: str) -> None:
    packages = [*PACKAGES, *(["python3"] if version == DEBIAN_PYTHON else LIBRARIES)]
    print(f"  debootstrap {SUITE} ({', '.join(packages)}) ...", flush=True)
    subprocess.run(  # noqa: S603
        [  # noqa: S607
            "debootstrap",
            "--variant=minbase",
            f"--arch={DEBIAN_ARCHITECTURES[architecture]}",
            f"--include={','.join(packages)}",
            SUITE,
            str(rootfs),
            MIRROR,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    lang = rootfs / "var" / "lang"
    if version == DEBIAN_PYTHON:
        (lang / "bin").mkdir(parents=True)
    else:
        prefix = python_prefix(version)
        print(f"  Python {version} from {prefix} as /var/lang ...", flush=True)
        shutil.copytree(
            prefix,
            lang,
            symlinks=True,
            ignore=shutil.ignore_patterns(*NOT_COPIED),  # the standard library's bytecode stays: faster cold starts
        )
        for module in (lang / "lib" / f"python{version}" / "lib-dynload").glob("_tkinter*"):
            module.unlink()
        (lang / "lib" / f"python{version}" / "site-packages").mkdir(exist_ok=True)
        python3 = lang / "bin" / "python3"
        if not python3.exists():
            python3.symlink_to(f"python{version}")
    runtime_dir = rootfs / "var" / "runtime"
    print(f"  {AWSLAMBDARIC} and {' '.join(boto3_requirements())} into /var/runtime ...", flush=True)
    subprocess.run(  # noqa: S603
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
            str(runtime_dir),
            "--platform",
            PLATFORMS[architecture],
            "--implementation",
            "cp",
            "--python-version",
            version,
            "--only-binary=:all:",
            AWSLAMBDARIC,
            *boto3_requirements(),
        ],
        check=True,
    )
    shutil.copy2(BOOTSTRAP, runtime_dir / "bootstrap")
    (rootfs / "var" / "task").mkdir(exist_ok=True)
    (rootfs / "opt").mkdir(exist_ok=True)
    for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
        shutil.rmtree(rootfs / cache, ignore_errors=True)
    changes = [f"ENV {key}={value}" for key, value in ENVIRONMENT.items()]
    changes += [f"LABEL {LABEL}={label}", "WORKDIR /var/task", 'ENTRYPOINT ["/var/runtime/bootstrap"]']
    print(f"  docker import as {name} ...", flush=True)
    tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)  # noqa: S603, S607
    try:
        docker("import", *[arg for change in changes for arg in ("--change", change)], "-", name, stdin=tar.stdout)
    finally:
        if tar.stdout is not None:
            tar.stdout.close()
        tar.wait()


def ensure(runtime: str, architecture: str, pull: bool) -> None:
    name, wanted = tag(runtime, architecture), recipe(runtime, architecture)
    present = label_of(name)
    if present is not None and present in ("", wanted):
        print(f"{name}: present ({'pulled' if present == '' else 'built, recipe ' + wanted})")
        return
    if present is None and pull and pulled(name):
        print(f"{name}: pulled")
        return
    started = time.monotonic()
    print(f"{name}: no image to pull; building it from Debian packages and PyPI (recipe {wanted})", flush=True)
    build(runtime, architecture, name, wanted)
    print(f"{name}: built in {time.monotonic() - started:.0f} s")


def interrupted(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    signal.signal(signal.SIGTERM, interrupted)  # a stopped build still unmounts what debootstrap mounted
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--print-tags", action="store_true", help="print the image names the template needs")
    parser.add_argument("--no-pull", action="store_true", help="build without trying the registry first")
    args = parser.parse_args()
    needed = runtimes_of_template()
    if args.print_tags:
        print("\n".join(tag(*pair) for pair in needed))
        return
    for runtime, architecture in needed:
        ensure(runtime, architecture, pull=not args.no_pull and os.environ.get("SAM_SKIP_PULL_IMAGE") is None)


if __name__ == "__main__":
    main()
