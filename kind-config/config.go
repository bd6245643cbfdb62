// Package kindconfig holds the kind cluster configuration and the
// in-cluster manifests of gepcheck-reference.
package kindconfig

import _ "embed"

// Cluster is kind-config/cluster.yaml.
//
//go:embed cluster.yaml
var Cluster []byte

// Reference is kind-config/gepcheck-reference.yaml: gepcheck-reference as
// a Deployment with the RBAC it needs.
//
//go:embed gepcheck-reference.yaml
var Reference []byte
