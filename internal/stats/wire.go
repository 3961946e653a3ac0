package stats

import (
	"encoding/json"
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/objbench/objbench/internal/nettrace"
)

// RecorderMetric is the stored metric of a step's whole Recorder (see
// Recorder.Encode): what merging shards needs to add phases and first
// requests exactly, not only TTFB and total.
const RecorderMetric = "recorder"

// recorderWire is a Recorder as stored: its histograms in HdrHistogram V2
// (base64), the first requests exactly while they are few.
type recorderWire struct {
	Later       groupWire        `json:"later"`
	FirstPoints [][]int64        `json:"first_points,omitempty"` // ttfb, total, then each phase, in µs
	FirstSpill  *groupWire       `json:"first_spill,omitempty"`
	FirstCount  int64            `json:"first_count"`
	FirstReused int64            `json:"first_reused"`
	Errors      int64            `json:"errors"`
	ByClass     map[string]int64 `json:"errors_by_class,omitempty"`
	Retries     int64            `json:"retries"`
	Requests    int64            `json:"requests"`
	Bytes       int64            `json:"bytes"`
	Reconnects  int64            `json:"reconnects"`
	ExpectSent  int64            `json:"expect_sent"`
	ExpectWait  int64            `json:"expect_waited"`
	Silent      int64            `json:"silent_retries"`
}

type groupWire struct {
	TTFB   string   `json:"ttfb"`
	Total  string   `json:"total"`
	Phases []string `json:"phases"`
	Count  int64    `json:"count"`
	Reused int64    `json:"reused"`
}

func encodeHist(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

func (g *group) wire() (groupWire, error) {
	w := groupWire{Count: g.count, Reused: g.reused}
	var err error
	if w.TTFB, err = encodeHist(g.ttfb); err != nil {
		return w, err
	}
	if w.Total, err = encodeHist(g.total); err != nil {
		return w, err
	}
	for _, h := range g.phases {
		s, err := encodeHist(h)
		if err != nil {
			return w, err
		}
		w.Phases = append(w.Phases, s)
	}
	return w, nil
}

func (w groupWire) group(digits int) (*group, error) {
	g := newGroup(digits)
	g.count, g.reused = w.Count, w.Reused
	if len(w.Phases) != len(g.phases) {
		return nil, fmt.Errorf("decode recorder: %d phases, want %d", len(w.Phases), len(g.phases))
	}
	for i, enc := range append([]string{w.TTFB, w.Total}, w.Phases...) {
		h, err := hdr.Decode([]byte(enc))
		if err != nil {
			return nil, fmt.Errorf("decode recorder: %w", err)
		}
		switch i {
		case 0:
			g.ttfb.Merge(h)
		case 1:
			g.total.Merge(h)
		default:
			g.phases[i-2].Merge(h)
		}
	}
	return g, nil
}

// Encode is the whole Recorder as stored beside a step's histograms, so
// that recorders of several processes (a run's shards) can be decoded and
// merged exactly as one process's workers are.
func (r *Recorder) Encode() ([]byte, error) {
	w := recorderWire{FirstCount: r.first.count, FirstReused: r.first.reused, Errors: r.errors, ByClass: r.errorsByClass,
		Retries: r.retries, Requests: r.requests, Bytes: r.bytes, Reconnects: r.reconnects,
		ExpectSent: r.expectSent, ExpectWait: r.expectWaited, Silent: r.silentRetries}
	var err error
	if w.Later, err = r.later.wire(); err != nil {
		return nil, err
	}
	if r.first.spill != nil {
		s, err := r.first.spill.wire()
		if err != nil {
			return nil, err
		}
		w.FirstSpill = &s
	}
	for _, p := range r.first.points {
		w.FirstPoints = append(w.FirstPoints, append([]int64{p.ttfb, p.total}, p.phases[:]...))
	}
	return json.Marshal(w)
}

// DecodeRecorder reads what Encode wrote.
func DecodeRecorder(b []byte) (*Recorder, error) {
	var w recorderWire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("decode recorder: %w", err)
	}
	r := NewRecorder()
	later, err := w.Later.group(fineDigits)
	if err != nil {
		return nil, err
	}
	r.later = later
	r.first.count, r.first.reused = w.FirstCount, w.FirstReused
	if w.FirstSpill != nil {
		if r.first.spill, err = w.FirstSpill.group(phaseDigit); err != nil {
			return nil, err
		}
	}
	for _, v := range w.FirstPoints {
		if len(v) != 2+int(nettrace.NumPhases) {
			return nil, fmt.Errorf("decode recorder: a first request of %d values", len(v))
		}
		p := point{ttfb: v[0], total: v[1]}
		copy(p.phases[:], v[2:])
		r.first.points = append(r.first.points, p)
	}
	if w.ByClass != nil {
		r.errorsByClass = w.ByClass
	}
	r.errors, r.retries, r.requests, r.bytes, r.reconnects = w.Errors, w.Retries, w.Requests, w.Bytes, w.Reconnects
	r.expectSent, r.expectWaited, r.silentRetries = w.ExpectSent, w.ExpectWait, w.Silent
	return r, nil
}

