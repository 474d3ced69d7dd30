# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The KubeletConfiguration fields (kubelet.config.k8s.io/v1beta1) and their Go types.

Public: `FIELDS` (top-level JSON name -> Go type, in types.go order), `check_fields(settings,
where)` -> [Problem] for settings about to be written, `require_fields(settings, where)` (the same,
raised as one KubeletConfigError), and `field_problems(config, document)` -> (key, message, hint, path)
for validate().

Source: k8s.io/kubelet ``config/v1beta1/types.go`` (staging/src/k8s.io/kubelet/config/v1beta1 in
kubernetes/kubernetes) at tag v0.37.0-beta.0 (commit 92e97d7b, the Kubernetes 1.37 beta), the
``KubeletConfiguration`` struct's ``json`` tags; ``defaultPodSysctls`` (KEP-5996, a gated field
added at 63b3249 after that tag) is accepted too, so a newer kubelet's field is never refused.
Pointers are shown as their element type, as encoding/json's errors show them.

What the kubelet does (read in cmd/kubelet/app/server.go and pkg/kubelet/kubeletconfig/util/codec):
the main file is decoded strictly (``strict decoding error: unknown field "evilKey"``, duplicate
fields too), but for v1beta1 a strict error falls back to lenient decoding and only logs "Using
lenient decoding as strict decoding failed"; drop-ins are decoded into unstructured JSON, merged,
and the merge unmarshalled into v1beta1 with encoding/json, which drops unknown fields silently.
A wrong type is fatal in both (``json: cannot unmarshal string into Go struct field
KubeletConfiguration.maxPods of type int32``). So an unknown field never takes effect: the
collection refuses it, in the strict decoder's words, instead of writing a setting that does
nothing. Nested struct fields (``authentication``, ``logging``, ...) are checked as objects only;
``reservedMemory`` entries are checked by the Memory Manager rules.
"""

from __future__ import annotations

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules import wording
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.checker import Problem
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config.merge import API_VERSION, KIND, KubeletConfigError

RULE = "k8s.io/kubelet/config/v1beta1/types.go (v0.37.0-beta.0)"
FIELDS = dict((
    ("enableServer", "bool"), ("staticPodPath", "string"), ("podLogsDir", "string"), ("syncFrequency", "v1.Duration"),
    ("fileCheckFrequency", "v1.Duration"), ("httpCheckFrequency", "v1.Duration"), ("staticPodURL", "string"),
    ("staticPodURLHeader", "map[string][]string"), ("address", "string"), ("port", "int32"), ("readOnlyPort", "int32"), ("tlsCertFile", "string"),
    ("tlsPrivateKeyFile", "string"), ("tlsCipherSuites", "[]string"), ("tlsCurvePreferences", "[]int32"), ("tlsMinVersion", "string"),
    ("rotateCertificates", "bool"), ("serverTLSBootstrap", "bool"), ("authentication", "v1beta1.KubeletAuthentication"),
    ("authorization", "v1beta1.KubeletAuthorization"), ("registryPullQPS", "int32"), ("registryBurst", "int32"),
    ("imagePullCredentialsVerificationPolicy", "v1beta1.ImagePullCredentialsVerificationPolicy"),
    ("preloadedImagesVerificationAllowlist", "[]string"), ("eventRecordQPS", "int32"), ("eventBurst", "int32"), ("enableDebuggingHandlers", "bool"),
    ("enableContentionProfiling", "bool"), ("healthzPort", "int32"), ("healthzBindAddress", "string"), ("oomScoreAdj", "int32"),
    ("clusterDomain", "string"), ("clusterDNS", "[]string"), ("streamingConnectionIdleTimeout", "v1.Duration"),
    ("nodeStatusUpdateFrequency", "v1.Duration"), ("nodeStatusReportFrequency", "v1.Duration"), ("nodeLeaseDurationSeconds", "int32"),
    ("imageMinimumGCAge", "v1.Duration"), ("imageMaximumGCAge", "v1.Duration"), ("imageGCHighThresholdPercent", "int32"),
    ("imageGCLowThresholdPercent", "int32"), ("volumeStatsAggPeriod", "v1.Duration"), ("kubeletCgroups", "string"), ("systemCgroups", "string"),
    ("cgroupRoot", "string"), ("cgroupsPerQOS", "bool"), ("cgroupDriver", "string"), ("cpuManagerPolicy", "string"),
    ("singleProcessOOMKill", "bool"), ("cpuManagerPolicyOptions", "map[string]string"), ("cpuManagerReconcilePeriod", "v1.Duration"),
    ("memoryManagerPolicy", "string"), ("topologyManagerPolicy", "string"), ("topologyManagerScope", "string"),
    ("topologyManagerPolicyOptions", "map[string]string"), ("qosReserved", "map[string]string"), ("runtimeRequestTimeout", "v1.Duration"),
    ("hairpinMode", "string"), ("maxPods", "int32"), ("podCIDR", "string"), ("podPidsLimit", "int64"), ("resolvConf", "string"), ("runOnce", "bool"),
    ("cpuCFSQuota", "bool"), ("cpuCFSQuotaPeriod", "v1.Duration"), ("nodeStatusMaxImages", "int32"), ("maxOpenFiles", "int64"),
    ("contentType", "string"), ("kubeAPIQPS", "int32"), ("kubeAPIBurst", "int32"), ("serializeImagePulls", "bool"),
    ("maxParallelImagePulls", "int32"), ("evictionHard", "map[string]string"), ("evictionSoft", "map[string]string"),
    ("evictionSoftGracePeriod", "map[string]string"), ("evictionPressureTransitionPeriod", "v1.Duration"), ("evictionMaxPodGracePeriod", "int32"),
    ("evictionMinimumReclaim", "map[string]string"), ("mergeDefaultEvictionSettings", "bool"), ("podsPerCore", "int32"),
    ("enableControllerAttachDetach", "bool"), ("protectKernelDefaults", "bool"), ("makeIPTablesUtilChains", "bool"),
    ("iptablesMasqueradeBit", "int32"), ("iptablesDropBit", "int32"), ("featureGates", "map[string]bool"), ("failSwapOn", "bool"),
    ("memorySwap", "v1beta1.MemorySwapConfiguration"), ("containerLogMaxSize", "string"), ("containerLogMaxFiles", "int32"),
    ("containerLogMaxWorkers", "int32"), ("containerLogMonitorInterval", "v1.Duration"),
    ("configMapAndSecretChangeDetectionStrategy", "v1beta1.ResourceChangeDetectionStrategy"), ("systemReserved", "map[string]string"),
    ("kubeReserved", "map[string]string"), ("reservedSystemCPUs", "string"), ("showHiddenMetricsForVersion", "string"),
    ("systemReservedCgroup", "string"), ("kubeReservedCgroup", "string"), ("enforceNodeAllocatable", "[]string"),
    ("allowedUnsafeSysctls", "[]string"), ("defaultPodSysctls", "map[string]string"), ("volumePluginDir", "string"), ("providerID", "string"),
    ("kernelMemcgNotification", "bool"), ("logging", "v1.LoggingConfiguration"), ("enableSystemLogHandler", "bool"),
    ("enableSystemLogQuery", "bool"), ("shutdownGracePeriod", "v1.Duration"), ("shutdownGracePeriodCriticalPods", "v1.Duration"),
    ("shutdownGracePeriodByPodPriority", "[]v1beta1.ShutdownGracePeriodByPodPriority"), ("crashLoopBackOff", "v1beta1.CrashLoopBackOffConfig"),
    ("reservedMemory", "[]v1beta1.MemoryReservation"), ("enableProfilingHandler", "bool"), ("enableDebugFlagsHandler", "bool"),
    ("seccompDefault", "bool"), ("memoryThrottlingFactor", "float64"), ("memoryReservationPolicy", "v1beta1.MemoryReservationPolicy"),
    ("registerWithTaints", "[]v1.Taint"), ("registerNode", "bool"), ("tracing", "v1.TracingConfiguration"),
    ("localStorageCapacityIsolation", "bool"), ("containerRuntimeEndpoint", "string"), ("imageServiceEndpoint", "string"), ("failCgroupV1", "bool"),
    ("userNamespaces", "v1beta1.UserNamespaces"),
))
_STRINGS = ("string", "v1.Duration", "v1beta1.ImagePullCredentialsVerificationPolicy", "v1beta1.MemoryReservationPolicy",
            "v1beta1.ResourceChangeDetectionStrategy")
_INT_RANGES = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_TYPE_META = ("apiVersion", "kind")


def _type_error(value, field, go_type):
    """encoding/json's error for ``value`` in ``field``; None when it fits ``go_type``."""
    if value is None:
        return None  # JSON null decodes into any Go type (and deletes the key in a merge patch)
    if go_type == "bool":
        ok = isinstance(value, bool)
    elif go_type in _INT_RANGES:
        if isinstance(value, float) and not isinstance(value, bool) and not value.is_integer():
            return "json: cannot unmarshal number %r into Go struct field %s of type %s" % (value, field, go_type)
        low, high = _INT_RANGES[go_type]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not low <= value <= high:
            return "json: cannot unmarshal number %d into Go struct field %s of type %s" % (value, field, go_type)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif go_type == "float64":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif go_type in _STRINGS:
        ok = isinstance(value, str)
    elif go_type.startswith("[]") or go_type.startswith("map["):
        ok = isinstance(value, list if go_type.startswith("[]") else dict)
    else:
        ok = isinstance(value, dict)  # a struct
    return None if ok else wording.unmarshal(value, field, go_type)


