"""No credential a kubelet configuration carries reaches a result, a diff or a message (issue 7, rule 5)."""

import copy
import json

import yaml

from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import merge
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.config import secrets
from ansible_collections.gpusmith.numa_gate.plugins.module_utils._kubelet.rules.validate import validate

TOKEN = "eyJhbGciOiJSUzI1NiJ9.s3cr3t-t0ken"
CONFIG = {
    "apiVersion": merge.API_VERSION, "kind": merge.KIND,
    "staticPodURL": "https://pods:hunter2hunter2@manifests.example/pods?sig=abcdef123456",
    "staticPodURLHeader": {"Authorization": ["Bearer " + TOKEN], "X-Extra": ["one", "two"]},
    "tlsPrivateKeyFile": "/var/lib/kubelet/pki/kubelet.key",
    "maxPods": 110,
}


def test_sensitive_fields():
    assert secrets.SENSITIVE_FIELDS == ("staticPodURLHeader",)
    assert secrets.URL_FIELDS == ("staticPodURL",)
    assert secrets.MASK == "********"


def test_mask_replaces_header_values_and_url_credentials_and_keeps_the_rest():
    before = copy.deepcopy(CONFIG)
    masked = secrets.mask(CONFIG)
    assert masked == {
        "apiVersion": merge.API_VERSION, "kind": merge.KIND,
        "staticPodURL": "https://********@manifests.example/pods?********",
        "staticPodURLHeader": {"Authorization": ["********"], "X-Extra": ["********", "********"]},
        "tlsPrivateKeyFile": "/var/lib/kubelet/pki/kubelet.key",
        "maxPods": 110,
    }
    assert CONFIG == before


def test_mask_finds_the_fields_at_any_depth_in_a_result():
    result = {"changed": False, "effective": CONFIG, "problems": [{"key": "maxPods"}], "files": [CONFIG, "x"]}
    masked = secrets.mask(result)
    assert TOKEN not in json.dumps(masked)
    assert "hunter2" not in json.dumps(masked)
    assert masked["problems"] == [{"key": "maxPods"}]
    assert masked["files"][1] == "x"


def test_mask_keeps_an_effective_config_with_its_origins():
    eff = merge.effective_config(CONFIG, [("/d/50.conf", {"apiVersion": merge.API_VERSION, "kind": merge.KIND, "maxPods": 10})], "/main.yaml")
    masked = secrets.mask(eff)
    assert isinstance(masked, merge.EffectiveConfig)
    assert masked["staticPodURLHeader"] == {"Authorization": ["********"], "X-Extra": ["********", "********"]}
    assert masked.origin_of("maxPods") == "/d/50.conf"
    assert masked.files == ["/main.yaml", "/d/50.conf"]
    assert eff["staticPodURLHeader"]["Authorization"] == ["Bearer " + TOKEN]


def test_a_header_that_is_not_a_map_is_masked_whole():
    assert secrets.mask({"staticPodURLHeader": "Bearer " + TOKEN}) == {"staticPodURLHeader": "********"}


def test_a_url_without_credentials_is_kept():
    assert secrets.mask({"staticPodURL": "https://manifests.example/pods"}) == {"staticPodURL": "https://manifests.example/pods"}


def test_mask_text_replaces_values_in_messages_and_rendered_documents():
    message = "kubelet_config failed: staticPodURLHeader.Authorization is 'Bearer %s' in %s" % (TOKEN, json.dumps(CONFIG))
    masked = secrets.mask_text(message, CONFIG)
    assert TOKEN not in masked
    assert "hunter2hunter2" not in masked
    assert "abcdef123456" not in masked
    assert "'********'" in masked
    assert "tlsPrivateKeyFile" in masked and "/var/lib/kubelet/pki/kubelet.key" in masked
    rendered = secrets.mask_text(yaml.safe_dump(CONFIG), CONFIG)
    assert TOKEN not in rendered and "hunter2" not in rendered


def test_mask_text_finds_the_token_alone_and_json_escaped():
    assert secrets.mask_text("token=%s." % TOKEN, CONFIG) == "token=********."
    tricky = {"staticPodURLHeader": {"X": ['to"ken\\value']}}
    assert secrets.mask_text(json.dumps({"v": 'to"ken\\value'}), tricky) == '{"v": "********"}'


def test_mask_text_leaves_short_header_values_and_other_text_alone():
    assert secrets.mask_text("one two three", CONFIG) == "one two three"
    assert secrets.mask_text(None, CONFIG) is None


def test_validation_problems_never_quote_a_header_value():
    config = dict(CONFIG, staticPodURLHeader={"Authorization": "Bearer " + TOKEN})
    assert all(TOKEN not in str(problem) for problem in validate(config))
