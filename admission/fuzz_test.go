package admission

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// fuzzLimits keep each input of FuzzRequestFile cheap.
var fuzzLimits = load.Limits{MaxBytes: 16 << 10, MaxDocuments: 8, MaxDepth: 30}

// checkRequest is what holds of every request ParseRequest or RequestFile
// accepts: a namespace that is a DNS-1123 label (or none), a name with
// neither "/" nor "%", and a prediction on fuzzChain that ends without a
// panic within a small CEL budget.
func checkRequest(t *testing.T, req Request) {
	t.Helper()
	if req.Namespace != "" && len(validation.IsDNS1123Label(req.Namespace)) > 0 {
		t.Fatalf("namespace %q accepted", req.Namespace)
	}
	if strings.ContainsAny(req.Name, "/%") || req.Name == "." || req.Name == ".." {
		t.Fatalf("name %q accepted", req.Name)
	}
	chain, _ := costlyChain(1, "Ignore")
	chain[0].MatchConditions[0].Expression = "request.userInfo.username.size() < 100 && (object == null || !has(object.metadata.labels) || object.metadata.labels.all(k, k.size() > 0))"
	p, err := PredictBounded(context.Background(), Bounds{MaxCELCost: 100_000}, chain, req, Builtin(), nil)
	var le *LimitError
	if err != nil && !errors.As(err, &le) {
		t.Fatalf("PredictBounded: %v", err)
	}
	if err == nil && p.Outcome.Mutating == nil {
		t.Fatal("a prediction without its outcome")
	}
}

// FuzzParseRequest feeds arbitrary request lines to ParseRequest: an
// error or a request, never a panic; a request it accepts holds
// (checkRequest), and its Describe reads back as a request that describes
// the same way (the line gepcheck prints is one it reads).
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		"CREATE v1 pods ns=a name=x user=alice groups=dev,ops labels=app=web nslabels=team=a",
		"UPDATE apps/v1 deployments/scale ns=a name=web",
		"DELETE v1 namespaces name=team-a oldlabels=a=b",
		"CONNECT v1 pods/exec ns=a name=p",
		"CREATE v1 configmaps ns=a ns=b",
		"CREATE v1 configmaps ns=../../etc",
		"CREATE admissionregistration.k8s.io/v1 validatingwebhookconfigurations name=x",
		"create v1 configmaps ns=a nsmissing=true dryrun=true groups=",
		"UPDATE v1 configmaps ns=a labels= oldlabels=a=",
	} {
		f.Add(s)
	}
	res := Builtin()
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 4<<10 {
			return
		}
		req, err := ParseRequest(line, res)
		if err != nil {
			return
		}
		checkRequest(t, req)
		d := Describe(req)
		again, err := ParseRequest(d, res)
		if err != nil {
			t.Fatalf("%q read as %q, which does not read: %v", line, d, err)
		}
		if d2 := Describe(again); d2 != d {
			t.Fatalf("%q read as %q, read again as %q", line, d, d2)
		}
	})
}

// FuzzRequestFile feeds arbitrary bytes to the --request-file reader
// (load, then RequestFile): an error naming a file, or a request that
// holds (checkRequest); never a panic.
func FuzzRequestFile(f *testing.F) {
	for _, file := range []string{"testdata/review.yaml", "testdata/review-unserved.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: admission.k8s.io/v1\nkind: AdmissionReview\nrequest: {uid: x, operation: CREATE, resource: {version: v1, resource: configmaps}, namespace: a, object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {x: y}}\n"))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x","operation":"DELETE","resource":{"version":"v1","resource":"namespaces"},"name":"a","oldObject":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}}}`))
	res := Builtin()
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := load.ReadLimited([]string{"-"}, bytes.NewReader(data), fuzzLimits)
		if err != nil {
			return
		}
		req, err := RequestFile("-", docs, res)
		if err != nil {
			if !strings.Contains(err.Error(), load.StdinName) && !strings.Contains(err.Error(), "-: ") {
				t.Fatalf("an error that names no file: %v", err)
			}
			return
		}
		checkRequest(t, req)
	})
}