def _value_problems(name, value, go_type):
    """(key, message, path) for ``value`` of top-level field ``name``, its elements and map values included."""
    field = "KubeletConfiguration." + name
    message = _type_error(value, field, go_type)
    if message:
        return [(name, message, (name,))]
    found = []
    if go_type.startswith("[]") and isinstance(value, list):
        for index, item in enumerate(value):
            message = _type_error(item, field, go_type[2:])
            if message:
                found.append(("%s[%d]" % (name, index), message, (name,)))
    elif go_type.startswith("map[string]") and isinstance(value, dict):
        inner = go_type[len("map[string]"):]
        for key in sorted(value, key=str):
            message = _type_error(value[key], field, inner)
            if message:
                found.append(("%s.%s" % (name, key), message, (name, key)))
            elif inner.startswith("[]") and isinstance(value[key], list):
                found.extend(("%s.%s[%d]" % (name, key, index), message, (name, key)) for index, message in
                             enumerate(_type_error(item, field, inner[2:]) for item in value[key]) if message)
    return found


def _unknown_hint(name):
    lowered = {known.lower(): known for known in FIELDS}
    if name.lower() in lowered:
        return "field names are case-sensitive: %s" % lowered[name.lower()]
    near = wording.near_miss(name, FIELDS)
    return "did you mean %s?" % near if near else "not a field of the v1beta1 KubeletConfiguration"


