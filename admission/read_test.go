package admission

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// A configuration the API server would refuse is refused with its file,
// document, line and field, one error per problem, as the API server
// words it; another kind of document is refused too.
func TestConfigurationsRefuse(t *testing.T) {
	docs, err := load.Read([]string{"testdata/bad.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Configurations(docs)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"testdata/bad.yaml: document 1 (line 13): ValidatingWebhookConfiguration policy: field webhooks[0].rules[0].resources: Invalid value",
		"if '*' is present, must not specify other resources without subresources",
		"(line 14): ValidatingWebhookConfiguration policy: field webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
		"field webhooks[1].name: Duplicate value",
		"field webhooks[1].sideEffects: Unsupported value",
		`field webhooks[1].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`,
		"field webhooks[1].matchConditions[0].expression: Invalid value: \"object.metadata.name\": must evaluate to bool",
		"document 2 (line 22): ConfigMap stray: not a webhook configuration",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// The API server's checks of a rule's resources depend on their order
// (kubernetes pkg/apis/admissionregistration/validation, validateResources):
// so do gepcheck's.
func TestValidateResourcesOrder(t *testing.T) {
	for _, tc := range []struct {
		resources []string
		ok        bool
	}{
		{[]string{"pods", "*"}, true},
		{[]string{"*", "pods"}, false},
		{[]string{"pods/log", "pods/*"}, true},
		{[]string{"pods/*", "pods/log"}, false},
		{[]string{"pods/scale", "*/scale"}, true},
		{[]string{"*/scale", "pods/scale"}, false},
		{[]string{"*/*", "pods"}, false},
		{[]string{"*", "pods/log"}, true},
		{[]string{""}, false},
	} {
		if errs := validateResources(tc.resources, nil); (len(errs) == 0) != tc.ok {
			t.Errorf("%q: errors %v, want accepted %v", tc.resources, errs, tc.ok)
		}
	}
}

// A request the API server refuses before admission (a resource it does
// not serve, or a version of a CRD not served: 404; an operation the
// resource's verbs do not give: 405; a namespaced resource without a
// namespace; a cluster-scoped one with one) is refused, saying why; the
// same requests written right are read.
func TestParseRequestRefuses(t *testing.T) {
	res := Builtin().WithCRDs([]apiextensionsv1.CustomResourceDefinition{{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"}, Scope: apiextensionsv1.NamespaceScoped,
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v1alpha1", Served: false}},
	}}})
	for line, want := range map[string]string{
		"CREATE apps/v1 deploymentz ns=a":                       "apps/v1 deploymentz: not a resource the API server serves",
		"CREATE example.com/v1alpha1 widgets ns=a":              "example.com/v1alpha1 widgets: not a resource the API server serves",
		"CREATE v1 pods/foo ns=a":                               `pods has no subresource "foo"`,
		"CREATE v1 pods/exec ns=a":                              "CREATE v1 pods/exec: it takes CONNECT (its verbs: create, get)",
		"CONNECT v1 configmaps ns=a":                            "CONNECT v1 configmaps: it takes CREATE, UPDATE, DELETE",
		"CREATE v1 pods/status ns=a":                            "CREATE v1 pods/status: it takes UPDATE (its verbs: get, patch, update)",
		"UPDATE v1 pods/log ns=a":                               "it takes no request that reaches admission (its verbs: get)",
		"CREATE v1 configmaps":                                  "v1 configmaps: namespaced: give ns=NAMESPACE",
		"CREATE rbac.authorization.k8s.io/v1 clusterroles ns=a": "ns=a: rbac.authorization.k8s.io/v1 clusterroles is cluster-scoped",
		"CREAT v1 configmaps ns=a":                              `operation "CREAT"`,
	} {
		if _, err := ParseRequest(line, res); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", line, err, want)
		}
	}
	for _, line := range []string{"CREATE apps/v1 deployments ns=a", "CONNECT v1 pods/exec ns=a", "UPDATE v1 pods/status ns=a", "CREATE v1 pods/eviction ns=a",
		"DELETE example.com/v1 widgets ns=a", "CREATE rbac.authorization.k8s.io/v1 clusterroles name=r", "CREATE v1 namespaces name=n"} {
		if _, err := ParseRequest(line, res); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// An AdmissionReview reads as the request line that says the same (with
// the Namespace's labels beside it); one on a resource the API server does
// not serve is refused, naming file, document and field.
func TestRequestFile(t *testing.T) {
	res := Builtin()
	docs, err := load.Read([]string{"testdata/review.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	req, err := RequestFile("testdata/review.yaml", docs, res)
	if err != nil {
		t.Fatal(err)
	}
	const want = "CREATE apps/v1 deployments ns=team-a name=web user=alice groups=dev labels=app=web nslabels=team=a"
	if got := Describe(req); got != want {
		t.Errorf("read as %q, want %q", got, want)
	}
	docs, err = load.Read([]string{"testdata/review-unserved.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = RequestFile("testdata/review-unserved.yaml", docs, res)
	for _, want := range []string{"testdata/review-unserved.yaml: document 1", "field request", "apps/v1 deploymentz: not a resource the API server serves"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error with %q", err, want)
		}
	}
}
