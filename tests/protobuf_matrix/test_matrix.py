"""The collection's PodResources client on every protobuf and grpcio a node may have, against a gRPC TEST DOUBLE of the kubelet.

    make protobuf-matrix        (or: .venv/bin/python -m pytest -q -p no:cacheprovider tests/protobuf_matrix)

Each (protobuf, grpcio) pair of targets.PROTOBUF x targets.GRPCIO runs run_client.py in its own
interpreter started with ``-S`` and PYTHONPATH = the two ``pip install --target`` folders + the
collection, so nothing of the venv's site-packages is seen. The double is
tests/unit/plugins/module_utils/_evidence/podresources/podresources_double.py (not the kubelet: it compiles the
collection's api.proto with the venv's grpcio-tools in its own process, imports nothing from the
collection, and serves answers.json on a unix socket in tmp). Every answer is compared with the
exact decoded value below: pods, containers, cpu_ids as cpulists, memory, devices with their NUMA
topology, DRA claims, the 1.37 pod-level fields, and which libraries read it. One more case runs
the machine's own /usr/bin/python3 with Debian 12's python3-grpcio 1.51.1 and python3-protobuf
3.21.12 (cpp, reporting 4.21.12) when they are installed (ensure_debian_packages.sh, run by the make
target, installs them on Debian 12); elsewhere it is skipped. Bounded: each pip
install PIP_TIMEOUT, each client run CLIENT_TIMEOUT, the double's start 30 s.
"""

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile

import pytest

from targets import CHECKOUT, GRPCIO, PROTOBUF, ensure

HERE = os.path.dirname(os.path.abspath(__file__))
COLLECTIONS_ROOT = os.path.join(CHECKOUT, ".build", "collections")
DOUBLE = os.path.join(CHECKOUT, "tests", "unit", "plugins", "module_utils", "_evidence", "podresources", "podresources_double.py")
PROTO = os.path.join(CHECKOUT, "plugins", "module_utils", "_evidence", "podresources", "api.proto")
ANSWERS = os.path.join(HERE, "answers.json")
CLIENT_TIMEOUT = 60
GI = 1 << 30
GPU = "GPU-f2c38e61-1c95-2e97-c47e-1090719df202"

INFERENCE = {
    "name": "inference", "namespace": "canary", "cpu_ids": "2-9,18-19",
    "memory": [{"memory_type": "memory", "size": 16 * GI, "numa_nodes": [0]}, {"memory_type": "hugepages-1Gi", "size": 2 * GI, "numa_nodes": [0]}],
    "containers": [
        {"name": "server", "cpu_ids": "2-7",
         "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [GPU], "numa_nodes": [0]},
                     {"resource_name": "example.com/sriov", "device_ids": ["0000:00:03.0"], "numa_nodes": [0, 1]}],
         "memory": [{"memory_type": "memory", "size": 12 * GI, "numa_nodes": [0]}], "dynamic_resources": []},
        {"name": "dra", "cpu_ids": "8", "devices": [], "memory": [],
         "dynamic_resources": [{"claim_name": "gpu-claim", "claim_namespace": "canary", "claim_resources": [
             {"driver_name": "gpu.nvidia.com", "pool_name": "node-a", "device_name": "gpu-0", "cdi_devices": ["k8s.gpu.nvidia.com/device=gpu-0"]}]}]},
        {"name": "metrics-sidecar", "cpu_ids": "", "devices": [], "memory": [], "dynamic_resources": []},
    ],
}
WEB = {"name": "web", "namespace": "default", "cpu_ids": "", "memory": [],
       "containers": [{"name": "nginx", "cpu_ids": "", "devices": [], "memory": [], "dynamic_resources": []}]}
ALLOCATABLE = {"cpu_ids": "1-15,17-31",
               "memory": [{"memory_type": "memory", "size": 64 * GI, "numa_nodes": [0]}, {"memory_type": "memory", "size": 64 * GI, "numa_nodes": [1]}],
               "devices": [{"resource_name": "nvidia.com/gpu", "device_ids": [GPU], "numa_nodes": [0]}]}


