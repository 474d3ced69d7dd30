# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's PodResources API v1: the proto, its descriptor set, the messages built from it, and a reader.

- ``api.proto``: the service and messages (k8s.io/kubelet at 63b3249, with PodResources fields 4 and 5).
- ``api_descriptor``: the proto's serialized ``FileDescriptorSet`` as a bytes literal, made by
  scripts/gen_podresources.sh (protoc, then scripts/podresources_postprocess.py); never edited by hand.
- ``messages``: the message classes and method paths built from it at run time, with any protobuf from
  3.12 on (``HAS_PROTOBUF`` / ``PROTOBUF_IMPORT_ERROR`` when there is none).
- ``client``: `read(socket, timeout)`, `HAS_GRPC`, `GRPC_IMPORT_ERROR`, `PodResourcesError`.
"""
