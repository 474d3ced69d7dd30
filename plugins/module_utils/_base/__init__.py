# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Floor: the error family, the value-shape checker, cpulists, quantities, PCI addresses, Kubernetes names, bounded reads, artifacts.

Import the submodules explicitly; this file holds only this map.

- ``artifacts``: Write a host's artifacts into one controller folder: every file in one call, atomically.
- ``cpulist``: Linux cpulist and cpumask handling.
- ``errors``: The collection's one exception family, and the one place a module turns it into a failure.
- ``escape``: Every value that goes on a page goes through one of these (device names, messages, versions are data, never markup).
- ``fileio``: Read node files without leaving the folder given, without blocking, within a size bound.
- ``k8s_names``: Kubernetes object names, checked by the API server's own rules before one goes into a URL or a request.
- ``pci``: PCI address normalisation: every address leaves as dddd:bb:dd.f, lower case.
- ``progress``: The progress lines long waits print while they run, and the one way they are sent.
- ``quantity``: Kubernetes resource quantities for memory (bytes) and CPU.
- ``shape_check``: The shape of a value a filter is given, checked before it is read: a wrong type or a missing key is named, never a KeyError.
"""
