package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/server"
	"github.com/objbench/objbench/internal/usage"
)

// TestLimitSettings: --limit is checked where every lab setting is (a
// usage error naming the field and an example), read into Config.Limit;
// no limit unless asked, on every profile.
func TestLimitSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		limit, want string // want: Config.Limit printed; "" none
		field       bool
	}{
		{limit: "", want: ""},
		{limit: "s3", want: "s3:get=5500/s,put=3500/s,partition=30m"},
		{limit: "s3:get=200/s,scale=60;azure:blob=50/s", want: "s3:get=200/s,put=3500/s,partition=30m,scale=60;azure:account=20000/s,blob=50/s"},
		{limit: "s3:get=lots", field: true},
		{limit: "dropbox", field: true},
	}
	for _, tc := range tests {
		t.Run(tc.limit, func(t *testing.T) {
			t.Parallel()
			s := defaults()
			s.Limit = tc.limit
			cfg, err := s.Config([]string{"s3"}, "")
			if tc.field {
				if !usage.Is(err) || usage.FieldOf(err) != "Limit" || !strings.Contains(err.Error(), "e.g. s3:get=200/s") {
					t.Fatalf("err %v (field %q): want a usage error naming Limit with an example", err, usage.FieldOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Limit.String(); got != tc.want {
				t.Errorf("limit %q, want %q", got, tc.want)
			}
		})
	}
	for _, p := range Profiles() {
		if p.Limit != "" {
			t.Errorf("profile %s limits requests (%s): the defaults stay unlimited", p.Name, p.Limit)
		}
	}
}

// TestLimitFromProfile: a measured profile file may carry a limit (the
// --limit syntax, written by hand); --limit given wins; a bad one is the
// Limit setting's error.
func TestLimitFromProfile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, flag, want string
		field            bool
	}{
		{file: "s3:get=300/s", want: "s3:get=300/s,put=3500/s,partition=30m"},
		{file: "s3:get=300/s", flag: "gcs", want: "gcs:read=5000/s,write=1000/s,ramp=20m"},
		{file: "", want: ""},
		{file: "s3:get=often", field: true},
	} {
		t.Run(tc.file+" "+tc.flag, func(t *testing.T) {
			t.Parallel()
			m := measuredProfile()
			m.Limit = tc.file
			file := filepath.Join(t.TempDir(), "prof.json")
			if err := m.Save(file); err != nil {
				t.Fatal(err)
			}
			s := defaults()
			s.ProfileFile, s.Limit = file, tc.flag
			cfg, err := s.Config(nil, "")
			if tc.field {
				if usage.FieldOf(err) != "Limit" {
					t.Fatalf("err %v, want the Limit setting's", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Limit.String(); got != tc.want {
				t.Errorf("limit %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLimitOnLab: a limited lab answers past its rate with each
// provider's error, counts it, keeps it on the record as a request with
// its status, and says so in its document's lab object.
func TestLimitOnLab(t *testing.T) {
	t.Parallel()
	limits, err := server.ParseLimits("s3:get=0.5/s;gcs:read=0.5/s;azure:account=0.5/s")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Start(context.Background(), Config{APIs: []string{"s3", "gcs", "azure"}, Record: true, Limit: limits})
	if errors.Is(err, ErrNoAzurite) {
		limits = limits[:2]
		l, err = Start(context.Background(), Config{APIs: []string{"s3", "gcs"}, Record: true, Limit: limits})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	paths := map[string]string{"s3": "/" + Bucket + "/p/key", "gcs": "/storage/v1/b/" + Bucket + "/o/key?alt=media", "azure": "/" + Bucket + "/key"}
	status := map[string]int{"s3": 503, "gcs": 429, "azure": 503}
	var throttled int64
	for _, lim := range limits {
		api := lim.API
		var got []int
		for range 3 {
			resp, err := http.Get(strings.TrimSuffix(l.LocalEndpoint(api), "/") + paths[api])
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got = append(got, resp.StatusCode)
		}
		if got[0] == status[api] || got[1] != status[api] || got[2] != status[api] {
			t.Errorf("%s: statuses %v, want one answered, then %d twice", api, got, status[api])
		}
		throttled += 2
		if info := l.Info(api); info.Limit != lim.String() {
			t.Errorf("%s: the document's lab limit %q, want %q", api, info.Limit, lim.String())
		}
		if st := l.Limiter(api).Stats(); len(st) == 0 || st[0].Throttled != 2 || st[0].Admitted != 1 {
			t.Errorf("%s: partitions %+v: want the first refusing two of three", api, st)
		}
	}
	if n := l.Counts.Throttled.Load(); n != throttled {
		t.Errorf("throttled %d, want %d", n, throttled)
	}
	l.Recorder().WaitClosed(time.Second)
	recorded := map[int]int{}
	for _, c := range l.Recorder().Snapshot() {
		for _, r := range c.Requests {
			recorded[r.Status]++
		}
	}
	if recorded[503]+recorded[429] != int(throttled) {
		t.Errorf("the record's statuses %v: want the %d throttled answers among them", recorded, throttled)
	}
	if l2 := startLab(t, Config{}); l2.Info("s3").Limit != "" || l2.Limiter("s3") != nil {
		t.Errorf("an unlimited lab records a limit")
	}
}

// hammer sends GETs to each of urls from workers for d, and returns the
// answers not throttled, as the seconds after start they came back.
func hammer(t *testing.T, urls []string, workers int, d time.Duration) (start time.Time, admitted [][]float64) {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: workers * len(urls)}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	admitted = make([][]float64, len(urls))
	var mu sync.Mutex
	var wg sync.WaitGroup
	start = time.Now()
	end := start.Add(d)
	for i, u := range urls {
		for range workers {
			wg.Go(func() {
				for time.Now().Before(end) {
					resp, err := client.Get(u)
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					at := time.Since(start).Seconds()
					if resp.StatusCode != 503 && resp.StatusCode != 429 && at < d.Seconds() {
						mu.Lock()
						admitted[i] = append(admitted[i], at)
						mu.Unlock()
					}
				}
			})
		}
	}
	wg.Wait()
	return start, admitted
}

func within(times []float64, from, to float64) int {
	n := 0
	for _, at := range times {
		if at >= from && at < to {
			n++
		}
	}
	return n
}

// TestLimitRate: over 2 s against a real lab limited to get=200/s (past
// a first quarter second: its full bucket spent, the connections open),
// one prefix admits 200 a second within ±10%; four prefixes admit 200 a
// second each, 800 together.
func TestLimitRate(t *testing.T) {
	timingTest(t)
	const rate, warm, window = 200.0, 0.25, 2.0
	for _, prefixes := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d prefixes", prefixes), func(t *testing.T) {
			limits, err := server.ParseLimits("s3:get=200/s")
			if err != nil {
				t.Fatal(err)
			}
			l := startLab(t, Config{Limit: limits})
			var urls []string
			for i := range prefixes {
				urls = append(urls, fmt.Sprintf("%s/%s/p%d/key", l.Endpoint("s3"), Bucket, i))
			}
			_, admitted := hammer(t, urls, 4, time.Duration((warm+window)*float64(time.Second)))
			want := rate * window
			total := 0
			for i, a := range admitted {
				n := float64(within(a, warm, warm+window))
				total += int(n)
				if n < want*0.9 || n > want*1.1 {
					t.Errorf("prefix p%d/: %.0f admitted in %gs, want %.0f ±10%%", i, n, window, want)
				}
			}
			t.Logf("get=200/s, %d prefixes: %d admitted in %gs (%.0f/s), want %.0f/s", prefixes, total, window,
				float64(total)/window, float64(prefixes)*rate)
		})
	}
}

// TestLimitGrowth: against a real lab, a prefix (S3) or a bucket (GCS)
// held past its rate doubles it every scaled period, each within ±10%:
// S3's 100, 200, 400 a second; GCS's 50, 100, 200 (fake-gcs-server
// serves fewer requests a second than the S3 store on a busy machine).
func TestLimitGrowth(t *testing.T) {
	timingTest(t)
	const period = 2.0 // seconds: 30m at scale=900, 20m at scale=600
	for _, tc := range []struct {
		api, limit, path string
		base             float64
	}{
		{"s3", "s3:get=100/s,scale=900", "/" + Bucket + "/p/key", 100},
		{"gcs", "gcs:read=50/s,scale=600", "/storage/v1/b/" + Bucket + "/o/key?alt=media", 50},
	} {
		t.Run(tc.api, func(t *testing.T) {
			limits, err := server.ParseLimits(tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			l := startLab(t, Config{APIs: []string{tc.api}, Limit: limits})
			_, admitted := hammer(t, []string{l.Endpoint(tc.api) + tc.path}, 6, 3*period*time.Second)
			// Each period less its first 0.3 s: the doubling comes a
			// moment after the period's start (the first throttle).
			for k, want := range []float64{tc.base, 2 * tc.base, 4 * tc.base} {
				from, to := float64(k)*period+0.3, float64(k+1)*period
				got := float64(within(admitted[0], from, to)) / (to - from)
				t.Logf("%s period %d: %.0f admitted a second, want %.0f", tc.limit, k, got, want)
				if got < want*0.9 || got > want*1.1 {
					t.Errorf("period %d: %.0f admitted a second, want %.0f ±10%%", k, got, want)
				}
			}
			if st := l.Limiter(tc.api).Stats(); len(st) != 1 || st[0].Doublings != 2 {
				t.Errorf("partitions %+v: want one that doubled twice", st)
			}
		})
	}
}

// TestWriteThrottled: at its stop, a limited lab names the partitions
// that pushed back, the hottest first (by name among equals), at most
// maxHotPartitions of them per API, and says when one did not; a lab with
// no limit says nothing.
func TestWriteThrottled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit string
		gets  []string // keys under the S3 bucket, GET in order
		want  string
	}{
		{name: "hottest first", limit: "s3:get=0.5/s;gcs:read=0.5/s",
			gets: []string{"hot/key", "hot/key", "hot/key", "warm/key", "warm/key"},
			want: "objbench lab: s3 read \"objbench/hot/\" throttled 2 of 3 requests\n" +
				"objbench lab: s3 read \"objbench/warm/\" throttled 1 of 2 requests\n" +
				"objbench lab: gcs throttled nothing\n"},
		{name: "beyond the partitions named", limit: "s3:get=0.5/s",
			gets: []string{"p0/k", "p0/k", "p1/k", "p1/k", "p2/k", "p2/k", "p3/k", "p3/k", "p4/k", "p4/k", "p5/k", "p5/k", "p6/k", "p6/k"},
			want: "objbench lab: s3 read \"objbench/p0/\" throttled 1 of 2 requests\n" +
				"objbench lab: s3 read \"objbench/p1/\" throttled 1 of 2 requests\n" +
				"objbench lab: s3 read \"objbench/p2/\" throttled 1 of 2 requests\n" +
				"objbench lab: s3 read \"objbench/p3/\" throttled 1 of 2 requests\n" +
				"objbench lab: s3 read \"objbench/p4/\" throttled 1 of 2 requests\n" +
				"  … and 2 more partitions\n"},
		{name: "no limit", gets: []string{"k", "k"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limits, err := server.ParseLimits(tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			l := startLab(t, Config{APIs: []string{"s3", "gcs"}, Limit: limits})
			for _, key := range tt.gets {
				resp, err := http.Get(l.LocalEndpoint("s3") + "/" + Bucket + "/" + key)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			var out strings.Builder
			l.WriteThrottled(&out)
			if out.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}
