package main

// The implementations gepcheck ships, one line each (docs/implementations.md).
import (
	_ "github.com/gepcheck/gepcheck/impl/contour"
	_ "github.com/gepcheck/gepcheck/impl/envoygateway"
	_ "github.com/gepcheck/gepcheck/impl/exec"
	_ "github.com/gepcheck/gepcheck/impl/reference"
	_ "github.com/gepcheck/gepcheck/impl/traefik"
)
