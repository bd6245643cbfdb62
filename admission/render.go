package admission

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Report is a prediction as gepcheck prints it (-o json): the request, the
// verdict of every hook, and the outcome.
type Report struct {
	Request string       `json:"request"`
	Exempt  string       `json:"exempt,omitempty"`
	Hooks   []HookReport `json:"hooks"`
	Outcome Outcome      `json:"outcome"`
}

// HookReport is one hook's verdict.
type HookReport struct {
	ID    string `json:"id"`
	Phase Phase  `json:"phase"`
	// Order is the hook's place among the mutating calls (1, 2, …), 0
	// for a hook not called or a validating hook (called all at once).
	Order int `json:"order,omitempty"`
	// SecondPass marks a verdict of the reinvocation pass; Changed says
	// the hook's patch changed the object.
	SecondPass bool `json:"secondPass,omitempty"`
	Changed    bool `json:"changed,omitempty"`
	Called     bool `json:"called"`
	// Answer is how a called hook answered: allow, patch, deny, down,
	// slow or error.
	Answer   Behaviour `json:"answer,omitempty"`
	Checks   []Check   `json:"checks"`
	Resource string    `json:"resource,omitempty"`
	Kind     string    `json:"kind,omitempty"`
	Error    *Failure  `json:"error,omitempty"`
}

// NewReport is p, on req, as gepcheck prints it.
func NewReport(req Request, p Prediction) Report {
	r := Report{Request: Describe(req), Exempt: p.Exempt, Hooks: []HookReport{}, Outcome: p.Outcome}
	n := 0
	for _, v := range p.Verdicts {
		h := HookReport{ID: v.Hook.ID(), Phase: v.Hook.Phase, SecondPass: v.Round > 0, Changed: v.Changed, Called: v.Called, Answer: v.Answer, Checks: v.Checks, Error: v.Error}
		if v.Called {
			h.Resource = describeRequest("", v.Resource, req.Subresource)[1:]
			h.Kind = v.Kind.GroupVersion().String() + " " + v.Kind.Kind
			if v.Hook.Phase == Mutating {
				n++
				h.Order = n
			}
		}
		r.Hooks = append(r.Hooks, h)
	}
	return r
}

// Describe writes req on one line, as ParseRequest reads it: of the
// objects, only their labels (ParseRequest(Describe(r)) is r for a request
// ParseRequest made).
func Describe(req Request) string {
	s := describeRequest(req.Operation, req.Resource, req.Subresource)
	kv := func(k, v string) {
		if v != "" {
			s += " " + k + "=" + v
		}
	}
	if req.Resource != namespaces {
		kv("ns", req.Namespace)
	}
	kv("name", req.Name)
	kv("user", req.UserInfo.Username)
	kv("groups", strings.Join(req.UserInfo.Groups, ","))
	// Of a Namespace's labels, the one the API server gives it is not
	// written: ParseRequest adds it.
	own := func(u *unstructured.Unstructured) map[string]string {
		l := u.GetLabels()
		if u.GroupVersionKind() == namespaceKind && l[corev1.LabelMetadataName] == u.GetName() {
			delete(l, corev1.LabelMetadataName)
		}
		return l
	}
	if req.Operation != admissionv1.Delete && req.Object != nil && req.Object.GetLabels() != nil {
		kv("labels", labels.Set(own(req.Object)).String())
	}
	if req.OldObject != nil && req.OldObject.GetLabels() != nil {
		kv("oldlabels", labels.Set(own(req.OldObject)).String())
	}
	if req.Namespace != "" && req.NamespaceLabels == nil {
		kv("nsmissing", "true")
	}
	ns := maps.Clone(req.NamespaceLabels)
	delete(ns, corev1.LabelMetadataName)
	kv("nslabels", labels.Set(ns).String())
	if req.DryRun {
		kv("dryrun", "true")
	}
	return s
}

