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
//
// depth is the levels of mappings and sequences in v (as overDepth counts
// them), found on the way, so that a document within --max-depth is not
// walked a second time.
func decodeYAML(text []byte) (v any, depth int, ok bool) {
	var raw any
	if err := yamlv2.UnmarshalStrict(text, &raw); err != nil {
		return nil, 0, false
	}
	return jsonValue(raw)
}

func jsonValue(v any) (any, int, bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, 0, true
	case string:
		return x, 0, utf8.ValidString(x)
	case int:
		return float64(x), 0, true
	case int64:
		return float64(x), 0, true
	case uint64:
		return float64(x), 0, true
	case float64:
		return x, 0, !math.IsInf(x, 0) && !math.IsNaN(x)
	case []any:
		out := make([]any, len(x))
		depth := 0
		for i, e := range x {
			var d int
			var ok bool
			if out[i], d, ok = jsonValue(e); !ok {
				return nil, 0, false
			}
			depth = max(depth, d)
		}
		return out, depth + 1, true
	case map[any]any:
		out := make(map[string]any, len(x))
		depth := 0
		for k, e := range x {
			ks, isString := k.(string)
			if !isString || !utf8.ValidString(ks) {
				return nil, 0, false
			}
			var d int
			var ok bool
			if out[ks], d, ok = jsonValue(e); !ok {
				return nil, 0, false
			}
			depth = max(depth, d)
		}
		return out, depth + 1, true
	}
	return nil, 0, false
}
