package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/target"
)

func TestPeerName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		endpoint string
		target   storage.Target
		region   string
		want     string
	}{
		{"http://127.0.0.1:9000", storage.Target{Scheme: "s3", Bucket: "b"}, "eu-west-1", "127.0.0.1"},
		{"https://minio.example:9000/path", storage.Target{Scheme: "s3", Bucket: "b"}, "", "minio.example"},
		{"", storage.Target{Scheme: "s3", Bucket: "b"}, "eu-west-1", "b.s3.eu-west-1.amazonaws.com"},
		{"", storage.Target{Scheme: "s3", Bucket: "b"}, "", "b.s3.us-east-1.amazonaws.com"},
		{"", storage.Target{Scheme: "gs", Bucket: "b"}, "", "storage.googleapis.com"},
		{"", storage.Target{Scheme: "az", Account: "acct", Bucket: "c"}, "", "acct.blob.core.windows.net"},
		{"", storage.Target{Scheme: "mem", Bucket: "b"}, "", ""},
	}
	for _, tt := range tests {
		if got := PeerName(tt.endpoint, tt.target, tt.region); got != tt.want {
			t.Errorf("PeerName(%q, %+v, %q) = %q, want %q", tt.endpoint, tt.target, tt.region, got, tt.want)
		}
	}
}

func TestRequestApply(t *testing.T) {
	t.Parallel()
	def := Options{Count: 50, Pool: 10, Size: 1024}
	tests := []struct {
		body    string
		want    Options
		wantErr string
	}{
		{`{}`, def, ""},
		{`{"count": 5, "size": "2KiB", "prepare": true}`, Options{Count: 5, Pool: 10, Size: 2048, Prepare: true}, ""},
		{`{"size": 7}`, Options{Count: 50, Pool: 10, Size: 7}, ""},
		{`{"size": "big"}`, def, "size"},
		{`{"size": true}`, def, "size"},
		{`{"count": -1}`, def, "positive"},
		{`{"count": 1000000}`, def, "count"},
	}
	for _, tt := range tests {
		var req Request
		if err := json.Unmarshal([]byte(tt.body), &req); err != nil {
			t.Fatal(err)
		}
		got, err := req.Apply(def)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err %v, want %q", tt.body, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Count != tt.want.Count || got.Pool != tt.want.Pool || got.Size != tt.want.Size || got.Prepare != tt.want.Prepare {
			t.Errorf("%s: %+v %v, want %+v", tt.body, got, err, tt.want)
		}
	}
}

// memProber probes one in-memory bucket, saving into rows.
func memProber(t *testing.T, rows *[]results.Run) *Prober {
	t.Helper()
	ctx := context.Background()
	env, err := target.Open(ctx, target.Config{URL: "mem://probe-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), Timeout: 5 * time.Second, Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	p := &Prober{Keep: 3, Store: func(r results.Run, steps []results.Step, seq stats.KeptSeq) {
		if kept := slices.Collect(seq); len(steps) != 1 || len(kept) != 3 {
			t.Errorf("stored %d steps and %d samples, want 1 and 3 (Keep)", len(steps), len(kept))
		}
		*rows = append(*rows, r)
	}}
	if err := p.Add(ctx, env, "pooled"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func TestProberRoundAndFind(t *testing.T) {
	t.Parallel()
	var rows []results.Run
	p := memProber(t, &rows)
	url := p.Targets[0].Info.URL
	if got, err := p.Find(url + "/"); err != nil || len(got) != 1 {
		t.Fatalf("Find with a trailing slash: %v, %v", got, err)
	}
	if _, err := p.Find("s3://elsewhere"); err == nil || !strings.Contains(err.Error(), url) {
		t.Fatalf("Find of an unknown target: %v, want the known ones listed", err)
	}
	docs, rounds, err := p.Round(context.Background(), p.Targets, Options{Count: 5, Pool: 2, Size: 10, Prepare: true})
	if err != nil || len(docs) != 1 || len(rounds) != 1 {
		t.Fatalf("round: %d docs, %v", len(docs), err)
	}
	d := docs[0]
	if d.Command != "probe" || d.Probe == nil || d.Probe.SeqLast != 4 || d.Results[0].Count != 5 || d.Options["pool"] != "2" {
		t.Errorf("document %+v %+v", d.Envelope, d.Probe)
	}
	if len(rows) != 1 || rows[0].ID != d.RunID || rows[0].Command != "probe" {
		t.Errorf("stored %+v, want the round's run", rows)
	}
}

func TestServer(t *testing.T) {
	t.Parallel()
	var rows []results.Run
	p := memProber(t, &rows)
	s := &Server{P: p, Defaults: Options{Count: 3, Pool: 2, Size: 10, Prepare: true}, Token: "secret", Metrics: http.NotFoundHandler()}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	post := func(auth, body string) *http.Response {
		req, _ := http.NewRequest("POST", ts.URL+"/probe", strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, tt := range []struct {
		auth, body string
		status     int
	}{
		{"", "", http.StatusUnauthorized},
		{"wrong", "", http.StatusUnauthorized},
		{"secret", `{"nope": 1}`, http.StatusBadRequest},
		{"secret", `{"target": "s3://other"}`, http.StatusBadRequest},
		{"secret", `{"count": 4}`, http.StatusOK},
	} {
		if got := post(tt.auth, tt.body).StatusCode; got != tt.status {
			t.Errorf("POST /probe auth %q body %q: %d, want %d", tt.auth, tt.body, got, tt.status)
		}
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Rounds int64 `json:"rounds"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || h.Rounds != 1 {
		t.Errorf("healthz rounds %d (%v), want 1", h.Rounds, err)
	}
}
