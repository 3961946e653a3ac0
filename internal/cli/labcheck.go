package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/report"
	"github.com/objbench/objbench/internal/storage/providers"
)

func newLabCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	var jsonOut bool
	var samples int
	cmd := &cobra.Command{
		Use:     "check [PROFILE]",
		Short:   "Prove the link model: expected round trips per phase against measured times",
		Long:    longHelp("lab_check"),
		Example: examples("lab_check"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("lab check takes at most one PROFILE, got %q", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			profile := ""
			if len(args) == 1 {
				profile = args[0]
			}
			if samples <= 0 {
				return usagef("--samples must be positive")
			}
			return runLabCheck(cmd.Context(), &lf, profile, samples, jsonOut, stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the rows as JSON")
	cmd.Flags().IntVar(&samples, "samples", 5, "requests per case; the median is compared")
	return cmd
}

func runLabCheck(ctx context.Context, lf *labFlags, profile string, samples int, jsonOut bool, stdout, stderr io.Writer) error {
	if _, err := lf.config(nil, profile); err != nil {
		return err
	}
	var results []report.LabCheckMode
	failed, err := lab.Settings(*lf).CheckModes(ctx, profile, lab.CheckOptions{Samples: samples, Open: providers.Open}, func() {
		fmt.Fprintln(stderr, "lab check: no azurite-blob on PATH: the Azure client is not checked")
	}, func(l *lab.Lab, mode string, rows []lab.CheckRow) {
		results = append(results, report.LabCheckMode{TLS: mode, Link: report.DescribeLink(l), Rows: rows})
	})
	if err != nil {
		return err
	}
	if jsonOut {
		if err := report.WriteLabCheckJSON(stdout, results, failed == 0); err != nil {
			return err
		}
	} else {
		report.WriteLabCheck(stdout, results)
	}
	if failed > 0 {
		return fmt.Errorf("lab check: %d row(s) outside tolerance", failed)
	}
	if !jsonOut {
		fmt.Fprintln(stdout, "lab check: every phase within tolerance")
	}
	return nil
}
