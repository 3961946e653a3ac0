package terminal

import (
	"fmt"
	"io"
	"strings"
)

// WriteServing is serve's first words: where it listens, what it probes,
// (the targets' URLs) and whether /probe needs the token.
func WriteServing(w io.Writer, addr string, targets []string, withToken bool) {
	fmt.Fprintf(w, "objbench serve: listening on http://%s (POST /probe, GET /metrics, GET /healthz); targets %s\n", addr, strings.Join(targets, ", "))
	if withToken {
		fmt.Fprintln(w, "POST /probe requires the bearer token")
	}
}
