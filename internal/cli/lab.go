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
	"github.com/objbench/objbench/internal/report/terminal"
)

func newLabCmd(stdout, stderr io.Writer) *cobra.Command {
	var lf labFlags
	cmd := &cobra.Command{
		Use:     "lab [PROFILE]",
		Short:   "Serve the embedded S3, GCS (and Azure) endpoints behind an emulated link, in the foreground",
		Long:    strings.Replace(longHelp("lab"), "{{profiles}}", terminal.ProfileList(labProfiles()), 1),
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
	terminal.WriteLab(stdout, labView(l), apis, caFile)
	started := time.Now()
	<-ctx.Done()
	fmt.Fprintln(stdout, "objbench lab: stopping")
	l.WriteThrottled(stdout)
	if !lf.Record {
		return nil
	}
	return terminal.WriteLabRecord(stdout, explain.FromLab(l, nil, 0, started, time.Now(), analysis.DefaultPrices(), ""), l.Recorder().Dropped())
}

// labView is what the lab's description block shows of l.
func labView(l *lab.Lab) terminal.LabView {
	k, n := l.Link(), l.Network()
	v := terminal.LabView{Profile: l.Profile(), RTT: k.RTT, Jitter: k.Jitter, Bandwidth: lab.FormatBandwidth(k.Bandwidth), Loss: k.Loss,
		LossModel: k.LossModel(), Impair: k.Impairments(),
		Model: n.Model, Queue: n.Queue, MTU: n.MTU, RecvBuffer: n.RecvBuffer, SendBuffer: n.SendBuffer,
		Resolver: l.ResolverAddr(), Domain: lab.Domain, Bucket: lab.Bucket, DirectoryBucket: l.Info("s3").DirectoryBucket, Endpoints: map[string]string{}, Azure: l.AzureConnectionString(),
		Limits: l.Config().Limit.String()}
	for _, api := range []string{"s3", "gcs", "azure"} {
		v.Endpoints[api] = l.LocalEndpoint(api)
	}
	if up := l.Upstream(); up != nil {
		v.Upstream = &terminal.LabUpstream{API: up.API, URL: fmt.Sprint(up.URL), Bucket: up.Bucket}
		v.Endpoints[up.API] = l.LocalEndpoint(up.API)
	}
	if c := l.Keys("s3"); c != nil {
		v.AccessKey, v.SecretKey = c.AccessKeyID, c.SecretAccessKey
	}
	return v
}

// labProfiles are the lab's profiles as name and description.
func labProfiles() [][2]string {
	var out [][2]string
	for _, p := range lab.Profiles() {
		out = append(out, [2]string{p.Name, p.Description})
	}
	return out
}