// Table prints r for a person: one line per hook with why it is called or
// not (the check that decided), then the outcome.
func (r Report) Table(w io.Writer) error {
	fmt.Fprintf(w, "request: %s\n", ref.Printable(r.Request))
	if r.Exempt != "" {
		_, err := fmt.Fprintf(w, "no webhook: %s\n", r.Exempt)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tORDER\tHOOK\tCALLED\tANSWER\tWHY")
	for _, h := range r.Hooks {
		order := "-"
		switch {
		case h.Order > 0:
			order = fmt.Sprint(h.Order)
		case h.Called:
			order = "*" // validating hooks are called all at once
		}
		called, why := "no", ""
		if h.Called {
			called = "yes"
		}
		if len(h.Checks) > 0 {
			last := h.Checks[len(h.Checks)-1]
			why = last.Name + ": " + last.Detail
		}
		if h.Error != nil {
			called, why = "fails", fmt.Sprintf("%s (HTTP %d)", h.Error.Message, h.Error.Code)
		}
		phase := string(h.Phase)
		if h.SecondPass {
			phase += ", 2nd pass"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", phase, order, ref.Printable(h.ID), called, r.answer(h), ref.Printable(why))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := r.Outcome
	verdict := "allowed"
	if !o.Allowed {
		var ms []string
		for _, f := range o.Failures {
			ms = append(ms, fmt.Sprintf("HTTP %d %s", f.Code, f.Message))
		}
		verdict = "refused: " + strings.Join(ms, "; or ")
	}
	fmt.Fprintf(w, "outcome: %s\n", ref.Printable(verdict))
	fmt.Fprintf(w, "called: mutating %s; validating, concurrently, %s\n", ref.Printable(list(o.Mutating)), ref.Printable(list(o.Validating)))
	if len(o.Reinvoked) > 0 {
		fmt.Fprintf(w, "reinvoked (reinvocationPolicy IfNeeded, the object changed after their first call): %s\n", ref.Printable(strings.Join(o.Reinvoked, ", ")))
	}
	if len(o.FailedOpen) > 0 {
		fmt.Fprintf(w, "failed open (failurePolicy Ignore): %s\n", ref.Printable(strings.Join(o.FailedOpen, ", ")))
	}
	return nil
}

// answer is how h answered, as the table shows it: "-" for a hook not
// called; a failure ignored under failurePolicy Ignore says so, a patch
// whether it changed the object.
func (r Report) answer(h HookReport) string {
	switch {
	case !h.Called || h.Answer == "":
		return "-"
	case h.Answer == Patch && h.Changed:
		return "patch: changed the object"
	case h.Answer == Patch:
		return "patch: no change"
	case slices.Contains(r.Outcome.FailedOpen, h.ID) && (h.Answer == Down || h.Answer == Slow || h.Answer == Error):
		return string(h.Answer) + ": ignored (failurePolicy Ignore)"
	}
	return string(h.Answer)
}

// Explain prints every check of one hook (of both passes, when it is
// reinvoked): id is its ID, or a name, which picks the first hook of that
// name in the chain.
func (r Report) Explain(w io.Writer, id string) error {
	chosen := ""
	for _, h := range r.Hooks {
		if h.ID == id || strings.HasPrefix(h.ID, id+"/") || strings.Contains(h.ID, "/"+id+"/") {
			chosen = h.ID
			break
		}
	}
	if chosen == "" {
		return fmt.Errorf("no hook %q in the chain", id)
	}
	for _, h := range r.Hooks {
		if h.ID != chosen {
			continue
		}
		pass := ""
		if h.SecondPass {
			pass = ", second pass"
		}
		fmt.Fprintf(w, "%s (%s%s) on %s\n", ref.Printable(h.ID), h.Phase, pass, ref.Printable(r.Request))
		for i, c := range h.Checks {
			mark := "pass"
			if !c.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %d. %-17s %s  %s\n", i+1, ref.Printable(c.Name), mark, ref.Printable(c.Detail))
		}
		switch {
		case h.Error != nil:
			fmt.Fprintf(w, "  the request fails here: HTTP %d %s\n", h.Error.Code, ref.Printable(h.Error.Message))
		case h.Called:
			fmt.Fprintf(w, "  called, sent as %s (kind %s); answers %s\n", ref.Printable(h.Resource), ref.Printable(h.Kind), r.answer(h))
		default:
			fmt.Fprintln(w, "  not called")
		}
	}
	return nil
}

func list(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
