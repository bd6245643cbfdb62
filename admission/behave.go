package admission

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// IDs are the IDs of chain's hooks, in its order.
func IDs(chain []*Hook) []string {
	out := make([]string, len(chain))
	for i, h := range chain {
		out[i] = h.ID()
	}
	return out
}

// resolve finds the hooks of chain that key names for behaviour b (an ID,
// or a name: every hook of that name) and returns their IDs; the error
// says why it cannot: a behaviour unknown, no such hook, a validating
// hook that would patch.
func resolve(chain []*Hook, key string, b Behaviour) ([]string, error) {
	if !slices.Contains([]Behaviour{Allow, Patch, Deny, Down, Slow, Error}, b) {
		return nil, fmt.Errorf("%q: want allow, patch, deny, down, slow or error", b)
	}
	var out []string
	for _, h := range chain {
		if h.ID() != key && h.Name != key {
			continue
		}
		if b == Patch && h.Phase == Validating {
			return nil, fmt.Errorf("a validating webhook may not patch")
		}
		out = append(out, h.ID())
	}
	if len(out) == 0 {
		all := IDs(chain)
		if len(all) == 0 {
			return nil, fmt.Errorf("no such webhook: the configurations have none")
		}
		return nil, fmt.Errorf("no such webhook (one of %s)", strings.Join(all, ", "))
	}
	return out, nil
}

// ResolveBehaviours is behave, whose keys name hooks of chain by ID or by
// name (resolve), keyed by hook ID; on an error, key is the key it is
// about. A hook named twice, by its ID and its name, with two behaviours
// is an error.
func ResolveBehaviours(chain []*Hook, behave map[string]Behaviour) (out map[string]Behaviour, key string, err error) {
	out = map[string]Behaviour{}
	by := map[string]string{} // hook ID: the key that gave its behaviour
	for _, key := range slices.Sorted(maps.Keys(behave)) {
		hooks, err := resolve(chain, key, behave[key])
		if err != nil {
			return nil, key, err
		}
		for _, id := range hooks {
			if b, ok := out[id]; ok && b != behave[key] {
				return nil, key, fmt.Errorf("webhook %s is %s (as %s) and %s (as %s)", id, b, by[id], behave[key], key)
			}
			out[id], by[id] = behave[key], key
		}
	}
	return out, "", nil
}
