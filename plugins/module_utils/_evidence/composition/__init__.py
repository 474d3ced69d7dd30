# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How each evidence source's task result becomes the value the record holds: one file per source (pure).

Import the submodules explicitly; this file holds only this map.

- ``admission_failure``: The ``admission_failure`` source: the owning controller's answer to an admission failure, as the record's section (pure).
- ``allocations``: The ``allocations`` source: the kubelet's allocations from PodResources, reconciled by scope (pure).
- ``canary``: The ``canary`` source: the allocation canary's pod and its admission (pure).
- ``configuration``: The ``configuration`` source: the kubelet Ready, healthy and running the planned settings (/configz) (pure).
- ``device_path``: The ``device_path`` source: the device plugin, DRA slices and SR-IOV config read from the API, compared with the host (pure).
- ``effect``: The ``effect`` source: whether the pod-level resource managers took effect for the canary's pods (pure).
- ``findings``: The ``findings`` source: the canary's placement on the node against the kubelet's allocation (pure).
- ``kubelet_files``: The ``baseline_config`` and ``target_config`` sources: the kubelet's configuration files as they are (pure).
- ``memory``: The ``memory`` source: the canary's memory read twice, after admission and after the warm-up or the load (pure).
- ``metrics``: The ``metrics`` source: the kubelet's resource manager series, as rates between the scrapes around the canary (pure).
- ``rollback``: The ``rollback`` source: whether a rollback of this node was rehearsed (pure).
- ``service_objectives``: The ``service_objectives`` source: baseline against canary under the same load, measured (pure).
- ``task_result``: A task's registered result as the compositions read it (pure).
- ``transport``: The ``transport`` source: the NIC the canary's main container selects, against its GPUs' nearest NIC and NUMA node (pure).
- ``versions``: The ``versions`` source: what the Node object's ``status.nodeInfo`` says the node runs (pure).
"""
