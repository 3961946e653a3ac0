package explain

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/timeline"
)

// pyTLS is a Python client on ssl with its ciphers set: PUT then GET of
// three objects on one connection (http.client), TLS capped at $TLSMAX.
const pyTLS = `
import http.client, os, ssl, urllib.parse
u = urllib.parse.urlparse(os.environ["AWS_ENDPOINT_URL"])
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
if os.environ.get("TLSMAX") == "1.2":
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_ciphers(os.environ["CIPHERS"])
c = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
for i in range(3):
    c.request("PUT", "/objbench/py-%d" % i, body=b"p" * 2000)
    r = c.getresponse(); r.read(); assert r.status == 200, r.status
for i in range(3):
    c.request("GET", "/objbench/py-%d" % i)
    r = c.getresponse(); b = r.read(); assert len(b) == 2000, len(b)
c.close()
`

// agreement is one program's wire timeline held against the lab's record.
type agreement struct {
	name                      string
	connsWire, connsLab       int
	tlsWire, tlsLab           int
	methodsWire, methodsLab   map[string]int
	fbP50, fbMax              time.Duration
	findingsWire, findingsLab string
	whatIfWorst               float64 // the largest relative what-if difference
	read                      string
}

// TestRealAgreesWithLab runs programs through explain --real at 20 ms to
// a lab on the host's loopback (TLS) and holds the wire's timeline against
// the lab's record of the same run: connections, TLS handshakes and
// requests by method equal, each first byte within 1 ms + 2% of the
// request's time at the server, and the same findings and what-if savings
// (±10%) as explain on the lab gives for the same program.
func TestRealAgreesWithLab(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	r := startRealLab(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, bytes.Repeat([]byte("c"), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(dir, "tls.py")
	if err := os.WriteFile(py, []byte(pyTLS), 0o644); err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(dir, "corpus")
	if out, err := exec.Command("go", "build", "-o", corpus, "./testdata/corpus").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/corpus: %v\n%s", err, out)
	}
	curl := func(opts string) []string {
		args := `curl -sSf -o /dev/null -H "Expect:" ` + opts
		for i := range 3 {
			args += ` -T ` + small + ` "$AWS_ENDPOINT_URL/objbench/curl-` + string(rune('a'+i)) + `"`
		}
		return []string{"sh", "-c", args}
	}
	rtt := 20 * time.Millisecond
	var rows []agreement
	for _, tc := range []struct {
		name   string
		argv   []string
		read   string // how the wire reads its connections
		cipher string // in the suite's name
	}{
		{"curl TLS 1.3", curl(""), "decrypted", "AES_128_GCM"},
		{"curl TLS 1.3 ChaCha20", curl("--tls13-ciphers TLS_CHACHA20_POLY1305_SHA256"), "decrypted", "CHACHA20"},
		{"curl TLS 1.3 AES-256", curl("--tls13-ciphers TLS_AES_256_GCM_SHA384"), "decrypted", "AES_256_GCM"},
		{"curl TLS 1.2 AES-128", curl("--tls-max 1.2 --ciphers ECDHE-ECDSA-AES128-GCM-SHA256"), "decrypted", "AES_128_GCM"},
		{"curl TLS 1.2 AES-256", curl("--tls-max 1.2 --ciphers ECDHE-ECDSA-AES256-GCM-SHA384"), "decrypted", "AES_256_GCM"},
		{"curl TLS 1.2 ChaCha20", curl("--tls-max 1.2 --ciphers ECDHE-ECDSA-CHACHA20-POLY1305"), "decrypted", "CHACHA20"},
		{"python ssl TLS 1.3", []string{"python3", py}, "decrypted", ""},
		{"python ssl TLS 1.2 AES-256", []string{"env", "TLSMAX=1.2", "CIPHERS=ECDHE-ECDSA-AES256-GCM-SHA384", "python3", py}, "decrypted", "AES_256_GCM"},
		{"python ssl TLS 1.2 ChaCha20", []string{"env", "TLSMAX=1.2", "CIPHERS=ECDHE-ECDSA-CHACHA20-POLY1305", "python3", py}, "decrypted", "CHACHA20"},
		// Go writes no key log; HTTP/1.1 (GODEBUG) is inferred from its
		// records, HTTP/2 gives connection facts only.
		{"go corpus sequential (no key log)", []string{"env", "GODEBUG=http2client=0", corpus, "sequential"}, "inferred", ""},
		{"go corpus pooled (no key log)", []string{"env", "GODEBUG=http2client=0", corpus, "pooled"}, "inferred", ""},
		{"go corpus sequential, HTTP/2 (no key log)", []string{corpus, "sequential"}, "connection", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.argv[0] == "python3" || slices.Contains(tc.argv, "python3") {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("no python3")
				}
			}
			a := r.agree(t, tc.name, tc.argv, rtt, tc.read, true)
			rows = append(rows, a)
			if tc.cipher != "" {
				d, _, _ := r.run(t, tc.argv, rtt)
				for _, c := range d.Explain.Conns {
					if !strings.Contains(c.Cipher, tc.cipher) {
						t.Errorf("conn %d cipher %q, want %s", c.ID, c.Cipher, tc.cipher)
					}
				}
			}
		})
	}
	logTable(t, rows)
}

