package load

// Hooks for the tests of package load_test, which import packages that
// import this one (the generators).

// ParsePlain is parsePlain.
func ParsePlain(text []byte) (any, int, bool) { return parsePlain(text) }

// DecodeYAML is decodeYAML.
func DecodeYAML(text []byte) (any, int, bool) { return decodeYAML(text) }

// SplitDocuments is the text of each document split finds in data, and
// the line its content starts on.
func SplitDocuments(data []byte) (texts [][]byte, lines []int) {
	for _, c := range split(data) {
		texts = append(texts, c.text)
		lines = append(lines, c.line)
	}
	return texts, lines
}
