package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Keyed is a difference a finding keeps: Key names what it is about,
// String how it prints.
type Keyed interface {
	Key() string
	String() string
}

// ReproduceError says how the differences seen now differ from those a
// kept finding records: each entry is one difference recorded and not
// seen, seen and not recorded, or seen with other values (old and new).
type ReproduceError struct {
	Missing, New []string
	// Changed pairs the recorded difference with the one seen now.
	Changed [][2]string
}

func (e *ReproduceError) Error() string {
	var b strings.Builder
	b.WriteString("the finding no longer reproduces as recorded (gepcheck findings update records the new differences):")
	for _, m := range e.Missing {
		b.WriteString("\n  recorded, not seen now: " + m)
	}
	for _, n := range e.New {
		b.WriteString("\n  seen now, not recorded: " + n)
	}
	for _, c := range e.Changed {
		b.WriteString("\n  changed: recorded " + c[0] + "\n           now      " + c[1])
	}
	return b.String()
}

// Reproduce pairs recorded and now by key and compares the part of
// each pair comparable returns as JSON (numbers by value, maps by key):
// the one comparison of every kept finding (compare.Reproduce for an
// implementation's, ReproduceDisagreements for a property's).
func Reproduce[T Keyed](recorded, now []T, comparable func(T) any) error {
	index := func(ds []T) (map[string]T, []string) {
		m := map[string]T{}
		var keys []string
		for _, d := range ds {
			k := d.Key()
			// Keys are unique within one comparison (Diff,
			// suite.Disagreements); a repeated one is told apart by its place.
			for n := 2; ; n++ {
				if _, dup := m[k]; !dup {
					break
				}
				k = fmt.Sprintf("%s #%d", d.Key(), n)
			}
			m[k] = d
			keys = append(keys, k)
		}
		return m, keys
	}
	rm, rkeys := index(recorded)
	nm, nkeys := index(now)
	e := &ReproduceError{}
	for _, k := range rkeys {
		n, ok := nm[k]
		switch {
		case !ok:
			e.Missing = append(e.Missing, rm[k].String())
		case jsonText(comparable(rm[k])) != jsonText(comparable(n)):
			old, cur := rm[k].String(), n.String()
			if old == cur {
				// Printed alike (a field list, a number's type):
				// show what is compared.
				old, cur = ref.Printable(jsonText(comparable(rm[k]))), ref.Printable(jsonText(comparable(n)))
			}
			e.Changed = append(e.Changed, [2]string{old, cur})
		}
	}
	for _, k := range nkeys {
		if _, ok := rm[k]; !ok {
			e.New = append(e.New, nm[k].String())
		}
	}
	if len(e.Missing)+len(e.New)+len(e.Changed) == 0 {
		return nil
	}
	return e
}

// jsonText is v as canonical JSON: map keys sorted, numbers as JSON
// numbers whatever their Go type (a value read from YAML is a float64).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	// Numbers as written (UseNumber): no precision lost to float64.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if dec.Decode(&generic) != nil {
		return string(b)
	}
	b, _ = json.Marshal(generic)
	return string(b)
}

// ReproduceDisagreements compares the disagreements a finding of a
// property records (gep713 against sticky-overrides) with those seen now.
func ReproduceDisagreements(recorded, now []Disagreement) error {
	return Reproduce(recorded, now, func(d Disagreement) any { return d })
}
