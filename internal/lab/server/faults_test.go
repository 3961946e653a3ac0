package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 1024)
	tests := []struct {
		fault string
		check func(t *testing.T, resp *http.Response, err error)
	}{
		{"slowdown=100%", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 503 {
				t.Errorf("slowdown: %v %v", resp, err)
			}
		}},
		{"reset=100%", func(t *testing.T, resp *http.Response, err error) {
			if err == nil {
				t.Errorf("reset: got a response %d", resp.StatusCode)
			}
		}},
		{"timeout=100%", func(t *testing.T, resp *http.Response, err error) {
			if err == nil {
				t.Errorf("timeout: got a response %d", resp.StatusCode)
			}
		}},
		{"stall=100%", func(t *testing.T, resp *http.Response, err error) {
			if err != nil {
				t.Fatalf("stall: no headers: %v", err)
			}
			b, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			if rerr == nil || len(b) != 512 {
				t.Errorf("stall: read %d bytes, err %v; want half of 1024 and an error", len(b), rerr)
			}
		}},
		{"corrupt=100%", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("corrupt: %v %v", resp, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			diff := 0
			for i := range b {
				if i < len(body) && b[i] != body[i] {
					diff++
				}
			}
			if len(b) != len(body) || diff != 1 {
				t.Errorf("corrupt: %d bytes, %d differ; want %d and one", len(b), diff, len(body))
			}
		}},
		{"", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("no fault: %v %v", resp, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != body {
				t.Errorf("no fault: body %d bytes", len(b))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFaults(tc.fault)
			if err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			var counts FaultCounts
			b := &Behaviour{API: "s3", Faults: f, Counts: &counts, Stop: stop}
			srv := httptest.NewServer(b.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "1024")
				_, _ = io.WriteString(w, body)
			})))
			defer srv.Close()
			defer close(stop)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
			resp, err := http.DefaultTransport.RoundTrip(req)
			tc.check(t, resp, err)
			if counts.Requests.Load() != 1 {
				t.Errorf("%d requests counted", counts.Requests.Load())
			}
		})
	}
}

func TestParseFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Faults
		bad  bool
	}{
		{"reset=2%,timeout=1%,slowdown=5%,stall=1%", Faults{Reset: 0.02, Timeout: 0.01, Slowdown: 0.05, Stall: 0.01}, false},
		{"pause=1s/10s", Faults{Pause: time.Second, PauseEvery: 10 * time.Second}, false},
		{"pause=1s", Faults{}, true},
		{"pause=10s/1s", Faults{}, true},
		{"", Faults{}, false},
		{"reset=2", Faults{Reset: 0.02}, false},
		{"reset=60%,stall=50%", Faults{}, true},
		{"boom=1%", Faults{}, true},
		{"reset", Faults{}, true},
		{"reset=-1%", Faults{}, true},
	}
	for _, tc := range tests {
		got, err := ParseFaults(tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("ParseFaults(%q) = %+v, %v", tc.in, got, err)
		}
	}
}
