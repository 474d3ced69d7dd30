# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """How the controller-side actions reach the Kubernetes API and which node they act on."""

    DOCUMENTATION = r"""
requirements:
  - The C(kubernetes) Python library on the controller.
options:
  host:
    description:
      - The API server's URL (C(https://<host>[:<port>][/<path>]), or C(http://)); trailing slashes are dropped. With O(api_key), or
        with O(client_cert) and O(client_key), it is all the connection needs and no kubeconfig is read (O(kubeconfig) and
        O(context) are then not used), as in kubernetes.core. Otherwise it overrides the kubeconfig's server.
      - When not set, the first non-empty of E(K8S_AUTH_HOST) on the controller.
      - An AWX or Automation Platform "OpenShift or Kubernetes API Bearer Token" credential sets E(K8S_AUTH_HOST),
        E(K8S_AUTH_API_KEY), E(K8S_AUTH_VERIFY_SSL) and, with a CA certificate, E(K8S_AUTH_SSL_CA_CERT); attached to the job
        template, it is all these actions need.
    type: str
  api_key:
    description:
      - A bearer token, sent in the C(Authorization) header as C(Bearer <api_key>); it overrides the kubeconfig user's credentials. It must be one
        word of printable ASCII; it is never shown (masked in every message).
      - When not set, E(K8S_AUTH_API_KEY).
    type: str
  ca_cert:
    description:
      - The CA certificate file (PEM) that the API server's certificate must chain to; it overrides the kubeconfig's.
      - When not set, E(K8S_AUTH_CA_CERT), then E(K8S_AUTH_SSL_CA_CERT).
    type: path
    aliases: [ssl_ca_cert]
  client_cert:
    description:
      - A client certificate file (PEM) to authenticate with; needs O(client_key), or the task is refused.
      - When not set, E(K8S_AUTH_CLIENT_CERT), then E(K8S_AUTH_CERT_FILE).
    type: path
    aliases: [cert_file]
  client_key:
    description:
      - The key file (PEM) of O(client_cert); needs O(client_cert), or the task is refused.
      - When not set, E(K8S_AUTH_CLIENT_KEY), then E(K8S_AUTH_KEY_FILE).
    type: path
    aliases: [key_file]
  validate_certs:
    description:
      - Whether the API server's certificate is verified (against O(ca_cert), the kubeconfig's CA, or the system's). When not set,
        the kubeconfig's C(insecure-skip-tls-verify) decides, else V(true).
      - When not set, E(K8S_AUTH_VALIDATE_CERTS), then E(K8S_AUTH_VERIFY_SSL); their value must be a boolean word (V(true),
        V(false), V(yes), V(no), V(1), V(0)) or the task is refused.
    type: bool
    aliases: [verify_ssl]
  proxy:
    description:
      - The URL of an HTTP(S) or SOCKS proxy for the API server (C(http://), C(https://), C(socks5://), C(socks5h://),
        C(socks4://), C(socks4a://)); it overrides the kubeconfig's C(proxy-url). E(HTTPS_PROXY) and the like are not read.
      - When not set, E(K8S_AUTH_PROXY).
    type: str
  kubeconfig:
    description:
      - The kubeconfig file on the controller. When not set, E(K8S_AUTH_KUBECONFIG), else the C(kubernetes) library's default
        (E(KUBECONFIG) or C(~/.kube/config)). Not read when O(host) and a credential are set.
      - It (and a C(tokenFile) it names) must be a regular file of at most 4 MiB; a FIFO or a device is refused without
        being opened.
    type: path
  context:
    description:
      - The kubeconfig context to use; the file's current context when not set.
      - When not set, E(K8S_AUTH_CONTEXT).
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
notes:
  - The connection options are kubernetes.core's, with its environment variables; a task's own value (or one from
    C(module_defaults), for example C(group/gpusmith.numa_gate.kube_api)) wins over the variable. The variables are read from the
    controller's environment (where these actions run), not from the task's C(environment) keyword; an empty variable counts as unset.
  - Refused before anything is sent, naming the options and the variables they came from, changing nothing; O(client_cert) without
    O(client_key) or the reverse; O(api_key) or a client certificate without O(host) and without any kubeconfig; O(host) without a
    credential and without any kubeconfig; a O(host) or O(proxy) that is not such a URL; an O(api_key) with spaces or control
    characters; a O(ca_cert), O(client_cert) or O(client_key) that is not a regular file of at most 4 MiB.
  - There is no in-cluster configuration (a service account token under C(/var/run/secrets)) unless a kubeconfig or the options say so.
  - A credential the API server refuses fails the task with C(HTTP 401 Unauthorized) and names the credential (the option or variable,
    never its value); a certificate that does not chain to O(ca_cert) fails naming the TLS error.
"""

    # The plugins that act on one node (kube_node, kubelet_verify, ...) add this part.
    NODE = r"""
options:
  node:
    description:
      - The node's name in the cluster, a DNS-1123 subdomain (lower case letters, digits, C(-) and C(.), at most 253
        characters, as the API server's C(ValidateNodeName)); any other name is refused before a request is sent.
    type: str
    required: true
"""
