// Package check checks gepcheck's admission predictions
// (package admission) against a real kube-apiserver: a recording webhook
// server on loopback, with a certificate gepcheck makes, is registered
// under a case's webhook configurations; the case's request is sent with
// client-go; the calls the server records are compared with the
// prediction (docs/admission.md).
package check

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	admissionapi "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gepcheck/gepcheck/admission"
)

// Call is one call of a webhook the server recorded.
type Call struct {
	// Hook is the hook's ID (admission.Hook.ID), from the path called;
	// the rest is what the AdmissionReview's request says.
	Hook        string
	Operation   string
	Resource    metav1.GroupVersionResource
	SubResource string
	Kind        metav1.GroupVersionKind
	Name        string
	Namespace   string
}

// Server is the recording webhook server: every hook of a case is
// registered at URL/hooks/ID, and answers as Expect says (allow when it
// does not name the hook).
type Server struct {
	// URL is https://127.0.0.1:PORT; CABundle the PEM of the CA that
	// signed its certificate (a configuration's caBundle).
	URL      string
	CABundle []byte
	// DownURL is a loopback URL nothing listens on: a hook that is down.
	DownURL string

	mu       sync.Mutex
	calls    []Call
	behave   map[string]admission.Behaviour
	patchKey map[string]string
	slow     time.Duration
	srv      *http.Server
}

// Start starts a server on a free loopback port, with a new CA and a
// certificate for 127.0.0.1 that it signs.
func Start() (*Server, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gepcheck-admission-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.Close()
		return nil, err
	}
	downAddr := down.Addr().String()
	down.Close() // nothing listens there now: connections are refused
	s := &Server{URL: "https://" + l.Addr().String(), DownURL: "https://" + downAddr, CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}}
	go func() { _ = s.srv.ServeTLS(l, "", "") }()
	return s, nil
}

// Stop stops the server.
func (s *Server) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// Expect makes the server answer as behave says, from now on, and forget
// the calls recorded; a hook that patches sets the annotation patchKey
// names (admission.PatchAnnotation), slow is how long a slow hook takes.
func (s *Server) Expect(behave map[string]admission.Behaviour, patchKey map[string]string, slow time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behave, s.patchKey, s.slow, s.calls = behave, patchKey, slow, nil
}

// Calls are the calls recorded since Expect, in the order they arrived.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// maxReview is the most bytes of an AdmissionReview read.
const maxReview = 1 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.URL.Path, "/hooks/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	var review admissionapi.AdmissionReview
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReview))
	if err != nil || json.Unmarshal(body, &review) != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	q := review.Request
	s.mu.Lock()
	s.calls = append(s.calls, Call{Hook: id, Operation: string(q.Operation), Resource: q.Resource, SubResource: q.SubResource, Kind: q.Kind, Name: q.Name, Namespace: q.Namespace})
	b, key, slow := s.behave[id], s.patchKey[id], s.slow
	s.mu.Unlock()
	resp := &admissionapi.AdmissionResponse{UID: q.UID, Allowed: true}
	switch b {
	case admission.Patch:
		if patch := admission.PatchFor(q.Object.Raw, key); patch != nil {
			pt := admissionapi.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &pt
		}
	case admission.Error:
		http.Error(w, "gepcheck: failing on purpose", http.StatusInternalServerError)
		return
	case admission.Slow:
		select {
		case <-time.After(slow):
		case <-r.Context().Done():
			return
		}
	case admission.Deny:
		resp.Allowed = false
		// No code: the API server gives 400 (webhook/errors, ToStatusErr),
		// as admission.Deny predicts.
		resp.Result = &metav1.Status{Message: "denied by gepcheck on purpose"}
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}

// URLFor is where hook id is registered: the server, or, for a hook that
// is down, a port nothing listens on.
func (s *Server) URLFor(id string, b admission.Behaviour) string {
	if b == admission.Down {
		return s.DownURL + "/hooks/" + id
	}
	return fmt.Sprintf("%s/hooks/%s", s.URL, id)
}
