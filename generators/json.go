package generators

import (
	"pgregory.net/rapid"
)

// JSONKeys are the object keys JSONObject draws from: few, so that specs
// overlap and merges go deep, and unusual ones ("", ".", "a.b", unicode,
// keys that YAML would read as other types) so that rendering, provenance
// paths and YAML round trips are exercised. None of them is a field that a
// profile reserves (targetRefs, defaults, overrides, strategy).
var JSONKeys = []string{"a", "b", "c", "d", "", ".", "a.b", "é", "日本", "null", "1", "x y"}

// jsonStrings are string values, several of which YAML would read as
// another type if they were not quoted.
var jsonStrings = []string{"x", "y", "z", "", "null", "true", "no", "~", "1", "0.5", "1e3", "a: b", "- c", "#d", "é", "日本語", " lead", "trail ", "two\nlines", "tab\t", `"q"`, "{}", "[]"}

// jsonNumbers are float64 values that survive JSON and YAML round trips
// exactly, besides the small multiples of 1/8 drawn.
var jsonNumbers = []float64{0, 1, -1, 1e21, 1e-7, 9007199254740992, -9007199254740992, 123456789.125, 3.14159}

var (
	jsonString = rapid.OneOf(
		rapid.SampledFrom(jsonStrings),
		rapid.StringMatching(`[a-z]{1,6}`),
	)
	jsonNumber = rapid.OneOf(
		rapid.Map(rapid.IntRange(-64, 64), func(i int) float64 { return float64(i) }),
		rapid.Map(rapid.IntRange(-8000, 8000), func(i int) float64 { return float64(i) / 8 }),
		rapid.SampledFrom(jsonNumbers),
	)
	jsonScalar = rapid.OneOf(
		jsonString.AsAny(),
		jsonNumber.AsAny(),
		rapid.Bool().AsAny(),
		rapid.Just[any](nil),
	)
	jsonKey = rapid.SampledFrom(JSONKeys)
)

// JSONValue draws a JSON value as encoding/json decodes one: strings,
// float64 numbers that round-trip exactly through JSON and YAML, bools,
// nil, lists ([]any) and objects (map[string]any, empty ones included),
// nested up to depth levels.
func JSONValue(depth int) *rapid.Generator[any] {
	if depth <= 0 {
		return jsonScalar
	}
	sub := JSONValue(depth - 1)
	return rapid.OneOf(
		jsonScalar, jsonScalar,
		rapid.Map(rapid.SliceOfN(sub, 0, 3), func(l []any) any { return l }),
		JSONObject(depth-1).AsAny(),
		JSONObject(depth-1).AsAny(),
	)
}

// JSONObject draws a JSON object of up to four keys from JSONKeys, with
// values JSONValue(depth).
func JSONObject(depth int) *rapid.Generator[map[string]any] {
	return rapid.MapOfN(jsonKey, JSONValue(depth), 0, 4)
}

var (
	flatValue = rapid.OneOf(
		rapid.SampledFrom([]string{"x", "y", "z"}).AsAny(),
		rapid.Map(rapid.IntRange(0, 3), func(i int) any { return float64(i) }),
	)
	flatSpec = rapid.MapOfN(rapid.SampledFrom(FlatKeys), flatValue, 1, len(FlatKeys))
)

// FlatSpec draws a flat spec proper (Config.FlatSpecs): one to four keys of
// FlatKeys with string or integer values, never null.
func FlatSpec() *rapid.Generator[map[string]any] { return flatSpec }
