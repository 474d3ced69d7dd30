# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The render step's kubelet knowledge: its files, its merge, its rules, in its own words.

Public functions, by file (import the file itself, e.g. ``from ..._kubelet import merge``):

- ``documents``: ``load_document(text, path)`` (one file, strict and bounded), ``KubeletConfigError``.
- ``merge``: ``effective_config(main_doc, dropins, main_path)``, ``merge_patch``, ``EffectiveConfig``,
  ``dropin_sort_key``, ``is_dropin_name`` (and ``load_document``/``KubeletConfigError`` again).
- ``validate``: ``validate(config, node=None)`` -> [``Problem``], ``KubeletValidationError``.
- ``fields``: ``check_fields(settings, where)``, ``require_fields(settings, where)``, ``FIELDS``.
- ``secrets``: ``mask(value)``, ``mask_text(text, config)``, ``SENSITIVE_FIELDS``.
- ``allocatable``: ``node_allocatable_reservation``, ``reserved_memory_total``,
  ``effective_eviction_hard``, ``DEFAULT_EVICTION_HARD`` (the planner computes with these).
- ``checkpoint``: ``policy_of(path)``, ``stale(config, state_dir)``, ``CHECKPOINTS``.
- ``wording``: the kubelet's way of printing values (``quote``, ``unmarshal``, ``format_bytes``, ...).
- ``checker``, ``rules_gates``, ``rules_cpu``, ``rules_topology``, ``rules_memory``,
  ``rules_capacity``: the rules behind ``validate``.
- ``files``: ``Layout``, ``Change``, ``apply``, ``layout_argument_spec``, ``locate``, ``render`` (the
  node's kubelet files and the change made to them).
- ``checkpoint_read`` (``read_cpu``, ``read_memory``), ``checkpoint_types``, ``checksum``
  (``data_checksum``, ``legacy_checksum``), ``checkpoint_checks`` (``cpu_refusal``,
  ``memory_refusal``), ``checkpoint_files`` (``locate``, ``read_all``, ``refusals``),
  ``checkpoint_removal`` (``to_remove``, ``remove``): every checkpoint format, as the 1.37 kubelet reads it.
- ``inventory`` (``kubelet_files``) and ``unit`` (``read_unit``, ``flags_from_argv``, ``kubelet_version``):
  how the kubelet is started and which files are its configuration.
- ``info`` (``read``): the node's configuration as it is, in one reading (kubelet_config_info, and
  topology_facts with ``kubelet_layout``); ``render`` (``dropin``, ``matches``, ``stale_messages``): the
  check-mode render of the collection's drop-in on the controller from that reading.
"""
