package cli

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/session"
	"github.com/objbench/objbench/internal/stats"
	"github.com/objbench/objbench/internal/threshold"
	"github.com/objbench/objbench/internal/usage"
)

// globals are the flags every command shares.
type globals struct {
	db string
}

// withStore opens the results database (--db, or the default location)
// for fn and closes it after.
func (g *globals) withStore(ctx context.Context, fn func(*results.Store) error) error {
	st, err := results.OpenAt(ctx, g.db)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// saveFlags say what a measuring command keeps in the results database
// (session.Keep, its DB from --db: see where).
type saveFlags struct{ session.Keep }

func (sf *saveFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&sf.Labels, "label", nil, "label the run, k=v (repeatable), e.g. --label env=laptop: for runs, compare and report")
	fl.IntVar(&sf.KeepSamples, "keep-samples", 100_000, "raw requests kept in the results database (a uniform sample of the run); 0 keeps none")
	fl.BoolVar(&sf.NoSave, "no-save", false, "do not save the run in the results database")
	fl.StringVar(&sf.Report, "report", "", "also write the run as a self-contained HTML page to FILE (see 'objbench report')")
	nameFields(fl, &sf.Keep)
}

// check validates the flags before any work starts (session.Keep.Check).
func (sf *saveFlags) check() (map[string]string, error) {
	l, err := sf.Keep.Check()
	return l, usage.Wrap(err)
}

// outFlags say where a measuring command's result goes: JSON or text, to
// -o FILE or standard output, with a progress line or --quiet.
type outFlags struct {
	jsonOut bool
	output  string
	quiet   bool
	th      threshold.Set // --threshold on run and strategies
}

// register adds --json (its usage says what is printed), -o and, unless
// quietUsage is "", -q: every command that prints progress registers its
// output flags here, so that each takes the same three.
func (o *outFlags) register(fl *pflag.FlagSet, jsonUsage, quietUsage string) {
	fl.BoolVar(&o.jsonOut, "json", false, jsonUsage)
	fl.StringVarP(&o.output, "output", "o", "", "write the output to FILE instead of standard output")
	if quietUsage != "" {
		fl.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	}
}

// statusOn says whether progress is drawn: on a terminal, unless --quiet.
func (o *outFlags) statusOn(stdout io.Writer) bool { return !o.quiet && terminal.IsTerminal(stdout) }

// write writes the command's output (text) to -o FILE or stdout.
func (o *outFlags) write(stdout io.Writer, text func(io.Writer) error) error {
	return report.WriteOutput(o.output, stdout, text)
}

// statusOnStderr says whether progress is drawn for a command that judges
// the terminal by stderr (probe, lab check): on one, unless --quiet.
func (o *outFlags) statusOnStderr(stderr io.Writer) bool {
	return !o.quiet && terminal.IsTerminal(stderr)
}

// status is the command's progress line (see statusOn), on stderr.
func (o *outFlags) status(stdout, stderr io.Writer) *terminal.StatusLine {
	return terminal.NewStatusLine(stderr, o.statusOn(stdout))
}

// where says where this command's documents are kept (session.Keep).
func (sf *saveFlags) where(g *globals) session.Keep {
	k := sf.Keep
	k.DB = g.db
	return k
}

// finish is the end of every measuring command: the document to -o FILE
// or standard output (JSON or text), then saved (see save); an interrupted
// run exits as such, else with runErr.
func finish(g *globals, sf *saveFlags, out *outFlags, d document.Doc, text func(io.Writer) error,
	histograms []map[string][]byte, kept stats.KeptSeq, runErr error, stdout, stderr io.Writer) error {
	thErr := out.th.Apply(stderr, d)
	if out.jsonOut {
		text = func(w io.Writer) error { return terminal.WriteDoc(w, d) }
	}
	if err := report.WriteOutput(out.output, stdout, text); err != nil {
		return err
	}
	if err := sf.where(g).Save(d, histograms, kept, stderr); err != nil {
		return err
	}
	return session.Ended(d, errInterrupted, runErr, thErr)
}
