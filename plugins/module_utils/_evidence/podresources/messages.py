# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PodResources v1 message classes and method paths, built at run time from api_descriptor's FileDescriptorSet.

Public: `load`, `Api`, `HAS_PROTOBUF`, `PROTOBUF_IMPORT_ERROR`, `SERVICE`, `MessagesError`.

Generated ``_pb2`` code checks the runtime it runs on (``runtime_version`` from protobuf 5.27 on,
the ``builder`` module from 3.20 on) and refuses an older one; a descriptor set is data and is read by
every protobuf from 3.12 on, in its python, cpp (Debian's default) and upb implementations. The set is
added to a private ``DescriptorPool`` (never the default one, so no other user of ``api.proto`` or
``v1.*`` in the same process can clash), and each class comes from ``message_factory.GetMessageClass``
where it exists (protobuf 4.24 on) and ``MessageFactory(pool).GetPrototype`` where it does not
(removed in 6.x). The method paths (``/v1.PodResourcesLister/List``, ...) and each method's request and
response classes are read from the set's service, so the proto is the one source.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base.errors import NumaGateError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._evidence.podresources import api_descriptor

try:
    import google.protobuf
    from google.protobuf import descriptor_pb2
    from google.protobuf import descriptor_pool
    from google.protobuf import message_factory
except Exception as _exc:  # pylint: disable=broad-exception-caught
    HAS_PROTOBUF = False
    PROTOBUF_IMPORT_ERROR = "%s: %s" % (type(_exc).__name__, _exc)
else:
    HAS_PROTOBUF = True
    PROTOBUF_IMPORT_ERROR = None

SERVICE = "v1.PodResourcesLister"


class MessagesError(NumaGateError):
    """The node's protobuf cannot read the descriptor set (or is missing)."""


class Api:
    """The service's methods as {name: (path, request class, response class)} and the runtime that built them.

    ``classes``: {message full name: class} for every message of the set; ``protobuf``: the runtime's
    version; ``implementation``: python, cpp or upb; ``factory``: ``GetMessageClass`` or
    ``MessageFactory.GetPrototype``, whichever made the classes.
    """

    def __init__(self, methods, classes, protobuf, implementation, factory):
        self.methods = methods
        self.classes = classes
        self.protobuf = protobuf
        self.implementation = implementation
        self.factory = factory

    def request(self, method, **fields):
        """A request message of ``method`` with ``fields`` set."""
        return self.methods[method][1](**fields)


_LOADED = []


def _implementation():
    try:
        from google.protobuf.internal import api_implementation  # pylint: disable=import-outside-toplevel
        return api_implementation.Type()
    except Exception:  # pylint: disable=broad-exception-caught
        return None


def _class_getter(pool):
    get = getattr(message_factory, "GetMessageClass", None)
    if get is not None:
        return "GetMessageClass", get
    return "MessageFactory.GetPrototype", message_factory.MessageFactory(pool).GetPrototype


def build(data=None):
    """A fresh `Api` from the serialized FileDescriptorSet ``data`` (default: api_descriptor's)."""
    if not HAS_PROTOBUF:
        raise MessagesError("the PodResources messages need the Python library protobuf (3.12 or later): %s" % PROTOBUF_IMPORT_ERROR)
    data = api_descriptor.FILE_DESCRIPTOR_SET if data is None else data
    version = getattr(google.protobuf, "__version__", None)
    try:
        pool = descriptor_pool.DescriptorPool()
        files = descriptor_pb2.FileDescriptorSet.FromString(data).file
        for proto in files:
            pool.AddSerializedFile(proto.SerializeToString())
        factory, get = _class_getter(pool)
        classes = {}
        for proto in files:
            prefix = proto.package + "." if proto.package else ""
            for message in proto.message_type:
                classes[prefix + message.name] = get(pool.FindMessageTypeByName(prefix + message.name))
        service = pool.FindServiceByName(SERVICE)
        methods = {}
        for method in service.methods:
            methods[method.name] = ("/%s/%s" % (service.full_name, method.name),
                                    classes[method.input_type.full_name], classes[method.output_type.full_name])
    except Exception as exc:  # pylint: disable=broad-exception-caught
        raise MessagesError("protobuf %s (%s) cannot build the PodResources messages from the descriptor set: %s: %s"
                            % (version, _implementation(), type(exc).__name__, exc))
    return Api(methods, classes, version, _implementation(), factory)


def load():
    """The `Api` built once per process from api_descriptor (`build`)."""
    if not _LOADED:
        _LOADED.append(build())
    return _LOADED[0]
