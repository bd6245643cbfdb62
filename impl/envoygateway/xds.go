package envoygateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

	"github.com/gepcheck/gepcheck/impl/internal/xds"
)

// XDSAddress is where Envoy Gateway's xDS server listens.
const XDSAddress = "127.0.0.1:18000"

// XDS reads the configuration Envoy Gateway serves to the Envoy proxy of a
// Gateway, as that proxy would: an ADS stream over mTLS with the proxy's
// certificate from certgen, node cluster "namespace/gateway" (the infra IR
// key Envoy Gateway selects a snapshot by).
type XDS struct {
	Address string
	TLS     *tls.Config
}

// NewXDS reads the proxy's certificate from certgen's envoy directory.
func NewXDS(envoyCerts string) (*XDS, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(envoyCerts, "tls.crt"), filepath.Join(envoyCerts, "tls.key"))
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(filepath.Join(envoyCerts, "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &XDS{Address: XDSAddress, TLS: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, ServerName: "envoy-gateway", MinVersion: tls.VersionTLS12}}, nil
}

// Fetch returns the clusters, listeners, route configurations and the
// endpoints of EDS clusters served for the Gateway namespace/name
// (xds.Client.Fetch's shape, egctl's config dump; the offline driver reads
// both alike). It fails when nothing is served yet.
func (x *XDS) Fetch(ctx context.Context, namespace, name string) (map[string]any, error) {
	c := &xds.Client{Address: x.Address, TLS: x.TLS,
		Node: &corev3.Node{Id: "gepcheck/" + namespace + "/" + name, Cluster: namespace + "/" + name}}
	cfg, err := c.Fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("Gateway %s/%s: %w", namespace, name, err)
	}
	return cfg, nil
}
