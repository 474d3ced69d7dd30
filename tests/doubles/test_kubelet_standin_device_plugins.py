# Copyright: (c) 2026, GPU Smith
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in's device plugins (--device-plugins) against the API server double (in-process): a registration file
puts its resource in the Node's capacity and allocatable; a restart removes the registrations (the plugins' signal to register
again), and until the plugin registers again the checkpointed resource shows its capacity with 0 allocatable, as the
kubelet's device manager reports a plugin's devices that are not healthy (issue 28)."""

import json
import time

from standin_harness import Running, fake_machine

CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
"""


def wait_for(check, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("not seen in %ss" % timeout)


def gpus(api):
    try:
        status = api.node("n1")["status"]
    except Exception:  # pylint: disable=broad-except
        return None
    return status["capacity"].get("nvidia.com/gpu"), status["allocatable"].get("nvidia.com/gpu")


def register(folder, devices=8):
    (folder / "nvidia-gpu.json").write_text(json.dumps({"resourceName": "nvidia.com/gpu", "devices": devices}))


def test_a_plugin_registers_and_must_register_again_after_a_restart(tmp_path, api):
    machine = fake_machine(tmp_path, "0-3", {0: "0-3"})
    folder = machine / "root" / "device-plugins"
    kubelet = Running(machine, CONFIG, "--api-server", api.url, "--node-name", "n1", "--device-plugins")
    try:
        assert sorted(p.name for p in folder.iterdir()) == ["kubelet.sock"]
        register(folder)
        assert wait_for(lambda: gpus(api) == ("8", "8"))
        checkpoint = json.loads((folder / "kubelet_internal_checkpoint").read_text())
        assert {k: len(v) for k, v in checkpoint["Data"]["RegisteredDevices"].items()} == {"nvidia.com/gpu": 8}
    finally:
        kubelet.stop()
    kubelet = Running(machine, CONFIG, "--api-server", api.url, "--node-name", "n1", "--device-plugins")
    try:
        assert sorted(p.name for p in folder.iterdir()) == ["kubelet.sock", "kubelet_internal_checkpoint"]
        assert wait_for(lambda: gpus(api) == ("8", "0"))
        register(folder)
        assert wait_for(lambda: gpus(api) == ("8", "8"))
    finally:
        kubelet.stop()


def test_without_the_flag_the_folder_is_left_alone(tmp_path, api):
    machine = fake_machine(tmp_path, "0-3", {0: "0-3"})
    folder = machine / "root" / "device-plugins"
    folder.mkdir(parents=True)
    register(folder)
    kubelet = Running(machine, CONFIG, "--api-server", api.url, "--node-name", "n1")
    try:
        wait_for(lambda: gpus(api) is not None)
        assert gpus(api) == (None, None)
        assert sorted(p.name for p in folder.iterdir()) == ["nvidia-gpu.json"]
    finally:
        kubelet.stop()
