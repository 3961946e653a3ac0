package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/objbench/objbench/internal/probe"
)

// WriteServing is serve's first words: where it listens, what it probes,
// and whether /probe needs the token.
func WriteServing(w io.Writer, addr string, p *probe.Prober, withToken bool) {
	var targets []string
	for _, t := range p.Targets {
		targets = append(targets, t.Info.URL)
	}
	fmt.Fprintf(w, "objbench serve: listening on http://%s (POST /probe, GET /metrics, GET /healthz); targets %s\n", addr, strings.Join(targets, ", "))
	if withToken {
		fmt.Fprintln(w, "POST /probe requires the bearer token")
	}
}
