package compare

import (
	"encoding/json"
	"testing"
)

// A kind is written as findings name it (KIND, KIND-after-step) and read
// back into the same value: a results file keeps its bytes, and no code
// but this boundary reads "-after-step" off a name.
func TestFoundText(t *testing.T) {
	for _, tc := range []struct {
		f    Found
		text string
	}{
		{Found{Kind: "conflicted"}, `"conflicted"`},
		{Found{Kind: "conflicted", AfterStep: true}, `"conflicted-after-step"`},
		{Found{Kind: "after-step-x"}, `"after-step-x"`},
	} {
		b, err := json.Marshal(tc.f)
		if err != nil || string(b) != tc.text {
			t.Errorf("%+v: %s, %v; want %s", tc.f, b, err, tc.text)
		}
		var back Found
		if err := json.Unmarshal(b, &back); err != nil || back != tc.f {
			t.Errorf("%s read back as %+v, %v; want %+v", b, back, err, tc.f)
		}
	}
}
