package server

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{in: "s3", want: "s3:get=5500/s,put=3500/s,partition=30m"},
		{in: "S3:get=200/s", want: "s3:get=200/s,put=3500/s,partition=30m"},
		{in: "s3:get=5500/s,put=3500/s", want: "s3:get=5500/s,put=3500/s,partition=30m"},
		{in: "s3:get=200,put=off,partition=off,scale=60", want: "s3:get=200/s,put=off,partition=off,scale=60"},
		{in: "s3:read=12000/min,write=0,prefix=1", want: "s3:get=200/s,put=off,partition=30m,prefix=1"},
		{in: "s3:partition=90s", want: "s3:get=5500/s,put=3500/s,partition=1m30s"},
		{in: "s3:prefix=bucket,partition=off", want: "s3:get=5500/s,put=3500/s,partition=off,prefix=bucket"},
		{in: "gcs", want: "gcs:read=5000/s,write=1000/s,ramp=20m"},
		{in: "gcs:read=5000/s,write=1000/s,ramp", want: "gcs:read=5000/s,write=1000/s,ramp=20m"},
		{in: "gcs:get=100/s,put=10/s,ramp=off", want: "gcs:read=100/s,write=10/s,ramp=off"},
		{in: "gcs:ramp=1h,scale=600", want: "gcs:read=5000/s,write=1000/s,ramp=1h,scale=600"},
		{in: "azure", want: "azure:account=20000/s,blob=500/s"},
		{in: "azure:account=2000/s,blob=50/s,scale=10", want: "azure:account=2000/s,blob=50/s,scale=10"},
		{in: "ftp", err: `unknown API "ftp"`},
		{in: "s3:get=fast", err: "get=fast: use a number"},
		{in: "s3:get=-1/s", err: "use a number"},
		{in: "s3:get=200/h", err: "per second or minute"},
		{in: "s3:get", err: "get needs a rate"},
		{in: "s3:ramp", err: `unknown setting "ramp" for s3`},
		{in: "gcs:partition=off", err: `unknown setting "partition" for gcs`},
		{in: "azure:get=1", err: "use account, blob or scale"},
		{in: "s3:scale=0.5", err: "scale"},
		{in: "s3:partition=forever", err: "partition=forever"},
		{in: "s3:prefix=deep", err: "prefix=deep"},
		{in: "s3:get=0.001/s", err: "from 0.01/s"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			l, err := ParseLimit(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := l.String(); got != tc.want {
				t.Fatalf("%q reads as %q, want %q", tc.in, got, tc.want)
			}
			again, err := ParseLimit(l.String())
			if err != nil || again != l {
				t.Errorf("String does not read back: %+v, %v; want %+v", again, err, l)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	t.Parallel()
	ls, err := ParseLimits(" s3:get=200/s ; gcs ")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls.For("s3").Read != 200 || ls.For("gcs").Write != GCSWrite || ls.For("azure") != nil {
		t.Errorf("limits %v", ls)
	}
	if got := ls.String(); got != "s3:get=200/s,put=3500/s,partition=30m;gcs:read=5000/s,write=1000/s,ramp=20m" {
		t.Errorf("String %q", got)
	}
	if ls, err := ParseLimits(""); err != nil || ls != nil {
		t.Errorf(`"" is %v, %v; want none`, ls, err)
	}
	if _, err := ParseLimits("s3;s3:get=1"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a repeated API: %v", err)
	}
}

func TestCutPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key   string
		depth int
		want  string
	}{
		{"photos/2024/a.jpg", 0, "photos/2024/"},
		{"photos/2024/a.jpg", 1, "photos/"},
		{"photos/2024/a.jpg", 2, "photos/2024/"},
		{"photos/2024/a.jpg", 5, "photos/2024/"},
		{"a.jpg", 0, ""},
		{"a.jpg", 1, ""},
		{"", 0, ""},
		{"objbench/run-1/obj-000001", 0, "objbench/run-1/"},
		{"dir/", 0, "dir/"},
		{"photos/2024/a.jpg", DepthBucket, ""},
	} {
		if got := CutPrefix(tc.key, tc.depth); got != tc.want {
			t.Errorf("CutPrefix(%q, %d) = %q, want %q", tc.key, tc.depth, got, tc.want)
		}
	}
}

// fakeClock is a clock tests move by hand: the model's rates without a
// timer's jitter.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func request(method, url string) *http.Request {
	return httptest.NewRequest(method, url, nil)
}

