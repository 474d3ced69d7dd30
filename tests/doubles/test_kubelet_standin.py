# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in run as a subprocess: it starts, serves, writes verifiable checkpoints, refuses in the kubelet's words.

The checksums are checked independently of the stand-in's code (a separate go-spew rendering and
FNV-1a in standin_harness.py), which this file first checks against the upstream test vectors.
"""

import json
import time

import pytest

from standin_harness import Running, fake_machine, fnv32a, get, memory_text, read_state, refused, v2_text, write


def test_independent_check_matches_the_upstream_vectors():
    assert fnv32a(v2_text("static", "0,2-12,14-23", {"235148fe-393f-47a8-a17d-bd55bc1a836b": {"cgroup1-0": "1,13"}})) == 1552716370
    assert fnv32a('(string){"policyName":"none","defaultCPUSet":"4-6"}') == 657950972
    assert fnv32a('(string){"policyName":"static","defaultCPUSet":"7-9","entries":{"pod":{"container1":"4-6","container2":"1-3"}}}') == 1420829534
    assert fnv32a(memory_text("None", {})) == 4236770233


@pytest.fixture
def node(tmp_path):
    """A fake machine (4 CPUs, 2 NUMA nodes of 4 GiB) and a root dir."""
    return fake_machine(tmp_path, "0-3", {0: "0-1", 1: "2-3"})


STATIC = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
memoryManagerPolicy: Static
reservedSystemCPUs: "0"
kubeReserved: {memory: 1Gi}
reservedMemory:
- numaNode: 0
  limits: {memory: 1124Mi}
"""


def test_starts_serves_and_writes_verifiable_137_checkpoints(node):
    kubelet = Running(node, STATIC)
    try:
        configz = json.loads(get("http://127.0.0.1:%d/configz" % kubelet.port))["kubeletconfig"]
        assert (configz["kind"], configz["apiVersion"], configz["cpuManagerPolicy"]) == ("KubeletConfiguration", "kubelet.config.k8s.io/v1beta1", "static")
        assert get("http://127.0.0.1:%d/healthz" % kubelet.port) == "ok"
        assert "kubelet_cpu_manager_pinning_requests_total 0" in get("http://127.0.0.1:%d/metrics" % kubelet.port)
    finally:
        kubelet.stop()
    cpu = read_state(node, "cpu_manager_state")
    assert json.loads(cpu["data"]) == {"policyName": "static", "defaultCpuSet": "0-3"}
    assert cpu["dataChecksum"] == fnv32a("(string)" + cpu["data"])
    assert (cpu["policyName"], cpu["defaultCpuSet"]) == ("static", "0-3")
    assert cpu["checksum"] == fnv32a(v2_text("static", "0-3", {}))
    mem = read_state(node, "memory_manager_state")
    assert mem["dataChecksum"] == fnv32a("(string)" + mem["data"])
    inner = json.loads(mem["data"])
    assert inner["policyName"] == "Static"
    assert inner["machineState"]["0"]["memoryMap"]["memory"] == {
        "total": 4294967296, "systemReserved": 1124 * 2 ** 20, "allocatable": 4294967296 - 1124 * 2 ** 20, "reserved": 0, "free": 4294967296 - 1124 * 2 ** 20}
    assert mem["checksum"] == fnv32a(memory_text("Static", mem["machineState"]))


def test_restart_over_its_own_checkpoints_starts_again_and_leaves_them_alone(node):
    Running(node, STATIC).stop()
    before = [open(str(node / "root" / n), "rb").read() for n in ("cpu_manager_state", "memory_manager_state")]
    Running(node, STATIC).stop()
    assert [open(str(node / "root" / n), "rb").read() for n in ("cpu_manager_state", "memory_manager_state")] == before


def test_a_pod_file_gets_exclusive_cpus_and_a_memory_block(node):
    write(str(node / "root/standin-pods/p.json"), json.dumps({"uid": "u1", "containers": [{"name": "c", "cpus": 2, "memory": "1Gi"}]}))
    Running(node, STATIC).stop()
    cpu = read_state(node, "cpu_manager_state")
    assert json.loads(cpu["data"]) == {"policyName": "static", "defaultCpuSet": "0-1", "entries": {"u1": {"c": "2-3"}}}
    assert cpu["checksum"] == fnv32a(v2_text("static", "0-1", {"u1": {"c": "2-3"}}))
    mem = json.loads(read_state(node, "memory_manager_state")["data"])
    assert mem["entries"] == {"u1": {"c": [{"numaAffinity": [1], "type": "memory", "size": 2 ** 30}]}}
    assert mem["machineState"]["1"]["numberOfAssignments"] == 1
    Running(node, STATIC).stop()  # the assignments pass the start checks


