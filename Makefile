# gepcheck: property-based conformance and simulation for Gateway API Policy Attachment.
GO      ?= go
BIN     ?= bin/gepcheck
PKGS    := ./...

.PHONY: traefik-build all build test demo ci race vet fmt-check bench fuzz clean egctl tools conformance musts chromium reports campaigns kind-up kind-down reference-image kind-load-reference kind-install-envoy-gateway

EG_VERSION ?= v1.9.1
# make conformance: which implementation, in which cluster (docs/cluster.md).
IMPL      ?= reference
CLUSTER   ?= local
SCENARIOS ?= scenarios/
JUNIT     ?= $${TMPDIR:-/tmp}/gepcheck-conformance-$(IMPL).xml

all: build

# The commit gepcheck is built from, which gepcheck version and every
# report record (docs/reports.md): the toolchain stamps none in a git
# worktree or under -buildvcs=false, so it is linked in.
GIT_COMMIT   := $(shell git rev-parse HEAD 2> /dev/null)
GIT_MODIFIED := $(shell git status --porcelain --untracked-files=no 2> /dev/null | grep -q . && echo true)
LDFLAGS      := -X github.com/gepcheck/gepcheck/internal/buildinfo.commit=$(GIT_COMMIT) -X github.com/gepcheck/gepcheck/internal/buildinfo.modified=$(GIT_MODIFIED)

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gepcheck

## test: unit tests, properties, scenarios (the README's test command); the
## tests of real components (a local control plane, Envoy Gateway's egctl)
## run in make ci, once (TestPerturbed*, controllers under faults, in
## hack/cluster-test.sh's faults section)
test: fmt-check vet
	$(GO) test -count=1 -skip '^(TestLocal|TestPerturbed|TestEnvoyGateway|TestChromium)' $(PKGS)

## demo: simulate GEP-713 Example 2 and print the result
demo: build
	$(BIN) simulate -f scenarios/gep-713/example-2-defaults-and-overrides.yaml

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## bench: the engine and whole-pipeline benchmarks of docs/performance.md
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=5x ./simulator/engine/
	$(GO) test -run='^$$' -bench=Pipeline -benchmem -benchtime=1x ./simulator/render/

## fuzz: a run of each native fuzz target, FUZZTIME each (docs/fuzzing.md);
## new inputs are minimized briefly, or minimizing takes the whole run; the
## default is a smoke run that make ci runs as the README's line (about 2
## minutes on 2 cores, most of it building the instrumented tests)
FUZZTIME ?= 5s
FUZZFLAGS = -run='^$$' -fuzztime=$(FUZZTIME) -fuzzminimizetime=100x -parallel=1
fuzz:
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzRead ./simulator/load/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzFastParse ./simulator/load/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzMergePatch ./simulator/tree/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzSimulate ./simulator/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzReadResults ./reports/report/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzParseRequest ./admission/
	$(GO) test $(FUZZFLAGS) -fuzz=FuzzRequestFile ./admission/

## ci: what .ci/run calls after make test: the CLI end to end on the
## bundled scenarios and bad inputs, with the real binary, and every property
## for 5,000 cases (seed 1, so CI is reproducible); the catalogue in a real
## API server against gepcheck-reference and Envoy Gateway's controller.
## Each Envoy Gateway campaign fails on a kind of difference no kept
## finding in scenarios/findings/envoy-gateway/ has (--fail-on-new), and
## on having compared nothing.
## GEPCHECK_REQUIRE_REAL=1: a test whose component is not built fails
## instead of skipping (internal/realtest). Envoy Gateway's BackendTraffic-
## Policy (300), BackendTLSPolicy (200) and steps (50) campaigns run once,
## in hack/reports.sh --check, which compares their report with the
## committed one and fails on a new kind (--fail-on-new) or an undrawn
## combination (--coverage); it runs beside hack/cluster-test.sh
## (hack/together.sh: the one computes, the other mostly waits on
## controllers). TestLocalReference's fanout and shrink-steps run once,
## under -race (make race).
ci: build egctl tools
	$(BIN) check scenarios/
	./hack/cli-test.sh $(BIN)
	GEPCHECK_REQUIRE_REAL=1 $(GO) test -count=1 -run '^(TestReal(KubectlKustomize|HelmTemplate)|TestLocalFromCluster)$$' ./simulator/kustomize/ ./cmd/gepcheck/
	GEPCHECK_REQUIRE_REAL=1 $(GO) test -count=1 -run 'Local' -skip '^TestLocalReference$$/^(fanout|shrink-steps)$$' ./cluster/... ./suite/... ./impl/... ./admission/...
	$(MAKE) race
	$(MAKE) conformance IMPL=reference CLUSTER=local
	./hack/together.sh './hack/cluster-test.sh $(BIN)' './hack/reports.sh --check $(BIN)'
	GEPCHECK_REQUIRE_REAL=1 $(GO) test -count=1 -run 'EnvoyGateway' ./impl/envoygateway/
	$(BIN) fuzz --impl envoy-gateway --kind ClientTrafficPolicy --checks 100 --seed 1 --coverage --fail-on-new
	$(BIN) fuzz --impl envoy-gateway --kind SecurityPolicy --checks 100 --seed 1 --coverage --fail-on-new
	$(BIN) fuzz --checks 5000 --seed 1 --out $${TMPDIR:-/tmp}/gepcheck-counterexamples
	$(BIN) requirements > /dev/null
	$(MAKE) chromium
	$(GO) test -race -count=1 -run 'Chromium' ./reports/report/

