package cli

import (
	"context"
	"encoding/json"
	"io"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/objbench/objbench/internal/results"
	"github.com/objbench/objbench/internal/session"
)

func newLambdaCmd(g *globals, stderr io.Writer) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:    "lambda",
		Hidden: true,
		Short:  "The probe as an AWS Lambda handler (started by the Lambda runtime)",
		Long:   longHelp("lambda"),
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, closeFn, err := lambdaHandler(cmd.Context(), g, &f, cmd.Flags(), stderr)
			if err != nil {
				return err
			}
			lambda.StartWithOptions(h, lambda.WithContext(cmd.Context()), lambda.WithEnableSIGTERM(closeFn))
			closeFn()
			return nil
		},
	}
	f.probeFlags.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&f.targets, "target", nil, "a target to probe (repeatable; default the lab)")
	return cmd
}

// lambdaHandler opens the targets once (the cold start) and returns the
// handler that runs a round per invocation on those clients.
func lambdaHandler(ctx context.Context, g *globals, f *serveFlags, fs *pflag.FlagSet, stderr io.Writer) (func(context.Context, json.RawMessage) (json.RawMessage, error), func(), error) {
	o, err := f.options()
	if err != nil {
		return nil, nil, err
	}
	if !f.NoSave {
		g.db = results.LambdaPath(g.db)
	}
	c, err := f.config(ctx, g, f.targets, fs, false, stderr)
	if err != nil {
		return nil, nil, err
	}
	p, err := session.OpenProber(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	h := func(ctx context.Context, event json.RawMessage) (json.RawMessage, error) {
		out, err := p.Invoke(ctx, o, event)
		_ = p.Telemetry.Flush(ctx) // the instance may be frozen once we answer
		return out, err
	}
	return h, func() { p.Close(context.Background()) }, nil
}
