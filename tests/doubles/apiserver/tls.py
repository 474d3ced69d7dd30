# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTPS and authentication for the API server double: a TEST DOUBLE of kube-apiserver's serving and authenticating, not the real thing.

What it stands for, flag by flag (kube-apiserver, k8s.io/apiserver):
- ``--tls-cert-file``/``--tls-private-key-file``: the double serves TLS (1.2 or later, the apiserver's
  default minimum) with a server certificate for 127.0.0.1 and ``localhost``, made at test time by
  `Pki` with the ``cryptography`` package (ansible-core requires it) and signed by a test CA that is
  written to ``Pki.ca_cert`` for the clients (``--certificate-authority``, ``ca_cert``).
- ``--client-ca-file``: a client certificate signed by ``Pki.client_ca_cert`` is asked for but not required
  (``tls.VerifyClientCertIfGiven``, as the apiserver's secure serving does); its Common Name is
  the user name (x509 ``CommonNameUserConversion``, pkg/authentication/request/x509/x509.go).
- ``--token-auth-file`` with ``--anonymous-auth=false``: with ``tokens`` ({token: user name})
  every request must authenticate; the bearer token is read as bearertoken.go's
  ``AuthenticateRequest`` does (the ``Authorization`` header trimmed and split on spaces, the
  scheme ``bearer`` in any case, an empty token no credential). A request that does not
  authenticate, whatever its path, is answered 401 with the Status ``Unauthorized``
  (filters/authentication.go ``Unauthorized``: ``apierrors.NewUnauthorized("Unauthorized")``).
  Without ``tokens`` nothing is checked, as the plain-HTTP double always did.
The audit log records the user name of each authenticated request (an audit Event's
``user.username``); the token itself is never written anywhere.
"""

import datetime
import ipaddress
import os
import ssl
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from apiserver import status as api_status


class _Authority:  # pylint: disable=too-few-public-methods
    """A CA: an EC P-256 key and a self-signed certificate allowed to sign leaves (pathlen 0)."""

    def __init__(self, name):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        public = self.key.public_key()
        self.cert = (x509.CertificateBuilder().subject_name(self.name).issuer_name(self.name).public_key(public)
                     .serial_number(x509.random_serial_number())
                     .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                     .add_extension(_usage(cert_sign=True), critical=True)
                     .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
                     .sign(self.key, hashes.SHA256()))


class Pki:
    """Test certificates in ``folder``: the serving CA (``ca_cert``, what clients trust), a server certificate for
    127.0.0.1 and localhost signed by it (``server_cert``, ``server_key``), and a client CA (``client_ca_cert``, the
    apiserver's ``--client-ca-file``) that `issue` signs client certificates with. Two CAs, as a cluster may have: the
    server then sends only its own certificate (OpenSSL would add a CA it finds in its client-CA store to the chain).
    Every key file is mode 0600."""

    def __init__(self, folder, name="double-ca"):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self._serving, self._clients = _Authority(name), _Authority(name + "-clients")
        self.ca_cert = self._write(name + ".pem", self._serving.cert.public_bytes(serialization.Encoding.PEM))
        self.client_ca_cert = self._write(name + "-clients.pem", self._clients.cert.public_bytes(serialization.Encoding.PEM))
        self.server_cert, self.server_key = self.issue("kube-apiserver", server=True)

    def issue(self, common_name, server=False, organizations=()):
        """(certificate path, key path) of a new leaf: a server certificate for 127.0.0.1 and localhost, or a client one."""
        authority = self._serving if server else self._clients
        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, o) for o in organizations]
                            + [x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        now = datetime.datetime.now(datetime.timezone.utc)
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(authority.name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(_usage(), critical=True)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH]),
                                  critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(authority.key.public_key()), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                                         x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                            critical=False)
        cert = builder.sign(authority.key, hashes.SHA256())
        stem = common_name.replace("/", "_").replace(":", "_")
        key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        return (self._write(stem + ".pem", cert.public_bytes(serialization.Encoding.PEM)),
                self._write(stem + "-key.pem", key_pem, mode=0o600))

    def _write(self, name, data, mode=0o644):
        path = os.path.join(self.folder, name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "wb") as stream:
            stream.write(data)
        return path


def _usage(cert_sign=False):
    return x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                         key_agreement=False, key_cert_sign=cert_sign, crl_sign=cert_sign, encipher_only=False, decipher_only=False)


def serve(httpd, pki):
    """Make ``httpd`` (a socketserver TCP server) speak TLS with ``pki``'s server certificate, client certificates optional.

    The handshake runs in each request's thread (not in accept), so a client that never completes it holds
    only its own thread; a handshake a client breaks off (a CA it does not trust) is not printed.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(pki.server_cert, pki.server_key)
    context.load_verify_locations(pki.client_ca_cert)
    context.verify_mode = ssl.CERT_OPTIONAL
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)
    plain = httpd.handle_error

    def handle_error(request, client_address):
        if isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError)):
            return
        plain(request, client_address)

    httpd.handle_error = handle_error
    return httpd


def _bearer(header):
    """The token of an ``Authorization: Bearer <token>`` header as bearertoken.go reads it; None when there is none."""
    parts = (header or "").strip().split(" ")
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return None
    return parts[1]


def _common_name(connection):
    getpeercert = getattr(connection, "getpeercert", None)
    if getpeercert is None:
        return None
    for entry in (getpeercert() or {}).get("subject", ()):
        for key, value in entry:
            if key == "commonName":
                return value
    return None


def authenticate(tokens, header, connection):
    """(user name or None, the 401 ApiError to answer or None) for one request.

    ``tokens``: {token: user name}, or None for no authentication. A verified client certificate's CN is the user;
    else a bearer token in ``tokens``. With ``tokens``, a request that is neither is refused.
    """
    user = _common_name(connection)
    token = _bearer(header)
    if user is None and token is not None and tokens:
        user = tokens.get(token)
    if tokens is None or user is not None:
        return user, None
    return None, api_status.ApiError({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
