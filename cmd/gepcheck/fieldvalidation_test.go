package main

import (
	"strings"
	"testing"
)

// TestFieldValidationFlag: --field-validation on the commands that store
// the user's policies (simulate, explain, diff): warn (the default) prunes
// a misspelt field with a warning on standard error; ignore prunes it
// silently and the reading names the setting; strict is exit 2 naming
// file, document, line and field, as kubectl apply --validate=strict
// refuses it (Kubernetes API concepts, Field validation; docs/profiles.md,
// What is stored).
func TestFieldValidationFlag(t *testing.T) {
	const f = "../../scenarios/stored/envoy-gateway/backendtrafficpolicy-crd-typo.yaml"
	const pruned = "field spec.timeout.http.requestTimout (line 8 of the document) pruned"
	cmds := map[string][]string{
		"simulate": {"simulate", "-f", f},
		"explain":  {"explain", "-f", f, "--target", "HTTPRoute/route-1"},
		"diff":     {"diff", f, f},
	}
	for name, args := range cmds {
		for _, fv := range []string{"", "warn", "ignore", "strict"} {
			a := append([]string(nil), args...)
			if fv != "" {
				a = append(a, "--field-validation", fv)
			}
			code, out, errOut := gepcheck(a, "")
			switch fv {
			case "strict":
				if code != 2 {
					t.Errorf("%s %s: exit %d, want 2", name, fv, code)
				}
				for _, want := range []string{"backendtrafficpolicy-crd-typo.yaml: document 3 (line 52): BackendTrafficPolicy default/p-route: field spec.timeout.http.requestTimout: unknown field", "kubectl apply --validate=strict"} {
					if !strings.Contains(errOut, want) {
						t.Errorf("%s %s: stderr %q lacks %q", name, fv, errOut, want)
					}
				}
			default:
				if code != 0 {
					t.Errorf("%s %q: exit %d: %s", name, fv, code, errOut)
				}
				if warned := strings.Contains(errOut, pruned); warned != (fv != "ignore") {
					t.Errorf("%s %q: warned %v: %s", name, fv, warned, errOut)
				}
				if named := strings.Contains(strings.Join(strings.Fields(out), " "), "field validation: ignore"); named != (fv == "ignore") {
					t.Errorf("%s %q: output names field validation ignore: %v\n%s", name, fv, named, out)
				}
			}
		}
	}
	if code, _, errOut := gepcheck([]string{"simulate", "-f", f, "--field-validation", "loose"}, ""); code != 2 || !strings.Contains(errOut, "--field-validation") {
		t.Errorf("--field-validation loose: exit %d: %s", code, errOut)
	}
}
