package lab

import (
	"math"
	"time"

	"github.com/objbench/objbench/internal/lab/twin"
	"github.com/objbench/objbench/internal/usage"
)

// MeasuredLink is the wire that reproduces the measured path: the median round
// trip, the jitter, and the plateau rate as the bottleneck's (headers
// included, so that a stream's goodput is the measured one).
func MeasuredLink(m *twin.Measured) Link {
	l := Link{RTT: twin.Ms(m.Network.RTTms), Jitter: twin.Ms(m.Network.JitterMs)}
	if l.Jitter > l.RTT {
		l.Jitter = l.RTT
	}
	if r := m.Network.PlateauMBps; r > 0 && r < 1000 {
		bw := r * 8e6 * float64(defaultMTU) / float64(MSS(defaultMTU))
		unit := 1e3 // rounded, so that it prints as 104Mbit or 800kbit
		if bw >= 10e6 {
			unit = 1e6
		}
		l.Bandwidth = int64(math.Round(bw/unit) * unit)
	}
	return l
}

// applyMeasured sets cfg to reproduce the profile: the link (unless the caller
// overrides it), TLS as measured, HTTP/2 only when offered, the lookup
// time, the idle timeout, faults at the measured rates and the service
// time drawn per request.
func applyMeasured(m *twin.Measured, cfg *Config) {
	link := MeasuredLink(m)
	if cfg.RTT == nil {
		cfg.RTT = &link.RTT
	}
	if cfg.Jitter == nil {
		cfg.Jitter = &link.Jitter
	}
	if cfg.Bandwidth == nil {
		cfg.Bandwidth = &link.Bandwidth
	}
	if m.Network.TLSVersion == "1.2" {
		cfg.TLSVersion = 0x0303
	}
	cfg.HTTP1Only = !m.Network.HTTP2
	cfg.DNSTime = twin.Ms(m.Network.DNSms).Round(100 * time.Microsecond)
	if m.IdleTimeoutS > 0 {
		cfg.IdleTimeout = time.Duration(m.IdleTimeoutS * float64(time.Second))
	}
	e := m.Errors
	cfg.Faults.Slowdown, cfg.Faults.Reset, cfg.Faults.Timeout = e.Throttle, e.Reset, e.Timeout
	cfg.Service, cfg.Compensate = m, true
	cfg.ProfileName = "measured"
}

// errMeasuredAndNamed refuses a named profile and a measured one at once.
var errMeasuredAndNamed = usage.Fieldf("a named lab profile and {ProfileFile} FILE contradict each other: give one")
