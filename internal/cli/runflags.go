package cli

import (
	"fmt"

	"github.com/objbench/objbench/internal/load"
	"github.com/objbench/objbench/internal/nettrace"
)

// runFlags are the raw flag values of `objbench run`.
type runFlags struct {
	targetFlags
	saveFlags
	viewFlags
	load.RunSettings
	conn           string
	expectContinue bool
	download       string
	out            outFlags
	open           openFlags
	shards         shardFlags
}

// asMap is the options block of the run document, but for the open loop's
// and the shard's: the workload's, the connection's and the target's
// (onLab: the run is on the lab).
func (f *runFlags) asMap(strategy nettrace.Strategy, onLab bool) map[string]string {
	m := f.RunSettings.AsMap()
	m["conn"], m["expect_continue"] = string(strategy), fmt.Sprint(f.expectContinue)
	f.targetFlags.AddTo(m, onLab)
	return m
}
