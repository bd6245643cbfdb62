// Package traefik is Traefik (github.com/traefik/traefik/v3) as an
// implementation gepcheck judges, in a cluster: its Kubernetes Gateway
// provider against the local control plane (docs/contour-and-traefik.md).
// Work in progress: the build (build.go), the configuration reader
// (reader.go) and its reading (config.go) exist; the plug-in does not yet.
package traefik
