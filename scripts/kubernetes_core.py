"""Put kubernetes.core where ansible.cfg's collections_path looks, from PyPI, without Galaxy.

The collection depends on kubernetes.core (galaxy.yml). `make plan` must not install the whole
``ansible`` package (about 700 MB of collections) to get it, and Galaxy may not be reachable, so this
downloads the ``ansible`` wheel pinned in requirements-test.txt (the copy every test runs against)
with ``pip download --no-deps`` into a cache, and extracts only ``ansible_collections/kubernetes/core/``
into ``<dest>/ansible_collections/kubernetes/core``. Every extracted file is checked against the
collection's own FILES.json (sha256; the wheel leaves out docs and tests, never plugins/ or meta/),
and FILES.json against MANIFEST.json. Idempotent: a second run
with the same pin checks the installed copy and does nothing else. Standard library only.

    python3 scripts/kubernetes_core.py --pip .venv/bin/pip --cache .build/wheels --dest .build/collections
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

PREFIX = "ansible_collections/kubernetes/core/"
STAMP = ".numa_gate_source"


def pinned_ansible(requirements):
    """The ``ansible==X`` pin of requirements-test.txt."""
    with open(requirements, encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"^\s*ansible\s*==\s*([0-9][^\s#;]*)", line)
            if match:
                return match.group(1)
    raise SystemExit("%s pins no ansible==<version>" % requirements)


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check(root):
    """Problems with the collection at root; [] when whole.

    The ansible package ships each collection without its docs, tests and CI files, so FILES.json
    lists more than the wheel holds: every file that is here must match FILES.json's sha256, every
    file FILES.json lists under plugins/ and meta/ (what runs) must be here, and FILES.json must match
    MANIFEST.json's checksum of it.
    """
    try:
        with open(os.path.join(root, "MANIFEST.json"), encoding="utf-8") as handle:
            manifest = json.load(handle)
        with open(os.path.join(root, "FILES.json"), encoding="utf-8") as handle:
            files = json.load(handle)
    except (OSError, ValueError) as exc:
        return ["cannot read MANIFEST.json or FILES.json: %s" % exc]
    problems = []
    info = manifest.get("collection_info", {})
    if (info.get("namespace"), info.get("name")) != ("kubernetes", "core"):
        problems.append("MANIFEST.json names %s.%s" % (info.get("namespace"), info.get("name")))
    expected = manifest.get("file_manifest_file", {}).get("chksum_sha256")
    if expected != sha256(os.path.join(root, "FILES.json")):
        problems.append("FILES.json does not match MANIFEST.json's checksum")
    listed = 0
    for entry in files.get("files", []):
        if entry.get("ftype") != "file":
            continue
        path = os.path.join(root, entry["name"])
        if not os.path.isfile(path):
            if entry["name"].startswith(("plugins/", "meta/")):
                problems.append("missing %s" % entry["name"])
        elif sha256(path) != entry.get("chksum_sha256"):
            problems.append("checksum differs: %s" % entry["name"])
        else:
            listed += 1
    if not listed:
        problems.append("no file matches FILES.json")
    return problems


def version_of(root):
    with open(os.path.join(root, "MANIFEST.json"), encoding="utf-8") as handle:
        return json.load(handle)["collection_info"]["version"]


def download(pip, version, cache):
    wheel = os.path.join(cache, "ansible-%s-py3-none-any.whl" % version)
    if not os.path.isfile(wheel):
        os.makedirs(cache, exist_ok=True)
        subprocess.run([pip, "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--dest", cache, "ansible==%s" % version], check=True)
    if not os.path.isfile(wheel):
        raise SystemExit("pip download left no %s" % wheel)
    return wheel


def extract(wheel, target):
    """Extract kubernetes/core from the wheel into a fresh folder beside target, check it, swap it in."""
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".core-", dir=parent)
    try:
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.infolist() if m.filename.startswith(PREFIX) and not m.is_dir()]
            if not members:
                raise SystemExit("%s holds no %s" % (wheel, PREFIX))
            for member in members:
                relative = member.filename[len(PREFIX):]
                if relative.startswith("/") or ".." in relative.split("/"):
                    raise SystemExit("unsafe path in wheel: %s" % member.filename)
                path = os.path.join(staging, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with archive.open(member) as source, open(path, "wb") as sink:
                    shutil.copyfileobj(source, sink)
        problems = check(staging)
        if problems:
            raise SystemExit("kubernetes.core from %s failed its checks:\n  %s" % (wheel, "\n  ".join(problems[:20])))
        with open(os.path.join(staging, STAMP), "w", encoding="utf-8") as handle:
            handle.write(os.path.basename(wheel) + "\n")
        if os.path.lexists(target):
            shutil.rmtree(target) if os.path.isdir(target) and not os.path.islink(target) else os.unlink(target)
        os.rename(staging, target)
        staging = None
    finally:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--requirements", default="requirements-test.txt", help="where the ansible==<version> pin is")
    parser.add_argument("--pip", default=os.path.join(".venv", "bin", "pip"), help="the pip that downloads")
    parser.add_argument("--cache", default=os.path.join(".build", "wheels"), help="where the wheel is kept")
    parser.add_argument("--dest", default=os.path.join(".build", "collections"), help="a collections_path entry")
    args = parser.parse_args(argv)

    version = pinned_ansible(args.requirements)
    wheel_name = "ansible-%s-py3-none-any.whl" % version
    target = os.path.join(args.dest, "ansible_collections", "kubernetes", "core")
    try:
        with open(os.path.join(target, STAMP), encoding="utf-8") as handle:
            installed_from = handle.read().strip()
    except OSError:
        installed_from = None
    if installed_from == wheel_name and not check(target):
        print("kubernetes.core %s (from %s) already at %s" % (version_of(target), wheel_name, target))
        return 0
    wheel = download(args.pip, version, args.cache)
    extract(wheel, target)
    print("kubernetes.core %s (from %s) extracted to %s and checked against its FILES.json"
          % (version_of(target), wheel_name, target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