// offer sends rate requests a second to each of urls for d on the fake
// clock (evenly spaced, round robin) and counts those admitted per URL.
func offer(lm *Limiter, c *fakeClock, method string, urls []string, rate float64, d time.Duration) []int {
	got := make([]int, len(urls))
	step := time.Duration(float64(time.Second) / rate)
	for i := 0; time.Duration(i)*step < d; i++ {
		if ok, _ := lm.Admit(request(method, urls[i%len(urls)])); ok {
			got[i%len(urls)]++
		}
		c.advance(step)
	}
	return got
}

// TestLimiterModel holds the model on a clock moved by hand: the rate a
// partition admits over a window, partitions that do not share, the
// classes apart, and growth after the scaled sustained period.
func TestLimiterModel(t *testing.T) {
	t.Parallel()
	s3urls := func(keys ...string) []string {
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = "/objbench/" + k
		}
		return out
	}
	tests := []struct {
		name   string
		limit  string
		method string
		urls   []string
		offer  float64       // requests a second, over all urls
		d      time.Duration // offered for
		want   float64       // admitted a second, each url (past the first full bucket)
	}{
		{"one prefix at get=200/s", "s3:get=200/s", "GET", s3urls("p/a", "p/b", "p/c"), 1000, 2 * time.Second, 200.0 / 3},
		{"four prefixes get 4x", "s3:get=200/s", "GET", s3urls("p0/a", "p1/a", "p2/a", "p3/a"), 2000, 2 * time.Second, 200},
		{"HEAD reads", "s3:get=200/s,put=off", "HEAD", s3urls("p/a"), 1000, 2 * time.Second, 200},
		{"PUT writes", "s3:get=off,put=100/s", "PUT", s3urls("p/a"), 1000, 2 * time.Second, 100},
		{"DELETE writes", "s3:put=100/s", "DELETE", s3urls("p/a"), 1000, 2 * time.Second, 100},
		{"POST writes", "s3:put=100/s", "POST", s3urls("p/a?uploads"), 1000, 2 * time.Second, 100},
		{"reads unlimited", "s3:get=off,put=10/s", "GET", s3urls("p/a"), 1000, time.Second, 1000},
		{"the lab's ping unlimited", "s3:get=10/s", "GET", []string{PingPath}, 1000, time.Second, 1000},
		{"under the rate", "s3:get=200/s", "GET", s3urls("p/a"), 150, 2 * time.Second, 150},
		{"prefix=1 joins folders", "s3:get=200/s,prefix=1", "GET", s3urls("p/0/a", "p/1/a"), 1000, 2 * time.Second, 100},
		{"prefix=bucket joins all", "s3:get=200/s,prefix=bucket", "GET", s3urls("p/a", "q/a", "r/s/a", "a"), 1000, 2 * time.Second, 50},
		{"a list counts against its prefix", "s3:get=200/s", "GET", []string{"/objbench?list-type=2&prefix=p/", "/objbench/p/a"}, 1000, 2 * time.Second, 100},
		{"GCS resumable sessions count against the lab's bucket", "gcs:write=100/s,ramp=off", "PUT",
			[]string{"/upload/resumable/abc", "/upload/resumable/def", "/upload/storage/v1/b/" + Bucket + "/o?uploadType=resumable&upload_id=x"}, 1000, 2 * time.Second, 100.0 / 3},
		{"GCS per bucket", "gcs:read=300/s,ramp=off", "GET",
			[]string{"/storage/v1/b/objbench/o/a?alt=media", "/download/storage/v1/b/objbench/o/b?alt=media", "/objbench/c"}, 1000, 2 * time.Second, 100},
		{"GCS buckets apart", "gcs:write=50/s,ramp=off", "POST",
			[]string{"/upload/storage/v1/b/one/o?uploadType=media&name=a", "/upload/storage/v1/b/two/o?uploadType=media&name=a"}, 1000, 2 * time.Second, 50},
		{"Azure per account", "azure:account=300/s,blob=off", "GET",
			[]string{"/devstoreaccount1/objbench/a", "/devstoreaccount1/objbench/b", "/devstoreaccount1/objbench?restype=container&comp=list"}, 1000, 2 * time.Second, 100},
		{"Azure per blob", "azure:account=off,blob=50/s", "PUT",
			[]string{"/devstoreaccount1/objbench/a", "/devstoreaccount1/objbench/b"}, 1000, 2 * time.Second, 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim, err := ParseLimit(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			c := &fakeClock{t: time.Unix(1e9, 0)}
			lm := NewLimiter(lim, c.now)
			offer(lm, c, tc.method, tc.urls, tc.offer, 200*time.Millisecond) // the full buckets spent
			got := offer(lm, c, tc.method, tc.urls, tc.offer, tc.d)
			for i, n := range got {
				rate := float64(n) / tc.d.Seconds()
				if rate < tc.want*0.98 || rate > tc.want*1.02+1 {
					t.Errorf("%s: %.1f admitted a second, want %.1f", tc.urls[i], rate, tc.want)
				}
			}
		})
	}
}

