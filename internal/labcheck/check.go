// Package labcheck measures the lab from above, as a program sees it:
// through objbench's own client and each provider's SDK, against the link
// model's round trips (objbench lab check). It is the one part of the lab
// that imports load, storage and nettrace.
package labcheck

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
)

// lateMeter counts the packets the lab's wire delivers late from now on:
// the emulated network's or, on the netns path, the pipe's; none on the
// direct path.
func (l checker) lateMeter() *netem.LateMeter {
	_, stats := l.Wire()
	return netem.NewLateMeter(stats)
}

// wireConfig is the emulated wire's configuration.
func (l checker) wireConfig() netem.Config {
	c, _ := l.Wire()
	return c
}

// checker measures one lab.
type checker struct{ *lab.Lab }

// Options tune Check.
type Options struct {
	// Samples per case; the median is compared. Default 5.
	Samples int
	// Tolerance is the allowed relative error; default 0.15.
	Tolerance float64
	// Slack is the allowed absolute error, for phases near zero; default 2 ms.
	Slack time.Duration
	// BandwidthSize is the object size for the bandwidth case; default
	// about one second's worth, between 1 and 32 MiB; -1 skips it.
	BandwidthSize int64
	// Open, when set, opens each provider's own client: every served API
	// (s3, gcs, azure) then measures every row through its SDK too, so that
	// what the check proves is what a run through that SDK measures.
	Open OpenBackend
	// WindowSize is the object size for the receive-window case; default
	// 64 MiB, -1 skips it.
	WindowSize int64
	// SkipTCP skips the network's slow-start and window cases.
	SkipTCP bool
}

// Check measures fresh and reused connections through the lab's s3 (or gcs)
// endpoint and compares each phase with the round trips the link model
// predicts: TCP 1 RTT, TLS 1.3 1 RTT (1.2: 2), each exchange 1 RTT plus
// service time, Expect: 100-continue 1 RTT, and size/bandwidth for a body.
func Check(ctx context.Context, lb *lab.Lab, api string, o Options) ([]document.CheckRow, error) {
	l := checker{lb}
	if o.Samples <= 0 {
		o.Samples = 5
	}
	if o.Tolerance <= 0 {
		o.Tolerance = 0.15
	}
	if o.Slack <= 0 {
		o.Slack = 2 * time.Millisecond
	}
	ep := struct{ url, direct string }{l.Endpoint(api), l.DirectEndpoint(api)}
	if ep.url == "" || api == "azure" {
		return nil, fmt.Errorf("lab check runs on the s3 or gcs endpoint, and %q is not served", api)
	}
	newTransport := func(s nettrace.Strategy, expect bool) *nettrace.Transport {
		return nettrace.NewTransport(nettrace.Config{Strategy: s, ExpectContinue: expect, TLS: l.ClientTLS(),
			Dial: l.Dial, Resolver: l.Resolver(), Timeout: 30 * time.Second})
	}
	urls := objectURLs(api, ep.url)
	setup := newTransport(nettrace.Pooled, false)
	defer setup.CloseIdleConnections()
	if _, err := exchange(ctx, setup, "PUT", urls.put("check/1k"), make([]byte, 1024), api); err != nil {
		return nil, fmt.Errorf("lab check: upload: %w", err)
	}
	measured, err := l.measureCases(ctx, objectURLs(api, ep.url), api, o.Samples, newTransport)
	if err != nil {
		return nil, err
	}
	baseline := measured
	if ep.direct != ep.url {
		if baseline, err = l.measureCases(ctx, objectURLs(api, ep.direct), api, o.Samples, newTransport); err != nil {
			return nil, err
		}
	}
	var rows []document.CheckRow
	for i, m := range measured {
		base := l.baseFor(m, baseline[i].got, ep.direct != ep.url)
		want, tol, pass := l.judge(m, base, o)
		rows = append(rows, document.CheckRow{Case: m.name, Phase: m.phase, RTTs: m.rtts, Baseline: base, Expected: want,
			Measured: m.got, Tolerance: tol, Pass: pass, Late: m.late,
			Clients: []document.ClientCheck{{Client: document.RawClient, Baseline: base, Expected: want, Measured: m.got, Tolerance: tol, Pass: pass, Late: m.late}}})
	}
	pooled := newTransport(nettrace.Pooled, false)
	defer pooled.CloseIdleConnections()
	if _, err := exchange(ctx, pooled, "GET", urls.get("check/1k"), nil, api); err != nil {
		return nil, err
	}

	// A capped link: the body takes size/bandwidth beyond its first byte
	// (when the receive window allows the link's rate: else the window row
	// below applies).
	var size int64
	if bw := l.Link().Bandwidth; bw > 0 && o.BandwidthSize >= 0 && (l.Network().Model == "direct" || l.Link().RTT == 0 || float64(l.Network().RecvBuffer)/l.Link().RTT.Seconds() >= float64(bw)/8) {
		size = o.BandwidthSize
		if size <= 0 {
			size = min(max(bw/8, 1<<20), 32<<20) // about a second's worth
		}
		body := make([]byte, size)
		if _, err := exchange(ctx, setup, "PUT", urls.put("check/bw"), body, api); err != nil {
			return nil, err
		}
		meter := l.lateMeter()
		ss, err := samples(ctx, 3, func() (nettrace.Sample, error) {
			return exchange(ctx, pooled, "GET", urls.get("check/bw"), nil, api)
		})
		if err != nil {
			return nil, err
		}
		late := meter.Share()
		want := time.Duration(float64(size*8) / float64(bw) * float64(time.Second))
		got := median(ss, phase(nettrace.Recv))
		tol := time.Duration(o.Tolerance*float64(want)) + o.Slack
		pass := (got-want) <= tol && (want-got) <= tol
		rows = append(rows, document.CheckRow{Case: fmt.Sprintf("%s GET at %s", fmtBytes(size), lab.FormatBandwidth(bw)), Phase: "recv",
			Expected: want, Measured: got, Tolerance: tol, Pass: pass, Late: late,
			Clients: []document.ClientCheck{{Client: document.RawClient, Expected: want, Measured: got, Tolerance: tol, Pass: pass, Late: late}}})
	}
	if err := l.checkClients(ctx, rows, o, size, newTransport); err != nil {
		return nil, err
	}
	if !o.SkipTCP {
		tcp, err := l.tcpRows(ctx, api, urls, objectURLs(api, ep.direct), o, newTransport)
		if err != nil {
			return nil, err
		}
		rows = append(rows, tcp...)
	}
	return rows, nil
}

func fmtBytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func phase(p nettrace.Phase) func(nettrace.Sample) time.Duration {
	return func(s nettrace.Sample) time.Duration { return s.Phases[p] }
}

func median(ss []nettrace.Sample, f func(nettrace.Sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func samples(ctx context.Context, n int, f func() (nettrace.Sample, error)) ([]nettrace.Sample, error) {
	out := make([]nettrace.Sample, 0, n)
	for range n {
		s, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// objectURL builds raw object URLs for an API; the embedded servers accept
// unsigned requests, which keeps the check free of any SDK.
type objectURL struct {
	get, put func(key string) string
}

func objectURLs(api, base string) objectURL {
	if api == "gcs" {
		return objectURL{
			get: func(k string) string { return base + "/storage/v1/b/" + lab.Bucket + "/o/" + escape(k) + "?alt=media" },
			put: func(k string) string {
				return base + "/upload/storage/v1/b/" + lab.Bucket + "/o?uploadType=media&name=" + escape(k)
			},
		}
	}
	f := func(k string) string { return base + "/" + lab.Bucket + "/" + k }
	return objectURL{get: f, put: f}
}

func escape(k string) string {
	var b bytes.Buffer
	for _, c := range []byte(k) {
		if c == '/' {
			b.WriteString("%2F")
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// exchange makes one traced request and reads the whole response.
func exchange(ctx context.Context, tr *nettrace.Transport, method, url string, body []byte, api string) (nettrace.Sample, error) {
	if method == "PUT" && api == "gcs" {
		method = "POST"
	}
	var status int
	s, err := load.Timed(ctx, 0, func(ctx context.Context) error {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, url, rd)
		if err != nil {
			return err
		}
		resp, err := tr.Client().Do(req)
		if err != nil {
			return err
		}
		status = resp.StatusCode
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	})
	if err != nil {
		return s, err
	}
	if status >= 300 {
		return s, fmt.Errorf("%s %s: HTTP %d", method, url, status)
	}
	return s, nil
}

type caseResult struct {
	name, phase string
	rtts        float64
	got         time.Duration
	late        float64 // the wire's late share while the case was measured
}

// measureCases measures the fresh, reused and 100-continue cases at base.
func (l checker) measureCases(ctx context.Context, urls objectURL, api string, n int,
	newTransport func(nettrace.Strategy, bool) *nettrace.Transport) ([]caseResult, error) {
	tlsRTTs := l.tlsRTTs()
	var out []caseResult
	meter := l.lateMeter()
	add := func(name, phase string, rtts float64, got time.Duration) {
		out = append(out, caseResult{name, phase, rtts, got, meter.Share()})
	}
	ttfb := func(s nettrace.Sample) time.Duration { return s.TTFB() }

	// A new connection per request: every set-up round trip shows.
	fresh := newTransport(nettrace.Fresh, false)
	defer fresh.CloseIdleConnections()
	ss, err := samples(ctx, n, func() (nettrace.Sample, error) {
		return exchange(ctx, fresh, "GET", urls.get("check/1k"), nil, api)
	})
	if err != nil {
		return nil, err
	}
	name := "fresh connection, 1 KiB GET"
	add(name, "connect", 1, median(ss, phase(nettrace.Connect)))
	add(name, "tls", tlsRTTs, median(ss, phase(nettrace.TLS)))
	add(name, "wait", 1, median(ss, phase(nettrace.Wait)))
	add(name, "ttfb", 2+tlsRTTs, median(ss, ttfb))

	// A kept-alive connection: only the exchange's round trip is left.
	pooled := newTransport(nettrace.Pooled, false)
	defer pooled.CloseIdleConnections()
	if _, err := exchange(ctx, pooled, "GET", urls.get("check/1k"), nil, api); err != nil {
		return nil, err
	}
	meter = l.lateMeter()
	if ss, err = samples(ctx, n, func() (nettrace.Sample, error) {
		return exchange(ctx, pooled, "GET", urls.get("check/1k"), nil, api)
	}); err != nil {
		return nil, err
	}
	name = "reused connection, 1 KiB GET"
	add(name, "connect", 0, median(ss, phase(nettrace.Connect)))
	add(name, "ttfb", 1, median(ss, ttfb))

	// Expect: 100-continue costs one more round trip before the body.
	expect := newTransport(nettrace.Pooled, true)
	defer expect.CloseIdleConnections()
	big := make([]byte, 1<<20)
	if _, err := exchange(ctx, expect, "GET", urls.get("check/1k"), nil, api); err != nil {
		return nil, err
	}
	meter = l.lateMeter()
	if ss, err = samples(ctx, n, func() (nettrace.Sample, error) {
		return exchange(ctx, expect, "PUT", urls.put("check/1m"), big, api)
	}); err != nil {
		return nil, err
	}
	add("Expect: 100-continue, 1 MiB PUT", "wait100", 1, median(ss, phase(nettrace.Wait100)))
	return out, nil
}

// tlsModes are the TLS modes lab check measures: plain and TLS, unless
// the settings pick one.
func tlsModes(lf lab.Settings) []bool {
	switch {
	case lf.TLS:
		return []bool{true}
	case lf.NoTLS:
		return []bool{false}
	}
	return []bool{false, true}
}

// Modes runs Check (through the s3 endpoint) on a lab per TLS mode
// (see tlsModes) serving every API it can, so that every provider's client
// is checked: noAzure is called when Azurite is missing. each sees every
// mode's lab while it is open, the mode's name and its rows. failed counts
// the rows outside tolerance. The settings must be valid (Config).
func Modes(ctx context.Context, lf lab.Settings, profile string, o Options, noAzure func(), each func(l *lab.Lab, mode string, rows []document.CheckRow)) (failed int, err error) {
	for _, useTLS := range tlsModes(lf) {
		s := lf
		s.TLS, s.NoTLS = useTLS, !useTLS
		cfg, err := s.Config(nil, profile)
		if err != nil {
			return failed, err
		}
		l, _, missing, err := lab.StartAll(ctx, cfg)
		if err != nil {
			return failed, err
		}
		if missing && noAzure != nil {
			noAzure()
		}
		rows, err := Check(ctx, l, "s3", o)
		if err != nil {
			l.Close()
			return failed, err
		}
		mode := "plain HTTP"
		if useTLS {
			mode = "TLS " + s.TLSVersion
		}
		for _, r := range rows {
			if !r.Pass {
				failed++
			}
		}
		each(l, mode, rows)
		l.Close()
	}
	return failed, nil
}
