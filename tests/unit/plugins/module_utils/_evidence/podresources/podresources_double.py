"""A TEST DOUBLE of the kubelet's PodResources gRPC service (not the kubelet), run as its own process.

    python podresources_double.py PROTO SOCKET ANSWERS.json [--strip-pod-level] [--refuse METHOD:CODE]

It compiles PROTO (the collection's api.proto, or a copy) with grpc_tools.protoc into a temporary
folder at start and serves `v1.PodResourcesLister` from those stubs on the unix SOCKET: List and Get
answer from ANSWERS.json (a ListPodResourcesResponse as protobuf JSON, snake_case names),
GetAllocatableResources from its "allocatable" key. It imports nothing from the collection (its
own stubs, in its own process on the venv's grpcio and protobuf: its generated code never meets the
client under test, which tests/protobuf_matrix runs on other versions).
--strip-pod-level compiles the proto without PodResources fields 4 and 5, as the kubelet's
api.proto was at k8s.io/kubelet v0.37.0-beta.0, so the answer carries no pod-level fields: an older
kubelet on the wire. --refuse answers METHOD with that gRPC status code, as a kubelet refusing it.
Prints "ready" once serving; stops when stdin closes.
"""

import argparse
import importlib
import json
import os
import re
import sys
import tempfile
from concurrent import futures

import grpc
from google.protobuf import json_format
from grpc_tools import protoc


def _compile(proto, strip):
    folder = tempfile.mkdtemp(prefix="podresources-double-")
    with open(proto) as handle:
        text = handle.read()
    if strip:
        # PodResources as in v0.37.0-beta.0: name, namespace, containers only
        text, count = re.subn(r"(message PodResources \{.*?repeated ContainerResources containers = 3;).*?\n\}",
                              r"\1\n}", text, flags=re.S)
        assert count == 1, "PodResources message not found in %s" % proto
    with open(os.path.join(folder, "double_api.proto"), "w") as handle:
        handle.write(text)
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    code = protoc.main(["protoc", "-I" + folder, "-I" + include, "--python_out=" + folder, "--grpc_python_out=" + folder,
                        os.path.join(folder, "double_api.proto")])
    assert code == 0, "protoc failed: %d" % code
    sys.path.insert(0, folder)
    return importlib.import_module("double_api_pb2"), importlib.import_module("double_api_pb2_grpc")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("proto")
    parser.add_argument("socket")
    parser.add_argument("answers")
    parser.add_argument("--strip-pod-level", action="store_true")
    parser.add_argument("--refuse", action="append", default=[])
    args = parser.parse_args()
    pb2, pb2_grpc = _compile(args.proto, args.strip_pod_level)
    with open(args.answers) as handle:
        answers = json.load(handle)
    refused = dict(item.split(":", 1) for item in args.refuse)
    listed = json_format.ParseDict({"pod_resources": answers["pod_resources"]}, pb2.ListPodResourcesResponse(), ignore_unknown_fields=True)
    allocatable = json_format.ParseDict(answers.get("allocatable", {}), pb2.AllocatableResourcesResponse())

    def refuse(method, context):
        if method in refused:
            context.abort(getattr(grpc.StatusCode, refused[method]), "%s refused by the test double" % method)

    class Lister(pb2_grpc.PodResourcesListerServicer):
        def List(self, request, context):
            refuse("List", context)
            return listed

        def GetAllocatableResources(self, request, context):
            refuse("GetAllocatableResources", context)
            return allocatable

        def Get(self, request, context):
            refuse("Get", context)
            for pod in listed.pod_resources:
                if (pod.name, pod.namespace) == (request.pod_name, request.pod_namespace):
                    return pb2.GetPodResourcesResponse(pod_resources=pod)
            context.abort(grpc.StatusCode.NOT_FOUND, "pod %s not found in namespace %s" % (request.pod_name, request.pod_namespace))

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb2_grpc.add_PodResourcesListerServicer_to_server(Lister(), server)
    server.add_insecure_port("unix://" + os.path.abspath(args.socket))
    server.start()
    print("ready", flush=True)
    sys.stdin.read()
    server.stop(0)


if __name__ == "__main__":
    main()
