package load

import (
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// At is d's Source with Line moved to the line of field (a dotted path with
// [i] indexes, as errors name fields), when the document's text shows it:
// errors point at the field, not at the document's first line. The text is
// parsed again only here, when there is an error to report.
func (d *Doc) At(field string) Source {
	if d == nil {
		return Source{}
	}
	src := d.Source
	if field == "" || d.text == nil {
		return src
	}
	field = d.field(field)
	if line := fieldLine(d.text, field); line > 0 {
		src.Line = d.firstLine + line - 1
	}
	return src
}

// field is the path of field in d's text: inside the List item, or the
// embedding field, d was read from.
func (d *Doc) field(field string) string {
	switch {
	case d.within != "":
		return d.within + "." + field
	case d.Source.Item > 0:
		return "items[" + strconv.Itoa(d.Source.Item-1) + "]." + field
	}
	return field
}

// fieldLine returns the 1-based line, within text, of the key (or list
// item) at path, or 0 when text does not hold it.
func fieldLine(text []byte, path string) int {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 {
		return 0
	}
	n := doc.Content[0]
	line := 0
	for _, step := range splitPath(path) {
		for n.Kind == yamlv3.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch {
		case step.index >= 0:
			if n.Kind != yamlv3.SequenceNode || step.index >= len(n.Content) {
				return line
			}
			n = n.Content[step.index]
			line = n.Line
		default:
			if n.Kind != yamlv3.MappingNode {
				return line
			}
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == step.key {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		}
	}
	return line
}

type pathStep struct {
	key   string
	index int // -1 for a key
}

// splitPath splits "spec.rules[0].name" into spec, rules, [0], name.
func splitPath(path string) []pathStep {
	var out []pathStep
	for _, part := range strings.Split(path, ".") {
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			out = append(out, pathStep{key: key, index: -1})
		}
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil {
				return out
			}
			out = append(out, pathStep{index: i})
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return out
}
