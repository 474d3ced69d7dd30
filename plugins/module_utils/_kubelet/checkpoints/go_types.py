# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Go structs of the kubelet's CPU and Memory Manager checkpoints, for their checksums.

Public: `CPU_V1`, `CPU_V2`, `CPU_V3`, `CPU_V4_DATA`, `MEMORY_V1`, `MEMORY_V2`, `MEMORY_V3_DATA`, `CPU_LEGACY_NAME`,
`MEMORY_LEGACY_NAME`, `CPU_V2_NAMES`, `CPU_V3_NAMES`.

``CPU_V4_DATA`` and ``MEMORY_V3_DATA`` describe the JSON inside a 1.37 file's ``data`` string, for
its field types only (nothing hashes them: ``dataChecksum`` is over the string itself).

Read from pkg/kubelet/cm/cpumanager/state/checkpoint.go and
pkg/kubelet/cm/memorymanager/state/{checkpoint.go,state.go} (1.37): field order, JSON keys, the
Go type names spew prints, and what each constructor (``newCPUManagerCheckpointV2`` ...) puts
in a field the JSON leaves out. Every version is hashed under the legacy type name: the kubelet
replaces ``CPUManagerCheckpointV2`` (V1, V3) by ``CPUManagerCheckpoint`` before hashing.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import cpulist as _cpulist
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.checkpoints.checksum import Basic, CpuSet, Map, Pointer, Slice, Struct

CPU_LEGACY_NAME = "state.CPUManagerCheckpoint"
MEMORY_LEGACY_NAME = "state.MemoryManagerCheckpoint"
# CPU V2 and V3 VerifyChecksum accept the hash under the struct's own name too.
CPU_V2_NAMES = (CPU_LEGACY_NAME, "state.CPUManagerCheckpointV2")
CPU_V3_NAMES = (CPU_LEGACY_NAME, "state.CPUManagerCheckpointV3")

_STRING = Basic("string", "string")
_INT = Basic("int", "int")
_UINT64 = Basic("uint64", "int")
_CHECKSUM = Basic("checksum.Checksum", "int")
_RESOURCE = Basic("v1.ResourceName", "string")

_CPU_ENTRIES = Map("map[string]map[string]string", _STRING, Map("map[string]string", _STRING, _STRING), initial={})

CPU_V1 = Struct("state.CPUManagerCheckpointV1", [
    ("PolicyName", "policyName", _STRING),
    ("DefaultCPUSet", "defaultCpuSet", _STRING),
    ("Entries", "entries", Map("map[string]string", _STRING, _STRING, initial={})),
    ("Checksum", "checksum", _CHECKSUM),
])

CPU_V2 = Struct("state.CPUManagerCheckpointV2", [
    ("PolicyName", "policyName", _STRING),
    ("DefaultCPUSet", "defaultCpuSet", _STRING),
    ("Entries", "entries", _CPU_ENTRIES),
    ("Checksum", "checksum", _CHECKSUM),
])

# V3 adds PodEntries: state.PodCPUAssignments, map[string]state.PodEntry{CPUSet cpuset.CPUSet},
# written as {"cpuSet": "<cpulist>"} (pkg/kubelet/cm/cpumanager/state/state.go).
_POD_ENTRIES = Map("state.PodCPUAssignments", _STRING,
                   Struct("state.PodEntry", [("CPUSet", "cpuSet", CpuSet(_cpulist.parse))]), initial={})

CPU_V3 = Struct("state.CPUManagerCheckpointV3", [
    ("PolicyName", "policyName", _STRING),
    ("DefaultCPUSet", "defaultCpuSet", _STRING),
    ("Entries", "entries", _CPU_ENTRIES),
    ("PodEntries", "podEntries", _POD_ENTRIES),
    ("Checksum", "checksum", _CHECKSUM),
])

_MEMORY_TABLE = Struct("state.MemoryTable", [
    ("TotalMemSize", "total", _UINT64),
    ("SystemReserved", "systemReserved", _UINT64),
    ("Allocatable", "allocatable", _UINT64),
    ("Reserved", "reserved", _UINT64),
    ("Free", "free", _UINT64),
])

_NUMA_NODE_STATE = Struct("state.NUMANodeState", [
    ("NumberOfAssignments", "numberOfAssignments", _INT),
    ("MemoryMap", "memoryMap", Map("map[v1.ResourceName]*state.MemoryTable", _RESOURCE, Pointer(_MEMORY_TABLE))),
    ("Cells", "cells", Slice("[]int", _INT)),
])

_BLOCK = Struct("state.Block", [
    ("NUMAAffinity", "numaAffinity", Slice("[]int", _INT)),
    ("Type", "type", _RESOURCE),
    ("Size", "size", _UINT64),
])

_MACHINE_STATE = Map("state.NUMANodeMap", _INT, Pointer(_NUMA_NODE_STATE), initial={})
_MEMORY_ENTRIES = Map("state.ContainerMemoryAssignments", _STRING,
                      Map("map[string][]state.Block", _STRING, Slice("[]state.Block", _BLOCK)), initial={})

MEMORY_V1 = Struct("state.MemoryManagerCheckpointV1", [
    ("PolicyName", "policyName", _STRING),
    ("MachineState", "machineState", _MACHINE_STATE),
    ("Entries", "entries", _MEMORY_ENTRIES),
    ("Checksum", "checksum", _CHECKSUM),
])

# V2 (1.36 with the gate) adds PodEntries: state.PodMemoryAssignments,
# map[string]state.PodEntry{MemoryBlocks []state.Block} (pkg/kubelet/cm/memorymanager/state/state.go).
_MEMORY_POD_ENTRIES = Map("state.PodMemoryAssignments", _STRING,
                          Struct("state.PodEntry", [("MemoryBlocks", "memoryBlocks", Slice("[]state.Block", _BLOCK))]), initial={})

MEMORY_V2 = Struct("state.MemoryManagerCheckpointV2", [
    ("PolicyName", "policyName", _STRING),
    ("MachineState", "machineState", _MACHINE_STATE),
    ("Entries", "entries", _MEMORY_ENTRIES),
    ("PodEntries", "podEntries", _MEMORY_POD_ENTRIES),
    ("Checksum", "checksum", _CHECKSUM),
])

# The payload of a 1.37 CPU V4 file's "data" (policyName, defaultCPUSet, entries, podEntries; other keys, such
# as baselines, are not read here): its field types, as json.Unmarshal checks them.
CPU_V4_DATA = Struct("state.CPUManagerCheckpointData", [
    ("PolicyName", "policyName", _STRING),
    ("DefaultCPUSet", "defaultCPUSet", _STRING),
    ("Entries", "entries", _CPU_ENTRIES),
    ("PodEntries", "podEntries", _POD_ENTRIES),
])

# The payload of a 1.37 memory V3 file's "data": the V2 fields without the checksum.
MEMORY_V3_DATA = Struct("state.MemoryManagerCheckpointData", [
    ("PolicyName", "policyName", _STRING),
    ("MachineState", "machineState", _MACHINE_STATE),
    ("Entries", "entries", _MEMORY_ENTRIES),
    ("PodEntries", "podEntries", _MEMORY_POD_ENTRIES),
])
