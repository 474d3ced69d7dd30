# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
#
# Generated from plugins/module_utils/_evidence/podresources/api.proto by scripts/gen_podresources.sh
# (grpcio-tools 1.85.1 protobuf 7.36.2); do not edit. The script's exact commands, from the repository root:
#   D=plugins/module_utils/_evidence/podresources
#   python -m grpc_tools.protoc -I$D --include_imports --descriptor_set_out=<stage>/api.desc api.proto
#   python scripts/podresources_postprocess.py --tools 'grpcio-tools 1.85.1 protobuf 7.36.2' <stage>/api.desc $D/api_descriptor.py
"""The serialized ``FileDescriptorSet`` of api.proto (beside this file): messages.py builds the message classes from it at run time.

A descriptor set is data, not generated code: it carries no protobuf version check, and every
protobuf runtime from 3.12 on reads it.
"""

from __future__ import annotations

SHA256 = "38d54be2d5e22423f9ba25a6109036e0d3af073e9b7c2740be47c2bfcaa8edce"

FILE_DESCRIPTOR_SET = (
    b"\n\x88\x0f\n\tapi.proto\x12\x02v1\"\x1d\n\x1bAllocatableResourcesRequest\"\x94\x01\n\x1cAllocatableResourcesResponse\x12.\n\x07devices\x18\x01 \x03(\x0b"
    b"2\x14.v1.ContainerDevicesR\x07devices\x12\x17\n\x07cpu_ids\x18\x02 \x03(\x03R\x06cpuIds\x12+\n\x06memory\x18\x03 \x03(\x0b2\x13.v1.ContainerMemoryR\x06m"
    b"emory\"\x19\n\x17ListPodResourcesRequest\"Q\n\x18ListPodResourcesResponse\x125\n\rpod_resources\x18\x01 \x03(\x0b2\x10.v1.PodResourcesR\x0cpodResources"
    b"\"\xbe\x01\n\x0cPodResources\x12\x12\n\x04name\x18\x01 \x01(\tR\x04name\x12\x1c\n\tnamespace\x18\x02 \x01(\tR\tnamespace\x126\n\ncontainers\x18\x03 \x03"
    b"(\x0b2\x16.v1.ContainerResourcesR\ncontainers\x12\x17\n\x07cpu_ids\x18\x04 \x03(\x03R\x06cpuIds\x12+\n\x06memory\x18\x05 \x03(\x0b2\x13.v1.ContainerMemo"
    b"ryR\x06memory\"\xe0\x01\n\x12ContainerResources\x12\x12\n\x04name\x18\x01 \x01(\tR\x04name\x12.\n\x07devices\x18\x02 \x03(\x0b2\x14.v1.ContainerDevicesR"
    b"\x07devices\x12\x17\n\x07cpu_ids\x18\x03 \x03(\x03R\x06cpuIds\x12+\n\x06memory\x18\x04 \x03(\x0b2\x13.v1.ContainerMemoryR\x06memory\x12@\n\x11dynamic_re"
    b"sources\x18\x05 \x03(\x0b2\x13.v1.DynamicResourceR\x10dynamicResources\"t\n\x0fContainerMemory\x12\x1f\n\x0bmemory_type\x18\x01 \x01(\tR\nmemoryType\x12"
    b"\x12\n\x04size\x18\x02 \x01(\x04R\x04size\x12,\n\x08topology\x18\x03 \x01(\x0b2\x10.v1.TopologyInfoR\x08topology\"\x84\x01\n\x10ContainerDevices\x12#\n"
    b"\rresource_name\x18\x01 \x01(\tR\x0cresourceName\x12\x1d\n\ndevice_ids\x18\x02 \x03(\tR\tdeviceIds\x12,\n\x08topology\x18\x03 \x01(\x0b2\x10.v1.Topology"
    b"InfoR\x08topology\"2\n\x0cTopologyInfo\x12\"\n\x05nodes\x18\x01 \x03(\x0b2\x0c.v1.NUMANodeR\x05nodes\"\x1a\n\x08NUMANode\x12\x0e\n\x02ID\x18\x01 \x01("
    b"\x03R\x02ID\"\x95\x01\n\x0fDynamicResource\x12\x1d\n\nclaim_name\x18\x02 \x01(\tR\tclaimName\x12'\n\x0fclaim_namespace\x18\x03 \x01(\tR\x0eclaimNamespac"
    b"e\x12:\n\x0fclaim_resources\x18\x04 \x03(\x0b2\x11.v1.ClaimResourceR\x0eclaimResources\"\xcb\x01\n\rClaimResource\x12.\n\x0bcdi_devices\x18\x01 \x03("
    b"\x0b2\r.v1.CDIDeviceR\ncdiDevices\x12\x1f\n\x0bdriver_name\x18\x02 \x01(\tR\ndriverName\x12\x1b\n\tpool_name\x18\x03 \x01(\tR\x08poolName\x12\x1f\n\x0bd"
    b"evice_name\x18\x04 \x01(\tR\ndeviceName\x12\x1e\n\x08share_id\x18\x05 \x01(\tH\x00R\x07shareId\x88\x01\x01B\x0b\n\t_share_id\"\x1f\n\tCDIDevice\x12\x12"
    b"\n\x04name\x18\x01 \x01(\tR\x04name\"X\n\x16GetPodResourcesRequest\x12\x19\n\x08pod_name\x18\x01 \x01(\tR\x07podName\x12#\n\rpod_namespace\x18\x02 \x01("
    b"\tR\x0cpodNamespace\"P\n\x17GetPodResourcesResponse\x125\n\rpod_resources\x18\x01 \x01(\x0b2\x10.v1.PodResourcesR\x0cpodResources2\xfb\x01\n\x12PodResou"
    b"rcesLister\x12C\n\x04List\x12\x1b.v1.ListPodResourcesRequest\x1a\x1c.v1.ListPodResourcesResponse\"\x00\x12^\n\x17GetAllocatableResources\x12\x1f.v1.Allo"
    b"catableResourcesRequest\x1a .v1.AllocatableResourcesResponse\"\x00\x12@\n\x03Get\x12\x1a.v1.GetPodResourcesRequest\x1a\x1b.v1.GetPodResourcesResponse\""
    b"\x00B)Z'k8s.io/kubelet/pkg/apis/podresources/v1b\x06proto3"
)