def stale(node, name, payload):
    write(str(node / "root" / name), json.dumps(payload))
    return str(node / "root" / name)


def test_refuses_a_cpu_checkpoint_of_another_policy(node):
    path = stale(node, "cpu_manager_state", {"policyName": "none", "defaultCpuSet": "", "checksum": 0})
    assert refused(node, STATIC) == (
        'start cpu manager error: could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", '
        'please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % path)


def test_refuses_a_corrupt_cpu_checkpoint(node):
    path = stale(node, "cpu_manager_state", {"policyName": "static", "defaultCpuSet": "0-3", "checksum": 1234})
    assert refused(node, STATIC) == (
        "start cpu manager error: could not restore state from checkpoint: checkpoint is corrupted, "
        'please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % path)


def test_refuses_a_v4_checkpoint_with_a_damaged_data_checksum(node):
    data = '{"policyName":"static","defaultCpuSet":"0-3"}'
    damaged = fnv32a("(string)" + data) ^ 1
    path = stale(node, "cpu_manager_state", {"policyName": "static", "defaultCpuSet": "0-3", "checksum": 0, "data": data, "dataChecksum": damaged})
    assert refused(node, STATIC) == (
        "start cpu manager error: could not restore state from checkpoint: could not load v4 checkpoint: checkpoint is corrupted, "
        'please drain this node and delete the CPU manager checkpoint file "%s" before restarting Kubelet' % path)


def test_refuses_reserved_cpus_outside_the_default_set(node):
    stale(node, "cpu_manager_state", {"policyName": "static", "defaultCpuSet": "1-3", "entries": {"p": {"c": "0"}}, "checksum": 0})
    assert refused(node, STATIC) == 'start cpu manager error: not all reserved cpus: "0" are present in defaultCpuSet: "1-3"'


def test_refuses_a_memory_checkpoint_of_another_policy(node):
    path = stale(node, "memory_manager_state", {"policyName": "None", "machineState": {}, "checksum": 0})
    assert refused(node, STATIC) == (
        'start memory manager error: could not restore state from checkpoint: '
        '[memorymanager] configured policy "Static" differs from state checkpoint policy "None", '
        'please drain this node and delete the memory manager checkpoint file "%s" before restarting Kubelet' % path)


def test_refuses_a_memory_machine_state_that_no_longer_matches(node):
    Running(node, STATIC).stop()
    changed = STATIC.replace("kubeReserved: {memory: 1Gi}", "kubeReserved: {memory: 2Gi}").replace("1124Mi", "2148Mi")
    assert refused(node, changed) == "start memory manager error: [memorymanager] the expected machine state is different from the real one"


def test_a_reboot_that_changed_the_machines_memory_refuses_until_the_state_is_removed(node):
    # Issue 28, item 5: the memory a node boots with can differ from its checkpoint (a DIMM added or failed, memory the
    # firmware now keeps); the Static policy recomputes the machine state and refuses when it differs from the checkpoint's
    # (pkg/kubelet/cm/memorymanager/policy_static.go validateState, areMachineStatesEqual). The documented recovery: drain,
    # stop, remove memory_manager_state, start.
    Running(node, STATIC).stop()
    write(str(node / "sys/devices/system/node/node1/meminfo"), "Node 1 MemTotal:        8388608 kB\n")
    write(str(node / "meminfo"), "MemTotal:        12582912 kB\n")
    assert refused(node, STATIC) == "start memory manager error: [memorymanager] the expected machine state is different from the real one"
    (node / "root" / "memory_manager_state").unlink()
    Running(node, STATIC).stop()
    inner = json.loads(read_state(node, "memory_manager_state")["data"])
    assert inner["machineState"]["1"]["memoryMap"]["memory"]["total"] == 8388608 * 1024


@pytest.mark.parametrize("change, message", [
    (("cpuManagerPolicy: static", "cpuManagerPolicy: Static"), 'failed to run Kubelet: unknown policy: "Static"'),
    (("memoryManagerPolicy: Static", "memoryManagerPolicy: static"), 'failed to run Kubelet: unknown policy: "static"'),
    (('reservedSystemCPUs: "0"\n', ""), "failed to run Kubelet: [cpumanager] unable to determine reserved CPU resources for static policy"),
    (('reservedSystemCPUs: "0"', 'reservedSystemCPUs: "0,7"'),
     "failed to run Kubelet: new static policy error: [cpumanager] unable to build the reserved physical CPUs from the reserved set: unknown CPU ID: 7"),
    (('reservedSystemCPUs: "0"', 'reservedSystemCPUs: "3-1"'),
     'failed to validate kubelet configuration, error: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 3-1, '
     'error: invalid range "3-1" (3 > 1), path: CONFIG'),
    (("1124Mi", "1Gi"),
     'failed to run Kubelet: the total amount "1Gi" of type "memory" is not equal to the value "1124Mi" determined by Node Allocatable feature'),
    (("numaNode: 0", "numaNode: 3"), "failed to run Kubelet: the reserved memory configuration references a NUMA node 3 that does not exist on this machine"),
    (("cpuManagerPolicy: static", "cpuManagerPolicy: static\ntopologyManagerPolicy: single-numa"),
     'failed to validate kubelet configuration, error: invalid configuration: topologyManagerPolicy (--topology-manager-policy) "single-numa" must be one of: '
     '["none" "best-effort" "restricted" "single-numa-node"], path: CONFIG'),
])
def test_refuses_an_invalid_config_in_the_kubelets_words(node, change, message):
    assert refused(node, STATIC.replace(*change)) == message.replace("CONFIG", str(node / "config.yaml"))


def test_dropins_merge_in_lexical_order_and_need_apiversion_and_kind(node):
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    write(str(node / "conf.d/10-a.conf"), head + "cpuManagerPolicy: none\nmemoryManagerPolicy: None\n")
    write(str(node / "conf.d/20-b/x.conf"), head + "kubeReserved: {memory: 2Gi}\n")
    write(str(node / "conf.d/30-c.yaml"), "not: used\n")
    kubelet = Running(node, STATIC, "--config-dir", str(node / "conf.d"))
    try:
        configz = json.loads(get("http://127.0.0.1:%d/configz" % kubelet.port))["kubeletconfig"]
        assert (configz["cpuManagerPolicy"], configz["memoryManagerPolicy"], configz["kubeReserved"]) == ("none", "None", {"memory": "2Gi"})
    finally:
        kubelet.stop()
    write(str(node / "conf.d/40-d.conf"), "cpuManagerPolicy: static\n")
    assert refused(node, STATIC, "--config-dir", str(node / "conf.d")).startswith(
        "failed to load kubelet dropin file, path: %s, error: Object 'Kind' is missing in " % (node / "conf.d/40-d.conf"))


def test_registers_the_node_keeps_it_ready_and_marks_it_unknown_on_sigterm(node):
    """Against a recorder on 127.0.0.1 (not the API double): POST, Ready heartbeats, Unknown at the end."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    seen = []

    class Recorder(BaseHTTPRequestHandler):
        def log_message(self, *args):
            return

        def answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            seen.append((self.command, self.path, self.headers.get("Content-Type"), json.loads(self.rfile.read(length) or b"null")))
            code = 409 if self.command == "POST" and len([s for s in seen if s[0] == "POST"]) > 1 else 201 if self.command == "POST" else 200
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_POST = do_PATCH = answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        kubelet = Running(node, STATIC, "--api-server", "http://127.0.0.1:%d" % server.server_address[1])
        deadline = time.time() + 10
        while time.time() < deadline and not any(s[0] == "PATCH" for s in seen):
            time.sleep(0.1)
        kubelet.stop()
    finally:
        server.shutdown()
    post = seen[0]
    assert (post[0], post[1], post[3]["metadata"]["name"]) == ("POST", "/api/v1/nodes", "n1")
    assert post[3]["status"]["conditions"][0]["status"] == "True"
    assert post[3]["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] == kubelet.port
    patches = [s for s in seen if s[0] == "PATCH"]
    assert all(p[1] == "/api/v1/nodes/n1/status" and p[2] == "application/strategic-merge-patch+json" for p in patches)
    assert patches[0][3]["status"]["conditions"][0]["status"] == "True"
    last = patches[-1][3]["status"]["conditions"][0]
    assert (last["type"], last["status"], last["message"]) == ("Ready", "Unknown", "Kubelet stopped posting node status.")