def field_problems(config, document):
    """(key, message, hint, path) for every unknown or wrongly typed top-level field of ``config``.

    ``document``: a whole KubeletConfiguration (its apiVersion/kind are its own, checked when
    it was loaded); otherwise settings, where apiVersion and kind are refused.
    """
    found = []
    for name in config:
        key = str(name)
        if key in _TYPE_META:
            if not document:
                found.append((key, "%s is not a setting: settings are KubeletConfiguration fields; the file written gets apiVersion: %s "
                              "and kind: %s itself" % (key, API_VERSION, KIND), "remove %s from settings" % key, (key,)))
            continue
        if key not in FIELDS or not isinstance(name, str):
            found.append((key, "strict decoding error: unknown field %s" % wording.quote(key), _unknown_hint(key), (name,)))
            continue
        found.extend((item, message, None, path) for item, message, path in _value_problems(key, config[name], FIELDS[key]))
    return found


def check_fields(settings, where):
    """Problems (with ``source`` = ``where``) of settings about to be written; [] when all fit."""
    if not isinstance(settings, dict):
        return [Problem("(settings)", wording.unmarshal(settings, "KubeletConfiguration", "v1beta1.KubeletConfiguration"), where,
                        wording.STRICT_DECODING)]
    return [Problem(key, message, where, wording.STRICT_DECODING if message.startswith("json:") else RULE, hint)
            for key, message, hint, _path in field_problems(settings, document=False)]


def require_fields(settings, where):
    """check_fields, raised: KubeletConfigError naming ``where`` and every field at fault."""
    problems = check_fields(settings, where)
    if problems:
        raise KubeletConfigError("; ".join("%s: %s%s" % (p.key, p.message, " (%s)" % p.hint if p.hint else "") for p in problems), where)
