#!/bin/sh
# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
#
# Regenerate api_descriptor.py, the serialized FileDescriptorSet of the collection's own api.proto,
# with grpcio-tools (pinned in requirements-test.txt). Run from the repository root:
#   sh scripts/gen_podresources.sh
# protoc writes the descriptor set (no generated code: nothing in it checks the node's protobuf or
# grpcio version); scripts/podresources_postprocess.py (standard library only) writes it as a bytes
# literal in a .py module, the only kind of file Ansible ships to a node with module_utils. Both
# steps are deterministic: the same grpcio-tools and api.proto give the same bytes, and the file's
# header records the exact commands. tests/unit/plugins/module_utils/_evidence/podresources/test_api_descriptor.py
# regenerates it and compares.
set -eu
python=${PYTHON:-.venv/bin/python}
pkg=plugins/module_utils/_evidence/podresources
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$python" -m grpc_tools.protoc -I"$pkg" --include_imports --descriptor_set_out="$stage/api.desc" api.proto
version=$("$python" -c 'import google.protobuf; from importlib.metadata import version; print("grpcio-tools", version("grpcio-tools"), "protobuf", google.protobuf.__version__)')
"$python" scripts/podresources_postprocess.py --tools "$version" "$stage/api.desc" "$pkg/api_descriptor.py"
