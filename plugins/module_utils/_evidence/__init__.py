# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The evidence step: where a pod's CPUs, pages and devices really are, and the registry of evidence sources.

Import the submodules explicitly; this file holds only this map.

- ``composition/``: How each evidence source's task result becomes the value the record holds: one file per source (pure).
- ``placement/``: Placement read on the node: cgroups, effective sets, thread masks, resident pages, CPU use.
- ``podresources/``: The kubelet's PodResources API v1: the proto, its descriptor set, the messages built from it, a reader, allocations.
- ``transport/``: The workload's transport: the NIC its main container selects, against its GPUs' nearest NIC and NUMA node.
- ``reconcile/``: What the kubelet said against what the kernel shows and the oracle expects: devices mapped, findings (pure).
- ``canary``: The allocation canary: its manifest, its Guaranteed QoS check, and its admission read by layer (pure).
- ``admission_failure``: The owning controller's answer to an admission failure: the probe the canary sends, and what was seen (pure).
- ``canary_wait``: Controller side: wait, within a bound, for the canary's pods to be admitted, or refused at a layer, with progress lines.
- ``effect``: Whether the pod-level resource managers took effect for the canary's pods (pure).
- ``compose``: The placement_evidence fact: every source's evidence for one node, composed from the role's task results (pure).
- ``inputs``: The shapes of what the evidence filters are given, checked before anything is read from them.
- ``measures``: A measurement is a plausible number or it is refused: the one check for every count the evidence reads.
- ``metrics``: The kubelet's resource-manager metrics: parsed with prometheus-client's text parser, rates between two scrapes.
- ``metrics_fetch``: Controller side: one scrape of a node's kubelet metrics through the API server's node proxy.
- ``nodefs``: Reading node files for the evidence step: inside a root, bounded, never blocking.
- ``slack``: Reservation slack as the collection defines it: reserved capacity minus average use, units kept.
- ``sources``: The evidence sources: what the verify step reads for one node, and where each value goes in the record (pure).
- ``specs``: The kubelet_metrics_info and canary_wait actions' argument specs, declared once: each action and its module file import them.
"""
