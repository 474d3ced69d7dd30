# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Floor: the one Kubernetes API client every controller-side step uses (connection, kubeconfig, bounded transport, answers).

Import the submodules explicitly; this file holds only this map.

- ``answers``: What an API answer must look like before the transition reads it: JSON, not too deep, each field read of its type.
- ``api``: A thin wrapper over the ``kubernetes`` Python client for the transition's few API calls, every one bounded.
- ``connection``: How a controller-side action reaches the API server: kubernetes.core's connection options, checked, as a client Configuration.
- ``connection_spec``: kubernetes.core's connection options as an argument spec, with no imports.
- ``kubeconfig``: Load a kubeconfig with the ``kubernetes`` client's own loader, without anything in it able to block the run.
- ``outcome``: The one place the controller-side steps turn an error into a failed task result.
- ``transport``: One HTTP exchange, bounded in bytes and ended by one deadline whatever the server does.
- ``urls``: No credential of a URL in a message: ``https://user:password@host`` is shown as ``https://********@host``.
"""
