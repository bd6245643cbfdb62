package compare

import "github.com/gepcheck/gepcheck/suite"

// Reproduce compares the differences an implementation shows now with
// those its kept finding records, exactly: the same keys, and for each
// the same kind, path, fields, object, condition, want and got (the
// reference's messages are shown, never compared). It returns nil, or a
// *suite.ReproduceError listing every difference between the two.
func Reproduce(recorded, now []Difference) error {
	return suite.Reproduce(recorded, now, func(d Difference) any {
		d.WantMessage = ""
		return d
	})
}
