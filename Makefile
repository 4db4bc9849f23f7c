# Two commands do all set-up on a fresh machine: `make test` and `make demo`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_STAMP := node_modules/.payrun-installed

.PHONY: help setup hooks temporal-cli build typecheck lint test test-fast test-large bench-budget test-chaos test-prod demo clean

help:
	@echo "make test   - install what is missing, then typecheck, lint and the whole test suite"
	@echo "make demo   - install what is missing, then run the demo (KEEP=1 keeps it running)"

# npm ci only when the lockfile changed since the last install.
$(NODE_STAMP): package.json package-lock.json
	@# The registry these machines reach serves no other platforms' native packages (@swc/core-darwin-*
	@# answers 404), so no lockfile can list them and `npm ci` refuses it there; `npm install` then
	@# installs the versions the lockfile pins for this platform. Quiet when it works, one sentence when not.
	@npm ci --no-fund --no-audit --loglevel=error >/dev/null 2>&1 || { \
	  echo "npm ci refused the lockfile (this registry serves no other platforms' optional packages); installing the locked versions with npm install"; \
	  npm install --no-fund --no-audit --loglevel=error; }
	@touch $(NODE_STAMP)

temporal-cli:
	@./scripts/ensure-temporal.sh >/dev/null

# Commit messages are checked by .githooks/commit-msg (CONTRIBUTING.md), in payrun's own checkout only:
# a copy without .git, or payrun inside another repository, is left alone.
hooks:
	@if [ "$$(git rev-parse --is-inside-work-tree 2>/dev/null)" = true ] && [ -z "$$(git rev-parse --show-prefix)" ]; then \
	  git config core.hooksPath .githooks; fi

setup: $(NODE_STAMP) temporal-cli hooks

# From nothing: tsc leaves the output of a moved file behind (dist/src/config.js shadowed src/config/).
build: $(NODE_STAMP)
	rm -rf dist
	npm run --silent build

typecheck: $(NODE_STAMP)
	npm run --silent typecheck

# Issue 36's workflow template (scripts/check-workflow-template.js): `on` once every workflow is a
# folder workflows/<name>/ (on since the move; `off` only to see what a half-done move still misses).
WORKFLOW_TEMPLATE_CHECK := on

lint: $(NODE_STAMP)
	npm run --silent lint
	@# No two of the project's files may import each other in a circle (type-only imports included).
	node scripts/check-import-cycles.js
	@# No two folders may import each other (pairs awaiting a fix: scripts/folder-imports-allowed.txt).
	node scripts/check-folder-imports.js
	@if [ "$(WORKFLOW_TEMPLATE_CHECK)" = on ]; then node scripts/check-workflow-template.js; fi

# The console's browser test drives Debian's chromium, the stores' tests a scratch PostgreSQL from Debian's
# postgresql, the time-skipping tests Temporal's Java test server from Maven Central (test/workflows-time/),
# the Helm chart's test helm, kubeconform and the Kubernetes API schemas from Go modules (deploy/helm/payrun):
# each installed here where missing, once; the tests themselves download nothing.
test: setup typecheck lint
	scripts/ensure-chromium.sh >/dev/null
	scripts/ensure-helm.sh >/dev/null
	scripts/ensure-kube-schemas.sh >/dev/null
	scripts/ensure-postgres.sh >/dev/null
	scripts/ensure-test-server.sh >/dev/null
	npx jest --ci

# The 10 000-row batch end to end, then bench/large.ts: one `payrun worker` process pays 3 000 rows to warm
# up, then 1 000 and 10 000; fails if its peak RSS during the 10 000 is over 10 % above the 1 000's (about
# 17 minutes on two cores; docs/performance.md): too long for every run.
test-large: setup
	PAYRUN_LARGE_BATCH_ROWS=10000 npx jest --ci --selectProjects temporal --testPathPatterns batch-large
	node -r ./test/harness/ts-register.js bench/large.ts 10000

# The cost budget (docs/performance.md): 300 rows on the instant bank with approvals on, the ceiling and
# payrun alternated three times; fails when a payout that is not a person's first has more than 20 events
# or payrun's median CPU per row is over the budget's multiple of the ceiling's. Not part of `make test`:
# it measures the machine as much as the code (run it on a quiet one; about 5 minutes).
bench-budget: setup
	node -r ./test/harness/ts-register.js bench/compare.ts --rows 300 --in-flight 50 --profile instant \
		--only ceiling,payrun --runs 3 --budget

