# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every action's argument spec is declared once, in module_utils, and its module file documents exactly that spec.

For each file of plugins/action/ (a new one included): the action file and its module file (the documentation stub)
hold the same dict, that dict is an attribute of a module_utils file, and the stub's DOCUMENTATION, with its doc
fragments merged as ansible-doc reads it, names exactly its options, each with its type, elements, required,
default, choices and aliases, suboptions alike. DOCUMENTATION stays a literal (ansible-doc never runs the file).
"""

import importlib
import os
import sys

import pytest

from ansible.plugins.loader import fragment_loader
from ansible.utils.plugin_docs import get_docstring

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._render import specs as render_specs
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._transition.journal import step as step_journal

PACKAGE = "ansible_collections.gpusmith.numa_gate.plugins"
PLUGINS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))), "plugins")
ACTIONS = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, "action")) if name.endswith(".py") and name != "__init__.py")


def doc_options(name):
    """The documented options of module ``name``, doc fragments merged, as ansible-doc reads its DOCUMENTATION."""
    module = importlib.import_module("%s.modules.%s" % (PACKAGE, name))
    doc = get_docstring(module.__file__, fragment_loader, collection_name="gpusmith.numa_gate")[0]
    return doc.get("options") or {}


def differences(spec, documented, where=""):
    """Each way ``documented`` (doc options) differs from ``spec`` (an argument spec), one line each."""
    found = ["%s%s: in the spec, not documented" % (where, name) for name in sorted(set(spec) - set(documented))]
    found.extend("%s%s: documented, not in the spec" % (where, name) for name in sorted(set(documented) - set(spec)))
    for name in sorted(set(spec) & set(documented)):
        want, doc = spec[name], documented[name]
        pairs = {
            "type": (want.get("type", "str"), doc.get("type", "str")),
            "elements": (want.get("elements"), doc.get("elements")),
            "required": (bool(want.get("required")), bool(doc.get("required"))),
            "default": (want.get("default"), doc.get("default")),
            "choices": (want.get("choices"), doc.get("choices")),
            "aliases": (sorted(want.get("aliases") or []), sorted(doc.get("aliases") or [])),
        }
        for key, (in_spec, in_doc) in pairs.items():
            if in_spec != in_doc or type(in_spec) is not type(in_doc) and bool in (type(in_spec), type(in_doc)):
                found.append("%s%s: %s is %r in the spec, %r in the docs" % (where, name, key, in_spec, in_doc))
        if want.get("options") or doc.get("suboptions"):
            found.extend(differences(want.get("options") or {}, doc.get("suboptions") or {}, "%s%s." % (where, name)))
    return found


def test_there_are_actions():
    assert len(ACTIONS) >= 9


@pytest.mark.parametrize("name", ACTIONS)
def test_the_action_s_spec_is_its_module_file_s_and_lives_in_module_utils(name):
    action = importlib.import_module("%s.action.%s" % (PACKAGE, name))
    module = importlib.import_module("%s.modules.%s" % (PACKAGE, name))
    assert module.ARGUMENT_SPEC is action.ARGUMENT_SPEC
    homes = [found for found, loaded in sorted(sys.modules.items()) if found.startswith(PACKAGE + ".module_utils.")
             and any(value is action.ARGUMENT_SPEC for value in vars(loaded).values())]
    assert homes, "%s's ARGUMENT_SPEC is declared in no module_utils file" % name


@pytest.mark.parametrize("name", ACTIONS)
def test_the_module_file_documents_exactly_the_spec(name):
    action = importlib.import_module("%s.action.%s" % (PACKAGE, name))
    assert differences(action.ARGUMENT_SPEC, doc_options(name)) == []


def test_kubelet_config_documents_the_options_kubelet_render_passes_on_and_the_journal_s():
    assert differences(dict(render_specs.KUBELET_CONFIG, **step_journal.ARGUMENT_SPEC), doc_options("kubelet_config")) == []


def test_a_difference_is_named():
    spec = {"a": {"type": "int", "default": 3, "options": {"b": {"choices": ["x", "y"]}}}, "c": {"type": "bool"}}
    documented = {"a": {"type": "int", "default": 4, "suboptions": {"b": {"choices": ["x"]}}}, "d": {}}
    assert differences(spec, documented) == ["c: in the spec, not documented", "d: documented, not in the spec",
                                             "a: default is 3 in the spec, 4 in the docs",
                                             "a.b: choices is ['x', 'y'] in the spec, ['x'] in the docs"]
