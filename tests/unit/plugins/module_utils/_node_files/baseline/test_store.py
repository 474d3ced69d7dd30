"""The node's baseline: written once, verified, never silently rewritten."""

import hashlib
import json
import os

import pytest

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files import atomic
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._node_files.baseline import store as baseline_store

STORE = "/var/lib/numa-gate/baseline"
FILES = [("/var/lib/kubelet/config.yaml", "main"), ("/etc/kubernetes/kubelet.conf.d/10-site.conf", "dropin"),
         ("/var/lib/kubelet/cpu_manager_state", "checkpoint"), ("/var/lib/kubelet/memory_manager_state", "checkpoint")]
FACTS = {"kubelet_version": "v1.37.0", "flags": {"config": "/var/lib/kubelet/config.yaml", "config_dir": "/etc/kubernetes/kubelet.conf.d"}}


@pytest.fixture
def root(tmp_path):
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "etc/kubernetes/kubelet.conf.d").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/config.yaml").write_bytes(b"kind: KubeletConfiguration\nmaxPods: 110\n")
    (tmp_path / "etc/kubernetes/kubelet.conf.d/10-site.conf").write_bytes(b"kind: KubeletConfiguration\n")
    (tmp_path / "var/lib/kubelet/cpu_manager_state").write_bytes(b'{"policyName":"none","defaultCpuSet":"0-7","checksum":0}')
    return tmp_path


def _tree(path):
    return {str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.rglob("*")) if p.is_file()}


def test_first_contact_records_every_file_byte_for_byte(root):
    manifest, created = baseline_store.record(str(root), STORE, FILES, FACTS)
    assert created is True
    store = root / "var/lib/numa-gate/baseline"
    assert oct(os.stat(store).st_mode & 0o777) == "0o700" and oct(os.stat(store / "files").st_mode & 0o777) == "0o700"
    by_path = {entry["path"]: entry for entry in manifest["files"]}
    assert by_path["/var/lib/kubelet/memory_manager_state"] == {"path": "/var/lib/kubelet/memory_manager_state", "absent": True, "role": "checkpoint"}
    main = by_path["/var/lib/kubelet/config.yaml"]
    assert main["sha256"] == hashlib.sha256(b"kind: KubeletConfiguration\nmaxPods: 110\n").hexdigest() and main["size"] == 40
    assert (store / main["copy"]).read_bytes() == b"kind: KubeletConfiguration\nmaxPods: 110\n"
    assert oct(os.stat(store / main["copy"]).st_mode & 0o777) == "0o600"
    assert json.loads((store / "manifest.json").read_text())["facts"] == FACTS
    assert baseline_store.verify(str(root), STORE) == {"intact": True, "problems": []}


def test_a_later_run_never_overwrites_it(root):
    baseline_store.record(str(root), STORE, FILES, FACTS)
    before = _tree(root / "var/lib/numa-gate/baseline")
    (root / "var/lib/kubelet/config.yaml").write_bytes(b"kind: KubeletConfiguration\nmaxPods: 250\n")
    manifest, created = baseline_store.record(str(root), STORE, FILES, dict(FACTS, kubelet_version="v1.37.1"))
    assert created is False and manifest["facts"]["kubelet_version"] == "v1.37.0"
    assert _tree(root / "var/lib/numa-gate/baseline") == before
    assert baseline_store.original_bytes(str(root), STORE, "/var/lib/kubelet/config.yaml") == b"kind: KubeletConfiguration\nmaxPods: 110\n"
    assert baseline_store.original_bytes(str(root), STORE, "/var/lib/kubelet/memory_manager_state") is None


def test_a_tampered_copy_is_reported_and_never_used(root):
    manifest = baseline_store.record(str(root), STORE, FILES, FACTS)[0]
    copy = root / "var/lib/numa-gate/baseline" / manifest["files"][0]["copy"]
    copy.write_bytes(b"kind: KubeletConfiguration\nmaxPods: 999\n")
    assert baseline_store.verify(str(root), STORE) == {"intact": False, "problems": [
        "/var/lib/kubelet/config.yaml: its copy files/0 no longer matches the manifest's sha256 %s" % manifest["files"][0]["sha256"]]}
    with pytest.raises(atomic.NodeStateError, match=r"^the baseline copy of /var/lib/kubelet/config.yaml no longer matches its sha256"):
        baseline_store.original_bytes(str(root), STORE, "/var/lib/kubelet/config.yaml")


def test_a_garbage_manifest_is_a_clear_error(root):
    baseline_store.record(str(root), STORE, FILES, FACTS)
    (root / "var/lib/numa-gate/baseline/manifest.json").write_text("{not json")
    with pytest.raises(atomic.NodeStateError, match=r"^baseline /var/lib/numa-gate/baseline/manifest.json is not JSON"):
        baseline_store.record(str(root), STORE, FILES, FACTS)


def test_a_baseline_that_is_a_file_changes_nothing(root):
    (root / "var/lib/numa-gate").mkdir(parents=True)
    (root / "var/lib/numa-gate/baseline").write_text("oops")
    with pytest.raises(atomic.NodeStateError) as raised:
        baseline_store.record(str(root), STORE, FILES, FACTS)
    assert str(raised.value) == ("baseline /var/lib/numa-gate/baseline exists and is not a folder (it is a file or device); "
                                 "nothing was changed")
    assert (root / "var/lib/numa-gate/baseline").read_text() == "oops"
    assert sorted(p.name for p in (root / "var/lib/numa-gate").iterdir()) == ["baseline"]


def test_a_failure_half_way_leaves_no_baseline(root, monkeypatch):
    real_write = atomic.write_atomic
    calls = []

    def failing(path, data, **kwargs):
        calls.append(path)
        if len(calls) == 2:
            raise atomic.NodeStateError("disk full")
        return real_write(path, data, **kwargs)
    monkeypatch.setattr(atomic, "write_atomic", failing)
    with pytest.raises(atomic.NodeStateError, match="disk full"):
        baseline_store.record(str(root), STORE, FILES, FACTS)
    assert sorted(p.name for p in (root / "var/lib/numa-gate").iterdir()) == []
    assert baseline_store.load(str(root), STORE) is None


def test_a_symlinked_file_is_kept_as_a_link_never_followed_out(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret"
    outside.write_text("secret")
    os.remove(root / "etc/kubernetes/kubelet.conf.d/10-site.conf")
    os.symlink(str(outside), root / "etc/kubernetes/kubelet.conf.d/10-site.conf")
    manifest = baseline_store.record(str(root), STORE, FILES, FACTS)[0]
    entry = [e for e in manifest["files"] if e["role"] == "dropin"][0]
    assert entry == {"path": "/etc/kubernetes/kubelet.conf.d/10-site.conf", "symlink": str(outside), "role": "dropin"}
    assert "secret" not in json.dumps(_tree(root / "var/lib/numa-gate/baseline"))
