package main

// The implementations gepcheck ships, one line each (docs/implementations.md).
import (
	_ "github.com/gepcheck/gepcheck/suite/impl/contour"
	_ "github.com/gepcheck/gepcheck/suite/impl/envoygateway"
	_ "github.com/gepcheck/gepcheck/suite/impl/exec"
	_ "github.com/gepcheck/gepcheck/suite/impl/reference"
	_ "github.com/gepcheck/gepcheck/suite/impl/traefik"
)
