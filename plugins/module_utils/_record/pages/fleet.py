# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""index.html, the fleet: nodes grouped by verdict, reason and hardware shape, the pool's decision per shape (pure).

Public: `page`, `shape`, `decisions`, `pool_gaps`, `age`.

One readable page for a pool of a thousand nodes: the summaries come first (counts by verdict; by the reason
behind each verdict, the criterion of its strongest reason; by hardware shape with the pool's decision per
shape), then the pool's nodes that have no record or whose record is older than the node's last change
(``pool``: the Node objects the API lists under the pool's labels; ``{"error": text}`` when that read failed, said on the
page: missing and stale nodes are then unknown, never none), then one row per node, each linking to its
own page, with its record's age. The shape is the record's own: sockets, NUMA nodes, physical cores, GPU models
and count, NICs and their drivers (a record that holds no topology is of shape ``unknown``).

The decision per shape: **adopt** when every node of the shape adopted; otherwise **defer** (a shape is one
contract: a node of it that did not adopt leaves the shape unresolved). The pool's: **adopt** when every shape
adopts, **restrict** to the shapes that adopt when some do, **defer** when none does.
No script, no external reference; every value escaped (`escape.html_text`), as the node pages.
"""

from __future__ import annotations

import datetime
from urllib.parse import quote

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._base import escape
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import inputs as shapes
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.errors import RecordError
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record.pages import html as _html
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._record import verdict as _verdict

_STRENGTH = {"info": 0, "adopt": 1, "restrict": 2, "revalidate": 3, "defer": 4}
_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _when(text, what):
    if text is None:
        return None
    try:
        return datetime.datetime.strptime(str(text), _FORMAT).replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise RecordError("%s must be a UTC time such as 2026-12-04T09:00:00Z, got %r" % (what, text)) from None


def _model(gpu):
    """A GPU's model: its name; unnamed (sysfs gives none, as for AMD GPUs without a tool), its vendor, device id and compute partition mode."""
    if gpu.get("name"):
        return gpu["name"]
    device = (gpu.get("identities") or {}).get("device_id")
    mode = (gpu.get("partition_mode") or {}).get("compute")
    return "unnamed %s%s%s" % ("%s GPU" % gpu["vendor"] if gpu.get("vendor") else "GPU", " %s" % device if device else "", " in %s" % mode if mode else "")


def shape(record):
    """The hardware shape of a record, one line (see the module docstring)."""
    topology = record.get("topology") or {}
    cpus = topology.get("cpus") or {}
    if not topology.get("numa_nodes"):
        return "unknown"
    gpus, nics = (record.get("devices") or {}).get("gpus") or [], (record.get("devices") or {}).get("nics") or []
    models = {}
    for gpu in gpus:
        models[_model(gpu)] = models.get(_model(gpu), 0) + 1
    drivers = sorted(set(str(nic.get("driver") or "no driver") for nic in nics))
    return "%s socket%s, %d NUMA node%s, %s cores, %s, %s" % (
        cpus.get("packages") or "?", "" if cpus.get("packages") == 1 else "s", len(topology["numa_nodes"]),
        "" if len(topology["numa_nodes"]) == 1 else "s", cpus.get("cores") or "?",
        " + ".join("%dx %s" % (count, name) for name, count in sorted(models.items())) or "no GPU",
        "%d NIC%s (%s)" % (len(nics), "" if len(nics) == 1 else "s", ", ".join(drivers)) if nics else "no NIC")


def _reason(record):
    """The criterion behind the verdict: the first reason with the verdict's effect (``every criterion holds`` when none)."""
    wanted = record["verdict"]["verdict"]
    chosen = [r for r in record["verdict"]["reasons"] if r["effect"] == wanted]
    return ("%s: %s" % (wanted, chosen[0]["criterion"]), chosen[0]["message"]) if chosen else ("%s: every criterion holds" % wanted, "")


def decisions(records):
    """({shape: (decision, nodes, adopted)}, pool decision, the shapes that adopt)."""
    by_shape = {}
    for record in records:
        nodes, adopted = by_shape.get(shape(record), (0, 0))
        by_shape[shape(record)] = (nodes + 1, adopted + (record["verdict"]["verdict"] == "adopt"))
    found = dict((key, ("adopt" if adopted == nodes else "defer", nodes, adopted)) for key, (nodes, adopted) in by_shape.items())
    adopting = sorted(key for key, value in found.items() if value[0] == "adopt")
    pool = "defer" if not adopting else ("adopt" if len(adopting) == len(found) else "restrict")
    return found, pool, adopting


def _last_change(node):
    """The latest of the Node's creation and its conditions' transitions: when it last changed as the API tells."""
    meta, found = node.get("metadata") or {}, []
    for text in [meta.get("creationTimestamp")] + [c.get("lastTransitionTime") for c in (node.get("status") or {}).get("conditions") or []]:
        if text:
            found.append(_when(text, "Node %s time" % meta.get("name")))
    return max(found) if found else None


def _pool_error(pool):
    """The error of a pool read that failed (``{"error": text}``), else None."""
    if isinstance(pool, dict):
        if set(pool) != {"error"} or not isinstance(pool["error"], str):
            raise RecordError("pool must be a list of Node objects, or {\"error\": text} when the read failed, got %r" % (pool,))
        return pool["error"]
    return None


