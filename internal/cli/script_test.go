package cli

import (
	"context"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the command-line scenarios in testdata/script/*.txtar:
// those that are only arguments, exit status and output. Each script
// calls objbench in process ("objbench ARGS", "! objbench ARGS" when it
// must fail) and checks the last status with "status N".
func TestScripts(t *testing.T) {
	t.Parallel()
	type last struct{ code int }
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Values[last{}] = &last{code: -1}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"objbench": func(ts *testscript.TestScript, neg bool, args []string) {
				code := Main(context.Background(), args, ts.Stdout(), ts.Stderr())
				ts.Value(last{}).(*last).code = code
				if (code != 0) != neg {
					ts.Fatalf("objbench exited %d", code)
				}
			},
			"status": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 || neg {
					ts.Fatalf("usage: status N")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				if got := ts.Value(last{}).(*last).code; got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
	})
}
