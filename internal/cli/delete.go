package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/objbench/objbench/internal/results"
)

func newDeleteCmd(g *globals, stdout io.Writer) *cobra.Command {
	return oneRunCmd("delete RUN", "Delete a saved run",
		func(ctx context.Context, st *results.Store, id string) error {
			run, _, err := st.Get(ctx, id)
			if err != nil {
				return err
			}
			if err := st.Delete(ctx, run.ID); err != nil {
				return err
			}
			_, err = fmt.Fprintf(stdout, "deleted run %s\n", run.ID)
			return err
		}, g)
}
