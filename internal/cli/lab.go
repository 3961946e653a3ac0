package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/analysis"
	"github.com/objbench/objbench/internal/explain"
	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/report"
)

func newLabCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:     "lab [PROFILE]",
		Short:   "Serve the embedded S3, GCS (and Azure) endpoints behind an emulated link, in the foreground",
		Long:    strings.Replace(longHelp("lab"), "{{profiles}}", report.ProfileList(), 1),
		Example: examples("lab"),
		Args:    atMostOneProfile("lab"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLab(cmd.Context(), &lf, targetArg(args), stdout, stderr)
		},
	}
	lf.register(cmd.Flags(), false)
	cmd.Flags().IntVar(&lf.Port, "port", 0, "first port to listen on (s3, then gcs, then azure); 0 picks free ports")
	markLab(cmd.Flags(), "port")
	cmd.Flags().BoolVar(&lf.Record, "record", false, "record every connection and request the S3 and GCS endpoints see, and print the explanation (as 'objbench explain') when the lab stops")
	nameFields(cmd.Flags(), (*lab.Settings)(&lf))
	cmd.AddCommand(newLabCheckCmd(stdout, stderr))
	cmd.AddCommand(newLabExecCmd(stdout, stderr))
	return cmd
}

func runLab(ctx context.Context, lf *labFlags, profile string, stdout, stderr io.Writer) error {
	l, apis, noAzure, err := lf.startAll(ctx, profile)
	if err != nil {
		return err
	}
	if noAzure {
		fmt.Fprintf(stderr, "objbench: note: no Azure endpoint: %s\n", lab.ErrNoAzurite)
	}
	defer l.Close()
	caFile, removeCA, err := l.WriteCA()
	if err != nil {
		return err
	}
	defer removeCA()
	report.WriteLab(stdout, l, apis, caFile)
	started := time.Now()
	<-ctx.Done()
	fmt.Fprintln(stdout, "objbench lab: stopping")
	if !lf.Record {
		return nil
	}
	return report.WriteLabRecord(stdout, explain.FromLab(l, nil, 0, started, time.Now(), analysis.DefaultPrices(), ""), l.Recorder().Dropped())
}
