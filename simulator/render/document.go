package render

import (
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"
)

// Document writes v as JSON (indented two spaces, < and > as they are)
// or, for format "yaml", YAML: the -o json and -o yaml of the commands
// other than simulate and explain (docs/output.md).
func Document(w io.Writer, format string, v any) error {
	if format == "yaml" {
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
