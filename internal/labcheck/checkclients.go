package labcheck

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/storage"
)

// OpenBackend opens a provider's own client for a target, as
// storage/providers.Open does; the lab takes it as a function because the
// providers' tests import the lab.
type OpenBackend func(ctx context.Context, t storage.Target, o storage.Options) (storage.Backend, error)

// StorageTarget is the storage target of the lab's api bucket.
func StorageTarget(l *lab.Lab, api string) storage.Target {
	loc := l.Location(api)
	return storage.Target{Scheme: loc.Scheme, Account: loc.Account, Bucket: loc.Bucket}
}

// StorageCredentials are the fixed local keys of the lab's api endpoint
// (lab.Lab.Keys); nil where a client uses none or its own.
func StorageCredentials(l *lab.Lab, api string) *storage.StaticCredentials {
	k := l.Keys(api)
	if k == nil {
		return nil
	}
	return &storage.StaticCredentials{AccessKeyID: k.AccessKeyID, SecretAccessKey: k.SecretAccessKey}
}

// tlsRTTs is the round trips of the lab's TLS handshake: 0 without TLS.
func (l checker) tlsRTTs() float64 {
	switch {
	case l.ClientTLS() == nil:
		return 0
	case l.Config().TLSVersion == tls.VersionTLS12:
		return 2
	}
	return 1
}

// sdkClient names the client of api in check rows.
func sdkClient(api string) string { return api + " sdk" }

// clientAPIs are the served APIs whose SDK a check measures.
func (l checker) clientAPIs(o Options) []string {
	if o.Open == nil {
		return nil
	}
	var out []string
	for _, api := range []string{"s3", "gcs", "azure"} {
		if l.Endpoint(api) != "" {
			out = append(out, api)
		}
	}
	return out
}

// judge compares one measured case with the link model: rtts round trips
// plus base, within the relative tolerance plus the slack and the jitter.
func (l checker) judge(m caseResult, base time.Duration, o Options) (want, tol time.Duration, pass bool) {
	want = time.Duration(m.rtts*float64(l.Link().RTT)) + base
	tol = time.Duration(o.Tolerance*float64(want)) + o.Slack + l.Link().Jitter
	d := m.got - want
	return want, tol, d <= tol && -d <= tol
}

// baseFor is the part of a case's time the link model does not predict:
// the same case measured with the link bypassed, or, when there is no link
// to bypass, the configured service time of the phases that include it.
func (l checker) baseFor(m caseResult, direct time.Duration, bypassed bool) time.Duration {
	switch {
	case !bypassed:
		if m.phase == "wait" || m.phase == "ttfb" || m.phase == "wait100" {
			return l.Config().ServiceTime
		}
		return 0
	case m.phase == "connect":
		return 0 // a direct loopback connect is the link's job to delay, not a cost
	}
	return direct
}

// checkClients adds to rows each served API's SDK measure of the same
// cases (rows in measureCases' order, then the bandwidth row if any), and
// fails a row that any client fails.
func (l checker) checkClients(ctx context.Context, rows []document.CheckRow, o Options, bwSize int64,
	newTransport func(nettrace.Strategy, bool) *nettrace.Transport) error {
	for _, api := range l.clientAPIs(o) {
		ep := struct{ url, direct string }{l.Endpoint(api), l.DirectEndpoint(api)}
		if err := l.prepareClient(ctx, api, ep.url, bwSize, o.Open, newTransport); err != nil {
			return fmt.Errorf("lab check through the %s SDK: %w", api, err)
		}
		measured, err := l.measureClientCases(ctx, api, ep.url, o.Samples, bwSize, o.Open, newTransport)
		if err != nil {
			return fmt.Errorf("lab check through the %s SDK: %w", api, err)
		}
		baseline := measured
		bypassed := ep.direct != "" && ep.direct != ep.url
		if bypassed {
			if baseline, err = l.measureClientCases(ctx, api, ep.direct, o.Samples, 0, o.Open, newTransport); err != nil {
				return fmt.Errorf("lab check through the %s SDK, link bypassed: %w", api, err)
			}
		}
		for i, m := range measured {
			if i >= len(rows) {
				break
			}
			c := document.ClientCheck{Client: sdkClient(api), Measured: m.got, Late: m.late}
			if m.phase == "recv" { // the bandwidth row: size over bandwidth, as the raw row
				c.Expected = rows[i].Expected
				c.Tolerance = time.Duration(o.Tolerance*float64(c.Expected)) + o.Slack
				d := m.got - c.Expected
				c.Pass = d <= c.Tolerance && -d <= c.Tolerance
			} else {
				c.Baseline = l.baseFor(m, baseline[i].got, bypassed)
				c.Expected, c.Tolerance, c.Pass = l.judge(m, c.Baseline, o)
			}
			rows[i].Clients = append(rows[i].Clients, c)
			rows[i].Pass = rows[i].Pass && c.Pass
			rows[i].Late = max(rows[i].Late, c.Late)
		}
	}
	return nil
}