def pool_gaps(records, pool):
    """(missing, stale): the pool's Node names without a record; (name, generated, changed) of records older than their Node's last change."""
    if _pool_error(pool) is not None:
        return None, None
    by_host = dict((str(record.get("node") or record["host"]), record) for record in records)  # the Node's name, else the host's
    missing, stale = [], []
    for node in pool or []:
        if not isinstance(node, dict) or not (node.get("metadata") or {}).get("name"):
            raise RecordError("pool must be a list of Node objects (each with metadata.name), got %r" % (node,))
        name = node["metadata"]["name"]
        if name not in by_host:
            missing.append(name)
            continue
        generated, changed = _when(by_host[name].get("generated_at"), "record %s generated_at" % name), _last_change(node)
        if changed is not None and (generated is None or generated < changed):
            stale.append((name, by_host[name].get("generated_at") or "unknown", changed.strftime(_FORMAT)))
    return sorted(missing), sorted(stale)


def age(generated_at, now):
    """A record's age at ``now`` in days and hours (``unknown`` without a date)."""
    generated = _when(generated_at, "generated_at")
    if generated is None or now is None:
        return "unknown"
    seconds = max(0, int((now - generated).total_seconds()))
    return "%d d %d h" % (seconds // 86400, seconds % 86400 // 3600) if seconds >= 86400 else "%d h %d min" % (seconds // 3600, seconds % 3600 // 60)


def _rows(title, name, headers, rows, error=None):
    out = ['<section data-section="%s"><h2>%s</h2>' % (escape.html_attr(name), escape.html_text(title))]
    if error is not None:
        return "".join(out) + '<p data-kind="pool-error">unknown: the pool\'s nodes could not be read from the API (%s)</p></section>' % (
            escape.html_text(error))
    if not rows:
        return "".join(out) + "<p>none</p></section>"
    out.append("<table><thead><tr>%s</tr></thead><tbody>" % "".join("<th>%s</th>" % escape.html_text(h) for h in headers))
    out += ["<tr>%s</tr>" % "".join("<td>%s</td>" % escape.html_text(cell) for cell in row) for row in rows]
    return "".join(out) + "</tbody></table></section>"


def _link(host):
    return '<a href="%s/acceptance.html">%s</a>' % (escape.html_attr(quote(str(host), safe="")), escape.html_text(host))


def page(records, pool=None, now=None):
    """index.html of the fleet (see the module docstring); ``now`` (UTC, text) dates the ages, ``pool`` the pool's Node objects."""
    records = sorted(shapes.check_fleet(records), key=lambda r: str(r["host"]))
    moment = _when(now, "now")
    verdicts = dict((v, 0) for v in _verdict.VERDICTS)
    reasons, shaped = {}, {}
    for record in records:
        verdicts[record["verdict"]["verdict"]] = verdicts.get(record["verdict"]["verdict"], 0) + 1
        key = _reason(record)[0]
        reasons[key] = reasons.get(key, 0) + 1
    found, pool_decision, adopting = decisions(records)
    shape_ids = dict((key, "shape-%d" % index) for index, key in enumerate(sorted(found), 1))
    missing, stale = pool_gaps(records, pool)
    error = _pool_error(pool)
    said = {"adopt": "adopt: every shape adopted", "defer": "defer: no shape adopted on every node",
            "restrict": "restrict to %s" % ", ".join(shape_ids[key] for key in adopting)}[pool_decision]
    out = [_html._head("Acceptance records: the fleet"), "<h1>Acceptance records: the fleet</h1>",  # pylint: disable=protected-access
           '<p data-kind="fleet-summary">%s; %d nodes; generated %s</p>' % (
               escape.html_text(", ".join("%s: %d" % (v, verdicts[v]) for v in _verdict.VERDICTS)), len(records), escape.html_text(now or "unknown")),
           '<p data-kind="pool-decision" data-decision="%s">The pool\'s decision: <strong>%s</strong></p>' % (
               escape.html_attr(pool_decision), escape.html_text(said)),
           _rows("By verdict", "by-verdict", ["verdict", "nodes"], [(v, verdicts[v]) for v in _verdict.VERDICTS]),
           _rows("By reason", "by-reason", ["verdict: criterion", "nodes"], sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
           _rows("By hardware shape, with the pool's decision per shape", "by-shape", ["shape", "hardware", "nodes", "adopted", "decision"],
                 [(shape_ids[key], key, found[key][1], found[key][2], found[key][0]) for key in sorted(found, key=lambda k: shape_ids[k])]),
           _rows("Pool nodes without a record", "pool-missing", ["node"], [(name,) for name in missing or []], error)
           if pool is not None else "",
           _rows("Pool nodes whose record is older than the node's last change", "pool-stale", ["node", "record generated", "node changed"], stale,
                 error) if pool is not None else "",
           '<section data-section="nodes"><h2>Every node</h2><table><thead><tr><th>node</th><th>verdict</th><th>shape</th><th>age</th>'
           "<th>reason</th></tr></thead><tbody>"]
    for record in records:
        verdict = record["verdict"]["verdict"]
        key, message = _reason(record)
        out.append('<tr data-kind="fleet-node" data-host="%s" data-verdict="%s"><td>%s</td><td><span class="verdict verdict-%s">%s</span></td>'
                   "<td>%s</td><td>%s</td><td>%s</td></tr>" % (
                       escape.html_attr(record["host"]), escape.html_attr(verdict), _link(record["host"]),
                       escape.html_attr(verdict if verdict in _verdict.VERDICTS else "defer"), escape.html_text(verdict),
                       escape.html_text(shape_ids[shape(record)]), escape.html_text(age(record.get("generated_at"), moment)),
                       escape.html_text("%s - %s" % (key.split(": ", 1)[1], message) if message else key.split(": ", 1)[1])))
    out.append("</tbody></table></section></body></html>\n")
    return "".join(out)