// TestLimiterGrowth: a partition throttled without a pause doubles its
// rate every (scaled) period, S3's per prefix and GCS's per bucket; one
// that pauses for a window starts its period over; partition=off never
// grows.
func TestLimiterGrowth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, limit, url string
		pause            bool      // a quiet window halfway through each period
		want             []float64 // admitted a second, period by period
	}{
		{"S3 splits a hot prefix", "s3:get=100/s,partition=30m,scale=900", "/objbench/p/a", false, []float64{100, 200, 400}},
		{"GCS ramps per 20 minutes", "gcs:read=100/s,scale=600", "/storage/v1/b/objbench/o/a?alt=media", false, []float64{100, 200, 400}},
		{"no growth", "s3:get=100/s,partition=off,scale=900", "/objbench/p/a", false, []float64{100, 100, 100}},
		{"a pause starts over", "gcs:read=100/s,scale=600", "/objbench/a", true, []float64{100, 100, 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim, err := ParseLimit(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			period := 2 * time.Second // 30m/900, 20m/600
			c := &fakeClock{t: time.Unix(1e9, 0)}
			lm := NewLimiter(lim, c.now)
			for i, want := range tc.want {
				var n int
				if tc.pause {
					n = offer(lm, c, "GET", []string{tc.url}, 2000, period/2)[0]
					c.advance(period / 5) // two windows of period/10 without a request
					n += offer(lm, c, "GET", []string{tc.url}, 2000, period/2-period/5)[0]
				} else {
					n = offer(lm, c, "GET", []string{tc.url}, 2000, period)[0]
				}
				busy, refill := period, 0.0
				if tc.pause {
					busy -= period / 5
					refill = capacity(want) // the bucket filled again during the pause
				}
				rate := (float64(n) - refill) / busy.Seconds()
				if rate < want*0.95 || rate > want*1.1 {
					t.Errorf("period %d: %.1f admitted a second, want %.0f", i, rate, want)
				}
			}
			st := lm.Stats()
			if len(st) != 1 || st[0].Throttled == 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestThrottleAnswers: each API's refusal is its provider's, on a real
// lab server on loopback: status, code, body and headers, no
// Retry-After; the request never reaches the store; the count and the
// limiter's record say so.
func TestThrottleAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api, limit, method, path string
		status                   int
		check                    func(t *testing.T, resp *http.Response, body []byte)
	}{
		{"s3", "s3:get=1/s", "GET", "/" + Bucket + "/p/key", 503, func(t *testing.T, resp *http.Response, body []byte) {
			var e struct{ Code, Message, RequestId string }
			if err := xml.Unmarshal(body, &e); err != nil || e.Code != "SlowDown" || e.Message != "Please reduce your request rate." || e.RequestId == "" {
				t.Errorf("body %q: %+v, %v", body, e, err)
			}
			if resp.Header.Get("x-amz-request-id") != e.RequestId {
				t.Errorf("x-amz-request-id %q, body's %q", resp.Header.Get("x-amz-request-id"), e.RequestId)
			}
		}},
		{"s3", "s3:put=1/s", "PUT", "/" + Bucket + "/p/key", 503, nil},
		{"gcs", "gcs:read=1/s", "GET", "/storage/v1/b/" + Bucket + "/o/key?alt=media", 429, func(t *testing.T, resp *http.Response, body []byte) {
			var e struct {
				Error struct {
					Code    int
					Message string
					Errors  []struct{ Domain, Reason, Message string }
				}
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != 429 || len(e.Error.Errors) != 1 ||
				e.Error.Errors[0].Reason != "rateLimitExceeded" || e.Error.Errors[0].Domain != "usageLimits" || !strings.Contains(e.Error.Message, Bucket) {
				t.Errorf("body %q: %+v, %v", body, e, err)
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
		}},
		{"azure", "azure:account=1/s,blob=off", "GET", "/devstoreaccount1/" + Bucket + "/key", 503, func(t *testing.T, resp *http.Response, body []byte) {
			var e struct{ Code, Message string }
			if err := xml.Unmarshal([]byte(strings.TrimPrefix(string(body), "\ufeff")), &e); err != nil || e.Code != "ServerBusy" ||
				!strings.HasPrefix(e.Message, "Operations per second is over the account limit.") {
				t.Errorf("body %q: %+v, %v", body, e, err)
			}
			if resp.Header.Get("x-ms-error-code") != "ServerBusy" || resp.Header.Get("x-ms-request-id") == "" {
				t.Errorf("headers %v", resp.Header)
			}
		}},
		{"azure", "azure:account=off,blob=1/s", "PUT", "/devstoreaccount1/" + Bucket + "/key", 503, func(t *testing.T, resp *http.Response, body []byte) {
			if !strings.Contains(string(body), "<Code>ServerBusy</Code><Message>The server is currently unable to receive requests.") {
				t.Errorf("body %q", body)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.limit+" "+tc.method, func(t *testing.T) {
			t.Parallel()
			lim, err := ParseLimit(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var reached atomic.Int64
			var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached.Add(1)
				w.WriteHeader(http.StatusNoContent)
			})
			if tc.api == "s3" { // the embedded store itself
				s3, err := S3Handler("")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s3.(io.Closer).Close() })
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1); s3.ServeHTTP(w, r) })
			}
			var counts FaultCounts
			stop := make(chan struct{})
			t.Cleanup(func() { close(stop) })
			// A clock that stands still: one token, then none.
			lm := NewLimiter(lim, func() time.Time { return time.Unix(1e9, 0) })
			b := &Behaviour{API: tc.api, Counts: &counts, Stop: stop, Limiter: lm}
			srv := httptest.NewServer(b.Wrap(h))
			t.Cleanup(srv.Close)
			var statuses []int
			for range 3 {
				req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader("x"))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				statuses = append(statuses, resp.StatusCode)
				if resp.StatusCode != tc.status {
					continue
				}
				if v, ok := resp.Header["Retry-After"]; ok {
					t.Errorf("Retry-After %q: the provider sends none", v)
				}
				if tc.check != nil {
					tc.check(t, resp, body)
				}
			}
			if statuses[0] == tc.status || statuses[1] != tc.status || statuses[2] != tc.status {
				t.Errorf("statuses %v: want one admitted, then %d twice", statuses, tc.status)
			}
			if reached.Load() != 1 || counts.Throttled.Load() != 2 || counts.Requests.Load() != 3 {
				t.Errorf("reached the store %d times, throttled %d of %d; want 1, 2 of 3", reached.Load(), counts.Throttled.Load(), counts.Requests.Load())
			}
			st := lm.Stats()
			if len(st) == 0 || st[0].Admitted != 1 || st[0].Throttled != 2 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func ExampleParseLimit() {
	l, _ := ParseLimit("s3:get=200/s,scale=60")
	fmt.Println(l)
	// Output: s3:get=200/s,put=3500/s,partition=30m,scale=60
}

// TestLimiterForgets: partitions seen once are forgotten past maxParts,
// once their buckets are full again (a key per prefix does not grow the
// limiter without bound); a partition still throttling is kept.
func TestLimiterForgets(t *testing.T) {
	t.Parallel()
	lim, err := ParseLimit("s3:get=10/s,partition=off")
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1e9, 0)}
	lm := NewLimiter(lim, c.now)
	hot := request("GET", "/objbench/hot/a")
	for i := range maxParts + 5000 {
		lm.Admit(request("GET", fmt.Sprintf("/objbench/p%d/a", i)))
		lm.Admit(hot)
		c.advance(time.Millisecond)
	}
	st := lm.Stats()
	if len(st) >= maxParts {
		t.Fatalf("%d partitions kept, want fewer than %d", len(st), maxParts)
	}
	found := false
	for _, p := range st {
		found = found || p.Name == "objbench/hot/" && p.Throttled > 0
	}
	if !found {
		t.Error("the hot partition was forgotten")
	}
}

// TestLimiterHot: Hot lists only the partitions that refused requests,
// the most refusals first.
func TestLimiterHot(t *testing.T) {
	t.Parallel()
	lim, err := ParseLimit("s3:get=1/s,partition=off")
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{t: time.Unix(1e9, 0)}
	lm := NewLimiter(lim, c.now)
	for prefix, n := range map[string]int{"cold": 1, "warm": 3, "hot": 6} {
		for range n {
			lm.Admit(request("GET", "/objbench/"+prefix+"/a"))
		}
	}
	var got []string
	for _, p := range lm.Hot() {
		got = append(got, fmt.Sprintf("%s:%d", p.Name, p.Throttled))
	}
	if want := []string{"objbench/hot/:5", "objbench/warm/:2"}; !slices.Equal(got, want) {
		t.Errorf("Hot %v, want %v (cold refused nothing)", got, want)
	}
}
