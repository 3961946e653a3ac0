package shard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/document"
)

func TestFinish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	runErr := errors.New("step 2:\n  connection refused")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		spec        Spec // Count 0: one process writing --results-to
		place       string
		late        time.Duration
		runErr      error
		interrupted bool
		wantErr     string // "" for none
		wantFailed  string
		wantWarn    []string
		wantLocalID bool
	}{
		{name: "shard done", spec: Spec{Index: 1, Count: 2, RunID: "r1"}, wantLocalID: true},
		{name: "shard failed", spec: Spec{Index: 0, Count: 2, RunID: "r2"}, runErr: runErr,
			wantErr: runErr.Error(), wantFailed: "step 2: connection refused", wantLocalID: true},
		{name: "interrupted is not failed", spec: Spec{Index: 0, Count: 2, RunID: "r3"}, runErr: context.Canceled, interrupted: true,
			wantErr: "context canceled", wantLocalID: true},
		{name: "late window", spec: Spec{Index: 0, Count: 3, RunID: "r4"}, late: 1500 * time.Microsecond,
			wantWarn: []string{"ready 2ms after the start time"}, wantLocalID: true},
		{name: "results-to alone keeps the run id", spec: Spec{RunID: "r5"}},
		{name: "write fails", spec: Spec{Index: 0, Count: 2, RunID: "r6"}, place: filepath.Join(file, "sub"),
			wantErr: "not a directory", wantLocalID: true},
		{name: "write fails after the run failed", spec: Spec{Index: 0, Count: 2, RunID: "r7"}, place: filepath.Join(file, "sub"),
			runErr: runErr, wantErr: runErr.Error(), wantWarn: []string{"not a directory"}, wantLocalID: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := OpenPlace(ctx, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec := c.spec
			if !spec.Active() {
				spec = Spec{Index: 0, Count: 1, RunID: c.spec.RunID, Engine: EngineFlag}
			}
			if c.place != "" {
				p.dir = c.place
			}
			r := &Run{Spec: spec, Place: p, Late: c.late, sharded: c.spec.Active()}
			d := &document.Document{Envelope: document.NewEnvelope("run", c.spec.RunID, time.Now())}
			warns, err := r.Finish(d, nil, c.runErr, c.interrupted)
			if got := fmt.Sprint(err); (c.wantErr == "") != (err == nil) || !strings.Contains(got, c.wantErr) {
				t.Errorf("error %v, want %q", err, c.wantErr)
			}
			if len(warns) != len(c.wantWarn) {
				t.Fatalf("warnings %q, want %q", warns, c.wantWarn)
			}
			for i, w := range c.wantWarn {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q, want %q in it", warns[i], w)
				}
			}
			if want := c.spec.RunID; c.wantLocalID {
				if want = spec.LocalID(); d.RunID != want {
					t.Errorf("run id %q, want the shard's %q", d.RunID, want)
				}
			} else if d.RunID != want {
				t.Errorf("run id %q, want %q kept", d.RunID, want)
			}
			if c.place != "" {
				return
			}
			b, err := os.ReadFile(filepath.Join(dir, DocName(spec)))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if f.Shard.Failed != c.wantFailed || f.RunID != c.spec.RunID {
				t.Errorf("written failed %q run %q, want %q %q (the shared id)", f.Shard.Failed, f.RunID, c.wantFailed, c.spec.RunID)
			}
		})
	}
	if warns, err := (*Run)(nil).Finish(&document.Document{}, nil, runErr, false); err != runErr || warns != nil {
		t.Errorf("a nil run: %q %v, want runErr alone", warns, err)
	}
}
