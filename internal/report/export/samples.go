package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/results"
)

// WriteSamplesCSV writes one CSV row per kept request of a saved run, with
// every phase in milliseconds; each calls fn with every kept sample.
func WriteSamplesCSV(w io.Writer, sr *analysis.Run, each func(fn func(results.SampleRow) error) error) error {
	cw := csv.NewWriter(w)
	head := []string{"run_id", "step", "workload", "op", "size_bytes", "concurrency", "worker", "seq", "key", "start", "ttfb_ms", "total_ms"}
	for _, p := range nettrace.Phases() {
		head = append(head, p.String()+"_ms")
	}
	head = append(head, "status", "error_class", "error", "requests", "retries", "reconnects", "reused", "was_idle", "idle_ms", "protocol", "tls_version", "remote_addr", "bytes",
		"target", "provider", "region", "labels")
	if err := cw.Write(head); err != nil {
		return err
	}
	steps := map[int]results.Step{}
	for _, s := range sr.Steps {
		steps[s.Index] = s
	}
	f := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }
	region := ""
	if d, ok := sr.Doc.(*document.Document); ok {
		region = d.Target.Region
	}
	labels := analysis.FormatLabels(sr.Meta.Labels)
	err := each(func(row results.SampleRow) error {
		s, stp := row.Sample, steps[row.Step]
		rec := []string{sr.Meta.ID, strconv.Itoa(row.Step), stp.Workload, s.Op, strconv.FormatInt(s.Size, 10), strconv.Itoa(stp.Concurrency),
			strconv.Itoa(s.Worker), strconv.Itoa(s.Seq), s.Key, s.Start.UTC().Format(time.RFC3339Nano), f(s.TTFB()), f(s.Total())}
		for _, d := range s.Phases {
			rec = append(rec, f(d))
		}
		rec = append(rec, strconv.Itoa(s.Status), s.ErrClass, s.Err, strconv.Itoa(s.Requests), strconv.Itoa(s.Retries), strconv.Itoa(s.Reconnects),
			strconv.FormatBool(s.Reused), strconv.FormatBool(s.WasIdle), f(s.IdleTime), s.Proto, s.TLSVersion, s.RemoteAddr, strconv.FormatInt(s.Bytes, 10),
			sr.Meta.TargetURL, sr.Meta.Provider, region, labels)
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
