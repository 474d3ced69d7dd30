"""Pods as the API answers them (``GET /api/v1/pods?fieldSelector=spec.nodeName=...``), for the rehearsal's tests."""

NODE = "gpu-node-1"
RS_UID = "6f1f0c4e-rs-web"
DS_UID = "0b4b6a51-ds-agent"
CACHE_UID = "9d2e7c3a-rs-cache"


def pod(name, uid, owner=None, node=NODE, ready=True, phase="Running", namespace="default", deleting=False, annotations=None):
    meta = {"name": name, "namespace": namespace, "uid": uid}
    if owner:
        kind, owner_name, owner_uid = owner
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name, "uid": owner_uid, "controller": True,
                                    "blockOwnerDeletion": True}]
    if deleting:
        meta["deletionTimestamp"] = "2026-12-01T09:00:05Z"
    if annotations:
        meta["annotations"] = annotations
    return {"metadata": meta, "spec": {"nodeName": node, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


WEB = ("ReplicaSet", "web-7c9f5d", RS_UID)
AGENT = ("DaemonSet", "node-agent", DS_UID)
CACHE = ("ReplicaSet", "cache-5b8d4c", CACHE_UID)

BEFORE = [
    pod("node-agent-hx4tq", "u-agent-1", AGENT, namespace="kube-system"),
    pod("web-7c9f5d-q2xkp", "u-web-1", WEB),
    pod("web-7c9f5d-m8z4n", "u-web-2", WEB),
    pod("cache-5b8d4c-w7rtl", "u-cache-1", CACHE),
    pod("debug-shell", "u-bare"),
    pod("kube-proxy-gpu-node-1", "u-mirror", ("Node", NODE, "u-node"), namespace="kube-system",
        annotations={"kubernetes.io/config.mirror": "abc"}),
    pod("web-7c9f5d-old", "u-web-0", WEB, deleting=True),
    pod("job-done", "u-job", ("Job", "nightly", "u-jobc"), phase="Succeeded", ready=False),
    pod("web-7c9f5d-elsewhere", "u-web-9", WEB, node="gpu-node-2"),
]