// groupSum adds stored groups of one geometry with dense sums.
type groupSum struct {
	ttfb, total   *Sum
	phases        []*Sum
	count, reused int64
}

func newGroupSum(digits int) *groupSum {
	g := &groupSum{ttfb: newSum(digits), total: newSum(digits)}
	for range nettrace.NumPhases {
		g.phases = append(g.phases, newSum(phaseDigit))
	}
	return g
}

func (g *groupSum) add(w groupWire) error {
	if len(w.Phases) != len(g.phases) {
		return fmt.Errorf("decode recorder: %d phases, want %d", len(w.Phases), len(g.phases))
	}
	g.count += w.Count
	g.reused += w.Reused
	if err := g.ttfb.AddEncoded(w.TTFB); err != nil {
		return err
	}
	if err := g.total.AddEncoded(w.Total); err != nil {
		return err
	}
	for i, p := range w.Phases {
		if err := g.phases[i].AddEncoded(p); err != nil {
			return err
		}
	}
	return nil
}

func (g *groupSum) group() *group {
	out := &group{ttfb: g.ttfb.Histogram().h, total: g.total.Histogram().h, count: g.count, reused: g.reused}
	for i, p := range g.phases {
		out.phases[i] = p.Histogram().h
	}
	return out
}

// MergeEncoded decodes stored recorders (Encode) and merges them into one,
// adding their histograms in dense sums rather than decoding each into a
// histogram of its own: a hundred shards' recorders merge in a few
// milliseconds each.
func MergeEncoded(encs [][]byte) (*Recorder, error) {
	r := NewRecorder()
	later := newGroupSum(fineDigits)
	var spill *groupSum
	for _, b := range encs {
		var w recorderWire
		if err := json.Unmarshal(b, &w); err != nil {
			return nil, fmt.Errorf("decode recorder: %w", err)
		}
		if err := later.add(w.Later); err != nil {
			return nil, err
		}
		first := firstGroup{count: w.FirstCount, reused: w.FirstReused}
		for _, v := range w.FirstPoints {
			if len(v) != 2+int(nettrace.NumPhases) {
				return nil, fmt.Errorf("decode recorder: a first request of %d values", len(v))
			}
			p := point{ttfb: v[0], total: v[1]}
			copy(p.phases[:], v[2:])
			first.points = append(first.points, p)
		}
		if w.FirstSpill != nil {
			if spill == nil {
				spill = newGroupSum(phaseDigit)
			}
			if err := spill.add(*w.FirstSpill); err != nil {
				return nil, err
			}
			// The spilled histograms are added below; count the points here.
		}
		r.first.merge(&first)
		for k, v := range w.ByClass {
			r.errorsByClass[k] += v
		}
		r.errors += w.Errors
		r.retries += w.Retries
		r.requests += w.Requests
		r.bytes += w.Bytes
		r.reconnects += w.Reconnects
		r.expectSent += w.ExpectSent
		r.expectWaited += w.ExpectWait
		r.silentRetries += w.Silent
	}
	r.later = later.group()
	if spill != nil {
		r.first.spillOver()
		r.first.spill.mergeHists(spill.group())
	}
	return r, nil
}
