package calibrate

import (
	"fmt"
	"github.com/objbench/objbench/internal/lab/twin"
	"io"
	"text/tabwriter"

	"github.com/objbench/objbench/internal/units"
)

// WriteMeasured prints what a calibration measured and where it went,
// with the commands that use it. It lives beside the measuring, not in
// report, because it reads the lab's profile type, which renderers do not
// import.
func WriteMeasured(w io.Writer, m *twin.Measured, dest string) error {
	n := m.Network
	fmt.Fprintf(w, "objbench calibrate: %s (%s) from %s, %.0f s, %d requests\n\n", m.Target.URL, m.Target.Endpoint, m.From.Host, m.DurationS, m.Errors.Requests)
	tls := "none"
	if n.TLS {
		tls = fmt.Sprintf("TLS %s, %.1f round trips", n.TLSVersion, n.TLSRoundTrips)
	}
	fmt.Fprintf(w, "Network: round trip %.2f ms (connect p5 %.2f, p95 %.2f; jitter %.2f ms), name lookup %.2f ms, %s, HTTP/2 offered: %v, one stream's plateau %.1f MB/s\n\n",
		n.RTTms, n.ConnectMs.P5, n.ConnectMs.P95, n.JitterMs, n.DNSms, tls, n.HTTP2, n.PlateauMBps)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "service time\tsize\trequests\tp50 ms\tp90 ms\tp99 ms\t")
	for _, c := range m.Service {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t\n", c.Op, units.FormatSize(c.SizeBytes), c.Count, c.P50ms, c.PercentilesMs[90], c.P99ms)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "one stream GET\ttotal ms\tMB/s\t")
	for _, p := range m.Throughput {
		fmt.Fprintf(tw, "%s\t%.1f\t%.2f\t\n", units.FormatSize(p.SizeBytes), p.TotalMs, p.MBps)
	}
	tw.Flush()
	e := m.Errors
	fmt.Fprintf(w, "\nErrors: throttled %.2f%%, reset %.2f%%, timeout %.2f%%, other %.2f%%", e.Throttle*100, e.Reset*100, e.Timeout*100, e.Other*100)
	if m.IdleTimeoutS > 0 {
		fmt.Fprintf(w, "; idle keep-alive timeout about %.0f s", m.IdleTimeoutS)
	}
	_, err := fmt.Fprintf(w, "\n\nProfile written to %s. Its twin:\n  objbench lab --profile %[1]s\n  objbench explain --profile %[1]s -- COMMAND\n  objbench run lab:%[1]s\n  objbench lab check --profile %[1]s\n", dest)
	return err
}
