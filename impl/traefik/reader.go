package traefik

// readerSource is gepcheck-traefik-config, a program of the wrapper
// module: it runs Traefik's own Kubernetes Gateway provider (the code
// Traefik runs) and serves the last dynamic configuration it produced, as
// JSON, on GET / of its address. Traefik's API (/api/rawdata) has no
// servers transports, and its debug log blanks their rootCAs
// (docs/contour-and-traefik.md). The provider also writes status; the
// reader runs as a user allowed to read only (a kubeconfig impersonating
// ReaderUser), so that Traefik alone writes status.
const readerSource = `// Command gepcheck-traefik-config serves the dynamic configuration
// Traefik's Kubernetes Gateway provider produces (written by gepcheck,
// impl/traefik/reader.go). KUBECONFIG must be set.
//
//	gepcheck-traefik-config -listen 127.0.0.1:PORT -entrypoint NAME=ADDRESS...
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync"

	"github.com/traefik/traefik/v3/pkg/config/dynamic"
	"github.com/traefik/traefik/v3/pkg/provider/kubernetes/gateway"
	"github.com/traefik/traefik/v3/pkg/safe"
)

type entryPoints map[string]gateway.Entrypoint

func (e entryPoints) String() string { return fmt.Sprint(map[string]gateway.Entrypoint(e)) }

func (e entryPoints) Set(v string) error {
	name, addr, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want NAME=ADDRESS, got %q", v)
	}
	e[name] = gateway.Entrypoint{Address: addr}
	return nil
}

func main() {
	eps := entryPoints{}
	flag.Var(eps, "entrypoint", "NAME=ADDRESS, as traefik's --entryPoints.NAME.address (repeatable)")
	listen := flag.String("listen", "127.0.0.1:0", "address to serve the configuration on")
	flag.Parse()
	p := &gateway.Provider{}
	p.SetDefaults()
	p.ExperimentalChannel = true
	p.EntryPoints = eps
	if err := p.Init(); err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	last := []byte("null")
	ch := make(chan dynamic.Message, 100)
	pool := safe.NewPool(context.Background())
	if err := p.Provide(ch, pool); err != nil {
		log.Fatal(err)
	}
	go func() {
		for msg := range ch {
			data, err := json.Marshal(msg.Configuration)
			if err != nil {
				log.Print(err)
				continue
			}
			mu.Lock()
			last = data
			mu.Unlock()
		}
	}()
	log.Fatal(http.ListenAndServe(*listen, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(last)
	})))
}
`

// ReaderUser is the user gepcheck-traefik-config impersonates: a
// ClusterRole lets it get, list and watch everything and change nothing.
const ReaderUser = "gepcheck-traefik-reader"
