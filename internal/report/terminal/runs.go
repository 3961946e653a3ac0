package terminal

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/results"
)

// WriteRuns prints the runs `objbench runs` lists: {"schema", "runs"} with
// jsonOut, else the table, or a line saying none match. The output is
// buffered (thousands of rows: few writes).
func WriteRuns(w io.Writer, runs []results.Listed, jsonOut bool) error {
	out := bufio.NewWriterSize(w, 64<<10)
	switch {
	case jsonOut:
		if err := WriteRunsJSON(out, runs); err != nil {
			return err
		}
	case len(runs) == 0:
		out.WriteString("no saved runs match\n")
	default:
		WriteRunsTable(out, runs)
	}
	return out.Flush()
}

// WriteRunsJSON prints {"schema": "objbench/v1", "runs": [...]} (the
// schema's RunsDocument), one run per line, each as
// json.Marshal would write {run_id, started_at, command, target, labels,
// duration_s, interrupted}, but appended by hand: for thousands of runs
// reflection was most of the time. The labels are written as stored.
func WriteRunsJSON(w *bufio.Writer, runs []results.Listed) error {
	w.WriteString("{\n  \"schema\": \"" + document.Schema + "\",\n  \"runs\": [")
	var b []byte
	for i, r := range runs {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\"run_id\":"...)
		b = appendJSONString(b, r.ID)
		b = append(b, `,"started_at":`...)
		b = appendJSONString(b, r.StartedAt.UTC().Format(time.RFC3339))
		b = append(b, `,"command":`...)
		b = appendJSONString(b, r.Command)
		b = append(b, `,"target":`...)
		b = appendJSONString(b, r.TargetURL)
		b = append(b, `,"labels":`...)
		b = appendLabelsJSON(b, r)
		b = append(b, `,"duration_s":`...)
		var err error
		if b, err = appendJSONFloat(b, r.DurationS); err != nil {
			return err
		}
		if r.Interrupted {
			b = append(b, `,"interrupted":true`...)
		}
		b = append(b, '}')
		w.Write(b)
	}
	if len(runs) > 0 {
		w.WriteString("\n  ")
	}
	w.WriteString("]\n}\n")
	return nil
}

// appendJSONString appends s as encoding/json quotes it: plain printable
// ASCII as it is, anything else through encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64 in the range
// a duration has ('f' format); other values go through encoding/json.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	return append(b, q...), err
}

// appendLabelsJSON appends the run's labels as stored: json.Marshal
// wrote them from the map, so they are the bytes it would write now; an
// empty map is {} (never null).
func appendLabelsJSON(b []byte, r results.Listed) []byte {
	if js := r.LabelsJSON; js != "" && js != "null" {
		return append(b, js...)
	}
	return append(b, "{}"...)
}

// labelsText is the labels as k=v,k=v (keys sorted). Stored without
// escapes, the JSON object {"k":"v","k2":"v2"} has quotes only around
// its strings, so two replacements turn it into the text with no map.
func labelsText(r results.Listed) string {
	js := r.LabelsJSON
	switch {
	case js == "" || js == "null" || js == "{}":
		return ""
	case strings.HasPrefix(js, `{"`) && strings.HasSuffix(js, `"}`) && strings.IndexByte(js, '\\') < 0:
		return labelsReplacer.Replace(js[2 : len(js)-2])
	}
	return analysis.FormatLabels(r.Labels())
}

var labelsReplacer = strings.NewReplacer(`":"`, "=", `","`, ",")

// WriteRunsTable prints the runs in aligned columns (two passes: widths,
// then rows), as tabwriter would but without its per-cell work.
func WriteRunsTable(w *bufio.Writer, runs []results.Listed) {
	header := [6]string{"RUN", "STARTED", "COMMAND", "TARGET", "DURATION", "LABELS"}
	const started = "2006-01-02 15:04"
	labels, durations := make([]string, len(runs)), make([]string, len(runs))
	var width [6]int
	for i, h := range header {
		width[i] = len(h)
	}
	width[1] = max(width[1], len(started))
	for i, r := range runs {
		labels[i], durations[i] = labelsText(r), durationText(r)
		width[0] = max(width[0], utf8.RuneCountInString(r.ID))
		width[2] = max(width[2], utf8.RuneCountInString(r.Command))
		width[3] = max(width[3], utf8.RuneCountInString(r.TargetURL))
		width[4] = max(width[4], len(durations[i]))
	}
	var b []byte
	cell := func(i int, s []byte) {
		b = append(b, s...)
		if i < len(width)-1 {
			for n := width[i] - utf8.RuneCount(s) + 2; n > 0; n-- {
				b = append(b, ' ')
			}
		}
	}
	for i, h := range header {
		cell(i, []byte(h))
	}
	w.Write(append(b, '\n'))
	var tmp []byte
	for i, r := range runs {
		b = b[:0]
		cell(0, []byte(r.ID))
		cell(1, r.StartedAt.Local().AppendFormat(tmp[:0], started))
		cell(2, []byte(r.Command))
		cell(3, []byte(r.TargetURL))
		cell(4, []byte(durations[i]))
		cell(5, []byte(labels[i]))
		w.Write(append(b, '\n'))
	}
}

// durationText is a run's duration as the table shows it.
func durationText(r results.Listed) string {
	d := strconv.FormatFloat(r.DurationS, 'f', 1, 64) + "s"
	if r.Interrupted {
		d += " (interrupted)"
	}
	return d
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