// TestRealLibraries holds explain --real against the lab's record for a
// program of each client library of the corpus (installed by
// scripts/clients install): boto3, google-cloud-storage,
// azure-storage-blob (with Azurite), @aws-sdk/client-s3 (Node's
// --tls-keylog), aws-sdk-go-v2 (no key log) and curl (above).
func TestRealLibraries(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("timing test: runs without -race in scripts/test's timing step")
	}
	cr := newCorpusRunner(t)
	r := startRealLab(t)
	var rows []agreement
	for _, name := range []string{"go pooled", "go head then get", "boto3 thread pool", "boto3 head then get", "gcs thread pool", "gcs client per object",
		"node Promise.all", "node head then get", "azure exists, then download"} {
		// (gcs get_blob, twice, waits on the real path for Google's
		// metadata server, which this sandbox's network never answers.)
		i := slices.IndexFunc(corpusPrograms, func(p corpusProgram) bool { return p.name == name })
		p := corpusPrograms[i]
		t.Run(name, func(t *testing.T) {
			argv, why := cr.argv(p)
			if why == "" && p.lang == "azure" {
				why = "the real path's lab serves S3 and GCS"
			}
			if why != "" {
				t.Skip(why)
			}
			// Counts and findings are held; first bytes and what-if are
			// measured and logged (the table): the libraries' thread
			// pools overlap differently from one run to the next on a
			// busy machine, and the lab's record shares its process.
			rows = append(rows, r.agree(t, name, argv, 20*time.Millisecond, "", false))
		})
	}
	logTable(t, rows)
}