# The chaos run (docs/reliability.md): 250 rows through worker SIGKILLs, a dev-server restart and bank and
# webhook faults. PAYRUN_CHAOS_* variables change the row count, kills and fault rates.
test-chaos: setup
	PAYRUN_CHAOS=1 npx jest --ci test/temporal/chaos.test.ts --selectProjects temporal

# The temporal project against Temporal on PostgreSQL, the production engine (docs/operations.md):
# scripts/temporal-postgres.sh builds and starts it where needed and prints its address. The server is
# left running, so the next run starts in a second; `scripts/temporal-postgres.sh stop` stops it.
# First the script's own tests on real PostgreSQL (two checkouts, a crashed PostgreSQL, the watchdog, pinned
# ports: they reuse the server binaries the start built) and the alert rules on made-up series (promtool;
# Debian's prometheus package is installed when missing), and the batch store's contract on a scratch
# PostgreSQL. Then the batch suites that hold on any store, on the PostgreSQL batch store (the script's
# payrun database), and every Temporal test on the engine (folder store). scripts/run-steps.sh runs every
# step whatever became of the one before and ends with a table of steps, pass or fail and time.
test-prod: setup
	@scripts/run-steps.sh \
	  'engine: start (builds what is missing)' './scripts/temporal-postgres.sh start >/dev/null' \
	  'engine script tests, batch and reconciliation store contracts' \
	    'PAYRUN_ENGINE_SCRIPT_TESTS=1 npx jest --ci --selectProjects standalone --testPathPatterns test/engine/ test/batch/store-contract test/reconcile/store-contract' \
	  'alert rules (promtool)' './scripts/check-alerts.sh' \
	  'batch suites on the PostgreSQL batch store' \
	    'PAYRUN_TEMPORAL_ADDRESS=$(ENGINE_ADDRESS) PAYRUN_BATCH_STORE=postgres PAYRUN_BATCH_STORE_URL=$(ENGINE_BATCH_STORE_URL) npx jest --ci --selectProjects temporal --testPathPatterns "$(PG_STORE_SUITES)"' \
	  'temporal project on the engine (folder store)' \
	    'PAYRUN_TEMPORAL_ADDRESS=$(ENGINE_ADDRESS) npx jest --ci --selectProjects temporal'

# Read when each step runs (single-quoted above), not when make starts: the first step starts the engine.
ENGINE_ADDRESS = "$$(./scripts/temporal-postgres.sh status 2>/dev/null | sed -n s/^TEMPORAL_ADDRESS=//p)"
ENGINE_BATCH_STORE_URL = "$$(./scripts/temporal-postgres.sh batch-store-url | sed s/^PAYRUN_BATCH_STORE_URL=//)"

# The batch suites, on the PostgreSQL store: they read a batch's record, final and report through the
# store (test/harness/reports.ts settles a shared store's report into done/ as the watcher does); at-rest
# checks what the store's tables hold instead of its files; batch-store-hosts and reconciliation-hosts run
# workers, a watcher and a command line in working directories of their own. chaos is skipped unless
# PAYRUN_CHAOS=1 (`PAYRUN_CHAOS=1 make test-prod` runs it here too, its workers then on a host of their own).
# Also the suites that submit a batch to test something else (batch-window, bound-rows, console, follow-outage,
# handlers-total, metrics, pii-history, recipient-crash, taxpayer-poison, trust, unknown-keys): every
# suite that submits a batch runs on both stores.
PG_STORE_SUITES = test/temporal/(approvals|at-rest|batch|bound-rows|batch-control|batch-funds|batch-large|batch-store-hosts|batch-window|chaos|cli|console|dry-run-verdicts|export-utf16|field-end-to-end|follow-outage|handlers-total|methods|metrics|pii-history|recipient|recipient-crash|recipient-link|reconciliation-hosts|report-failure|taxpayer-poison|trust|unknown-keys)\.test\.ts

test-fast: $(NODE_STAMP)
	scripts/ensure-helm.sh >/dev/null
	scripts/ensure-kube-schemas.sh >/dev/null
	npx jest --ci --selectProjects standalone

demo: setup build
	node dist/src/demo/index.js

clean:
	rm -rf dist coverage
