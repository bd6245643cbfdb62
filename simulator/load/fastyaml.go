package load

import (
	"math"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// decodeYAML decodes one document into the values encoding/json gives
// (map[string]any, []any, float64, string, bool, nil), as
// sigs.k8s.io/yaml.YAMLToJSONStrict followed by json.Unmarshal does — the
// same parser (go.yaml.in/yaml/v2, strict), without writing and reading
// JSON in between. ok is false for anything that path would treat in a way
// of its own (an error, a key that is not a string, a float JSON cannot
// hold, a string that is not UTF-8): the caller then takes that path, so
// every message stays as it was (docs/performance.md).
func decodeYAML(text []byte) (v any, ok bool) {
	var raw any
	if err := yamlv2.UnmarshalStrict(text, &raw); err != nil {
		return nil, false
	}
	return jsonValue(raw)
}

func jsonValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, !math.IsInf(x, 0) && !math.IsNaN(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return out, true
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, isString := k.(string)
			if !isString || !utf8.ValidString(ks) {
				return nil, false
			}
			var ok bool
			if out[ks], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}