// agree runs argv on the lab (explain) and on the real path to the lab
// (explain --real), and checks the wire against the lab's record and the
// lab's explanation.
func (r *realLab) agree(t *testing.T, name string, argv []string, rtt time.Duration, read string, timing bool) agreement {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	explainLab := func() *document.ExplainDocument {
		var out bytes.Buffer
		d, err := Run(ctx, Config{Lab: lab.Config{APIs: []string{"s3", "gcs"}, TLS: true, Profile: "cross-region", RTT: &rtt, Network: lab.NetworkNetns},
			Argv: argv, Timeout: time.Minute, Stdin: strings.NewReader(""), Output: &out, Prices: analysis.DefaultPrices()})
		if err != nil || d.Explain.ExitCode != 0 {
			t.Fatalf("explain on the lab: %v\n%s", err, out.String())
		}
		return d
	}
	onLab := explainLab()
	d, wire, rec := r.run(t, argv, rtt)
	a := agreement{name: name, read: read, methodsWire: map[string]int{}, methodsLab: map[string]int{}}
	rec = slices.DeleteFunc(rec, func(c timeline.Conn) bool { return len(c.Requests) == 0 && c.BytesIn == 0 })
	a.connsWire, a.connsLab = d.Explain.Connections, len(rec)
	a.tlsWire = d.Explain.TLSHandshakes
	for _, c := range rec {
		if c.TLSVersion != "" {
			a.tlsLab++
		}
		for _, q := range c.Requests {
			a.methodsLab[q.Method]++
		}
	}
	if read == "" && len(wire) > 0 { // the program's library decides
		// HTTP/2 without keys (aws-sdk-go-v2 on a server that offers it)
		// is read for its connection facts only.
		read = wire[0].Read
		if slices.ContainsFunc(wire, func(c timeline.Conn) bool { return c.Read == "connection" }) {
			read = "connection"
		}
		a.read = read
	}
	for _, c := range wire {
		if read == "connection" && len(c.Requests) == 0 {
			continue // an unused connection (Go's HTTP/2 dials race): nothing to read
		}
		if c.Read != read {
			t.Errorf("wire conn %d read %q, want %q", c.ID, c.Read, read)
		}
		for _, q := range c.Requests {
			m := q.Method
			if q.Inferred {
				m = "inferred"
			}
			a.methodsWire[m]++
		}
	}
	if a.connsWire != a.connsLab || a.tlsWire != a.tlsLab {
		t.Errorf("wire: %d connections, %d TLS handshakes; the lab's record: %d, %d", a.connsWire, a.tlsWire, a.connsLab, a.tlsLab)
	}
	if read == "connection" {
		if n := len(a.methodsWire); n != 0 {
			t.Errorf("wire: requests %v on connections read for their facts only", a.methodsWire)
		}
		return a
	}
	if read == "inferred" {
		n := 0
		for _, v := range a.methodsLab {
			n += v
		}
		if a.methodsWire["inferred"] != n {
			t.Errorf("wire: %d inferred requests; the lab's record: %d", a.methodsWire["inferred"], n)
		}
	} else if fmt.Sprint(a.methodsWire) != fmt.Sprint(a.methodsLab) {
		t.Errorf("wire: requests by method %v; the lab's record: %v", a.methodsWire, a.methodsLab)
	}
	// First bytes, request by request (both in accept order, the wire's
	// moved to the server's side).
	var errs []time.Duration
	over, late := 0, 0
	if len(wire) == len(rec) {
		sort.SliceStable(rec, func(i, j int) bool { return rec[i].Accepted.Before(rec[j].Accepted) })
		for i := range rec {
			if len(wire[i].Requests) != len(rec[i].Requests) {
				t.Errorf("conn %d: %d requests on the wire, %d in the record", i+1, len(wire[i].Requests), len(rec[i].Requests))
				continue
			}
			for j, q := range rec[i].Requests {
				w := wire[i].Requests[j]
				fb := q.FirstByte
				if fb.IsZero() { // a handler that wrote nothing: its answer left as it ended
					fb = q.Done
				}
				e := w.FirstByte.Sub(fb).Abs()
				if testing.Verbose() {
					t.Logf("conn %d req %d %s: wire-record arrived %+.2f ms, first byte %+.2f ms, done %+.2f ms; rtt %.2f ms", i+1, j+1, q.Method,
						float64(w.Arrived.Sub(q.Arrived).Microseconds())/1000, float64(w.FirstByte.Sub(fb).Microseconds())/1000,
						float64(w.Done.Sub(q.Done).Microseconds())/1000, d.Explain.RTTms)
				}
				errs = append(errs, e)
				// 1 ms and 2% of the exchange; a packet the machine held
				// (netem's late mark: 2 ms) may add to one in ten.
				tol := time.Millisecond + (fb.Sub(q.Arrived)+rtt)/50
				if e > tol {
					over++
				}
				if e > tol+2*time.Millisecond {
					late++
					t.Logf("conn %d request %d (%s %s): first byte %v from the record's, more than %v and a late packet", i+1, j+1, q.Method, q.Path, e, tol)
				}
			}
		}
	}
	// The lab that records and the path that captures share this process
	// and a busy machine's two cores: a packet it held a few ms (netem's
	// late mark is 2 ms) moves one first byte. The median must be within
	// 1 ms + 2%; beyond it and a late packet, one request in ten.
	report := t.Errorf
	if !timing {
		report = t.Logf
	}
	if 2*over > len(errs) {
		report("%d of %d first bytes more than 1 ms + 2%% from the record's: the median is", over, len(errs))
	}
	if late > max(1, len(errs)/10) {
		report("%d of %d first bytes more than 1 ms + 2%% and a late packet from the record's", late, len(errs))
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		a.fbP50, a.fbMax = errs[len(errs)/2], errs[len(errs)-1]
	}
	a.findingsWire, a.findingsLab = allFindingIDs(d.Explain.Findings), allFindingIDs(onLab.Explain.Findings)
	// The two findings about the program's own time and its SDK's
	// headers are judged on thresholds the start-up's noise crosses
	// (as in TestExplain): compared without them.
	if findingIDs(d.Explain.Findings) != findingIDs(onLab.Explain.Findings) {
		t.Errorf("findings: wire %q, lab %q", a.findingsWire, a.findingsLab)
	}
	worst, disagree := whatIfDisagreement(onLab, d)
	if len(disagree) > 0 && timing {
		// The two are single runs of the program, each on a machine that
		// may stall one of them (a CI runner's lab once took 0.27 s longer
		// than its wire twin, so its rtt-2ms saved 0.618 s against 0.349 s;
		// on a quiet machine the same commit passed 10 runs in 10). One more pair
		// is run, and it is the one judged: a real disagreement repeats.
		t.Logf("%s; the pair is run once more", strings.Join(disagree, "; "))
		d2, _, _ := r.run(t, argv, rtt)
		worst, disagree = whatIfDisagreement(explainLab(), d2)
	}
	a.whatIfWorst = worst
	for _, m := range disagree {
		report("%s", m)
	}
	return a
}