## race: go test -race on the code with goroutines, about 3 minutes warm
## (docs/performance.md): process groups, the exec driver's workers, the
## processes of a local cluster, the in-cluster runner, the watchdog,
## RunAll's workers, and gepcheck-reference's controller with the runner's
## parallel shrinking in a local control plane (ci's last step runs the
## browser test's listener under -race too)
race: tools
	$(GO) test -race -count=1 -skip '^TestLocal' ./internal/proc/ ./impl/exec/ ./cluster/ ./suite/incluster/
	$(GO) test -race -count=1 -run '^TestWatch$$' ./cmd/gepcheck/
	$(GO) test -race -count=1 -run '^TestRunAllWorkers$$' ./suite/
	GEPCHECK_REQUIRE_REAL=1 $(GO) test -race -count=1 -run '^TestLocalReference$$/^(fanout|shrink-steps)$$' ./impl/reference/

## chromium: install Debian's chromium for the browser test of the HTML
## report (TestChromiumRendersReport), when it is not installed
chromium:
	@command -v chromium > /dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null)

## reports: regenerate the published reports in reports/ (docs/reports.md):
## Envoy Gateway offline for every version the Go module proxy serves (its
## egctl built once each, about 7 minutes cold), its pinned version's
## controller and gepcheck-reference on a local control plane, and the
## matrix of versions. Not part of ci, which regenerates one and compares.
EG_VERSIONS = v1.2.4 v1.2.8 v1.5.0 v1.7.0 v1.8.0 v1.9.0 v1.9.1
reports: build tools
	./hack/reports.sh $(BIN) $(EG_VERSIONS)

## campaigns: the long runs make ci takes a sample of (docs/performance.md,
## CI budget), each with seed 1 and its reports in CAMPAIGNS_DIR: the
## properties for 100,000 cases each (ci: 5,000); Envoy Gateway's
## translator for 2,000 random cases (ci: 100 to 300 per kind); 300 random
## cases and 100 random cases over time against gepcheck-reference in a
## local control plane (ci: 30 and 12); 200 random cases against Contour
## and Traefik (ci: 20; make reports: 50); 2,000 random admission chains
## against kube-apiserver (ci: 200); 200 random histories under every fault
## (docs/faults.md) against gepcheck-reference, Envoy Gateway, Contour and
## Traefik (ci: 4 against the reference, 1 against Contour, and the fault
## scenarios). About 2 hours on 2 cores without the fault campaigns; those
## take about 30 s a case (4 × 200 cases: about 7 hours more).
CAMPAIGNS_DIR ?= $${TMPDIR:-/tmp}/gepcheck-campaigns
campaigns: build egctl tools
	$(BIN) fuzz --checks 100000 --seed 1 --out $(CAMPAIGNS_DIR)/counterexamples
	$(BIN) fuzz --impl envoy-gateway --checks 2000 --seed 1 --fail-on-new --out $(CAMPAIGNS_DIR)/findings --report-dir $(CAMPAIGNS_DIR)
	$(BIN) run --cluster local --impl reference --random 300 --seed 1 --report-dir $(CAMPAIGNS_DIR)
	$(BIN) run --cluster local --impl reference --random 100 --random-steps 4 --seed 1 --report-dir $(CAMPAIGNS_DIR)
	$(BIN) run --cluster local --impl contour --random 200 --seed 1 --out $(CAMPAIGNS_DIR)/findings --report-dir $(CAMPAIGNS_DIR) || [ $$? -eq 1 ]
	$(BIN) run --cluster local --impl traefik --random 200 --seed 1 --step-timeout 10s --out $(CAMPAIGNS_DIR)/findings --report-dir $(CAMPAIGNS_DIR) || [ $$? -eq 1 ]
	GEPCHECK_REQUIRE_REAL=1 GEPCHECK_ADMISSION_CASES=2000 $(GO) test -count=1 -timeout 3h -run '^TestLocalAdmission$$' ./admission/check/
	$(BIN) run --cluster local --impl reference --random 200 --random-steps 3 --faults all --seed 1 --report-dir $(CAMPAIGNS_DIR)/faults
	$(BIN) run --cluster local --impl envoy-gateway --random 200 --random-steps 3 --faults all --seed 1 --out $(CAMPAIGNS_DIR)/findings-faults --report-dir $(CAMPAIGNS_DIR)/faults || [ $$? -eq 1 ]
	$(BIN) run --cluster local --impl contour --random 200 --random-steps 3 --faults all --seed 1 --out $(CAMPAIGNS_DIR)/findings-faults --report-dir $(CAMPAIGNS_DIR)/faults || [ $$? -eq 1 ]
	$(BIN) run --cluster local --impl traefik --random 200 --random-steps 3 --faults all --seed 1 --step-timeout 10s --out $(CAMPAIGNS_DIR)/findings-faults --report-dir $(CAMPAIGNS_DIR)/faults || [ $$? -eq 1 ]

