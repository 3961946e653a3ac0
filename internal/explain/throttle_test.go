package explain

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/timeline"
)

// try is one attempt on a fake connection: the time since the connection's
// handshake ended that it waited (the program's own time, a backoff) before
// it left, and the status it got.
type try struct {
	method, path string
	wait         float64 // seconds
	status       int
}

// tryConn is a plain connection (accepted at at seconds) whose attempts
// go one after another, each after its wait, 5 ms at the server; ua is
// its User-Agent.
func tryConn(t0 time.Time, rtt time.Duration, id int, api, ua string, at float64, tries ...try) timeline.Conn {
	ts := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	r := rtt.Seconds()
	c := timeline.Conn{ID: id, API: api, Accepted: ts(at + 1.5*r), ClosedBy: "client"}
	answered := at + 2*r // the connection is ready at the client
	for _, q := range tries {
		arrive := answered + q.wait + r/2
		h := http.Header{"User-Agent": {ua}}
		c.Requests = append(c.Requests, &timeline.Request{Method: q.method, Path: q.path, Proto: "HTTP/1.1", Header: h,
			Arrived: ts(arrive), FirstByte: ts(arrive + 0.005), Done: ts(arrive + 0.005), Status: q.status, BytesIn: 1024})
		answered = arrive + 0.005 + r/2
	}
	c.Closed = ts(answered + r)
	return c
}

// TestThrottleFinding: throttled answers and their retries on fake
// timelines give the throttling finding with the backoff the program
// waited (the gaps before each retry), the hot prefix or bucket, the
// library's own adaptive setting, and a no-throttling scenario that saves
// at least the backoff; a 503 a retry turned into a success is no error.
func TestThrottleFinding(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 20 * time.Millisecond
	const boto = "Boto3/1.44.5 md/Botocore#1.44.5 Python/3.11"
	p := func(k string) string { return "/objbench/hot/" + k }
	for _, tc := range []struct {
		name  string
		conns []timeline.Conn
		// throttled, retried, gave up; backoff (s); the hot scope; errors
		// the error finding must count (0: none).
		throttled, retried, gaveUp int
		backoff                    float64
		hot                        string
		errors                     int
		advice                     string
	}{
		{"retried to success, one connection", []timeline.Conn{tryConn(t0, rtt, 1, "s3", boto, 0,
			try{"PUT", p("k0"), 0, 503}, try{"PUT", p("k0"), 0.3, 200},
			try{"PUT", p("k1"), 0, 503}, try{"PUT", p("k1"), 0.5, 503}, try{"PUT", p("k1"), 0.7, 200},
			try{"PUT", p("k2"), 0, 200})},
			3, 3, 0, 1.5, "objbench/hot/", 0, "retries={'mode': 'adaptive'}"},
		{"gave up after 3 attempts", []timeline.Conn{tryConn(t0, rtt, 1, "s3", "aws-sdk-go-v2/1.47.7", 0,
			try{"PUT", p("k0"), 0, 503}, try{"PUT", p("k0"), 0.4, 503}, try{"PUT", p("k0"), 0.8, 503},
			try{"PUT", p("k1"), 0, 503}, try{"PUT", p("k1"), 0.2, 200})},
			4, 3, 1, 1.4, "objbench/hot/", 3, "aws.RetryModeAdaptive"},
		{"two workers, two prefixes", []timeline.Conn{
			tryConn(t0, rtt, 1, "s3", "aws-sdk-js/3.1169.0", 0,
				try{"PUT", p("a"), 0, 503}, try{"PUT", p("a"), 0.25, 503}, try{"PUT", p("a"), 0.5, 200}, try{"PUT", p("b"), 0, 503}, try{"PUT", p("b"), 0.1, 200}),
			tryConn(t0, rtt, 2, "s3", "aws-sdk-js/3.1169.0", 0.001,
				try{"PUT", "/objbench/cold/x", 0, 503}, try{"PUT", "/objbench/cold/x", 0.05, 200}),
		}, 4, 4, 0, 0.9, "objbench/hot/", 0, "retryMode: 'adaptive'"},
		{"GCS 429, the retry on a new connection", []timeline.Conn{
			tryConn(t0, rtt, 1, "gcs", "gcloud-python/3.17.1", 0, try{"GET", "/storage/v1/b/bkt/o/obj", 0, 429}),
			// Opened 0.6 s after the answer reached the client (at 0.065 s):
			// its set-up is not backoff.
			tryConn(t0, rtt, 2, "gcs", "gcloud-python/3.17.1", 0.665, try{"GET", "/storage/v1/b/bkt/o/obj", 0, 200}),
		}, 1, 1, 0, 0.6, "bkt", 0, "no adaptive mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, fs := explainFake(t, t0, rtt, tc.conns...)
			f := findingByID(fs, "explain-throttled")
			if f.ID == "" {
				t.Fatalf("no throttling finding: %v", fs)
			}
			ev := f.Evidence
			if int(ev["throttled"]) != tc.throttled || int(ev["retried"]) != tc.retried || int(ev["gave_up"]) != tc.gaveUp {
				t.Errorf("throttled %v, retried %v, gave up %v; want %d, %d, %d", ev["throttled"], ev["retried"], ev["gave_up"], tc.throttled, tc.retried, tc.gaveUp)
			}
			if math.Abs(ev["backoff_s"]-tc.backoff) > 0.002 {
				t.Errorf("backoff %.4f s, want %.3f s", ev["backoff_s"], tc.backoff)
			}
			if ev["backoff_wall_s"] > ev["backoff_s"]+1e-9 || ev["backoff_wall_s"] <= 0 {
				t.Errorf("backoff wall time %.4f s: want in (0, the summed backoff %.4f s]", ev["backoff_wall_s"], ev["backoff_s"])
			}
			if !strings.Contains(f.Text, "hot "+scopeWord(e.Conns[0].API)+" is "+tc.hot+":") && !strings.Contains(f.Text, "is "+tc.hot+".") {
				t.Errorf("the finding does not name %s as hot: %s", tc.hot, f.Text)
			}
			if !strings.Contains(f.Text, tc.advice) {
				t.Errorf("the finding does not give the library's setting %q: %s", tc.advice, f.Text)
			}
			if len(f.Requests) != tc.throttled {
				t.Errorf("the finding names %d requests, want the %d throttled", len(f.Requests), tc.throttled)
			}
			// The saving: at least the backoff on the critical path, as the
			// no-throttling scenario says.
			s, ok := scenario(WhatIf(e), "no-throttling")
			if !ok || math.Abs(s.SaveS-ev["save_s"]) > 1e-9 {
				t.Errorf("scenario no-throttling %+v (found %v): want the finding's saving %.3f s", s, ok, ev["save_s"])
			}
			if ev["save_s"] < ev["backoff_wall_s"]-0.01 || ev["save_s"] > e.WallS {
				t.Errorf("saving %.3f s: want at least the time spent waiting to retry (%.3f s), at most the wall time %.3f s",
					ev["save_s"], ev["backoff_wall_s"], e.WallS)
			}
			checkModel(t, e)
			errs := findingByID(fs, "explain-errors")
			if got := int(errs.Evidence["errors"]); got != tc.errors {
				t.Errorf("the error finding counts %d errors (%s), want %d: a throttled request retried to a success is no error", got, errs.Text, tc.errors)
			}
		})
	}
}