def libraries(protobuf, grpcio):
    """What the client reports: the pure-Python wheels before 4.21, upb from 4.21; GetMessageClass from 4.24."""
    major, minor = (int(part) for part in protobuf.split(".")[:2])
    return {"protobuf": protobuf, "protobuf_implementation": "python" if (major, minor) < (4, 21) else "upb",
            "message_classes": "GetMessageClass" if (major, minor) >= (4, 24) else "MessageFactory.GetPrototype", "grpcio": grpcio}


@pytest.fixture(scope="module")
def folders():
    built = {("protobuf", v): ensure("protobuf", v) for v in PROTOBUF}
    built.update({("grpcio", v): ensure("grpcio", v) for v in GRPCIO})
    return built


@pytest.fixture(scope="module")
def kubelet_socket():
    folder = tempfile.mkdtemp(prefix="pbm-")
    socket = os.path.join(folder, "kubelet.sock")
    proc = subprocess.Popen([sys.executable, DOUBLE, PROTO, socket, ANSWERS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready, _w, _x = select.select([proc.stdout], [], [], 30)
        assert ready and proc.stdout.readline().strip() == "ready", "the PodResources double did not start (rc %s)" % proc.poll()
        yield socket
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("grpcio", GRPCIO)
@pytest.mark.parametrize("protobuf", PROTOBUF)
def test_client_reads_the_exact_answer(protobuf, grpcio, folders, kubelet_socket):
    protobuf_folder, grpcio_folder = folders[("protobuf", protobuf)], folders[("grpcio", grpcio)]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": os.pathsep.join([protobuf_folder, grpcio_folder, COLLECTIONS_ROOT]),
           "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-S", os.path.join(HERE, "run_client.py"), kubelet_socket, protobuf_folder, grpcio_folder],
                         env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, check=False)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["origins"] == {"protobuf": True, "grpcio": True}
    assert answer["list"] == {"socket": kubelet_socket, "reachable": True, "pods": [INFERENCE, WEB], "allocatable": ALLOCATABLE,
                              "findings": [], "libraries": libraries(protobuf, grpcio)}
    assert answer["get"] == {"socket": kubelet_socket, "reachable": True, "pods": [INFERENCE], "allocatable": ALLOCATABLE,
                             "findings": [], "libraries": libraries(protobuf, grpcio)}


DEBIAN_PYTHON = "/usr/bin/python3"
DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def _debian_packages():
    try:
        answer = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version} ${Status}\n", "python3-grpcio", "python3-protobuf"],
                                capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return {}
    return {line.split()[0]: line.split()[1] for line in answer.stdout.splitlines() if line.endswith("install ok installed")}


def test_debian_12_packages_cpp_protobuf(kubelet_socket):
    if _debian_packages() != {"python3-grpcio": "1.51.1-3+b1", "python3-protobuf": "3.21.12-3+deb12u1"} or not os.path.exists(DEBIAN_PYTHON):
        pytest.skip("Debian 12's python3-grpcio 1.51.1-3+b1 and python3-protobuf 3.21.12-3+deb12u1 are not installed here")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": COLLECTIONS_ROOT, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1"}
    run = subprocess.run([DEBIAN_PYTHON, os.path.join(HERE, "run_client.py"), kubelet_socket, DIST_PACKAGES, DIST_PACKAGES],
                         env=env, capture_output=True, text=True, timeout=CLIENT_TIMEOUT, check=False)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["origins"] == {"protobuf": True, "grpcio": True}
    debian = {"protobuf": "4.21.12", "protobuf_implementation": "cpp", "message_classes": "MessageFactory.GetPrototype", "grpcio": "1.51.1"}
    assert answer["list"] == {"socket": kubelet_socket, "reachable": True, "pods": [INFERENCE, WEB], "allocatable": ALLOCATABLE,
                              "findings": [], "libraries": debian}
    assert answer["get"] == {"socket": kubelet_socket, "reachable": True, "pods": [INFERENCE], "allocatable": ALLOCATABLE,
                             "findings": [], "libraries": debian}
