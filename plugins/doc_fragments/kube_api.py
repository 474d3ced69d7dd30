# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """How the controller-side actions reach the Kubernetes API and which node they act on."""

    DOCUMENTATION = r"""
requirements:
  - The C(kubernetes) Python library on the controller.
options:
  kubeconfig:
    description:
      - The kubeconfig file on the controller. When not set, the C(kubernetes) library's default
        (E(KUBECONFIG) or C(~/.kube/config)).
      - It (and a C(tokenFile) it names) must be a regular file of at most 4 MiB; a FIFO or a device is refused without
        being opened.
    type: path
  context:
    description:
      - The kubeconfig context to use; the file's current context when not set.
    type: str
  request_timeout:
    description:
      - Seconds one API request may take in all, its tries included (a request not sent, or a read that broke,
        is tried again, at most 4 times, inside the same deadline). A server that accepts and never answers, or
        answers a byte at a time, is cut off at this deadline and the task fails naming the URL (userinfo masked),
        the deadline and how much of the answer had come.
      - The kubeconfig's exec credential plugin gets the same number of seconds to print its credential and exit;
        it is killed after them.
      - Every answer also has a size bound (16 MiB for API objects and lists, 64 KiB for C(/healthz), 1 MiB for
        C(/configz), 32 MiB for C(/metrics)).
    type: float
    default: 30
  node:
    description:
      - The node's name in the cluster, a DNS-1123 subdomain (lower case letters, digits, C(-) and C(.), at most 253
        characters, as the API server's C(ValidateNodeName)); any other name is refused before a request is sent.
    type: str
    required: true
"""
