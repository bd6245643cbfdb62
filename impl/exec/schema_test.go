package exec

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/suite/observe"
)

// The JSON Schema of docs/exec-protocol.md names exactly the fields the
// exec driver decodes.
func TestSchemaMatchesObservation(t *testing.T) {
	data, err := os.ReadFile("../../docs/exec-protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	var inSchema, inGo []string
	for k := range schema.Properties {
		inSchema = append(inSchema, k)
	}
	rt := reflect.TypeOf(observe.Observation{})
	for i := 0; i < rt.NumField(); i++ {
		// A field the wire format leaves out (json:"-", the reference's
		// own Written) is not the protocol's.
		if name := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]; name != "-" {
			inGo = append(inGo, name)
		}
	}
	sort.Strings(inSchema)
	sort.Strings(inGo)
	if !reflect.DeepEqual(inSchema, inGo) {
		t.Errorf("schema properties %v, Observation fields %v", inSchema, inGo)
	}
}
