# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A TEST DOUBLE of the Kubernetes API server (not the real kube-apiserver), for the tests only.

Start it with ``server.ApiServerDouble().start()``; seed it with ``add_node``, ``add_pod``,
``add_pdb``, ``add_daemonset``, ``add_replicaset``, ``set_node_ready``, ``register_kubelet``;
point clients at it with ``write_kubeconfig``. Modules: ``server`` (the object tests use),
``handler`` (HTTP routing), ``store`` (the in-memory objects), ``objects`` (what seeding builds),
``eviction`` (pods/eviction and PodDisruptionBudgets), ``status`` (the API's Status bodies),
``selection`` (field and label selectors), ``patch`` (merge, strategic merge, JSON patch),
``discovery`` (the discovery documents), ``tables`` (server-side printing for kubectl get),
``proxy`` (the node proxy to a kubelet), ``watch`` (watch streams and the watch-list bookmark),
``dryrun`` (server-side dry run), ``node_resources`` and ``quantity`` (node capacity and allocatable),
``controllers`` (the ReplicaSet controller and scheduler stand-ins), ``workloads`` (Deployments, StatefulSets,
the PodLevelResources drop on create). It imports nothing from the collection under test.
"""
