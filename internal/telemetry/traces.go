package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/probe"
)

// Tracer exports probe rounds over OTLP/HTTP: a span per round, a child
// span per request, and under it a span per phase that took time.
type Tracer struct {
	tp *sdktrace.TracerProvider
	tr trace.Tracer
	// Labels are the user's --label values, set on every span as
	// objbench.label.<key>.
	Labels map[string]string
}

// OTLPEndpoint is the collector to export to: flag, else the standard
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; empty
// means no tracing.
func OTLPEndpoint(flag string) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); v != "" {
		return v
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
}

// tracesURL turns a collector base URL (http://host:4318) into its traces
// URL; a URL that already has a path is kept as given.
func tracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := "(unparsable)" // it may hold a password: never printed as given
		if err == nil {
			shown = u.Redacted()
		}
		return "", fmt.Errorf("OTLP endpoint %q: use an http:// or https:// URL such as http://127.0.0.1:4318", shown)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String(), nil
}

// NewTracer connects to the collector at endpoint (see OTLPEndpoint).
func NewTracer(ctx context.Context, endpoint, version string) (*Tracer, error) {
	u, err := tracesURL(endpoint)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u))
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithHost(),
		resource.WithAttributes(semconv.ServiceName("objbench"), semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTLP resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracer{tp: tp, tr: tp.Tracer("github.com/objbench/objbench/internal/probe")}, nil
}

// Shutdown sends what is buffered and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("OTLP export: %w", err)
	}
	return nil
}

// Flush sends what is buffered (a Lambda invocation may be frozen after it
// answers).
func (t *Tracer) Flush(ctx context.Context) error {
	if err := t.tp.ForceFlush(ctx); err != nil {
		return fmt.Errorf("OTLP export: %w", err)
	}
	return nil
}

// Round records a finished round with the times it was measured at.
func (t *Tracer) Round(ctx context.Context, r *probe.Round) {
	tg := r.Target
	common := []attribute.KeyValue{
		attribute.String("objbench.target", tg.Info.URL),
		attribute.String("objbench.provider", tg.Info.Provider),
		attribute.String("cloud.region", tg.Info.Region),
		attribute.String("objbench.strategy", tg.Strategy),
	}
	for k, v := range t.Labels {
		common = append(common, attribute.String("objbench.label."+k, v))
	}
	end := r.Start.Add(r.Wall)
	ctx, root := t.tr.Start(ctx, "objbench probe", trace.WithTimestamp(r.Start), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(append(slices.Clip(common), attribute.Int64("objbench.round", r.Number), attribute.Int("objbench.count", len(r.Samples)),
			attribute.Int64("objbench.failed", r.Failed))...))
	for i := range r.Samples {
		t.request(ctx, tg, &r.Samples[i], common)
	}
	if r.Failed > 0 {
		root.SetStatus(codes.Error, fmt.Sprintf("%d of %d requests failed", r.Failed, len(r.Samples)))
	}
	root.End(trace.WithTimestamp(end))
}

func (t *Tracer) request(ctx context.Context, tg *probe.Target, s *nettrace.Sample, common []attribute.KeyValue) {
	// Clip: every request appends to common; none may write into another's.
	attrs := append(slices.Clip(common),
		semconv.HTTPRequestMethodGet,
		attribute.Int("seq", s.Seq),
		attribute.Bool("reused", s.Reused),
		attribute.Bool("was_idle", s.WasIdle),
		attribute.Float64("idle_time_ms", float64(s.IdleTime)/1e6),
		attribute.String("net.peer.name", tg.PeerName),
		semconv.ServerAddress(tg.PeerName),
		attribute.String("http.protocol", s.Proto),
		attribute.String("objbench.key", s.Key),
		attribute.Int64("objbench.size", s.Size),
		attribute.Int("objbench.requests", s.Requests),
	)
	if name, version, ok := strings.Cut(s.Proto, "/"); ok {
		attrs = append(attrs, semconv.NetworkProtocolName(strings.ToLower(name)), semconv.NetworkProtocolVersion(version))
	}
	if s.TLSVersion != "" {
		attrs = append(attrs, attribute.String("tls.version", s.TLSVersion),
			semconv.TLSProtocolVersion(strings.TrimPrefix(strings.TrimPrefix(s.TLSVersion, "TLS"), " ")))
	}
	if s.RemoteAddr != "" {
		attrs = append(attrs, attribute.String("network.peer.address", s.RemoteAddr))
	}
	if s.Status > 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(s.Status))
	}
	start, end := s.Start, s.End
	if end.Before(start) || end.IsZero() {
		end = start
	}
	ctx, span := t.tr.Start(ctx, "GET", trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if !s.OK() {
		span.SetAttributes(attribute.String("error.type", s.ErrClass))
		span.SetStatus(codes.Error, s.Err)
	}
	for _, p := range phaseSpans(s) {
		_, ps := t.tr.Start(ctx, p.name, trace.WithTimestamp(p.start), trace.WithSpanKind(trace.SpanKindInternal))
		ps.End(trace.WithTimestamp(p.end))
	}
	span.End(trace.WithTimestamp(end))
}

type phaseSpan struct {
	name       string
	start, end time.Time
}

// phaseSpans lays a sample's phases end to end, back from the first byte
// (wait and what precedes it) and forward to the end (recv). A phase that
// took no time (a reused connection's dns, connect, tls) gets no span;
// send, wait and recv always do.
func phaseSpans(s *nettrace.Sample) []phaseSpan {
	fb := s.FirstByte
	if fb.IsZero() || fb.Before(s.Start) {
		fb = s.End.Add(-s.Phases[nettrace.Recv])
	}
	var out []phaseSpan
	at := fb
	for _, p := range []nettrace.Phase{nettrace.Wait, nettrace.Wait100, nettrace.Send, nettrace.TLS, nettrace.Connect, nettrace.DNS} {
		d := s.Phases[p]
		if d <= 0 && p != nettrace.Wait && p != nettrace.Send {
			continue
		}
		out = append([]phaseSpan{{p.String(), at.Add(-d), at}}, out...)
		at = at.Add(-d)
	}
	if s.OK() || s.Phases[nettrace.Recv] > 0 {
		out = append(out, phaseSpan{"recv", fb, fb.Add(s.Phases[nettrace.Recv])})
	}
	return out
}
