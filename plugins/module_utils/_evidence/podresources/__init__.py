# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's PodResources API v1: the proto, its descriptor set, the messages built from it, a reader, allocations.

Import the submodules explicitly; this file holds only this map.

- ``allocations``: PodResources allocations reconciled per pod by the Topology Manager scope, never double-counted.
- ``api_descriptor``: The serialized ``FileDescriptorSet`` of api.proto (beside this file): messages.py builds the message classes from it at run time.
- ``client``: A reader of the kubelet's PodResources API v1 on its unix socket: answers as plain values, failures as findings.
- ``messages``: The PodResources v1 message classes and method paths, built at run time from api_descriptor's FileDescriptorSet.
"""
