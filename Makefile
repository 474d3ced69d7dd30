# Two entry points: `make plan` and `make test`. Both set up .venv first: `make plan` with what the
# playbooks need (runtime), `make test` with the test toolchain on top (venv).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
BUILD := .build
COLLECTION_LINK := $(BUILD)/collections/ansible_collections/gpusmith/numa_gate
# ansible-test needs the collection under ansible_collections/<ns>/<name>, and
# resolves symlinks, so it gets a copy.
SANITY_TREE := $(BUILD)/sanity/ansible_collections/gpusmith/numa_gate
GET_PIP_CACHE := $(HOME)/.ansible/test/cache
# The read-only fixtures beside the checkout (real sysfs snapshots, tool outputs).
SHARED ?= $(abspath $(CURDIR)/../shared)
export NUMA_GATE_SHARED := $(SHARED)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: plan facts runtime test unit playbooks doubles protobuf-matrix browser prometheus sanity lint integration molecule bench bench-fleet bench-transition clean venv

KUBERNETES_CORE := $(BUILD)/collections/ansible_collections/kubernetes/core/.numa_gate_source

# What running the playbooks needs (`make plan`, `make facts`): requirements.txt, and kubernetes.core
# taken from the `ansible` wheel pinned in requirements-test.txt (PyPI, not Galaxy) into
# $(BUILD)/collections, which ansible.cfg's collections_path searches (about 200 MB in all).
runtime: $(VENV)/.runtime $(COLLECTION_LINK) $(KUBERNETES_CORE)

# The test toolchain (requirements-test.txt: ansible, molecule, ansible-lint, grpcio-tools, ...) on top,
# in the same .venv; every test stage depends on it, so `make plan` then `make test` works.
venv: runtime $(VENV)/.installed

# requirements.txt holds lower bounds; constraints.txt the exact versions the tests run.
$(VENV)/.runtime: requirements.txt constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $@

$(VENV)/.installed: requirements.txt requirements-test.txt constraints.txt | $(VENV)/.runtime
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-test.txt -c constraints.txt
	touch $@

$(KUBERNETES_CORE): requirements-test.txt scripts/kubernetes_core.py | $(VENV)/.runtime
	$(BIN)/python scripts/kubernetes_core.py --requirements requirements-test.txt --pip $(BIN)/pip \
	  --cache $(BUILD)/wheels --dest $(BUILD)/collections
	touch $@

$(COLLECTION_LINK):
	mkdir -p $(dir $@)
	ln -sfn ../../../.. $@

plan: runtime
	$(BIN)/ansible-playbook -i inventories/demo playbooks/plan.yml -e numa_gate_acceptance_record=true

facts: runtime
	$(BIN)/ansible-playbook -i inventories/demo playbooks/facts.yml

# Every test runs once, in the runner that suits it; the time of each stage is printed at the end.
TEST_STAGES := unit playbooks doubles protobuf-matrix browser prometheus sanity lint integration molecule
test: venv
	$(PYTHON) scripts/test_stages.py $(TEST_STAGES)

# tests/unit (the plugins' tests, mirroring plugins/, and the execution environment's build context)
# under ansible-test units, the collection convention: modules and module_utils each with only what
# a node has on its path, the rest as controller code.
unit: venv $(SANITY_TREE)
	cd $(SANITY_TREE) && $(CURDIR)/$(BIN)/ansible-test units --local --python 3.11 --color no

# The tests that drive the real ansible-playbook: tests/roles (a role's play), tests/playbooks (a
# playbook of the collection, or plays of its actions), with the checkout imported through
# .build/collections (pytest.ini).
playbooks: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/roles tests/playbooks

# The stand-ins' own tests: the API server double against the real kubectl, the Python client and
# kubernetes.core; the kubelet stand-in against the kubelet's checksum vectors and wording.
doubles: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/doubles

# The PodResources client on protobuf 3.12.4 .. 7.x and grpcio 1.51 and the current one, each pair in
# its own interpreter against a gRPC double on a unix socket; the pip --target folders are built once
# under $(BUILD)/protobuf-matrix (about 30 s the first time, then seconds); on Debian 12 also the
# OS's python3-grpcio and python3-protobuf (cpp), installed when missing, as root.
protobuf-matrix: venv $(COLLECTION_LINK)
	bash tests/protobuf_matrix/ensure_debian_packages.sh
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/protobuf_matrix

sanity: venv $(SANITY_TREE)
	mkdir -p $(GET_PIP_CACHE)
	for v in $$($(BIN)/python scripts/ansible_test_pip_versions.py); do \
	  cp scripts/offline_get_pip.py $(GET_PIP_CACHE)/get_pip_$$v.py; done
	cd $(SANITY_TREE) && $(CURDIR)/$(BIN)/ansible-test sanity --requirements --python 3.11 --color no

lint: venv
	$(BIN)/ansible-lint --profile production

integration: venv $(SANITY_TREE)
	# ansible-test passes no environment through; it reads this file as extra vars.
	printf -- '---\nnuma_gate_shared: %s\n' "$(SHARED)" > $(SANITY_TREE)/tests/integration/integration_config.yml
	cd $(SANITY_TREE) && $(CURDIR)/$(BIN)/ansible-test integration --local --python 3.11 --color no

# The acceptance pages in a real headless Chromium (Debian's package; installed when missing, as root):
# no console errors, no request but the page, one drawn element per NUMA node, core, GPU and NIC.
browser: venv
	bash tests/browser/ensure_chromium.sh
	NUMA_GATE_REQUIRE_BROWSER=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser

# The service comparison's quantiles against a real Prometheus (Debian's package; installed when missing, as root) on 127.0.0.1:
# histogram_quantile(q, rate(x_bucket[w])) over windows with a counter reset and the top bucket; scrape and query paths agree.
prometheus: venv
	bash tests/prometheus/ensure_prometheus.sh
	NUMA_GATE_REQUIRE_PROMETHEUS=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/prometheus

# Real systemd nodes in rootful podman; the image is built from Debian packages, never pulled.
# default: the roles on two nodes; transition: enable.yml, rollback.yml and the stale-checkpoint
# refusal with the kubelet stand-in as each node's kubelet and the API double on the controller;
# rehearse: rehearse.yml on one node (the record's rollback criterion, rehearsed, then deferred when a
# workload does not come back). --all runs every scenario under extensions/molecule, one at a time.
molecule: venv
	bash scripts/molecule_image.sh
	$(BIN)/molecule test --all

bench: venv
	$(BIN)/python scripts/bench_topology.py
	$(BIN)/python scripts/bench_plan.py

# plan.yml over 1, 10 and 40 snapshot nodes (scripts/fleet_inventory.py): wall time and CPU-seconds.
bench-transition: venv
	bash scripts/molecule_image.sh
	$(BIN)/python scripts/bench_transition.py

bench-fleet: venv
	$(BIN)/python scripts/bench_fleet.py --sizes 1,10,40 --forks 10

# Always refreshed: a stale copy would test old code.
.PHONY: $(SANITY_TREE)
$(SANITY_TREE):
	rm -rf $(BUILD)/sanity
	mkdir -p $@
	git ls-files -z --cached --others --exclude-standard | \
	  tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $@
	cd $@ && git init -q && git add -A

clean:
	rm -rf $(BUILD) tests/output artifacts
