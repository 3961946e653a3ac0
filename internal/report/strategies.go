package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// StrategiesDocument is `objbench strategies --json`.
type StrategiesDocument struct {
	Schema     string            `json:"schema"`
	RunID      string            `json:"run_id"`
	Target     TargetInfo        `json:"target"`
	Lab        *LabInfo          `json:"lab,omitempty"`
	StartedAt  string            `json:"started_at"`
	DurationS  float64           `json:"duration_s"`
	Client     ClientInfo        `json:"client"`
	Options    map[string]string `json:"options,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Strategies []StrategyRow     `json:"strategies"`
	// Summary is the plain sentence naming the largest saving, per op.
	Summary []string `json:"summary"`
	// FirstVsLater is seed 000's table: GETs on a reused connection.
	FirstVsLater *FirstVsLater `json:"first_vs_later,omitempty"`
	Interrupted  bool          `json:"interrupted,omitempty"`
}

// StrategyRow is one strategy for one op.
type StrategyRow struct {
	Strategy          string             `json:"strategy"`
	Description       string             `json:"description"`
	Op                string             `json:"op"`
	Objects           int                `json:"objects"`
	SizeBytes         int64              `json:"size_bytes"`
	Concurrency       int                `json:"concurrency"`
	WallS             float64            `json:"wall_s"`
	ObjectsPerS       float64            `json:"objects_per_s"`
	P50ms             float64            `json:"p50_ms"`
	P99ms             float64            `json:"p99_ms"`
	Connections       int64              `json:"connections"`
	TLSHandshakes     int64              `json:"tls_handshakes"`
	RequestsPerObject float64            `json:"requests_per_object"`
	RTTms             float64            `json:"rtt_ms"`
	RTTs              map[string]float64 `json:"rtts"`
	Speedup           float64            `json:"speedup"`
	Errors            int64              `json:"errors"`
	ErrorsByClass     map[string]int64   `json:"errors_by_class,omitempty"`
	Protocol          string             `json:"protocol,omitempty"`
	Available         bool               `json:"available"`
	Reason            string             `json:"reason,omitempty"`
}

// FirstVsLater compares each worker's first GET with its reused ones.
type FirstVsLater struct {
	Strategy string             `json:"strategy"`
	First    map[string]float64 `json:"first_ms"`
	Later    map[string]float64 `json:"later_ms"`
}

// WriteStrategiesJSON writes d, every float finite.
func WriteStrategiesJSON(w io.Writer, d *StrategiesDocument) error {
	c := *d
	c.Strategies = make([]StrategyRow, len(d.Strategies))
	for i, r := range d.Strategies {
		r.WallS, r.ObjectsPerS, r.P50ms, r.P99ms = sanitize(r.WallS), sanitize(r.ObjectsPerS), sanitize(r.P50ms), sanitize(r.P99ms)
		r.RequestsPerObject, r.RTTms, r.Speedup = sanitize(r.RequestsPerObject), sanitize(r.RTTms), sanitize(r.Speedup)
		rtts := make(map[string]float64, len(r.RTTs))
		for k, v := range r.RTTs {
			rtts[k] = sanitize(v)
		}
		r.RTTs = rtts
		c.Strategies[i] = r
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&c); err != nil {
		return fmt.Errorf("write strategies JSON: %w", err)
	}
	return nil
}

var rttPhases = []string{"dns", "connect", "tls", "send", "wait100", "wait", "recv"}

// WriteStrategiesText writes the strategies table, one block per op, the
// summary sentences and the first-versus-later table.
func WriteStrategiesText(w io.Writer, d *StrategiesDocument) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "objbench strategies %s: %s (%s)", d.RunID, d.Target.URL, d.Target.Provider)
	if d.Target.Endpoint != "" {
		fmt.Fprintf(ew, " at %s", d.Target.Endpoint)
	}
	fmt.Fprintf(ew, ", %.1f s", d.DurationS)
	if d.Interrupted {
		fmt.Fprint(ew, " (interrupted: partial results)")
	}
	fmt.Fprintln(ew)
	if l := d.Lab; l != nil {
		tls := "plain HTTP"
		if l.TLS {
			tls = "TLS"
		}
		fmt.Fprintf(ew, "lab: %s API, profile %s, round trip %s ms, %s\n", l.API, l.Profile, num(l.RTTms), tls)
	}
	for _, op := range []string{"put", "get"} {
		var rows []StrategyRow
		for _, r := range d.Strategies {
			if r.Op == op {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		verb := map[string]string{"put": "uploads", "get": "downloads"}[op]
		fmt.Fprintf(ew, "\n%d %s of %s", rows[0].Objects, verb, FormatSize(rows[0].SizeBytes))
		if rows[0].RTTms > 0 {
			fmt.Fprintf(ew, " (round trip %s ms; phases in round trips per object)", num(rows[0].RTTms))
		}
		fmt.Fprintln(ew)
		heads := []string{"strategy", "wall s", "obj/s", "p50 ms", "p99 ms", "conns", "tls hs", "req/obj"}
		heads = append(heads, rttPhases...)
		heads = append(heads, "speed-up")
		var body [][]string
		for _, r := range rows {
			if !r.Available {
				body = append(body, []string{r.Strategy, "n/a: " + r.Reason})
				continue
			}
			row := []string{r.Strategy, fixed(r.WallS, 2), num(r.ObjectsPerS), num(r.P50ms), num(r.P99ms),
				strconv.FormatInt(r.Connections, 10), strconv.FormatInt(r.TLSHandshakes, 10), num(r.RequestsPerObject)}
			for _, p := range rttPhases {
				row = append(row, fixed(r.RTTs[p], 1))
			}
			row = append(row, fixed(r.Speedup, 1)+"x")
			if r.Errors > 0 {
				row = append(row, fmt.Sprintf("(%d errors)", r.Errors))
			}
			body = append(body, row)
		}
		leftTable(ew, heads, body)
	}
	if len(d.Summary) > 0 {
		fmt.Fprintln(ew)
		for _, s := range d.Summary {
			fmt.Fprintln(ew, s)
		}
	}
	if f := d.FirstVsLater; f != nil {
		fmt.Fprintf(ew, "\nFirst request of a worker vs its later ones (GET, %s), mean ms\n", f.Strategy)
		var body [][]string
		for _, k := range []string{"connect", "tls", "total"} {
			body = append(body, []string{k, num(f.First[k]), num(f.Later[k])})
		}
		leftTable(ew, []string{"phase", "first", "later"}, body)
	}
	return ew.err
}

func fixed(v float64, prec int) string { return strconv.FormatFloat(sanitize(v), 'f', prec, 64) }

// leftTable aligns columns with the first column left-aligned.
func leftTable(w io.Writer, heads []string, rows [][]string) {
	all := append([][]string{heads}, rows...)
	widths := map[int]int{}
	for _, r := range all {
		for i, c := range r {
			if len(r) == 2 && i == 1 && len(r) < len(heads) {
				continue // a "n/a" row spans the table
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range all {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := widths[i] - len([]rune(c))
			if len(r) == 2 && i == 1 && len(r) < len(heads) {
				pad = 0
			}
			if i == 0 {
				b.WriteString(c + strings.Repeat(" ", max(pad, 0)))
			} else {
				b.WriteString(strings.Repeat(" ", max(pad, 0)) + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
