# Two commands do everything on a fresh clone: `make generate` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.kgen-installed

# The other Pythons kgen supports (pyproject's requires-python); `make pythons` gives each an
# environment .venv-X.Y when the interpreter is on the machine (on PATH or under pyenv).
OTHER_PYTHONS := 3.12 3.13

.PHONY: generate verify test test-fast test-pythons pythons servers fuzz bench bootstrap-runtime clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## Regenerate generated/ from apis/.
generate: $(STAMP)
	$(BIN)/kgen generate

## Fail with a diff when generated/ (or kgen's own runtime models) drifted.
verify: $(STAMP)
	$(BIN)/kgen generate --verify-only
	$(BIN)/kgen bootstrap-runtime --verify-only

## Servers the tests start on loopback (etcd: a storage backend of the store and kgen serve),
## installed from Debian's packages when missing.
servers:
	@command -v etcd >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" -ne 0 ] && echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq etcd-server >/dev/null; }

## Environments of the other supported Pythons, in which tests/test_python_versions.py
## generates and compares bytes (skipped where an interpreter is missing).
pythons: $(STAMP)
	@for v in $(OTHER_PYTHONS); do \
		env=.venv-$$v; \
		if [ -f $$env/.kgen-installed ] && [ $$env/.kgen-installed -nt pyproject.toml ]; then continue; fi; \
		interpreter=; \
		for candidate in $$(ls -d $$HOME/.pyenv/versions/$$v.*/bin/python$$v 2>/dev/null | sort -V | tail -n 1) \
				$$(command -v python$$v); do \
			if $$candidate -c 'import sys' >/dev/null 2>&1; then interpreter=$$candidate; break; fi; \
		done; \
		if [ -z "$$interpreter" ]; then echo "python$$v not found: its tests are skipped"; continue; fi; \
		test -x $$env/bin/python || $$interpreter -m venv $$env; \
		$$env/bin/python -m pip install --quiet --upgrade pip && \
		$$env/bin/python -m pip install --quiet -e '.[dev]' && touch $$env/.kgen-installed || exit 1; \
	done

# Worker processes of the test runs (pytest-xdist; a module's tests stay on one worker);
# TEST_WORKERS=0 runs them in this process.
TEST_WORKERS ?= 2

## Run the whole test suite (what CI runs), then print the 15 slowest tests.
test: $(STAMP) servers pythons
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadscope --durations=15

## The fast loop for local work: every test but those marked slow (subprocess interpreters,
## mypy, wheels, fuzzing, etcd, kgen serve) or network (pip/npm installs); `make test` runs all.
## It writes bytecode (where PYTHONDONTWRITEBYTECODE is set, each run compiles kgen anew).
test-fast: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -m "not slow and not network" \
		-n $(TEST_WORKERS) --dist loadscope --durations=10

## The whole suite again on each other supported Python found (CI runs it after `make test`).
test-pythons: pythons servers
	@for v in $(OTHER_PYTHONS); do \
		if [ -x .venv-$$v/bin/python ]; then echo "== Python $$v"; .venv-$$v/bin/python -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) --dist loadscope || exit 1; fi; \
	done

## Fuzz kgen with thousands of mutated API sources (RUNS=N, SEED=N); prints what broke.
fuzz: $(STAMP)
	$(BIN)/python -m tests.sourcefuzz --runs $(or $(RUNS),3000) $(if $(SEED),--seed $(SEED))

## Run the benchmarks (prints ratios against the alternatives); K8S_API=DIR (a checkout of
## k8s.io/api) adds generation, and models against other clients, on real inputs.
bench: $(STAMP)
	$(BIN)/python -m bench
	$(if $(K8S_API),$(BIN)/python -m bench realworld --k8s-api $(K8S_API))
	$(if $(K8S_API),$(BIN)/python -m bench models --k8s-api $(K8S_API))

## Regenerate kgen's own runtime models of the apimachinery well-known types.
bootstrap-runtime: $(STAMP)
	$(BIN)/kgen bootstrap-runtime

clean:
	rm -rf $(VENV) $(addprefix .venv-,$(OTHER_PYTHONS)) build dist *.egg-info .pytest_cache