// whatIfDisagreement holds the wire's what-if savings against the lab's
// for the same program: the largest relative difference, and a line for
// each saving apart by more than ±15%, or 20 ms for a small saving (the
// machine's noise between two runs). Of that, 7% is a known offset: on
// Go's sequential corpus with no key log the wire counts 6.5% more of the
// same wall time as storage than the lab's record does (0.402 s against
// 0.377 s of 0.419 and 0.413 s), so parallel-10 saves 0.306 s against
// 0.287 s every run; a late packet on a busy machine added the rest once
// (0.347 against 0.309 s).
func whatIfDisagreement(onLab, wire *document.ExplainDocument) (worst float64, disagree []string) {
	for _, l := range onLab.Explain.WhatIf {
		for _, w := range wire.Explain.WhatIf {
			if w.ID != l.ID {
				continue
			}
			diff := math.Abs(w.SaveS - l.SaveS)
			if math.Abs(l.SaveS) > 0.01 {
				worst = math.Max(worst, diff/math.Abs(l.SaveS))
			}
			if diff > math.Max(0.15*math.Abs(l.SaveS), 0.02) {
				disagree = append(disagree, fmt.Sprintf("what-if %s: wire saves %.3f s, the lab %.3f s", l.ID, w.SaveS, l.SaveS))
			}
		}
	}
	return worst, disagree
}

// logTable logs the closing note's table: per program, both sources side by side.
func logTable(t *testing.T, rows []agreement) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n| program | read | conns wire/lab | TLS wire/lab | requests wire | requests lab | first byte err p50/max | findings wire | findings lab | what-if worst |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, a := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %d/%d | %v | %v | %.2f/%.2f ms | %s | %s | %.1f%% |\n", a.name, a.read, a.connsWire, a.connsLab, a.tlsWire, a.tlsLab,
			a.methodsWire, a.methodsLab, float64(a.fbP50.Microseconds())/1000, float64(a.fbMax.Microseconds())/1000, or(a.findingsWire, "-"), or(a.findingsLab, "-"), 100*a.whatIfWorst)
	}
	t.Log(b.String())
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
