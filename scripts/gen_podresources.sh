#!/bin/sh
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
#
# Regenerate the PodResources v1 client (api_pb2.py, api_pb2_grpc.py) from the collection's own
# api.proto with grpcio-tools (pinned in requirements-test.txt). Run from the repository root:
#   sh scripts/gen_podresources.sh
# The proto is compiled under its collection path so that api_pb2_grpc.py imports api_pb2 by its
# full ansible_collections name (the way Ansible's module packer finds module_utils). protoc's
# output is then passed through scripts/podresources_postprocess.py (standard library only), which
# guards the google.protobuf / grpc imports (HAS_PROTOBUF / HAS_GRPC, so module_utils import
# without them) and reflows the layout for ansible-test sanity (pep8 at 160 columns, pylint), and
# checks that the statements are still protoc's. Both steps are deterministic: the same versions
# and api.proto give the same bytes, and each file's header records the exact commands.
set -eu
python=${PYTHON:-.venv/bin/python}
pkg=plugins/module_utils/_evidence/podresources
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
inner=ansible_collections/gpusmith/numa_gate/$pkg
mkdir -p "$stage/$inner"
cp "$pkg/api.proto" "$stage/$inner/"
"$python" -m grpc_tools.protoc -I"$stage" --python_out="$stage" --grpc_python_out="$stage" "$inner/api.proto"
version=$("$python" -c 'import google.protobuf; from importlib.metadata import version; print("grpcio-tools", version("grpcio-tools"), "protobuf", google.protobuf.__version__)')
for name in api_pb2.py api_pb2_grpc.py; do
    "$python" scripts/podresources_postprocess.py --tools "$version" "$stage/$inner/$name" "$pkg/$name"
done
