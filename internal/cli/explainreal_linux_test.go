package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/realpath"
	"github.com/objbench/objbench/internal/wire"
)

// TestExplainRealCapture runs curl through explain --real with --pcap to
// a lab on the host's loopback (TLS): the capture is its owner's alone,
// opens decrypted in tshark with the keys its Decryption Secrets Block
// carries (as many requests as objbench counted), --pcap-in on it gives
// the same explanation as the live run, and no key byte, capture file
// name or credential is in any output: stdout, stderr, the HTML report,
// the results database.
func TestExplainRealCapture(t *testing.T) {
	if err := netns.Available(); err != nil || os.Geteuid() != 0 {
		t.Skipf("the kernel path needs root and network namespaces (%v)", err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := lab.Start(ctx, lab.Config{APIs: []string{"s3"}, TLS: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, l.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	ep := strings.ReplaceAll(l.LocalEndpoint("s3"), "127.0.0.1", realpath.HostAddr.String())
	body := filepath.Join(dir, "body")
	if err := os.WriteFile(body, bytes.Repeat([]byte("b"), 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	// A credential the program sends (a bearer token in a header): it
	// must not come out either.
	const token = "objbench-test-credential-0f1e2d3c"
	script := `curl -sSf -o /dev/null --cacert ` + ca + ` -H "Authorization: Bearer ` + token + `" -T ` + body + ` ` + ep + `/objbench/a -T ` + body + ` ` + ep + `/objbench/b` +
		` && curl -sSf -o /dev/null --cacert ` + ca + ` ` + ep + `/objbench/a`
	capture, report, db := filepath.Join(dir, "run.pcapng"), filepath.Join(dir, "report.html"), filepath.Join(dir, "results.db")
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"--db", db, "explain", "--real", "--rtt", "10ms", "--json", "--pcap", capture, "--report", report, "--", "sh", "-c", script}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var live document.ExplainDocument
	if err := json.Unmarshal(out.Bytes(), &live); err != nil {
		t.Fatal(err)
	}
	e := live.Explain
	if e.Source != "wire" || e.Path != realpath.ModeKernel || e.Requests != 3 || e.Connections != 2 {
		t.Errorf("source %q path %q, %d requests on %d connections; want wire, kernel, 3 on 2", e.Source, e.Path, e.Requests, e.Connections)
	}
	st, err := os.Stat(capture)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("capture mode %v, want 0600", st.Mode().Perm())
	}
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	packets := 0
	keys, err := wire.ReadPcap(bufio.NewReader(f), func(wire.Packet) error { packets++; return nil })
	f.Close()
	if err != nil || len(keys) == 0 || packets == 0 {
		t.Fatalf("capture: %d packets, %d bytes of keys, %v", packets, len(keys), err)
	}
	// Every secret of the key log, as hex (as it is written) and raw.
	var secrets []string
	for _, line := range strings.Split(string(keys), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 3 {
			secrets = append(secrets, strings.ToLower(fields[2]), strings.ToUpper(fields[2]))
			if raw, err := hex.DecodeString(fields[2]); err == nil {
				secrets = append(secrets, string(raw))
			}
		}
	}
	if len(secrets) == 0 {
		t.Fatalf("no secret in the key log %q", keys)
	}
	secrets = append(secrets, token)
	outputs := map[string][]byte{"stdout": out.Bytes(), "stderr": errb.Bytes()}
	for _, p := range []string{report, db, db + "-wal"} {
		if b, err := os.ReadFile(p); err == nil {
			outputs[filepath.Base(p)] = b
		}
	}
	if len(outputs["report.html"]) == 0 || len(outputs["results.db"]) == 0 {
		t.Fatalf("no report or database written: %v", len(outputs))
	}
	for name, b := range outputs {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds a secret (%d bytes) of the key log or the program's credential", name, len(s))
			}
		}
		if bytes.Contains(b, []byte(capture)) && name != "stderr" {
			t.Errorf("%s names the capture file", name)
		}
	}
	// --pcap-in on the capture: the same explanation.
	var out2, errb2 bytes.Buffer
	if code := Main(ctx, []string{"--db", db, "explain", "--pcap-in", capture, "--json", "--no-save"}, &out2, &errb2); code != 0 {
		t.Fatalf("--pcap-in: exit %d: %s", code, errb2.String())
	}
	var again document.ExplainDocument
	if err := json.Unmarshal(out2.Bytes(), &again); err != nil {
		t.Fatal(err)
	}
	a := again.Explain
	if a.Source != "pcap" || a.Requests != e.Requests || a.Connections != e.Connections || a.TLSHandshakes != e.TLSHandshakes ||
		a.Objects != e.Objects || a.BytesUp != e.BytesUp || a.BytesDown != e.BytesDown || findingIDs(a.Findings) != findingIDs(e.Findings) ||
		a.RTTms < e.RTTms*0.95 || a.RTTms > e.RTTms*1.05 {
		t.Errorf("--pcap-in: %s %d requests, %d connections, %d TLS, %d objects, %d/%d bytes, RTT %.2f ms, findings %q;\nlive: %d, %d, %d, %d, %d/%d, %.2f ms, %q",
			a.Source, a.Requests, a.Connections, a.TLSHandshakes, a.Objects, a.BytesUp, a.BytesDown, a.RTTms, findingIDs(a.Findings),
			e.Requests, e.Connections, e.TLSHandshakes, e.Objects, e.BytesUp, e.BytesDown, e.RTTms, findingIDs(e.Findings))
	}
	// The same capture without its keys, and the key log beside it
	// (--keylog): read with the keys again, the same requests.
	nokeys, keyFile := filepath.Join(dir, "nokeys.pcapng"), filepath.Join(dir, "keys.txt")
	if err := os.WriteFile(keyFile, keys, 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(nokeys, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := wire.NewPcapngWriter(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wire.ReadPcap(bufio.NewReader(src), pw.WritePacket); err != nil {
		t.Fatal(err)
	}
	src.Close()
	if err := errors.Join(pw.Close(), dst.Close()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		read string
	}{{nil, "connection"}, {[]string{"--keylog", keyFile}, "decrypted"}} { // curl speaks HTTP/2 to the lab: without keys, facts only
		var o, eb bytes.Buffer
		if code := Main(ctx, append([]string{"--db", db, "explain", "--pcap-in", nokeys, "--json", "--no-save"}, tc.args...), &o, &eb); code != 0 {
			t.Fatalf("--pcap-in %v: exit %d: %s", tc.args, code, eb.String())
		}
		var k document.ExplainDocument
		if err := json.Unmarshal(o.Bytes(), &k); err != nil {
			t.Fatal(err)
		}
		reads := map[string]int{}
		for _, c := range k.Explain.Conns {
			reads[c.Read]++
		}
		want := e.Requests
		if tc.read == "connection" {
			want = 0
		}
		if reads[tc.read] != k.Explain.Connections || k.Explain.Requests != want {
			t.Errorf("--pcap-in without its keys %v: reads %v, %d requests; want every connection %s, %d requests", tc.args, reads, k.Explain.Requests, tc.read, want)
		}
	}
	// tshark (Debian's, into the project's cache) reads it decrypted.
	ts := os.Getenv("OBJBENCH_TSHARK")
	if ts == "" {
		b, err := exec.Command("../../scripts/tshark").Output()
		if err != nil {
			t.Logf("tshark check skipped: scripts/tshark could not provide one (%v)", err)
			return
		}
		ts = strings.TrimSpace(string(b))
	}
	tsOut, err := exec.Command(ts, "-r", capture, "-Y", "http.request or http2.headers.method", "-T", "fields", "-e", "http.request.method", "-e", "http2.headers.method").Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	n := 0
	for _, line := range strings.Split(string(tsOut), "\n") {
		for _, m := range strings.FieldsFunc(line, func(r rune) bool { return r == '\t' || r == ',' }) {
			if m == "PUT" || m == "GET" {
				n++
			}
		}
	}
	if n != e.Requests {
		t.Errorf("tshark decrypted %d requests from the capture (%q), objbench counted %d", n, tsOut, e.Requests)
	}
}

func findingIDs(fs []document.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, " ")
}
