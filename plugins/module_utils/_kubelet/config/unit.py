# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the kubelet is started on a node: its command line, its ``--config`` and ``--config-dir``, its version.

Public: `flags_from_argv(argv)`, `expand(words, environment)`, `parse_environment_file(text)`,
`read_unit(runner, service, read_file)`, `layout_fit(found, layout)`, `program(argv)`, `kubelet_version(runner, command)`.

A kubelet reads drop-ins only when it runs with ``--config-dir`` (cmd/kubelet/app/server.go,
``kubeletConfigDirFlag``), so the transition must know the flags before writing a drop-in. They
come from the running process (``/proc/<MainPID>/cmdline``) when there is one, else from the
unit's ``ExecStart`` with its ``Environment`` and ``EnvironmentFiles`` expanded the way systemd
expands ``$VAR`` and ``${VAR}`` (a kubeadm node passes ``$KUBELET_CONFIG_ARGS``).
"""

from __future__ import annotations

import re

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_FLAGS = {"--config": "config", "--config-dir": "config_dir", "--root-dir": "root_dir", "--kubeconfig": "kubeconfig"}


def flags_from_argv(argv):
    """{config, config_dir, root_dir, kubeconfig} from a kubelet argv (``--flag=value`` or ``--flag value``)."""
    found = {name: None for name in _FLAGS.values()}
    index = 1
    while index < len(argv):
        word = argv[index]
        name, sep, value = word.partition("=")
        if name.startswith("-") and not name.startswith("--"):
            name = "-" + name  # pflag accepts -config as --config
        if name in _FLAGS:
            if not sep:
                value = argv[index + 1] if index + 1 < len(argv) else ""
                index += 1
            found[_FLAGS[name]] = value
        index += 1
    return found


def expand(words, environment):
    """systemd's word expansion of ``$VAR`` (split into words) and ``${VAR}`` (kept whole)."""
    result = []
    for word in words:
        whole = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if whole:
            result.extend(environment.get(whole.group(1), "").split())
            continue
        result.append(_VAR.sub(lambda match: environment.get(match.group(1) or match.group(2), ""), word))
    return result


def parse_environment_file(text):
    """KEY=value lines of a systemd EnvironmentFile (comments and blank lines skipped, quotes removed)."""
    values = {}
    # systemd's parse_env_file: a backslash at the end of a line continues it (kubespray's kubelet.env writes KUBELET_ARGS
    # over several lines that way); a comment line is never continued.
    lines = []
    pending = None
    for raw in text.splitlines():
        if pending is None and raw.strip().startswith(("#", ";")):
            continue
        part = raw[:-1] if raw.endswith("\\") else raw
        pending = part if pending is None else pending + part
        if not raw.endswith("\\"):
            lines.append(pending)
            pending = None
    if pending is not None:
        lines.append(pending)
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def _show(runner, systemctl, service, prop):
    rc, out, _err = runner.run([systemctl, "show", "--property", prop, "--value", "--", service])  # never an option
    return out.strip() if rc == 0 else ""


def _exec_start_argv(text):
    match = re.search(r"argv\[\]=(.*?) ;", text)
    return match.group(1).split() if match else []


def read_unit(runner, service, read_file):
    """What systemd says about the kubelet unit: argv (as run or as it would run), flags, source.

    ``read_file(path)`` returns a file's text or None (an EnvironmentFile may be missing with ``-``).
    """
    systemctl = runner.find("systemctl")
    if not systemctl:
        return {"service": service, "argv": [], "flags": flags_from_argv([]), "source": "systemctl not found", "active": None}
    active = _show(runner, systemctl, service, "ActiveState")
    pid = _show(runner, systemctl, service, "MainPID")
    if pid.isdigit() and int(pid) > 0:
        cmdline = read_file("/proc/%s/cmdline" % pid)
        if cmdline:
            argv = [part for part in cmdline.split("\0") if part]
            return {"service": service, "argv": argv, "flags": flags_from_argv(argv), "source": "/proc/%s/cmdline" % pid,
                    "active": active}
    environment = {}
    for entry in _show(runner, systemctl, service, "EnvironmentFiles").splitlines():
        path = entry.split(" (", 1)[0].strip()
        text = read_file(path) if path else None
        if text:
            environment.update(parse_environment_file(text))
    for word in _show(runner, systemctl, service, "Environment").split():
        if "=" in word:
            key, value = word.split("=", 1)
            environment[key] = value
    argv = expand(_exec_start_argv(_show(runner, systemctl, service, "ExecStart")), environment)
    # No ExecStart: systemd knows no such unit (or cannot answer); say so, never "unset (read from ExecStart)".
    source = "ExecStart" if argv else NO_UNIT
    return {"service": service, "argv": argv, "flags": flags_from_argv(argv), "source": source, "active": active}


NO_UNIT = "no kubelet unit found"


def layout_fit(found, layout):
    """Which write mode works with the kubelet as it is started, and what differs from the assumed layout.

    ``found``: `read_unit`'s answer (None: not read); ``layout``: the assumed ``path`` and ``config_dir``. Returns
    ``{read, config, config_dir, modes: {dropin, main}, warnings}``; a mode is True (the kubelet reads that file), False
    (it does not) or None (unknown: no unit was read). The kubelet reads drop-ins only with ``--config-dir``
    (cmd/kubelet/app/server.go) and its main file only from ``--config``.
    """
    if not found or not found.get("argv"):
        why = (found or {}).get("source") or "the kubelet unit was not read"
        return {"read": why, "config": None, "config_dir": None, "modes": {"dropin": None, "main": None},
                "warnings": ["%s: which mode works on this node is unknown; check the kubelet's --config and --config-dir "
                             "before enable.yml" % why]}
    flags = found.get("flags") or {}
    config, config_dir = flags.get("config"), flags.get("config_dir")
    source = found.get("source")
    warnings = []
    if config != layout.get("path"):
        warnings.append("the kubelet runs with --config=%s (read from %s), but numa_gate_kubelet_layout.path is %s: the plan "
                        "was made over a file the kubelet does not read; set numa_gate_kubelet_layout.path to %s"
                        % (config or "unset", source, layout.get("path"), config or "the kubelet's --config"))
    if config_dir != layout.get("config_dir"):
        warnings.append("the kubelet runs with --config-dir=%s (read from %s), not %s: a drop-in there would never be read; "
                        "start the kubelet with --config-dir=%s, or use numa_gate_kubelet_layout.mode main"
                        % (config_dir or "unset", source, layout.get("config_dir"), layout.get("config_dir")))
    return {"read": source, "config": config, "config_dir": config_dir,
            "modes": {"dropin": config_dir == layout.get("config_dir"), "main": bool(config) and config == layout.get("path")},
            "warnings": warnings}


def program(argv):
    """The argv prefix that runs the kubelet itself: its binary, or an interpreter and its script."""
    if not argv:
        return []
    if re.match(r"^python[0-9.]*$", argv[0].rsplit("/", 1)[-1]) and len(argv) > 1:
        return list(argv[:2])
    return list(argv[:1])


def kubelet_version(runner, command):
    """``<kubelet> --version`` ("Kubernetes v1.37.0" -> "v1.37.0"), or None when it cannot run or say.

    ``command`` is the kubelet's binary path or the argv prefix `program` gives.
    """
    if not command:
        return None
    argv = [command] if isinstance(command, str) else list(command)
    rc, out, _err = runner.run(argv + ["--version"])
    if rc != 0:
        return None
    match = re.search(r"v\d+\.\d+\.\d+\S*", out)
    return match.group(0) if match else None
