package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/calibrate"
	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/report/terminal"
	"github.com/objbench/objbench/internal/storage/providers"
	"github.com/objbench/objbench/internal/usage"
)

func newLabCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	var out outFlags
	var o labcheck.Options // --samples
	cmd := &cobra.Command{
		Use:     "check [PROFILE]",
		Short:   "Prove the link model: expected round trips per phase against measured times",
		Long:    longHelp("lab_check"),
		Example: examples("lab_check"),
		Args:    atMostOneProfile("lab check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLabCheck(cmd.Context(), &lf, targetArg(args), o, &out, stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	out.register(cmd.Flags(), `print the objbench/v1 document: {"schema", "lab_check": [each TLS mode with its rows], "pass"} (with --profile, a profile_comparison)`, "no progress line")
	cmd.Flags().IntVar(&o.Samples, "samples", 5, "requests per case; the median is compared")
	nameFields(cmd.Flags(), &o)
	return cmd
}

func runLabCheck(ctx context.Context, lf *labFlags, profile string, o labcheck.Options, out *outFlags, stdout, stderr io.Writer) error {
	if err := labcheck.CheckSettings(lab.Settings(*lf), profile, o.Samples); err != nil {
		return usage.Wrap(err)
	}
	if lf.ProfileFile != "" { // the twin calibrated as a bucket, against its profile
		status := terminal.NewStatusLine(stderr, out.statusOnStderr(stderr))
		rows, err := calibrate.CheckProfile(ctx, lab.Settings(*lf), status.Printf)
		if status.Clear(); rows != nil {
			err = cmp.Or(out.write(stdout, func(w io.Writer) error {
				return terminal.WriteProfileRows(w, lf.ProfileFile, "this lab", rows, true, out.jsonOut)
			}), err)
		}
		return err
	}
	var results []document.LabCheckMode
	failed, err := labcheck.Modes(ctx, lab.Settings(*lf), profile, labcheck.Options{Samples: o.Samples, Open: providers.Open}, func() {
		fmt.Fprintln(stderr, "lab check: no azurite-blob on PATH: the Azure client is not checked")
	}, func(l *lab.Lab, mode string, rows []document.CheckRow) {
		results = append(results, document.LabCheckMode{TLS: mode, Link: terminal.DescribeLink(labView(l)), Rows: rows})
	})
	if err != nil {
		return err
	}
	if err := out.write(stdout, func(w io.Writer) error {
		return terminal.WriteLabCheckResult(w, results, failed, out.jsonOut)
	}); err != nil {
		return err
	}
	return terminal.LabCheckError(results, failed)
}