## egctl: build Envoy Gateway's egctl $(EG_VERSION) into ~/.cache/gepcheck (once;
## about 7 minutes cold, from the Go module proxy): the stock build (go install)
## and the fast one gepcheck runs by default (docs/envoy-gateway.md)
egctl: build
	$(BIN) egctl --envoy-gateway-version $(EG_VERSION) --egctl-build stock
	$(BIN) egctl --envoy-gateway-version $(EG_VERSION) --egctl-build fast

## tools: build etcd, kube-apiserver, kube-controller-manager, kubectl, helm,
## envoy-gateway, contour and traefik at their pinned versions into ~/.cache/gepcheck/tools (once)
tools: build
	$(BIN) tools

## traefik-build: build Traefik from scratch in a new directory with
## gepcheck's recipe and check it as make tools checks the cached build
## (TestTraefikBuildsFromScratch; minutes, so not in ci: run it when
## impl/traefik/build.go changes)
traefik-build:
	GEPCHECK_TRAEFIK_BUILD=1 $(GO) test -count=1 -timeout 60m -run 'TestTraefikBuildsFromScratch' -v ./impl/traefik/

## musts: the MUST checks of Gateway API's API reference in a cluster
## (gepcheck run --musts) against gepcheck-reference, Envoy Gateway,
## Contour and Traefik on the local control plane, each check's outcome
## as docs/cluster.md records it (about 3 minutes warm; ci runs
## gepcheck-reference's only, in TestLocalReference)
musts: build tools
	./hack/musts.sh $(BIN)

## conformance: the scenario catalogue against IMPL (reference | contour |
## envoy-gateway | traefik) in CLUSTER (local | kind | kubeconfig), JUnit to JUNIT
START_CONTROLLER ?= true
conformance: build
	$(BIN) run --cluster $(CLUSTER) --impl $(IMPL) --start-controller=$(START_CONTROLLER) --junit $(JUNIT) $(SCENARIOS)

## kind-up / kind-down: gepcheck's kind cluster (needs Docker or Podman)
kind-up: build
	$(BIN) kind up
kind-down: build
	$(BIN) kind down

## kind-install-envoy-gateway: Envoy Gateway $(EG_VERSION) in the kind cluster from
## its published install manifest; then make conformance CLUSTER=kind
## IMPL=envoy-gateway START_CONTROLLER=false
kind-install-envoy-gateway: tools
	$$($(BIN) tools | awk '$$1=="kubectl"{print $$3}') apply --server-side \
	  -f https://github.com/envoyproxy/gateway/releases/download/$(EG_VERSION)/install.yaml
	$$($(BIN) tools | awk '$$1=="kubectl"{print $$3}') wait --timeout=5m -n envoy-gateway-system \
	  deployment/envoy-gateway --for=condition=Available

## reference-image, kind-load-reference: gepcheck-reference in the kind
## cluster (needs Docker): then kubectl apply -f kind-config/gepcheck-reference.yaml
## and run with --start-controller=false
reference-image:
	docker build -t gepcheck/gepcheck:dev .
kind-load-reference: reference-image
	kind load docker-image gepcheck/gepcheck:dev --name gepcheck

clean:
	rm -rf bin
