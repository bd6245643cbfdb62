package engine

// outcome is what conflict resolution made of an accepted policy on the
// paths through its targets (or through one target): the value that each
// status vocabulary words as a condition (docs/semantics.md, Status
// vocabularies). Messages are built from the outcome too; only the type,
// status, reason and the verb of the message depend on the vocabulary.
type outcome uint8

const (
	// outcomeUnreached: no path through the target reaches an effective
	// target. Neither text words it (docs/semantics.md): the condition is
	// marked Undefined.
	outcomeUnreached outcome = iota
	// outcomeFull: every field of the spec proper is in effect on every
	// path.
	outcomeFull
	// outcomePartial: some fields, or some paths.
	outcomePartial
	// outcomeOverridden: no field on any path.
	outcomeOverridden
	outcomes
)

// wording is one vocabulary's words for the outcomes.
type wording struct {
	typ    string
	status [outcomes]string
	reason [outcomes]string
	// verb says in a message what happened to a policy in full
	// ("enforced", "programmed").
	verb string
}

var (
	// The 2025 draft of GEP-713, "Policy status": "Enforced: the policy's
	// spec is guaranteed to be enforced", "PartiallyEnforced: parts of the
	// policy's spec is guaranteed to be enforced, while other parts are
	// known to have been superseded by other specs", "Overridden: the
	// policy's spec is known to have been fully overridden by other specs".
	draftWording = wording{
		typ:    TypeEnforced,
		status: [outcomes]string{outcomeUnreached: "False", outcomeFull: "True", outcomePartial: "True", outcomeOverridden: "False"},
		reason: [outcomes]string{outcomeUnreached: ReasonUnknown, outcomeFull: ReasonEnforced, outcomePartial: ReasonPartiallyEnforced, outcomeOverridden: ReasonOverridden},
		verb:   "enforced",
	}
	// GEP-713 as merged (gateway-api v1.6.3, "Status reporting", Status
	// conditions): PolicyConditionProgrammed, True with "Programmed" ("the
	// full spec of the policy has been programmed to affect the entire
	// scope under the associated target") or "PartiallyProgrammed" ("parts
	// of the policy's spec have been programmed, while other parts are
	// known to have been superseded"), False with "Overridden" ("the
	// policy has been fully overridden by other specs during conflict
	// resolution"). Reconciling ("currently being reconciled") is never an
	// outcome of a computed answer. The text has no word for a target no
	// path reaches an effective target through: status Unknown, the
	// standard condition status for "cannot say", reason Unknown.
	mergedWording = wording{
		typ:    TypeProgrammed,
		status: [outcomes]string{outcomeUnreached: "Unknown", outcomeFull: "True", outcomePartial: "True", outcomeOverridden: "False"},
		reason: [outcomes]string{outcomeUnreached: ReasonUnknown, outcomeFull: ReasonProgrammed, outcomePartial: ReasonPartiallyProgrammed, outcomeOverridden: ReasonOverridden},
		verb:   "programmed",
	}
)

// wordingOf is the wording of vocabulary v (empty: merged), as mutant m
// sees it: MutantOtherVocabulary words each in the other's terms.
func wordingOf(v Vocabulary, m Mutant) *wording {
	draft := v == VocabularyDraft
	if m == MutantOtherVocabulary {
		draft = !draft
	}
	if draft {
		return &draftWording
	}
	return &mergedWording
}

// condition words outcome o with message msg.
func (w *wording) condition(o outcome, msg string) Condition {
	return Condition{Type: w.typ, Status: w.status[o], Reason: w.reason[o], Message: msg}
}

// ProgrammedType is the type of the condition that says how much of an
// accepted policy is in effect, in vocabulary v (empty: merged):
// Programmed, or the draft's Enforced.
func ProgrammedType(v Vocabulary) string {
	if v == VocabularyDraft {
		return TypeEnforced
	}
	return TypeProgrammed
}
