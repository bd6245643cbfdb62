package admission

// Mutant names a deliberately broken variant of the engine: each
// property of the engine (properties_test.go) must catch the mutants it
// claims, which shows that it can fail.
type Mutant string

// Mutants.
const (
	// MutantUnsorted keeps configurations in the order given instead of
	// by name.
	MutantUnsorted Mutant = "unsorted"
	// MutantStarSubresources lets a resource "*" match subresources.
	MutantStarSubresources Mutant = "star-subresources"
	// MutantNoEquivalent reads matchPolicy Equivalent as Exact.
	MutantNoEquivalent Mutant = "no-equivalent"
	// MutantEquivalentOnly tries only the equivalent resources under
	// Equivalent, not the request's own.
	MutantEquivalentOnly Mutant = "equivalent-only"
	// MutantIgnoreBlocks fails the request on a hook that fails under
	// failurePolicy Ignore too.
	MutantIgnoreBlocks Mutant = "ignore-blocks"
	// MutantValidatingFirst considers validating hooks before mutating
	// ones.
	MutantValidatingFirst Mutant = "validating-first"
	// MutantNeverReinvoke never calls a hook a second time.
	MutantNeverReinvoke Mutant = "never-reinvoke"
	// MutantOwnChange makes a hook with reinvocationPolicy IfNeeded due
	// for a second call on its own change.
	MutantOwnChange Mutant = "own-change"
	// MutantRequestKind sends a hook matched under Equivalent the
	// request's resource and kind, not those of its rule's version.
	MutantRequestKind Mutant = "request-kind"
	// MutantReinvokeAll reinvokes every matching hook with
	// reinvocationPolicy IfNeeded, called in the first pass or not.
	MutantReinvokeAll Mutant = "reinvoke-all"
	// MutantOptionsLabels reads an object without metadata (a CONNECT's
	// options) as an object without labels for an objectSelector.
	MutantOptionsLabels Mutant = "options-labels"
	// MutantNoNameLabel leaves out the kubernetes.io/metadata.name label
	// the API server gives a Namespace before admission.
	MutantNoNameLabel Mutant = "no-name-label"
	// MutantUnconvertedConditions evaluates matchConditions on the object
	// as the request sent it, not as the kind the hook is sent.
	MutantUnconvertedConditions Mutant = "unconverted-conditions"
	// MutantStorageKeepsMetadata sends validating hooks the object as the
	// mutating hooks left it, whatever the subresource's storage does.
	MutantStorageKeepsMetadata Mutant = "storage-keeps-metadata"
	// MutantDenialForbidden answers a denial with HTTP 403 Forbidden, not
	// the 400 the API server gives a denial without a code.
	MutantDenialForbidden Mutant = "denial-forbidden"
)

// Mutants lists every mutant.
var Mutants = []Mutant{MutantUnsorted, MutantStarSubresources, MutantNoEquivalent, MutantEquivalentOnly, MutantIgnoreBlocks, MutantValidatingFirst,
	MutantNeverReinvoke, MutantOwnChange, MutantReinvokeAll, MutantRequestKind, MutantOptionsLabels, MutantNoNameLabel, MutantUnconvertedConditions, MutantStorageKeepsMetadata, MutantDenialForbidden}

// mutant is the mutant the engine runs as; "" is the engine itself. Only
// tests set it.
var mutant Mutant

// SetMutant makes the engine run as m until the returned function is
// called: for the tests that show a check of the engine can fail (its
// properties, and the check against a real API server). Not safe for
// concurrent use.
func SetMutant(m Mutant) (restore func()) {
	old := mutant
	mutant = m
	return func() { mutant = old }
}
