# The two commands a newcomer needs: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# aws-sam-cli pins older boto3 and pydantic than the project: it lives in its own virtualenv.
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_VERSION := 1.170.0
PORT ?= 3000
export SAM_CLI_TELEMETRY := 0

.PHONY: run test lint typecheck pytest bench validate deploy clean

$(INSTALLED): requirements-dev.txt layers/shared/requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(SAM):
	test -x $(SAM_VENV)/bin/python || $(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet aws-sam-cli==$(SAM_VERSION)

## run: the local stack with demo data on http://127.0.0.1:$(PORT) (Ctrl-C stops it)
run: $(INSTALLED)
	PORT=$(PORT) $(BIN)/python -m local

## test: lint (ruff, cfn-lint, sam validate --lint, sam build), then every test: unit, integration
## against moto, the local stack over HTTP
test: lint typecheck validate pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/cfn-lint template.yaml

## typecheck: mypy over the layer, functions, local, ops and bench (pyproject.toml names them)
typecheck: $(INSTALLED)
	$(BIN)/mypy

pytest: $(INSTALLED)
	$(BIN)/pytest

## bench: cold-init ratio of every function, the zipped layer size, DynamoDB calls per request, token CPU
bench: $(INSTALLED) validate
	$(BIN)/python -m bench

## validate: `sam validate --lint` and `sam build` (no container)
validate: $(SAM)
	$(SAM) validate --lint --region us-east-1
	$(SAM) build

## deploy: first deployment asks its questions; later ones reuse samconfig.toml
deploy: validate
	$(SAM) deploy --guided

clean:
	rm -rf $(VENV) $(SAM_VENV) .aws-sam .pytest_cache .ruff_cache .hypothesis
