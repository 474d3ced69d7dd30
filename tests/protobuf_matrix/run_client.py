"""Run the collection's PodResources client on the protobuf and grpcio in PYTHONPATH and print what it read, as JSON.

    python -S run_client.py SOCKET PROTOBUF_FOLDER GRPCIO_FOLDER

Started by test_matrix.py with ``-S`` (no site-packages: only the two ``--target`` folders and the
collection are importable). It checks that google.protobuf and grpc were imported from those folders,
then reads the socket twice: everything (``List`` + ``GetAllocatableResources``) and one pod (``Get`` +
``GetAllocatableResources``).
"""

import json
import os
import sys


def main():
    socket, protobuf_folder, grpcio_folder = sys.argv[1:4]
    import google.protobuf  # pylint: disable=import-outside-toplevel
    import grpc  # pylint: disable=import-outside-toplevel
    from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import client  # pylint: disable=import-outside-toplevel

    origins = {"protobuf": os.path.realpath(google.protobuf.__file__).startswith(os.path.realpath(protobuf_folder) + os.sep),
               "grpcio": os.path.realpath(grpc.__file__).startswith(os.path.realpath(grpcio_folder) + os.sep)}
    listed = client.read(socket, timeout=10)
    one = client.read(socket, timeout=10, pods=[{"name": "inference", "namespace": "canary"}])
    print(json.dumps({"origins": origins, "list": listed, "get": one}))


if __name__ == "__main__":
    main()
