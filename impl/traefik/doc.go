// Package traefik is Traefik (github.com/traefik/traefik/v3) as an
// implementation gepcheck judges, in a cluster only: its Kubernetes
// Gateway provider against the cluster, as it runs in one
// (docs/contour-and-traefik.md). build.go builds it through a wrapper
// module; reader.go is the program that serves its provider's dynamic
// configuration; config.go reads that back; controller.go runs both;
// incluster.go and plugin.go make it an implementation.
package traefik
