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

// asMap is the options block of the run document.
func (f *runFlags) asMap(strategy nettrace.Strategy) map[string]string {
	m := f.RunSettings.AsMap()
	m["conn"], m["expect_continue"], m["timeout"] = string(strategy), fmt.Sprint(f.expectContinue), f.Timeout.String()
	m["upload"], m["part_size"], m["client"], m["part_concurrency"] = f.Upload, f.PartSize, f.Client, fmt.Sprint(f.PartConcurrency)
	return m
}
