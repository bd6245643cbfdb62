package requirements

// Listed is one requirement as `gepcheck requirements -o json` prints it:
// the catalogue entry and its status.
type Listed struct {
	Requirement
	Status Status `json:"status"`
}

// List is rs, each with its status.
func List(rs []Requirement) []Listed {
	out := make([]Listed, 0, len(rs))
	for _, r := range rs {
		out = append(out, Listed{Requirement: r, Status: r.Status()})
	}
	return out
}
