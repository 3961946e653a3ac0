package telemetry

import (
	"context"
	"testing"

	"github.com/objbench/objbench/internal/probe"
)

func TestAttach(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name               string
		endpoint           string
		metrics            bool
		err, trace, sample bool
	}{
		{name: "nothing asked: no hooks"},
		{name: "metrics observe every request and round", metrics: true, sample: true},
		{name: "a collector traces every round", endpoint: "http://127.0.0.1:1", trace: true},
		{name: "a collector that is no URL", endpoint: "127.0.0.1:4318", err: true},
	}
	for _, c := range cases {
		p := &probe.Prober{Labels: map[string]string{"k": "v"}}
		tel, err := Attach(context.Background(), p, c.endpoint, "test", c.metrics)
		if (err != nil) != c.err {
			t.Fatalf("%s: error %v", c.name, err)
		}
		if err != nil {
			continue
		}
		if (p.Hooks.OnRound != nil) != c.trace || (tel.Tracer != nil) != c.trace {
			t.Errorf("%s: round hook %v, tracer %v", c.name, p.Hooks.OnRound != nil, tel.Tracer != nil)
		}
		if c.trace && tel.Tracer.Labels["k"] != "v" {
			t.Errorf("%s: tracer labels %v", c.name, tel.Tracer.Labels)
		}
		if (p.Hooks.OnSample != nil) != c.sample || (p.Finished != nil) != c.sample || (tel.Metrics != nil) != c.metrics {
			t.Errorf("%s: sample hook %v, finished %v, metrics %v", c.name, p.Hooks.OnSample != nil, p.Finished != nil, tel.Metrics != nil)
		}
		if !c.trace {
			if err := tel.Close(context.Background()); err != nil {
				t.Errorf("%s: close without a tracer: %v", c.name, err)
			}
		}
	}
}