// openClient opens api's SDK at endpoint over a fresh transport, one
// attempt per operation, one request per upload.
func (l checker) openClient(ctx context.Context, api, endpoint string, tr *nettrace.Transport, open OpenBackend) (storage.Backend, error) {
	return open(ctx, StorageTarget(l.Lab, api), storage.Options{Endpoint: endpoint, Credentials: StorageCredentials(l.Lab, api),
		HTTPClient: tr.Client(), MaxAttempts: 1, Upload: storage.UploadSingle})
}

// prepareClient makes the bucket (Azurite starts empty) and the objects the
// client cases read, unmeasured.
func (l checker) prepareClient(ctx context.Context, api, endpoint string, bwSize int64, open OpenBackend,
	newTransport func(nettrace.Strategy, bool) *nettrace.Transport) error {
	tr := newTransport(nettrace.Pooled, false)
	defer tr.CloseIdleConnections()
	b, err := l.openClient(ctx, api, endpoint, tr, open)
	if err != nil {
		return err
	}
	defer b.Close()
	ok, err := b.BucketExists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		if err := b.CreateBucket(ctx); err != nil {
			return err
		}
	}
	if err := b.Put(ctx, "check/1k", bytes.NewReader(make([]byte, 1024)), 1024); err != nil {
		return err
	}
	if bwSize > 0 {
		return b.Put(ctx, "check/bw", bytes.NewReader(make([]byte, bwSize)), bwSize)
	}
	return nil
}

// measureClientCases is measureCases through api's SDK: the same cases in
// the same order, then, when bwSize is set, the bandwidth GET.
func (l checker) measureClientCases(ctx context.Context, api, endpoint string, n int, bwSize int64, open OpenBackend,
	newTransport func(nettrace.Strategy, bool) *nettrace.Transport) ([]caseResult, error) {
	tlsRTTs := l.tlsRTTs()
	var out []caseResult
	meter := l.lateMeter()
	add := func(name, phase string, rtts float64, got time.Duration) {
		out = append(out, caseResult{name, phase, rtts, got, meter.Share()})
	}
	ttfb := func(s nettrace.Sample) time.Duration { return s.TTFB() }
	client := func(s nettrace.Strategy, expect bool) (storage.Backend, *nettrace.Transport, error) {
		tr := newTransport(s, expect)
		b, err := l.openClient(ctx, api, endpoint, tr, open)
		if err != nil {
			tr.CloseIdleConnections()
			return nil, nil, err
		}
		return b, tr, nil
	}
	get := func(b storage.Backend, key string) (nettrace.Sample, error) {
		octx, op := nettrace.Begin(ctx)
		_, err := b.Get(octx, key, io.Discard)
		return op.Finish(), err
	}
	big := make([]byte, 1<<20)
	put := func(b storage.Backend, key string) (nettrace.Sample, error) {
		octx, op := nettrace.Begin(ctx)
		err := b.Put(octx, key, bytes.NewReader(big), int64(len(big)))
		return op.Finish(), err
	}

	fresh, ftr, err := client(nettrace.Fresh, false)
	if err != nil {
		return nil, err
	}
	defer ftr.CloseIdleConnections()
	defer fresh.Close()
	ss, err := samples(ctx, n, func() (nettrace.Sample, error) { return get(fresh, "check/1k") })
	if err != nil {
		return nil, err
	}
	name := "fresh connection, 1 KiB GET"
	add(name, "connect", 1, median(ss, phase(nettrace.Connect)))
	add(name, "tls", tlsRTTs, median(ss, phase(nettrace.TLS)))
	add(name, "wait", 1, median(ss, phase(nettrace.Wait)))
	add(name, "ttfb", 2+tlsRTTs, median(ss, ttfb))

	pooled, ptr, err := client(nettrace.Pooled, false)
	if err != nil {
		return nil, err
	}
	defer ptr.CloseIdleConnections()
	defer pooled.Close()
	if _, err := get(pooled, "check/1k"); err != nil {
		return nil, err
	}
	meter = l.lateMeter()
	if ss, err = samples(ctx, n, func() (nettrace.Sample, error) { return get(pooled, "check/1k") }); err != nil {
		return nil, err
	}
	name = "reused connection, 1 KiB GET"
	add(name, "connect", 0, median(ss, phase(nettrace.Connect)))
	add(name, "ttfb", 1, median(ss, ttfb))

	expect, etr, err := client(nettrace.Pooled, true)
	if err != nil {
		return nil, err
	}
	defer etr.CloseIdleConnections()
	defer expect.Close()
	if _, err := get(expect, "check/1k"); err != nil {
		return nil, err
	}
	meter = l.lateMeter()
	if ss, err = samples(ctx, n, func() (nettrace.Sample, error) { return put(expect, "check/1m") }); err != nil {
		return nil, err
	}
	add("Expect: 100-continue, 1 MiB PUT", "wait100", 1, median(ss, phase(nettrace.Wait100)))

	if bwSize > 0 {
		meter = l.lateMeter()
		if ss, err = samples(ctx, 3, func() (nettrace.Sample, error) { return get(pooled, "check/bw") }); err != nil {
			return nil, err
		}
		add(fmt.Sprintf("%s GET", fmtBytes(bwSize)), "recv", 0, median(ss, phase(nettrace.Recv)))
	}
	return out, nil
}
