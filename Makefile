# The two commands a newcomer needs: `make run` and `make test`. Everything else is optional.
# Python 3.13, the functions' Lambda runtime (template.yaml): python3.13 when it runs, else pyenv's newest 3.13.
ifndef PYTHON
PYTHON := $(shell for p in python3.13 $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.13*/bin/python3.13 2>/dev/null \
	| sort -V | tail -n 1); do "$$p" -c "" 2>/dev/null && { command -v "$$p"; break; }; done)
endif
ifeq ($(PYTHON),)
$(error Python 3.13 is required: python3.13 on PATH, or pyenv install 3.13)
endif
# `sam build` looks for python3.13 on PATH (the runtime's name): the one above comes first.
SAM_PATH := $(dir $(PYTHON)):$(PATH)
# The old runtime, for `make bench`'s cold-init ratios beside the new: a 3.11 interpreter with the layer's
# requirements installed (the project's virtualenv before 3.13, say); none: only 3.13 is measured.
OLD_PYTHON ?= $(firstword $(wildcard .venv-3.11/bin/python))
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# aws-sam-cli pins older boto3 and pydantic than the project: it lives in its own virtualenv.
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_VERSION := 1.170.0
# checkov pins its own set of everything (boto3, pydantic...): it gets a virtualenv of its own too.
CHECKOV_VENV := .venv-checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov
CHECKOV_VERSION := 3.3.30
# locust (the load test) pins its own gevent, Flask and requests: a virtualenv of its own too.
LOAD_VENV := .venv-load
LOCUST := $(LOAD_VENV)/bin/locust
LOCUST_VERSION := 2.47.0
EXPANDED_TEMPLATE := .aws-sam/expanded/template.json
# ... and as SAM CLI's LanguageExtensions expander and the SAM translator expand it (local/sam_expand.py).
SAM_EXPANDED_TEMPLATE := .aws-sam/expanded/sam-template.json
PORT ?= 3000
LOG_LEVEL ?=
export SAM_CLI_TELEMETRY := 0

.PHONY: run sam-local test test-docker test-fast static lint typecheck checkov pytest bench capacity load validate deploy clean

$(INSTALLED): requirements-dev.txt layers/shared/requirements.txt pyproject.toml
	test -x $(BIN)/python && $(BIN)/python -c "import sys; sys.exit(sys.version_info[:2] != (3, 13))" \
		|| { rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(SAM):
	test -x $(SAM_VENV)/bin/python || $(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet aws-sam-cli==$(SAM_VERSION)

$(CHECKOV):
	test -x $(CHECKOV_VENV)/bin/python || $(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet checkov==$(CHECKOV_VERSION)

$(LOCUST):
	test -x $(LOAD_VENV)/bin/python || $(PYTHON) -m venv $(LOAD_VENV)
	$(LOAD_VENV)/bin/pip install --quiet locust==$(LOCUST_VERSION)

## run: the local stack with demo data on http://127.0.0.1:$(PORT) (Ctrl-C stops it); LOG_LEVEL=DEBUG adds the
## functions' debug logs and metrics to its line per request
run: $(INSTALLED)
	PORT=$(PORT) LOG_LEVEL=$(LOG_LEVEL) $(BIN)/python -m local

## sam-local: the API as `sam build` made it, served by `sam local start-api` in Docker against the local stack's
## emulator and demo data (builds the Lambda image once when none can be pulled; README "With Docker: sam local")
sam-local: $(INSTALLED) $(SAM)
	PORT=$(PORT) $(BIN)/python -m local.sam_local

## test: every check: the static ones (ruff, cfn-lint, mypy, checkov, sam validate --lint and sam build) run while every
## test runs (two workers: unit, integration against moto, the local stack over HTTP), niced so that they fill the
## time the tests wait rather than slow them; their output, in .static-checks.log, is shown when one of them fails
test: $(INSTALLED) $(SAM) $(CHECKOV)
	@nice -n 10 $(MAKE) --no-print-directory static > .static-checks.log 2>&1 & checks=$$!; \
	$(MAKE) --no-print-directory pytest; tests=$$?; \
	wait $$checks; static=$$?; \
	if [ $$static -eq 0 ]; then echo "static checks passed: ruff, cfn-lint, mypy, checkov, sam validate --lint, sam build"; \
	else cat .static-checks.log; echo "static checks FAILED (above, and in .static-checks.log)"; fi; \
	[ $$tests -eq 0 ] && [ $$static -eq 0 ]

## test-fast: the inner loop: the unit and integration tests that are neither slow nor on the local stack nor in Docker
test-fast: $(INSTALLED)
	$(BIN)/pytest -n 2 -q -m "not local and not slow and not docker"

static: lint typecheck checkov validate

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/cfn-lint template.yaml

## typecheck: mypy over the layer, functions, local, ops and bench (pyproject.toml names them)
typecheck: $(INSTALLED)
	$(BIN)/mypy

## checkov: the IaC scanner over template.yaml as CloudFormation expands it (checkov skips what is inside a
## Fn::ForEach and then cannot apply the Globals), then over SAM's own expansion (the roles, policies and permissions
## SAM makes); .checkov.yaml lists the skipped checks and why, a resource's Metadata.checkov its own skips
checkov: $(CHECKOV) $(INSTALLED) $(SAM)
	mkdir -p $(dir $(EXPANDED_TEMPLATE))
	$(BIN)/python -m local.template > $(EXPANDED_TEMPLATE)
	$(CHECKOV) --config-file .checkov.yaml --file $(EXPANDED_TEMPLATE)
	$(SAM_VENV)/bin/python local/sam_expand.py $(SAM_EXPANDED_TEMPLATE)
	$(CHECKOV) --config-file .checkov.yaml --file $(SAM_EXPANDED_TEMPLATE)

pytest: $(INSTALLED)
	$(BIN)/pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not docker"

## test-docker: the built artifacts through `sam local` in Docker (tests/samlocal; skipped, with the reason, where
## Docker cannot run): on its own, since its containers' cold starts time out beside the rest of the suite
test-docker: $(INSTALLED) $(SAM)
	$(BIN)/pytest -p no:xdist -q -m docker tests/samlocal

## bench: cold-init ratio of every function, the zipped layer's size (and that it works beside the runtime's
## boto3), DynamoDB calls per request, token CPU, the worst operators' files' parse time and memory
bench: $(INSTALLED) validate
	OLD_PYTHON=$(OLD_PYTHON) $(BIN)/python -m bench

## capacity: the capacity model: what each request costs (measured on the demo data in moto), the traffic model for
## 1 M and 10 M devices, the peak's units, hottest keys, concurrency and monthly bill; rewrites docs/capacity.md
capacity: $(INSTALLED)
	$(BIN)/python -m bench.capacity

## load: a bounded load test of a local stack on loopback (LOAD_USERS=40 clients for LOAD_SECONDS=60, the traffic
## model's mix), latency percentiles per route, then checks that no click, encoder take or token family was lost
## or applied twice
load: $(INSTALLED) $(LOCUST)
	$(BIN)/python -m bench.load

## validate: `sam validate --lint` and `sam build` (no container)
validate: $(SAM)
	$(SAM) validate --lint --region us-east-1
	PATH="$(SAM_PATH)" $(SAM) build

## deploy: first deployment asks its questions; later ones reuse samconfig.toml
deploy: validate
	PATH="$(SAM_PATH)" $(SAM) deploy --guided

clean:
	rm -rf $(VENV) $(SAM_VENV) $(CHECKOV_VENV) $(LOAD_VENV) .aws-sam .pytest_cache .ruff_cache .hypothesis
