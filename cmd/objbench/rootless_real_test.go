//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// TestRootlessExplainReal: explain --real as an unprivileged user starts
// again in a user namespace of its own; the program's namespace is made
// there, but no device can be made in the host's namespace, so the
// translator at the edge carries its connections (to a server on the
// host's loopback at OBJBENCH_HOST), and the document says so.
func TestRootlessExplainReal(t *testing.T) {
	if raceEnabled {
		// Under the race step's load (packages in parallel, each as root
		// making namespaces and devices) all three of the program's
		// connections were once refused at the edge; alone it passes, so
		// it runs in the timing step, one package at a time.
		t.Skip("runs in the timing step, without -race")
	}
	e := newRootlessEnv(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`for i in 1 2 3; do curl -sSf -o /dev/null "http://$OBJBENCH_HOST:%d/objbench/k$i"; done`, port)
	out, stderr := e.asUser(t, true, nil, "explain", "--real", "--json", "--no-save", "--", "sh", "-c", script)
	var raw struct {
		Explain map[string]any `json:"explain"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("JSON: %v: %.300s\n%s", err, out, stderr)
	}
	ex := raw.Explain
	if ex["source"] != "wire" || ex["path"] != "translator" || ex["requests"] != 3.0 || ex["connections"] != 3.0 {
		t.Errorf("rootless explain --real: source %v path %v, %v requests on %v connections; want wire, translator, 3 on 3\n%s", ex["source"], ex["path"], ex["requests"], ex["connections"], stderr)
	}
	if note, _ := ex["path_note"].(string); !strings.Contains(note, "translator") || !strings.Contains(stderr, "up to the edge") {
		t.Errorf("path note %q, stderr %q: want the translator named and what it cannot show", note, stderr)
	}
}
