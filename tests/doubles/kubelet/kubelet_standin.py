# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A kubelet STAND-IN for tests. It is NOT the kubelet and runs no containers.

It exists because no kubelet binary can be installed here. systemd runs it as the `kubelet` unit
inside the podman test nodes, so that the collection's roles meet a process that reads the
kubelet's files, refuses to start the way the kubelet refuses, writes the kubelet's checkpoint
files with the kubelet's checksums, and answers /healthz and /configz. It is written independently
of the collection (it imports nothing from plugins/): a double that shared the code under test
would prove nothing. Python 3 standard library plus PyYAML only (Debian bookworm python3-yaml).

Each behaviour, and the kubelet source it copies (kubernetes/kubernetes, read at the 1.37 line;
"approximate" marks wording this program could not confirm in the source):

- Flags `--config`, `--config-dir`, `--root-dir` (default /var/lib/kubelet), `--hostname-override`
  / `--node-name`, `--version`; unknown flags are ignored (kubeadm's unit passes many):
  cmd/kubelet/app/server.go, cmd/kubelet/app/options/options.go.
  `--api-server URL`, `--healthz-port`, `--port`, `--address`, `--sysfs-root`, `--meminfo` and
  `--cpu-legacy-checksum` are stand-in flags (the real kubelet reads its API server from a
  kubeconfig and the machine through cadvisor).
- Drop-ins: files named exactly `*.conf` under `--config-dir`, walked recursively in lexical
  order (directories at their place in the order, like filepath.WalkDir), each a
  KubeletConfiguration with apiVersion and kind, applied over `--config` as JSON merge patches
  (RFC 7386: maps merged per key, lists replaced, null deletes), then command-line overrides:
  cmd/kubelet/app/server.go (mergeKubeletConfigurations), pkg/kubelet/kubeletconfig/configfiles.
- Defaults used when a field is unset (cpuManagerPolicy none, memoryManagerPolicy None,
  topologyManagerPolicy none, topologyManagerScope container, healthzBindAddress 127.0.0.1,
  healthzPort 10248, port 10250, evictionHard memory.available 100Mi):
  k8s.io/kubelet/config/v1beta1/types.go and pkg/kubelet/apis/config/v1beta1/defaults.go.
  A partial evictionHard leaves memory.available at 0 unless mergeDefaultEvictionSettings is true.
- Validation (a subset): topologyManagerPolicy, topologyManagerScope, healthzPort/port range,
  reservedSystemCPUs parse, joined like utilerrors.NewAggregate:
  pkg/kubelet/apis/config/validation/validation.go ("invalid configuration: ...").
  Printed as `failed to validate kubelet configuration, error: %v, path: %s` (server.go; the
  kubelet prints the config struct where this prints the file path).
- CPU manager policy names `none`/`static` exactly (`unknown policy: "%s"`); static with no CPU
  reservation (`[cpumanager] unable to determine reserved CPU resources for static policy`;
  a zero reservation is dropped from the node allocatable reservation, so it reads the same);
  reservedSystemCPUs outside the online CPUs (`new static policy error: [cpumanager] unable to
  build the reserved physical CPUs from the reserved set: unknown CPU ID: %d`):
  pkg/kubelet/cm/cpumanager/cpu_manager.go (NewManager), policy_static.go (NewStaticPolicy),
  topology/topology.go (CPUCoreID); reservedSystemCPUs replaces the kube/system reserved CPU
  count: cmd/kubelet/app/server.go. Printed as `failed to run Kubelet: %v` (server.go).
  The reserved set without reservedSystemCPUs is taken whole cores first, lowest CPU ids first
  (a simplification of takeByTopology).
- Memory manager policy names `None`/`Static` (`unknown policy: %q`; BestEffort is Windows only:
  `policy "BestEffort" is not available for platform "linux"`); Static: reservedMemory for a NUMA
  node the machine lacks (`the reserved memory configuration references a NUMA node %d that does
  not exist on this machine`) and the per-type sum against kube + system reserved + hard eviction
  (`the total amount %q of type %q is not equal to the value %q determined by Node Allocatable
  feature`, quantities printed in the kubelet's canonical form, the format of the first non-zero
  addend): pkg/kubelet/cm/memorymanager/memory_manager.go (NewManager, validateReservedMemory,
  getTotalMemoryTypeReserved), pkg/kubelet/cm/node_container_manager_linux.go
  (GetNodeAllocatableReservation, hardEvictionReservation), k8s.io/apimachinery resource.Quantity.
- cpu_manager_state, read as 1.37 reads it: V4 (`data` + `dataChecksum`) first; a file with
  `data` or `dataChecksum` that fails is `could not load v4 checkpoint: %w`, no fallback; else V3
  then V2 (legacy checksum, 0 accepted for V2): pkg/kubelet/cm/cpumanager/state/state_checkpoint.go
  (loadAndMigrateCheckpointV4), checkpoint.go. Policy from `data`: `configured policy %q differs
  from state checkpoint policy %q`; wrapped `could not restore state from checkpoint: %v, please
  drain this node and delete the CPU manager checkpoint file %q before restarting Kubelet`
  (state_checkpoint.go NewCheckpointState).
- Static policy start checks (`not all reserved cpus: %q are present in defaultCpuSet: %q`,
  `pod: %s, container: %s cpuset: %q overlaps with default cpuset %q`, `current set of available
  CPUs %q doesn't match with CPUs in state %q`, `default cpuset cannot be empty`):
  pkg/kubelet/cm/cpumanager/policy_static.go (validateState). Start errors are printed as
  `"Failed to start ContainerManager" err="start cpu manager error: %v"`:
  pkg/kubelet/cm/container_manager_linux.go (Start), pkg/kubelet/kubelet.go.
- memory_manager_state read as 1.37 reads it: V3 (`data` + `dataChecksum`; a failing one is
  `could not load v3 checkpoint: %w`), else V2/V1 with the legacy checksum (0 accepted for V1):
  pkg/kubelet/cm/memorymanager/state/state_checkpoint.go, checkpoint.go. `[memorymanager]
  configured policy %q differs from state checkpoint policy %q`, wrapped `... please drain this
  node and delete the memory manager checkpoint file %q before restarting Kubelet`; Static start
  check `[memorymanager] the expected machine state is different from the real one` (the state
  recomputed from the machine, reservedMemory and the checkpoint's assignments):
  pkg/kubelet/cm/memorymanager/policy_static.go (validateState, getDefaultMachineState,
  areMachineStatesEqual). `start memory manager error: %w`: container_manager_linux.go.
- Checksums: legacy = FNV-1a 32 over the go-spew `%#v` dump of the struct with Checksum 0 under the
  legacy type name (k8s.io/utils/dump ForHash: SortKeys, DisableMethods, SpewKeys,
  DisablePointerAddresses, DisableCapacities; github.com/davecgh/go-spew spew/format.go);
  `dataChecksum` = the same over the Go string `data`, i.e. FNV-1a 32 of "(string)" + data:
  pkg/kubelet/checkpointmanager/checksum/checksum.go. `checkpoint is corrupted`:
  pkg/kubelet/checkpointmanager/errors/errors.go. A missing file is not an error: a fresh one is
  written (checkpoint_manager.go, ErrCheckpointNotFound).
- Written formats (only when a file is absent or the state changed, atomically: temp file, fsync,
  rename): cpu_manager_state V4 = the legacy top-level copy (policyName, defaultCpuSet, entries)
  + `data` (Go json.Marshal of CPUManagerCheckpointData) + `dataChecksum`; the legacy `checksum`
  is a valid V2 checksum by default (`--cpu-legacy-checksum zero` writes 0, which is what the
  upstream V4 MarshalCheckpoint read here does; a 1.35 kubelet accepts both).
  memory_manager_state V3 = the V1 fields with a valid V1 checksum + `data` + `dataChecksum`
  (memorymanager/state/checkpoint.go MarshalCheckpoint).
- Pods: this stand-in runs no containers. A JSON file `<root-dir>/standin-pods/<anything>.json`
  (`{"uid": "...", "name": "...", "namespace": "...", "containers": [{"name": "c", "cpus": 2,
  "memory": "1Gi"}]}`) stands for a Guaranteed pod admitted on the node; it is read at start and
  every 2 s. Under the static CPU policy each container with an integer `cpus` gets exclusive
  CPUs (from the default set less the reserved CPUs, one NUMA node when one fits, lowest ids
  first) written to `entries`; under the Static memory policy its `memory` becomes a block on that
  NUMA node (machine state reserved/free/numberOfAssignments/cells updated as policy_static.go
  Allocate/RemoveContainer do). A removed file releases them.
- Pods from the API (`--admit-api-pods`, a stand-in flag, with `--api-server`): the pods bound to
  the node are admitted at pod scope with pod-level resources, allocated, given a status through the
  API, and released when deleted (standin_pods.py, standin_admission.py, beside this file; imported
  only with that flag, so this file alone still runs the rest). `--bind-pods` also binds the pending
  pods whose nodeSelector names this node (standin_binder.py: no kube-scheduler runs in the tests).
  `--node-labels k=v,...` labels the node when it registers (cmd/kubelet/app/options NodeLabels).
  With PodLevelResourceManagers the checkpoints' `data` carry `podEntries` (the pods' CPU sets and
  memory blocks), counted in the start checks (policy_static.go validateState of both managers).
- PodResources API v1 (List, GetAllocatableResources, Get) on `<root-dir>/pod-resources/kubelet.sock`
  from this stand-in's assignments, when grpcio and protobuf are importable (standin_podresources.py,
  beside this file, which cites the kubelet's source per behaviour; without them a warning, no socket).
- HTTP (plain HTTP, the real kubelet serves TLS on its port): healthzBindAddress:healthzPort
  `/healthz` -> `ok` (pkg/kubelet/server/server.go); address:port `/healthz`, `/configz`
  (`{"kubeletconfig": {... "kind": "KubeletConfiguration", "apiVersion":
  "kubelet.config.k8s.io/v1beta1"}}`, component-base/configz), `/metrics` (a few Prometheus text
  lines: kubelet_cpu_manager_pinning_requests_total, kubelet_memory_manager_pinning_requests_total,
  resource_manager_container_assignments), `/pods`.
- Device plugins (`--device-plugins`, a stand-in flag): a registration is a file
  `<root-dir>/device-plugins/<name>.json` (`{"resourceName": "nvidia.com/gpu", "devices": 8}`) that a
  device plugin stand-in writes once `kubelet.sock` is there. At start every other file of that folder
  is removed and `kubelet.sock` made again, the plugins' signal to register again
  (pkg/kubelet/cm/devicemanager/plugin/v1beta1/server.go Start, "Removes all stale sockets");
  the registered resources are kept in `kubelet_internal_checkpoint` (RegisteredDevices), so a resource
  whose plugin has not registered since the start shows its checkpointed count as capacity and 0 as
  allocatable (manager.go GetCapacity: devices of a plugin not registered are not healthy;
  pkg/kubelet/nodestatus/setters.go MachineInfo puts capacity and allocatable in the Node's status).
- Node registration with `--api-server` (plain HTTP, urllib): POST /api/v1/nodes, on 409 a
  status patch; Ready=True heartbeat every 2 s (PATCH /api/v1/nodes/<name>/status,
  strategic-merge-patch, merge-patch when refused); on SIGTERM Ready=Unknown with the node
  lifecycle controller's wording ("Kubelet stopped posting node status.") and exit 0:
  pkg/kubelet/kubelet_node_status.go (registerWithAPIServer, tryUpdateNodeStatus),
  pkg/controller/nodelifecycle. status.daemonEndpoints.kubeletEndpoint.Port is the stand-in's
  port, so an API server's node proxy can reach it.

Refusals print a klog-style line (`E... "Failed to run kubelet" err="..."`, the message quoted as
Go %q) and then the message itself unquoted on a line starting `kubelet stand-in refused to
start: `, on stderr, and exit 1.
"""

import argparse
import copy
import datetime
import json
import os
import re
import signal
import socket
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    import yaml
except ImportError:  # pragma: no cover - the nodes have python3-yaml
    yaml = None

VERSION = "v1.37.0"
API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"
CPU_STATE = "cpu_manager_state"
MEMORY_STATE = "memory_manager_state"
PODS_DIR = "standin-pods"
HEARTBEAT_S = 2.0

DEFAULTS = {
    "cpuManagerPolicy": "none",
    "cpuManagerReconcilePeriod": "10s",
    "memoryManagerPolicy": "None",
    "topologyManagerPolicy": "none",
    "topologyManagerScope": "container",
    "healthzBindAddress": "127.0.0.1",
    "healthzPort": 10248,
    "address": "0.0.0.0",
    "port": 10250,
    "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "imagefs.available": "15%", "nodefs.inodesFree": "5%"},
}


class Refusal(Exception):
    """The kubelet would not start; `headline` is the klog message, str() the error."""

    def __init__(self, message, headline="Failed to run kubelet"):
        super().__init__(message)
        self.headline = headline


class CheckpointError(Exception):
    """A checkpoint did not load or verify (the text is the Go error's)."""


CORRUPT = "checkpoint is corrupted"


# ---------------------------------------------------------------------------------------------
# go-spew %#v with dump.ForHash's settings, over a tiny model of Go types
# ---------------------------------------------------------------------------------------------

class GoType(object):
    """A Go type: kind is string/int/uint/map/slice/ptr/struct; name is reflect's Type.String()."""

    def __init__(self, kind, name, key=None, elem=None, fields=None):
        self.kind, self.name, self.key, self.elem, self.fields = kind, name, key, elem, fields


def scalar(kind, name=None):
    return GoType(kind, name or kind)


def gomap(key, elem, name=None):
    return GoType("map", name or "map[%s]%s" % (key.name, elem.name), key=key, elem=elem)


def slice_of(elem, name=None):
    return GoType("slice", name or "[]" + elem.name, elem=elem)


def ptr(elem):
    return GoType("ptr", "*" + elem.name, elem=elem)


def struct(name, fields):
    return GoType("struct", name, fields=fields)


STRING, INT, UINT64 = scalar("string"), scalar("int"), scalar("uint", "uint64")
CHECKSUM = scalar("uint", "checksum.Checksum")
RESOURCE_NAME = scalar("string", "v1.ResourceName")


def spew(value, gotype, show_type=True):
    """The text go-spew's formatter prints for `%#v` (format.go), type shown unless ignoreNextType."""
    if gotype.kind == "ptr":
        if value is None:
            return ("(%s)" % gotype.name if show_type else "") + "<nil>"
        return ("(%s)" % gotype.name if show_type else "<*>") + spew(value, gotype.elem, False)
    head = "(%s)" % gotype.name if show_type else ""
    kind = gotype.kind
    if kind == "string":
        return head + value
    if kind in ("int", "uint"):
        return head + str(int(value))
    if kind == "slice":
        if value is None:
            return head + "<nil>"
        return head + "[" + " ".join(spew(item, gotype.elem, False) for item in value) + "]"
    if kind == "map":
        if value is None:
            return head + "<nil>"
        keys = sorted(value, key=int) if gotype.key.kind in ("int", "uint") else sorted(value)
        return head + "map[" + " ".join(
            spew(k, gotype.key, False) + ":" + spew(value[k], gotype.elem, False) for k in keys) + "]"
    if kind == "struct":
        return head + "{" + " ".join(name + ":" + spew(value.get(name), ftype, True) for name, ftype in gotype.fields) + "}"
    raise ValueError("no spew for %s" % kind)


def fnv1a32(data):
    """FNV-1a, 32 bit (hash/fnv New32a)."""
    h = 0x811C9DC5
    for byte in data:
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def checksum_of(value, gotype):
    """checksum.New: FNV-1a 32 of dump.ForHash(value)."""
    return fnv1a32(spew(value, gotype).encode("utf-8"))


def data_checksum(data):
    """checksum.New(cp.Data) for a Go string: FNV-1a 32 of "(string)" + data."""
    return checksum_of(data, STRING)


CPU_V2 = ptr(struct("state.CPUManagerCheckpoint", [
    ("PolicyName", STRING), ("DefaultCPUSet", STRING),
    ("Entries", gomap(STRING, gomap(STRING, STRING))), ("Checksum", CHECKSUM)]))
CPUSET = struct("cpuset.CPUSet", [("elems", gomap(INT, struct("struct {}", []), "map[int]struct {}"))])
CPU_POD_ENTRIES = gomap(STRING, struct("state.PodEntry", [("CPUSet", CPUSET)]), "state.PodCPUAssignments")
CPU_V3 = ptr(struct("state.CPUManagerCheckpoint", [
    ("PolicyName", STRING), ("DefaultCPUSet", STRING),
    ("Entries", gomap(STRING, gomap(STRING, STRING))), ("PodEntries", CPU_POD_ENTRIES), ("Checksum", CHECKSUM)]))
MEMORY_TABLE = struct("state.MemoryTable", [
    ("TotalMemSize", UINT64), ("SystemReserved", UINT64), ("Allocatable", UINT64), ("Reserved", UINT64), ("Free", UINT64)])
NUMA_NODE_STATE = struct("state.NUMANodeState", [
    ("NumberOfAssignments", INT), ("MemoryMap", gomap(RESOURCE_NAME, ptr(MEMORY_TABLE))), ("Cells", slice_of(INT))])
NUMA_NODE_MAP = gomap(INT, ptr(NUMA_NODE_STATE), "state.NUMANodeMap")
BLOCK = struct("state.Block", [("NUMAAffinity", slice_of(INT)), ("Type", RESOURCE_NAME), ("Size", UINT64)])
MEMORY_ENTRIES = gomap(STRING, gomap(STRING, slice_of(BLOCK)), "state.ContainerMemoryAssignments")
MEMORY_POD_ENTRIES = gomap(STRING, struct("state.PodEntry", [("MemoryBlocks", slice_of(BLOCK))]), "state.PodMemoryAssignments")
MEMORY_V1 = ptr(struct("state.MemoryManagerCheckpoint", [
    ("PolicyName", STRING), ("MachineState", NUMA_NODE_MAP), ("Entries", MEMORY_ENTRIES), ("Checksum", CHECKSUM)]))
MEMORY_V2 = ptr(struct("state.MemoryManagerCheckpoint", [
    ("PolicyName", STRING), ("MachineState", NUMA_NODE_MAP), ("Entries", MEMORY_ENTRIES),
    ("PodEntries", MEMORY_POD_ENTRIES), ("Checksum", CHECKSUM)]))


# ---------------------------------------------------------------------------------------------
# JSON in Go's manner
# ---------------------------------------------------------------------------------------------

def go_json(value):
    """encoding/json Marshal output: compact, map keys sorted as strings, <>& escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def sorted_map(mapping):
    return {str(k): mapping[k] for k in sorted(mapping, key=str)}


def go_json_error(text, err):
    if not text.strip() or "Expecting value: line 1 column %d" % (len(text) + 1) in str(err) or err.pos >= len(text.rstrip()):
        return "unexpected end of JSON input"
    return "invalid character %r looking for beginning of value" % text[err.pos] if err.pos < len(text) else str(err)


def load_json_object(text):
    try:
        value = json.loads(text)
    except ValueError as err:
        raise CheckpointError(go_json_error(text, err))
    if not isinstance(value, dict):
        raise CheckpointError("json: cannot unmarshal %s into Go value of type struct" % type(value).__name__)
    return value


def field(obj, name):
    """Go's json.Unmarshal matches field names case-insensitively; (found, value)."""
    if name in obj:
        return True, obj[name]
    for key, value in obj.items():
        if key.lower() == name.lower():
            return True, value
    return False, None


def as_string(obj, name):
    found, value = field(obj, name)
    if not found or value is None:
        return ""
    if not isinstance(value, str):
        raise CheckpointError("json: cannot unmarshal %s into Go struct field .%s of type string" % (type(value).__name__, name))
    return value


def as_uint(obj, name):
    found, value = field(obj, name)
    if not found or value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CheckpointError("json: cannot unmarshal %s into Go struct field .%s of type checksum.Checksum" % (json.dumps(value), name))
    return value


def as_map(obj, name, preset=True):
    """A map field: absent keeps the constructor's empty map (or nil), null sets nil."""
    found, value = field(obj, name)
    if not found:
        return {} if preset else None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise CheckpointError("json: cannot unmarshal %s into Go struct field .%s of type map" % (type(value).__name__, name))
    return value


# ---------------------------------------------------------------------------------------------
# cpusets and quantities
# ---------------------------------------------------------------------------------------------

def parse_cpuset(text):
    """k8s.io/utils/cpuset Parse."""
    cpus = set()
    text = text.strip()
    if not text:
        return cpus
    for part in text.split(","):
        bounds = part.split("-")
        for bound in bounds:
            if not re.fullmatch(r"[0-9]+", bound.strip()):
                raise ValueError('strconv.Atoi: parsing %s: invalid syntax' % json.dumps(bound))
        if len(bounds) == 1:
            cpus.add(int(bounds[0]))
        elif len(bounds) == 2:
            low, high = int(bounds[0]), int(bounds[1])
            if low > high:
                raise ValueError("invalid range %s (%d > %d)" % (go_quote(part), low, high))
            cpus.update(range(low, high + 1))
        else:
            raise ValueError('invalid range %s' % json.dumps(part))
    return cpus


def format_cpuset(cpus):
    """cpuset.CPUSet String: sorted ranges."""
    out, run = [], []
    for cpu in sorted(cpus):
        if run and cpu == run[-1] + 1:
            run.append(cpu)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
        run = [cpu]
    if run:
        out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
    return ",".join(out)


BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
DECIMAL = {"n": -3, "u": -2, "m": -1, "": 0, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


class Quantity(object):
    """The part of resource.Quantity this needs: an exact value and a format for String()."""

    def __init__(self, value, fmt):
        self.value, self.fmt = value, fmt

    @classmethod
    def parse(cls, raw):
        if isinstance(raw, bool) or raw is None:
            raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        if isinstance(raw, int):
            return cls(raw, "DecimalSI")
        from fractions import Fraction
        match = re.fullmatch(r"([+-]?[0-9]*\.?[0-9]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE]?)", str(raw).strip())
        if not match:
            raise ValueError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
        number, suffix = Fraction(match.group(1)), match.group(2)
        if suffix in BINARY:
            return cls(number * 1024 ** BINARY[suffix], "BinarySI")
        if suffix and suffix[0] in "eE":
            return cls(number * Fraction(10) ** int(suffix[1:]), "DecimalExponent")
        return cls(number * Fraction(1000) ** DECIMAL[suffix], "DecimalSI")

    def add(self, other):
        """Quantity.Add: a zero receiver takes the addend's format."""
        fmt = other.fmt if self.value == 0 else self.fmt
        return Quantity(self.value + other.value, fmt)

    def __str__(self):
        value, fmt = self.value, self.fmt
        if fmt == "BinarySI" and (-1024 < value < 1024 or value != int(value)):
            fmt = "DecimalSI"
        if fmt == "BinarySI":
            number, exp = int(value), 0
            while exp < 6 and number != 0 and number % 1024 == 0:
                number, exp = number // 1024, exp + 1
            return str(number) + {v: k for k, v in BINARY.items()}.get(exp, "")
        if value != int(value):  # milli and below: enough for these checks
            for exp in (-1, -2, -3):
                scaled = value / (1000 ** exp)
                if scaled == int(scaled):
                    return str(int(scaled)) + {v: k for k, v in DECIMAL.items()}[exp]
            return str(float(value))
        number, exp = int(value), 0
        while exp < 6 and number != 0 and number % 1000 == 0:
            number, exp = number // 1000, exp + 1
        if fmt == "DecimalExponent":
            return "%de%d" % (number, exp * 3) if exp else str(number)
        return str(number) + {v: k for k, v in DECIMAL.items()}[exp]


def go_quote(text):
    """Go's %q for the ASCII messages here."""
    return json.dumps(text)


def aggregate(errors):
    """utilerrors.NewAggregate(...).Error()."""
    msgs = []
    for err in errors:
        if err not in msgs:
            msgs.append(err)
    return msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"


# ---------------------------------------------------------------------------------------------
# the machine (what cadvisor would tell the kubelet)
# ---------------------------------------------------------------------------------------------

def read_text(path):
    with open(path, "r") as handle:
        return handle.read()


def node_memtotal(text, default=None):
    match = re.search(r"MemTotal:\s+([0-9]+)\s*kB", text)
    return int(match.group(1)) * 1024 if match else default


class Machine(object):
    """Online CPUs, cores, NUMA nodes with their CPUs, memory and hugepage pools, read from sysfs."""

    def __init__(self, sysfs_root="/sys", meminfo="/proc/meminfo"):
        cpu_dir = os.path.join(sysfs_root, "devices/system/cpu")
        self.online = parse_cpuset(read_text(os.path.join(cpu_dir, "online")))
        self.cores = {}
        for cpu in sorted(self.online):
            topo = os.path.join(cpu_dir, "cpu%d" % cpu, "topology")
            try:
                key = (int(read_text(os.path.join(topo, "physical_package_id"))), int(read_text(os.path.join(topo, "core_id"))))
            except (OSError, ValueError):
                key = (0, cpu)
            self.cores.setdefault(key, set()).add(cpu)
        self.nodes = {}
        node_dir = os.path.join(sysfs_root, "devices/system/node")
        names = sorted((n for n in os.listdir(node_dir) if re.fullmatch(r"node[0-9]+", n)), key=lambda n: int(n[4:])) if os.path.isdir(node_dir) else []
        for name in names:
            nid, base = int(name[4:]), os.path.join(node_dir, name)
            try:
                cpus = parse_cpuset(read_text(os.path.join(base, "cpulist"))) & self.online
            except OSError:
                cpus = set()
            try:
                memory = node_memtotal(read_text(os.path.join(base, "meminfo")), 0)
            except OSError:
                memory = 0
            self.nodes[nid] = {"cpus": cpus, "memory": memory, "hugepages": self._hugepages(os.path.join(base, "hugepages"))}
        self.memory = sum(node["memory"] for node in self.nodes.values())
        if not self.nodes:
            try:
                total = node_memtotal(read_text(meminfo), 0)
            except OSError:
                total = 0
            self.nodes[0] = {"cpus": set(self.online), "memory": total, "hugepages": {}}
            self.memory = total
        try:
            self.memory = node_memtotal(read_text(meminfo), self.memory)
        except OSError:
            pass

    @staticmethod
    def _hugepages(path):
        pools = {}
        if not os.path.isdir(path):
            return pools
        for name in sorted(os.listdir(path)):
            match = re.fullmatch(r"hugepages-([0-9]+)kB", name)
            if not match:
                continue
            try:
                count = int(read_text(os.path.join(path, name, "nr_hugepages")))
            except (OSError, ValueError):
                count = 0
            size = int(match.group(1)) * 1024
            pools["hugepages-" + str(Quantity(size, "BinarySI"))] = (size, count)
        return pools

    def node_of(self, cpu):
        for nid, node in self.nodes.items():
            if cpu in node["cpus"]:
                return nid
        return min(self.nodes)

    def take_reserved(self, count):
        """Whole cores first, lowest CPU ids first (a simplified takeByTopology)."""
        taken = set()
        cores = sorted(self.cores.values(), key=min)
        for core in cores:
            if len(taken) + len(core) <= count:
                taken |= core
        for core in cores:
            for cpu in sorted(core):
                if len(taken) < count and cpu not in taken:
                    taken.add(cpu)
        return taken


# ---------------------------------------------------------------------------------------------
# configuration: file, drop-ins, flags, defaults, validation
# ---------------------------------------------------------------------------------------------

def load_document(path):
    text = read_text(path)
    try:
        doc = yaml.safe_load(text) if yaml is not None else json.loads(text)
    except Exception as err:  # noqa: BLE001 - any parse error is a refusal
        raise Refusal("failed to load kubelet config file, path: %s, error: %s" % (path, err))
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise Refusal("failed to load kubelet config file, path: %s, error: not a KubeletConfiguration object" % path)
    return doc


def check_type(doc, path, what):
    if doc.get("kind") is None or doc.get("apiVersion") is None:
        missing = "Kind" if doc.get("kind") is None else "APIVersion"
        raise Refusal("failed to load %s, path: %s, error: Object '%s' is missing in '%s'" % (what, path, missing, go_json(doc)))
    if doc.get("kind") != KIND or doc.get("apiVersion") != API_VERSION:
        raise Refusal('failed to load %s, path: %s, error: no kind "%s" is registered for version "%s"' % (what, path, doc.get("kind"), doc.get("apiVersion")))


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def dropin_files(directory):
    """Files named *.conf under directory, recursive, in filepath.WalkDir's lexical order."""
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isdir(path):
            found.extend(dropin_files(path))
        elif os.path.splitext(name)[1] == ".conf":
            found.append(path)
    return found


def effective_config(args):
    config = {}
    if args.config:
        config = load_document(args.config)
        check_type(config, args.config, "kubelet config file")
    if args.config_dir:
        if not os.path.isdir(args.config_dir):
            raise Refusal("failed to merge kubelet configs: failed to walk through kubelet dropin directory %s: lstat %s: no such file or "
                          "directory" % (args.config_dir, args.config_dir))
        for path in dropin_files(args.config_dir):
            doc = load_document(path)
            check_type(doc, path, "kubelet dropin file")
            config = merge_patch(config, doc)
    config["apiVersion"], config["kind"] = API_VERSION, KIND
    if args.healthz_port is not None:
        config["healthzPort"] = args.healthz_port
    if args.port is not None:
        config["port"] = args.port
    if args.address is not None:
        config["address"] = args.address
    return config


def setting(config, name):
    return config.get(name, DEFAULTS.get(name))


def validate(config):
    """A subset of validation.go ValidateKubeletConfiguration; [] when valid."""
    errors = []
    topo = setting(config, "topologyManagerPolicy")
    allowed = ["none", "best-effort", "restricted", "single-numa-node"]
    if topo not in allowed:
        errors.append("invalid configuration: topologyManagerPolicy (--topology-manager-policy) %s must be one of: [%s]" % (
            go_quote(str(topo)), " ".join(go_quote(a) for a in allowed)))
    scope = setting(config, "topologyManagerScope")
    if scope not in ("container", "pod"):
        errors.append('invalid configuration: topologyManagerScope (--topology-manager-scope) %s must be one of: "container", or "pod"' % go_quote(str(scope)))
    for name, flag in (("healthzPort", "--healthz-port"), ("port", "--port")):
        value = setting(config, name)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536:
            if name == "healthzPort" and value == 0:
                continue
            errors.append("invalid configuration: %s (%s) %s must be between 1 and 65535, inclusive" % (name, flag, value))
    reserved = config.get("reservedSystemCPUs")
    if reserved:
        if config.get("systemReservedCgroup") or config.get("kubeReservedCgroup"):
            errors.append("invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
                          "(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)")
        try:
            parse_cpuset(str(reserved))
        except ValueError as err:
            errors.append("invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) %s, error: %s" % (reserved, err))
    return errors


def eviction_memory(config, machine):
    """The hard eviction threshold for memory.available as a Quantity (node_container_manager_linux.go)."""
    given = config.get("evictionHard")
    if given is None:
        raw = DEFAULTS["evictionHard"]["memory.available"]
    elif "memory.available" in given:
        raw = given["memory.available"]
    elif config.get("mergeDefaultEvictionSettings") is True:
        raw = DEFAULTS["evictionHard"]["memory.available"]
    else:
        return Quantity(0, "")
    raw = str(raw).strip()
    if raw.endswith("%"):
        return Quantity(int(machine.memory * float(raw[:-1]) / 100), "BinarySI")
    return Quantity.parse(raw)


def allocatable_reservation(config, machine, resource):
    """GetNodeAllocatableReservation for one resource: systemReserved + kubeReserved + eviction."""
    value = Quantity(0, "DecimalSI")
    for source in ("systemReserved", "kubeReserved"):
        raw = (config.get(source) or {}).get(resource)
        value = value.add(Quantity.parse(raw) if raw is not None else Quantity(0, ""))
    if resource == "memory":
        value = value.add(eviction_memory(config, machine))
    return value


def cpu_reservation(config, machine):
    """The static policy's reserved CPUs (cpu_manager.go NewManager, policy_static.go NewStaticPolicy)."""
    specific = set()
    if config.get("reservedSystemCPUs"):
        specific = parse_cpuset(str(config["reservedSystemCPUs"]))
    if specific:
        count = len(specific)
    else:
        total = Quantity(0, "DecimalSI")
        for source in ("systemReserved", "kubeReserved"):
            raw = (config.get(source) or {}).get("cpu")
            if raw is not None:
                total = total.add(Quantity.parse(raw))
        if total.value == 0:
            raise Refusal("failed to run Kubelet: [cpumanager] unable to determine reserved CPU resources for static policy")
        count = -(-total.value // 1)
        count = int(count)
    reserved = specific if specific else machine.take_reserved(count)
    if len(reserved) != count:
        raise Refusal("failed to run Kubelet: new static policy error: [cpumanager] unable to reserve the required amount of CPUs (size of "
                      "%s did not equal %d)" % (format_cpuset(reserved), count))
    for cpu in sorted(reserved):
        if cpu not in machine.online:
            raise Refusal("failed to run Kubelet: new static policy error: [cpumanager] unable to build the reserved physical CPUs from the "
                          "reserved set: unknown CPU ID: %d" % cpu)
    return reserved


def memory_system_reserved(config, machine):
    """memory_manager.go getSystemReservedMemory for the Static policy: node -> type -> bytes."""
    totals = {}
    for entry in config.get("reservedMemory") or []:
        node = int(entry.get("numaNode", 0))
        if node not in machine.nodes:
            raise Refusal("failed to run Kubelet: the reserved memory configuration references a NUMA node %d that does not exist on this machine" % node)
        for resource, raw in (entry.get("limits") or {}).items():
            q = Quantity.parse(raw)
            totals[resource] = q.add(totals[resource]) if resource in totals else q
    types = set(totals)
    capacity = {"memory"} | {name for node in machine.nodes.values() for name in node["hugepages"]}
    reservation = {}
    for resource in capacity:
        value = allocatable_reservation(config, machine, resource)
        if value.value != 0:
            reservation[resource] = value
            types.add(resource)
    for resource in sorted(types):
        allocatable = Quantity(0, "DecimalSI").add(reservation[resource]) if resource in reservation else Quantity(0, "DecimalSI")
        reserved = Quantity(0, "DecimalSI").add(totals[resource]) if resource in totals else Quantity(0, "DecimalSI")
        if allocatable.value != reserved.value:
            raise Refusal("failed to run Kubelet: the total amount %s of type %s is not equal to the value %s determined by Node Allocatable feature" % (
                go_quote(str(reserved)), go_quote(resource), go_quote(str(allocatable))))
    converted = {nid: {} for nid in machine.nodes}
    for entry in config.get("reservedMemory") or []:
        for resource, raw in (entry.get("limits") or {}).items():
            converted[int(entry.get("numaNode", 0))][resource] = int(Quantity.parse(raw).value)
    return converted


def default_machine_state(machine, system_reserved):
    """memorymanager policy_static.go getDefaultMachineState."""
    state = {}
    for nid, node in machine.nodes.items():
        tables = {}
        reserved = system_reserved.get(nid, {})
        pools = [("memory", node["memory"])] + [(name, size * count) for name, (size, count) in node["hugepages"].items()]
        for name, total in pools:
            sysres = reserved.get(name, 0)
            tables[name] = {"total": total, "systemReserved": sysres, "allocatable": total - sysres, "reserved": 0, "free": total - sysres}
        state[nid] = {"numberOfAssignments": 0, "memoryMap": tables, "cells": [nid]}
    return state


# ---------------------------------------------------------------------------------------------
# checkpoints
# ---------------------------------------------------------------------------------------------

def cpu_v2_value(policy, default, entries, checksum=0):
    return {"PolicyName": policy, "DefaultCPUSet": default, "Entries": entries, "Checksum": checksum}


def cpu_legacy_checksum(policy, default, entries):
    """What a 1.35 kubelet computes for a V2 file (the type renamed CPUManagerCheckpoint)."""
    return checksum_of(cpu_v2_value(policy, default, entries), CPU_V2)


def cpu_pod_entries_value(pod_entries):
    if pod_entries is None:
        return None
    return {uid: {"CPUSet": {"elems": {cpu: {} for cpu in parse_cpuset(str((entry or {}).get("cpuSet", "")))}}}
            for uid, entry in pod_entries.items()}


def string_map_of_maps(value, where):
    if value is None:
        return None
    out = {}
    for pod, containers in value.items():
        if not isinstance(containers, dict) or not all(isinstance(v, str) for v in containers.values()):
            raise CheckpointError("json: cannot unmarshal into Go struct field %s of type map[string]string" % where)
        out[pod] = dict(containers)
    return out


def cpu_hash(name, policy, default, entries, pods=None, v3=False):
    """The legacy checksum of a V2 (or, v3=True, V3) CPU checkpoint hashed under type name `name`."""
    fields = [("PolicyName", STRING), ("DefaultCPUSet", STRING), ("Entries", gomap(STRING, gomap(STRING, STRING)))]
    value = {"PolicyName": policy, "DefaultCPUSet": default, "Entries": entries, "Checksum": 0}
    if v3:
        fields.append(("PodEntries", CPU_POD_ENTRIES))
        value["PodEntries"] = cpu_pod_entries_value(pods)
    return checksum_of(value, ptr(struct(name, fields + [("Checksum", CHECKSUM)])))


def read_cpu_checkpoint(text):
    """loadAndMigrateCheckpointV4 -> V3 -> V2: (policy, default set text, entries, pod entries, format)."""
    top = load_json_object(text)
    data, dchecksum = as_string(top, "data"), as_uint(top, "dataChecksum")
    try:
        if not data:
            raise CheckpointError("failed to deserialize cpu manager checkpoint data: unexpected end of JSON input")
        try:
            inner = load_json_object(data)
        except CheckpointError as err:
            raise CheckpointError("failed to deserialize cpu manager checkpoint data: %s" % err)
        if dchecksum != data_checksum(data):
            raise CheckpointError(CORRUPT)
        entries = string_map_of_maps(as_map(inner, "entries"), "entries")
        return as_string(inner, "policyName"), as_string(inner, "defaultCpuSet"), entries or {}, as_map(inner, "podEntries") or {}, "v4"
    except CheckpointError as err:
        if data or dchecksum:
            raise CheckpointError("could not load v4 checkpoint: %s" % err)
    policy, default, checksum = as_string(top, "policyName"), as_string(top, "defaultCpuSet"), as_uint(top, "checksum")
    entries = string_map_of_maps(as_map(top, "entries"), "entries")
    pods = as_map(top, "podEntries")
    # V3 (VerifyChecksum: its own type name, then the legacy one; no empty checksum accepted)
    for name in ("state.CPUManagerCheckpointV3", "state.CPUManagerCheckpoint"):
        if checksum == cpu_hash(name, policy, default, entries, pods, v3=True):
            return policy, default, entries or {}, pods or {}, "v3"
    # V2 (0 accepted; with the gate off its own type name is tried first)
    if checksum == 0 or checksum in (cpu_hash("state.CPUManagerCheckpointV2", policy, default, entries),
                                     cpu_hash("state.CPUManagerCheckpoint", policy, default, entries)):
        return policy, default, entries or {}, {}, "v2"
    raise CheckpointError(CORRUPT)


def write_cpu_checkpoint(policy, default, entries, legacy_checksum=True, pod_entries=None):
    """cpu_manager_state in the 1.37 V4 format (bytes); pod_entries (uid -> cpuset text) only in `data`."""
    inner = {"policyName": policy, "defaultCpuSet": default}
    if entries:
        inner["entries"] = sorted_map({pod: sorted_map(c) for pod, c in entries.items()})
    if pod_entries:
        inner["podEntries"] = sorted_map({uid: {"cpuSet": cpus} for uid, cpus in pod_entries.items()})
    data = go_json(inner)
    top = {"policyName": policy, "defaultCpuSet": default}
    if entries:
        top["entries"] = inner["entries"]
    top["checksum"] = cpu_legacy_checksum(policy, default, entries or {}) if legacy_checksum else 0
    top["data"] = data
    top["dataChecksum"] = data_checksum(data)
    return go_json(top).encode("utf-8")


def memory_state_value(machine_state):
    """JSON machineState -> the Go value spew sees (NUMANodeMap)."""
    if machine_state is None:
        return None
    out = {}
    for key, node in machine_state.items():
        if node is None:
            out[int(key)] = None
            continue
        tables = as_map(node, "memoryMap", preset=False)
        mm = None if tables is None else {
            name: None if t is None else {
                "TotalMemSize": as_uint(t, "total"), "SystemReserved": as_uint(t, "systemReserved"),
                "Allocatable": as_uint(t, "allocatable"), "Reserved": as_uint(t, "reserved"), "Free": as_uint(t, "free")}
            for name, t in tables.items()}
        found, cells = field(node, "cells")
        out[int(key)] = {"NumberOfAssignments": field(node, "numberOfAssignments")[1] or 0, "MemoryMap": mm,
                         "Cells": None if not found or cells is None else [int(c) for c in cells]}
    return out


def blocks_value(blocks):
    if blocks is None:
        return None
    out = []
    for b in blocks:
        found, aff = field(b, "numaAffinity")
        out.append({"NUMAAffinity": None if not found or aff is None else [int(n) for n in aff],
                    "Type": as_string(b, "type"), "Size": as_uint(b, "size")})
    return out


def memory_entries_value(entries):
    if entries is None:
        return None
    return {pod: None if containers is None else {c: blocks_value(bl) for c, bl in containers.items()}
            for pod, containers in entries.items()}


def memory_legacy_checksum(policy, machine_state, entries):
    value = {"PolicyName": policy, "MachineState": memory_state_value(machine_state),
             "Entries": memory_entries_value(entries), "Checksum": 0}
    return checksum_of(value, MEMORY_V1)


def read_memory_checkpoint(text):
    """loadAndMigrateCheckpointV3: (policy, machineState JSON, entries JSON, format, pod entries uid -> blocks)."""
    top = load_json_object(text)
    data, dchecksum = as_string(top, "data"), as_uint(top, "dataChecksum")
    try:
        if not data:
            raise CheckpointError("failed to deserialize memory manager checkpoint data: unexpected end of JSON input")
        try:
            inner = load_json_object(data)
        except CheckpointError as err:
            raise CheckpointError("failed to deserialize memory manager checkpoint data: %s" % err)
        if dchecksum != data_checksum(data):
            raise CheckpointError(CORRUPT)
        pods = {uid: field(e or {}, "memoryBlocks")[1] or [] for uid, e in (as_map(inner, "podEntries") or {}).items()}
        return as_string(inner, "policyName"), as_map(inner, "machineState") or {}, as_map(inner, "entries") or {}, "v3", pods
    except CheckpointError as err:
        if data or dchecksum:
            raise CheckpointError("could not load v3 checkpoint: %s" % err)
    policy, checksum = as_string(top, "policyName"), as_uint(top, "checksum")
    machine_state, entries = as_map(top, "machineState"), as_map(top, "entries")
    found_pods, pods = field(top, "podEntries")
    if found_pods:
        pod_value = None if pods is None else {
            uid: {"MemoryBlocks": blocks_value(field(e or {}, "memoryBlocks")[1])} for uid, e in pods.items()}
        v2 = {"PolicyName": policy, "MachineState": memory_state_value(machine_state), "Entries": memory_entries_value(entries),
              "PodEntries": pod_value, "Checksum": 0}
        if checksum == checksum_of(v2, MEMORY_V2):
            return policy, machine_state or {}, entries or {}, "v2", {}
    if checksum == 0 or checksum == memory_legacy_checksum(policy, machine_state, entries):
        return policy, machine_state or {}, entries or {}, "v1", {}
    raise CheckpointError(CORRUPT)


def machine_state_json(state):
    return sorted_map({nid: {"numberOfAssignments": node["numberOfAssignments"],
                             "memoryMap": sorted_map({name: {k: t[k] for k in ("total", "systemReserved", "allocatable", "reserved", "free")}
                                                      for name, t in node["memoryMap"].items()}),
                             "cells": list(node["cells"])}
                       for nid, node in state.items()})


def write_memory_checkpoint(policy, machine_state, entries, pod_entries=None):
    """memory_manager_state in the 1.37 V3 format (bytes); pod_entries (uid -> blocks) only in `data`."""
    ms = machine_state_json(machine_state)
    inner = {"policyName": policy, "machineState": ms}
    ent = sorted_map({pod: sorted_map(c) for pod, c in entries.items()}) if entries else None
    if ent:
        inner["entries"] = ent
    if pod_entries:
        inner["podEntries"] = sorted_map({uid: {"memoryBlocks": blocks} for uid, blocks in pod_entries.items()})
    data = go_json(inner)
    top = {"policyName": policy, "machineState": ms}
    if ent:
        top["entries"] = ent
    top["checksum"] = memory_legacy_checksum(policy, ms, ent if ent else {})
    top["data"] = data
    top["dataChecksum"] = data_checksum(data)
    return go_json(top).encode("utf-8")


def write_atomic(path, payload):
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, ".%s.standin-%d.tmp" % (os.path.basename(path), os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


# ---------------------------------------------------------------------------------------------
# the managers' start: restore, validate, keep state
# ---------------------------------------------------------------------------------------------

def restore_wrap(path, err, which):
    return "could not restore state from checkpoint: %s, please drain this node and delete the %s checkpoint file %s before restarting Kubelet" % (
        err, which, go_quote(path))


class CPUState(object):
    """cpumanager: policy, reserved set, default set and container assignments."""

    def __init__(self, config, machine, root, legacy_checksum=True):
        self.machine, self.path, self.legacy = machine, os.path.join(root, CPU_STATE), legacy_checksum
        self.policy = setting(config, "cpuManagerPolicy")
        if self.policy not in ("none", "static"):
            raise Refusal('failed to run Kubelet: unknown policy: "%s"' % self.policy)
        self.reserved = cpu_reservation(config, machine) if self.policy == "static" else set()
        self.default, self.entries, self.pod_entries, self.dirty = set(), {}, {}, False
        self.pinning_requests = 0

    def start(self):
        """cpu_manager.go Start: NewCheckpointState then policy Start."""
        try:
            text = read_text(self.path) if os.path.exists(self.path) else None
        except OSError as err:
            raise Refusal("start cpu manager error: %s" % err, "Failed to start ContainerManager")
        if text is None:
            self.dirty = True
        else:
            try:
                policy, default, entries, pods, _fmt = read_cpu_checkpoint(text)
                if policy != self.policy:
                    raise CheckpointError("configured policy %s differs from state checkpoint policy %s" % (go_quote(self.policy), go_quote(policy)))
                try:
                    self.default = parse_cpuset(default)
                except ValueError as err:
                    raise CheckpointError("could not parse default CPU set %s: %s" % (go_quote(default), err))
                for pod, containers in entries.items():
                    for name, cpus in containers.items():
                        try:
                            self.entries.setdefault(pod, {})[name] = parse_cpuset(cpus)
                        except ValueError as err:
                            raise CheckpointError("could not parse cpuset %s for container %s in pod %s: "
                                                  "%s" % (go_quote(cpus), go_quote(name), go_quote(pod), err))
                for pod, entry in pods.items():
                    try:
                        self.pod_entries[pod] = parse_cpuset(str((entry or {}).get("cpuSet", "")))
                    except ValueError as err:
                        raise CheckpointError("could not parse pod cpuset for pod %s: %s" % (go_quote(pod), err))
            except CheckpointError as err:
                raise Refusal("start cpu manager error: " + restore_wrap(self.path, err, "CPU manager"), "Failed to start ContainerManager")
        if self.policy == "static":
            self.validate_static()

    def validate_static(self):
        """policy_static.go validateState."""
        online = set(self.machine.online)
        if not self.default:
            if self.entries:
                raise Refusal("start cpu manager error: default cpuset cannot be empty", "Failed to start ContainerManager")
            self.default, self.dirty = online, True
            return
        if not self.reserved <= self.default:
            raise Refusal("start cpu manager error: not all reserved cpus: %s are present in defaultCpuSet: %s" % (
                go_quote(format_cpuset(self.reserved)), go_quote(format_cpuset(self.default))), "Failed to start ContainerManager")
        known = set(self.default)
        for pod in sorted(self.entries):
            for name in sorted(self.entries[pod]):
                cpus = self.entries[pod][name]
                if cpus & self.default:
                    raise Refusal("start cpu manager error: pod: %s, container: %s cpuset: %s overlaps with default cpuset %s" % (
                        pod, name, go_quote(format_cpuset(cpus)), go_quote(format_cpuset(self.default))), "Failed to start ContainerManager")
                known |= cpus
        for cpus in self.pod_entries.values():  # with PodLevelResourceManagers: the pods' bubbles count too
            known |= cpus
        if known != online:
            raise Refusal("start cpu manager error: current set of available CPUs %s doesn't match with CPUs in state %s" % (
                go_quote(format_cpuset(online)), go_quote(format_cpuset(known))), "Failed to start ContainerManager")

    def allocate(self, uid, container, count):
        """Exclusive CPUs for one container (static policy), preferring one NUMA node."""
        if self.policy != "static" or uid in self.entries and container in self.entries[uid]:
            return self.entries.get(uid, {}).get(container)
        self.pinning_requests += 1
        free = self.default - self.reserved
        choice = None
        for nid in sorted(self.machine.nodes):
            local = sorted(free & self.machine.nodes[nid]["cpus"])
            if len(local) >= count:
                choice = set(local[:count])
                break
        if choice is None and len(free) >= count:
            choice = set(sorted(free)[:count])
        if choice is None:
            return None
        self.default -= choice
        self.entries.setdefault(uid, {})[container] = choice
        self.dirty = True
        return choice

    def release(self, uid):
        """RemoveContainer for every container of the pod: a pod-level bubble goes back whole with the last one."""
        for cpus in self.entries.pop(uid, {}).values():
            self.default |= cpus
            self.dirty = True
        if uid in self.pod_entries:
            self.default |= self.pod_entries.pop(uid)
            self.dirty = True

    def save(self):
        if self.dirty:
            entries = {pod: {c: format_cpuset(s) for c, s in cs.items()} for pod, cs in self.entries.items()}
            pods = {uid: format_cpuset(cpus) for uid, cpus in self.pod_entries.items()}
            write_atomic(self.path, write_cpu_checkpoint(self.policy, format_cpuset(self.default), entries, self.legacy, pods))
            self.dirty = False


class MemoryState(object):
    """memorymanager: policy, machine state and container blocks."""

    def __init__(self, config, machine, root):
        self.machine, self.path = machine, os.path.join(root, MEMORY_STATE)
        self.policy = setting(config, "memoryManagerPolicy")
        if self.policy == "BestEffort":
            raise Refusal('failed to run Kubelet: policy "BestEffort" is not available for platform "linux"')
        if self.policy not in ("None", "Static"):
            raise Refusal("failed to run Kubelet: unknown policy: %s" % go_quote(str(self.policy)))
        self.system_reserved = memory_system_reserved(config, machine) if self.policy == "Static" else {}
        self.state, self.entries, self.pod_entries, self.dirty, self.pinning_requests = {}, {}, {}, False, 0

    def start(self):
        if not os.path.exists(self.path):
            self.dirty = True
        else:
            try:
                policy, machine_state, entries, _fmt, pods = read_memory_checkpoint(read_text(self.path))
                if policy != self.policy:
                    raise CheckpointError("[memorymanager] configured policy %s differs from state checkpoint policy "
                                          "%s" % (go_quote(self.policy), go_quote(policy)))
            except CheckpointError as err:
                raise Refusal("start memory manager error: " + restore_wrap(self.path, err, "memory manager"), "Failed to start ContainerManager")
            self.state = {int(k): json.loads(json.dumps(v)) for k, v in machine_state.items()}
            self.entries = json.loads(json.dumps(entries))
            self.pod_entries = json.loads(json.dumps(pods))
        if self.policy == "Static":
            self.validate_static()

    def validate_static(self):
        """memorymanager policy_static.go validateState."""
        if not self.state:
            if self.entries:
                raise Refusal("start memory manager error: [memorymanager] machine state can not be empty when it has memory "
                              "assignments", "Failed to start ContainerManager")
            self.state, self.dirty = default_machine_state(self.machine, self.system_reserved), True
            return
        expected = default_machine_state(self.machine, self.system_reserved)
        for pod, containers in self.entries.items():
            # with PodLevelResourceManagers a pod's own blocks stand for its containers' (validateState)
            groups = {"": self.pod_entries[pod]} if self.pod_entries.get(pod) else (containers or {})
            for name, blocks in groups.items():
                for block in blocks or []:
                    size = int(block.get("size", 0))
                    for nid in block.get("numaAffinity") or []:
                        node = expected.get(int(nid))
                        if node is None:
                            raise Refusal("start memory manager error: [memorymanager] (pod: %s, container: %s) the memory assignment uses "
                                          "the NUMA that does not exist" % (pod, name), "Failed to start ContainerManager")
                        node["numberOfAssignments"] += 1
                        node["cells"] = [int(n) for n in block.get("numaAffinity")]
                        table = node["memoryMap"].get(block.get("type"))
                        if table is None:
                            raise Refusal("start memory manager error: [memorymanager] (pod: %s, container: %s) the memory assignment uses "
                                          "memory resource that does not exist" % (pod, name), "Failed to start ContainerManager")
                        if size == 0 or table["free"] <= 0:
                            continue
                        taken = min(size, table["free"])
                        table["reserved"] += taken
                        table["free"] -= taken
                        size -= taken
        if not self.states_equal(self.state, expected):
            raise Refusal("start memory manager error: [memorymanager] the expected machine state is different from the real "
                          "one", "Failed to start ContainerManager")

    @staticmethod
    def states_equal(have, want):
        if set(have) != set(want):
            return False
        for nid, node in want.items():
            got = have[nid] or {}
            if got.get("numberOfAssignments", 0) != node["numberOfAssignments"]:
                return False
            if sorted(got.get("cells") or []) != sorted(node["cells"]):
                return False
            tables = got.get("memoryMap") or {}
            if set(tables) != set(node["memoryMap"]):
                return False
            for name, table in node["memoryMap"].items():
                if any(int((tables[name] or {}).get(k, 0)) != table[k] for k in table):
                    return False
        return True

    def allocate(self, uid, container, size, nid):
        if self.policy != "Static" or container in self.entries.get(uid, {}):
            return
        self.pinning_requests += 1
        node = self.state.get(nid) or self.state[min(self.state)]
        table = node["memoryMap"]["memory"]
        if table["free"] < size:
            return
        table["reserved"] += size
        table["free"] -= size
        node["numberOfAssignments"] += 1
        node["cells"] = [nid]
        self.entries.setdefault(uid, {})[container] = [{"numaAffinity": [nid], "type": "memory", "size": size}]
        self.dirty = True

    def release(self, uid):
        containers = self.entries.pop(uid, {})
        if uid in self.pod_entries:  # RemoveContainer of the last container: releaseMemory of the pod's blocks
            containers = {"": self.pod_entries.pop(uid)}
        for blocks in containers.values():
            for block in blocks:
                for nid in block["numaAffinity"]:
                    node = self.state[int(nid)]
                    table = node["memoryMap"][block["type"]]
                    table["reserved"] -= block["size"]
                    table["free"] += block["size"]
                    node["numberOfAssignments"] -= 1
                    if node["numberOfAssignments"] == 0:
                        node["cells"] = [int(nid)]
            self.dirty = True

    def save(self):
        if self.dirty:
            write_atomic(self.path, write_memory_checkpoint(self.policy, self.state, self.entries, self.pod_entries))
            self.dirty = False


# ---------------------------------------------------------------------------------------------
# pods (files standing for admitted Guaranteed pods)
# ---------------------------------------------------------------------------------------------

def read_pods(root):
    """uid -> pod dict from <root>/standin-pods/*.json; unreadable files are skipped (and logged)."""
    directory, pods = os.path.join(root, PODS_DIR), {}
    if not os.path.isdir(directory):
        return pods
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        try:
            pod = json.loads(read_text(os.path.join(directory, name)))
            pods[str(pod["uid"])] = pod
        except (OSError, ValueError, KeyError, TypeError) as err:
            log("W", "Skipping pod file", file=name, err=str(err))
    return pods


def sync_pods(cpu, memory, machine, pods, admitted):
    """Admit new pods, release gone ones; returns the admitted uid set."""
    for uid in sorted(set(admitted) - set(pods)):
        cpu.release(uid)
        memory.release(uid)
    for uid, pod in pods.items():
        if uid in admitted:
            continue
        for container in pod.get("containers") or []:
            name, count = container.get("name", "c"), container.get("cpus")
            cpus = cpu.allocate(uid, name, int(count)) if isinstance(count, int) and not isinstance(count, bool) and count > 0 else None
            nid = machine.node_of(min(cpus)) if cpus else min(machine.nodes)
            if container.get("memory") is not None:
                memory.allocate(uid, name, int(Quantity.parse(container["memory"]).value), nid)
    cpu.save()
    memory.save()
    return set(pods)


# ---------------------------------------------------------------------------------------------
# logging, HTTP, API server registration
# ---------------------------------------------------------------------------------------------

def log(severity, message, **kv):
    now = datetime.datetime.now()
    pairs = "".join(" %s=%s" % (k, go_quote(str(v))) for k, v in kv.items())
    sys.stderr.write("%s%s %d kubelet_standin.py] %s%s\n" % (severity, now.strftime("%m%d %H:%M:%S.%f"), os.getpid(), go_quote(message), pairs))
    sys.stderr.flush()


DEVICE_PLUGINS = "device-plugins"
DEVICE_CHECKPOINT = "kubelet_internal_checkpoint"


def clear_device_plugins(root):
    """server.go Start: every file of the socket folder but the checkpoint removed, then kubelet.sock made."""
    folder = os.path.join(root, DEVICE_PLUGINS)
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if name != DEVICE_CHECKPOINT and os.path.isfile(path):
            os.remove(path)
    with open(os.path.join(folder, "kubelet.sock"), "w", encoding="utf-8"):
        pass


def device_plugin_resources(root):
    """{resource: (capacity, allocatable)}: registered plugins' devices, and the checkpoint's resources not registered again at 0."""
    folder = os.path.join(root, DEVICE_PLUGINS)
    registered = {}
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as stream:
                entry = json.load(stream)
            registered[str(entry["resourceName"])] = int(entry["devices"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    path = os.path.join(folder, DEVICE_CHECKPOINT)
    try:
        with open(path, encoding="utf-8") as stream:
            kept = {k: len(v) for k, v in json.load(stream)["Data"]["RegisteredDevices"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        kept = {}
    if registered and any(kept.get(k) != v for k, v in registered.items()):
        kept.update(registered)
        devices = {k: ["%s-%d" % (k.split("/")[-1], i) for i in range(n)] for k, n in sorted(kept.items())}
        write_atomic(path, json.dumps({"Data": {"PodDeviceEntries": None, "RegisteredDevices": devices}, "Checksum": 0}).encode())
    return {k: (n, registered.get(k, 0)) for k, n in sorted(kept.items())}


class Kubelet(object):
    """The running stand-in: config, managers, servers, heartbeat."""

    def __init__(self, args, config, machine, cpu, memory):
        self.args, self.config, self.machine, self.cpu, self.memory = args, config, machine, cpu, memory
        self.node_name = args.node_name or socket.gethostname().lower()
        self.stop = threading.Event()
        self.admitted = set()
        self.lock = threading.Lock()
        self.admitter = None
        if args.admit_api_pods:
            import standin_pods  # pylint: disable=import-outside-toplevel
            self.admitter = standin_pods.PodAdmitter(self, log)

    def configz(self):
        body = copy.deepcopy(self.config)
        for key, value in DEFAULTS.items():
            body.setdefault(key, copy.deepcopy(value))
        body["kind"], body["apiVersion"] = KIND, API_VERSION
        return {"kubeletconfig": body}

    def metrics(self):
        exclusive = sum(len(c) for c in self.cpu.entries.values())
        return "".join([
            "# HELP kubelet_cpu_manager_pinning_requests_total [ALPHA] The number of cpu core allocations which required pinning.\n",
            "# TYPE kubelet_cpu_manager_pinning_requests_total counter\n",
            "kubelet_cpu_manager_pinning_requests_total %d\n" % self.cpu.pinning_requests,
            "kubelet_cpu_manager_pinning_errors_total 0\n",
            "# TYPE kubelet_memory_manager_pinning_requests_total counter\n",
            "kubelet_memory_manager_pinning_requests_total %d\n" % self.memory.pinning_requests,
            "kubelet_memory_manager_pinning_errors_total 0\n",
            'kubelet_node_name{node="%s"} 1\n' % self.node_name,
        ]) + self.counted_metrics(exclusive)

    def counted_metrics(self, exclusive):
        """The resource managers' counters; node_exclusive stands for the exclusive CPUs its state holds."""
        own = {("resource_manager_container_assignments", (("assignment_type", "node_exclusive"), ("resource_name", "cpu"))): exclusive}
        if self.admitter is not None:
            return self.admitter.metrics(own)
        (name, labels), value = next(iter(own.items()))
        return "# TYPE %s counter\n%s{%s} %d\n" % (name, name, ",".join('%s="%s"' % item for item in labels), value)

    def handler(self, main):
        kubelet = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, fmt, *args):  # quiet
                return

            def send(self, code, body, ctype="text/plain; charset=utf-8"):
                data = body.encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path = self.path.split("?", 1)[0].rstrip("/") or "/"
                if path == "/healthz":
                    return self.send(200, "ok")
                if main and path == "/configz":
                    return self.send(200, json.dumps(kubelet.configz()), "application/json")
                if main and path == "/metrics":
                    return self.send(200, kubelet.metrics(), "text/plain; version=0.0.4; charset=utf-8")
                if main and path == "/pods":
                    items = list(read_pods(kubelet.args.root_dir).values())
                    return self.send(200, json.dumps({"kind": "PodList", "apiVersion": "v1", "items": items}), "application/json")
                return self.send(404, "404 page not found\n")

        return Handler

    def serve(self):
        hz_addr = setting(self.config, "healthzBindAddress")
        hz_port = int(setting(self.config, "healthzPort"))
        servers = []
        if hz_port:
            servers.append(ThreadingHTTPServer((hz_addr, hz_port), self.handler(False)))
        servers.append(ThreadingHTTPServer((setting(self.config, "address"), int(setting(self.config, "port"))), self.handler(True)))
        for server in servers:
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        return servers

    # -- API server --------------------------------------------------------------------------
    def request(self, method, path, body=None, ctype="application/json"):
        url = self.args.api_server.rstrip("/") + path
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": ctype, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def node_status(self, ready):
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        if ready:
            cond = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}
        else:
            cond = {"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown", "message": "Kubelet stopped posting node status."}
        # pkg/kubelet/nodestatus/setters.go ReadyCondition: LastTransitionTime moves only when the status changes.
        previous = getattr(self, "_ready_transition", None)
        if previous is None or previous[0] != cond["status"]:
            self._ready_transition = previous = (cond["status"], now)
        cond.update({"lastHeartbeatTime": now, "lastTransitionTime": previous[1]})
        cpus, memory = len(self.machine.online), self.machine.memory
        capacity = {"cpu": str(cpus), "memory": "%dKi" % (memory // 1024), "pods": str(self.config.get("maxPods", 110))}
        allocatable = dict(capacity)
        if self.cpu.policy == "static":
            allocatable["cpu"] = str(cpus - len(self.cpu.reserved))
        if self.args.device_plugins:
            for name, (count, healthy) in device_plugin_resources(self.args.root_dir).items():
                capacity[name], allocatable[name] = str(count), str(healthy)
        return {
            "capacity": capacity, "allocatable": allocatable, "conditions": [cond],
            "addresses": [{"type": "InternalIP", "address": self.args.node_ip}, {"type": "Hostname", "address": self.node_name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": int(setting(self.config, "port"))}},
            "nodeInfo": {"kubeletVersion": VERSION, "operatingSystem": "linux", "architecture": "amd64",
                         "containerRuntimeVersion": "standin://0", "kubeProxyVersion": "", "machineID": "", "systemUUID": "",
                         "bootID": "", "kernelVersion": os.uname().release, "osImage": "kubelet stand-in"},
        }

    def node_labels(self):
        """--node-labels key=value,...: labels set when the node registers (cmd/kubelet/app/options NodeLabels)."""
        pairs = [item.split("=", 1) for item in (self.args.node_labels or "").split(",") if item]
        return dict(pairs)

    def patch_status(self, status):
        path = "/api/v1/nodes/%s/status" % self.node_name
        code = self.request("PATCH", path, {"status": status}, "application/strategic-merge-patch+json")[0]
        if code == 415:
            code = self.request("PATCH", path, {"status": status}, "application/merge-patch+json")[0]
        return code

    def register(self):
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": self.node_name,
                             "labels": dict(self.node_labels(), **{"kubernetes.io/hostname": self.node_name, "kubernetes.io/os": "linux"}),
                             "annotations": {"numa-gate.test/standin": "true"}},
                "spec": {}, "status": self.node_status(True)}
        code, body = self.request("POST", "/api/v1/nodes", node)
        if code == 409:
            code = self.patch_status(node["status"])
        log("I", "Attempting to register node", node=self.node_name, code=code)
        return 200 <= code < 300

    def heartbeat(self):
        registered = False
        while not self.stop.is_set():
            try:
                if not registered:
                    registered = self.register()
                else:
                    code = self.patch_status(self.node_status(True))
                    if code == 404:
                        registered = False
            except (OSError, urllib.error.URLError) as err:
                log("E", "Unable to update node status", err=str(err))
            self.stop.wait(HEARTBEAT_S)

    def pod_loop(self):
        while not self.stop.wait(HEARTBEAT_S):
            with self.lock:
                self.admitted = sync_pods(self.cpu, self.memory, self.machine, read_pods(self.args.root_dir), self.admitted)

    def api_pod_loop(self):
        """The pods bound to this node, from the API (standin_pods); with --bind-pods also the binding (standin_binder)."""
        import standin_binder  # pylint: disable=import-outside-toplevel
        import standin_pods  # pylint: disable=import-outside-toplevel
        while not self.stop.wait(standin_pods.POLL_S):
            try:
                if self.args.bind_pods:
                    standin_binder.bind_pending(self, log)
                with self.lock:
                    self.admitter.sync()
            except (OSError, ValueError, KeyError, urllib.error.URLError) as err:
                log("E", "Pod sync failed", err=str(err))

    def pod_objects(self):
        """The pods the PodResources API reports: the API's admitted ones and the file pods (as pod objects); under self.lock."""
        pods = list(self.admitter.pods.values()) if self.admitter is not None else []
        for uid, pod in sorted(read_pods(self.args.root_dir).items()):
            pods.append({"metadata": {"uid": uid, "name": pod.get("name", uid), "namespace": pod.get("namespace", "default")},
                         "spec": {"containers": [{"name": c.get("name", "c")} for c in pod.get("containers") or []]}})
        return pods

    def serve_pod_resources(self):
        """The PodResources gRPC server on <root-dir>/pod-resources/kubelet.sock (standin_podresources; skipped without grpcio)."""
        try:
            import standin_podresources  # pylint: disable=import-outside-toplevel
        except ImportError as err:
            log("W", "Not serving the podresources API: standin_podresources, grpcio or protobuf cannot be imported", err=str(err))
            return None
        server = standin_podresources.PodResourcesServer(self, self.pod_objects, log)
        server.start(standin_podresources.socket_path(self.args.root_dir))
        return server

    def run(self):
        with self.lock:
            self.admitted = sync_pods(self.cpu, self.memory, self.machine, read_pods(self.args.root_dir), self.admitted)
        if self.args.device_plugins:
            clear_device_plugins(self.args.root_dir)
        signal.signal(signal.SIGTERM, lambda *_: self.stop.set())
        signal.signal(signal.SIGINT, lambda *_: self.stop.set())
        # The socket before /healthz: whoever sees the stand-in healthy can read PodResources.
        pod_resources = self.serve_pod_resources()
        servers = self.serve()
        threads = [threading.Thread(target=self.pod_loop, daemon=True)]
        if self.args.api_server:
            threads.append(threading.Thread(target=self.heartbeat, daemon=True))
            if self.admitter is not None:
                threads.append(threading.Thread(target=self.api_pod_loop, daemon=True))
        for thread in threads:
            thread.start()
        log("I", "kubelet stand-in started", node=self.node_name, port=setting(self.config, "port"), healthzPort=setting(self.config, "healthzPort"))
        while not self.stop.wait(0.1):
            pass
        log("I", "Shutting down the kubelet stand-in")
        if self.args.api_server:
            try:
                self.patch_status(self.node_status(False))
            except (OSError, urllib.error.URLError) as err:
                log("E", "Unable to mark the node NotReady", err=str(err))
        for server in servers:
            server.shutdown()
        if pod_resources is not None:
            pod_resources.stop()
        return 0


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(prog="kubelet", description="kubelet stand-in for tests (not the kubelet)", allow_abbrev=False)
    parser.add_argument("--config")
    parser.add_argument("--config-dir")
    parser.add_argument("--root-dir", default="/var/lib/kubelet")
    parser.add_argument("--node-name", "--hostname-override", dest="node_name")
    parser.add_argument("--node-ip", default="127.0.0.1")
    parser.add_argument("--api-server")
    parser.add_argument("--healthz-port", type=int)
    parser.add_argument("--port", type=int)
    parser.add_argument("--address")
    parser.add_argument("--sysfs-root", default="/sys")
    parser.add_argument("--meminfo", default="/proc/meminfo")
    parser.add_argument("--cpu-legacy-checksum", choices=["valid", "zero"], default="valid")
    parser.add_argument("--node-labels", default="")
    parser.add_argument("--admit-api-pods", action="store_true")
    parser.add_argument("--bind-pods", action="store_true")
    parser.add_argument("--device-plugins", action="store_true")
    parser.add_argument("--version", nargs="?", const="true")
    args, unknown = parser.parse_known_args(argv)
    return args, unknown


def refuse(err):
    message = str(err)
    log("E", err.headline, err=message)
    sys.stderr.write("kubelet stand-in refused to start: %s\n" % message)
    sys.stderr.flush()
    return 1


def main(argv=None):
    args, unknown = parse_args(sys.argv[1:] if argv is None else argv)
    if args.version:
        sys.stdout.write("Kubernetes %s\n" % VERSION)
        return 0
    if unknown:
        log("W", "Ignoring flags the stand-in does not implement", flags=" ".join(unknown))
    try:
        config = effective_config(args)
        errors = validate(config)
        if errors:
            raise Refusal("failed to validate kubelet configuration, error: %s, path: %s" % (aggregate(errors), args.config or "<defaults>"))
        machine = Machine(args.sysfs_root, args.meminfo)
        cpu = CPUState(config, machine, args.root_dir, args.cpu_legacy_checksum == "valid")
        memory = MemoryState(config, machine, args.root_dir)
        os.makedirs(args.root_dir, exist_ok=True)
        cpu.start()
        cpu.save()
        memory.start()
        memory.save()
    except Refusal as err:
        return refuse(err)
    except (OSError, ValueError) as err:
        return refuse(Refusal("failed to run Kubelet: %s" % err))
    return Kubelet(args, config, machine, cpu, memory).run()


if __name__ == "__main__":
    sys.exit(main())