// TestThrottleNone: a timeline with no throttled answer, and one with a
// 500 (not throttling), get no throttling finding and no scenario.
func TestThrottleNone(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 20 * time.Millisecond
	e, fs := explainFake(t, t0, rtt, tryConn(t0, rtt, 1, "s3", "", 0,
		try{"PUT", "/objbench/k", 0, 500}, try{"PUT", "/objbench/k", 0.2, 200}))
	if f := findingByID(fs, "explain-throttled"); f.ID != "" {
		t.Errorf("a throttling finding without throttled answers: %s", f.Text)
	}
	if _, ok := scenario(WhatIf(e), "no-throttling"); ok {
		t.Error("a no-throttling scenario without throttled answers")
	}
	if f := findingByID(fs, "explain-errors"); f.Evidence["errors"] != 1 {
		t.Errorf("the 500 is an error: got %v", f.Evidence)
	}
}

// TestThrottleReplacedConn: the SDK closes a connection after a throttled
// answer and its pool opens another for the retry while a third sits
// idle: one pool, not two clients (no idle-connections finding) and no
// client per object.
func TestThrottleReplacedConn(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 20 * time.Millisecond
	const ua = "Boto3/1.44.5"
	p := func(k string) string { return "/objbench/hot/" + k }
	// conn 1: k0 throttled, closed by the client; conn 2: k1, then idle,
	// then k2 after the retry; conn 3: opened 0.3 s after conn 1's
	// answer for k0's retry.
	closed := tryConn(t0, rtt, 1, "s3", ua, 0, try{"PUT", p("k0"), 0, 503})
	idle := tryConn(t0, rtt, 2, "s3", ua, 0.001, try{"PUT", p("k1"), 0, 200}, try{"PUT", p("k2"), 0.6, 200})
	retry := tryConn(t0, rtt, 3, "s3", ua, 0.365, try{"PUT", p("k0"), 0, 200})
	_, fs := explainFake(t, t0, rtt, closed, idle, retry)
	for _, id := range []string{"explain-idle-conns", "explain-client-per-object", "explain-errors"} {
		if f := findingByID(fs, id); f.ID != "" {
			t.Errorf("%s on a pool that replaced a connection closed after a throttled answer: %s", id, f.Text)
		}
	}
	if f := findingByID(fs, "explain-throttled"); f.Evidence["retried"] != 1 {
		t.Errorf("throttling finding %+v, want the one retry", f.Evidence)
	}
}

// TestNotStorageLeavesBackoff: a program whose time away from storage is
// its SDK's backoff before retrying a throttled request is not told that
// its own work took that time (explain-throttled says it); the same gap
// between two requests that were not throttled is the program's own.
func TestNotStorageLeavesBackoff(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	rtt := 20 * time.Millisecond
	const boto = "Boto3/1.44.5 md/Botocore#1.44.5 Python/3.11"
	for _, tc := range []struct {
		name       string
		first      int
		notStorage bool
	}{
		{"a 3 s backoff after a 503", 503, false},
		{"3 s of the program's own work", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fs := explainFake(t, t0, rtt, tryConn(t0, rtt, 1, "s3", boto, 0,
				try{"PUT", "/objbench/k0", 0, tc.first}, try{"PUT", "/objbench/k0", 3, 200}))
			f := findingByID(fs, "explain-not-storage")
			if (f.ID != "") != tc.notStorage {
				t.Errorf("explain-not-storage %q; want it %v", f.Text, tc.notStorage)
			}
			if th := findingByID(fs, "explain-throttled"); (th.ID != "") == tc.notStorage {
				t.Errorf("explain-throttled %q; want it %v", th.Text, !tc.notStorage)
			}
		})
	}
}
