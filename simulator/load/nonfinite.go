package load

import (
	"math"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// nonFinite finds the first value of a YAML document that is a float JSON
// cannot hold (.inf, -.inf, .nan: valid YAML, but a Kubernetes object is
// JSON), returning its field path and its line within text. The loader
// calls it only once conversion to JSON has failed, so the common path
// pays nothing for it.
func nonFinite(text []byte) (path string, line int, value string, ok bool) {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(text, &doc); err != nil {
		return "", 0, "", false
	}
	// An explicit stack: the walk is bounded by the document, not by the
	// goroutine's stack.
	type frame struct {
		n    *yamlv3.Node
		path string
	}
	stack := []frame{{&doc, ""}}
	for steps := 0; len(stack) > 0 && steps < 1_000_000; steps++ {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := f.n
		switch n.Kind {
		case yamlv3.DocumentNode:
			for i := len(n.Content) - 1; i >= 0; i-- {
				stack = append(stack, frame{n.Content[i], f.path})
			}
		case yamlv3.MappingNode:
			for i := len(n.Content) - 2; i >= 0; i -= 2 {
				stack = append(stack, frame{n.Content[i+1], joinPath(f.path, n.Content[i].Value)})
			}
		case yamlv3.SequenceNode:
			for i := len(n.Content) - 1; i >= 0; i-- {
				stack = append(stack, frame{n.Content[i], f.path + "[" + strconv.Itoa(i) + "]"})
			}
		case yamlv3.ScalarNode:
			if n.ShortTag() != "!!float" {
				continue
			}
			v, err := strconv.ParseFloat(strings.NewReplacer(".inf", "inf", ".Inf", "inf", ".INF", "inf", ".nan", "nan", ".NaN", "nan", ".NAN", "nan").Replace(n.Value), 64)
			if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
				return f.path, n.Line, n.Value, true
			}
		}
	}
	return "", 0, "", false
}
