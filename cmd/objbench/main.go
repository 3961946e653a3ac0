// Command objbench measures, explains and improves the latency and
// throughput a program gets from cloud object storage.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/objbench/objbench/internal/cli"
	"github.com/objbench/objbench/internal/probe"
)

func main() {
	runtime.MemProfileRate = 0 // objbench writes no heap profile
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel() // first signal: stop the load, clean up, print partial results
		<-sigs
		os.Exit(cli.ExitInterrupted) // second signal: leave at once
	}()
	args := os.Args[1:]
	if len(args) == 0 && probe.InLambda(os.Getenv) {
		args = probe.LambdaArgs(os.Getenv) // started by the AWS Lambda runtime
	}
	code := cli.Main(ctx, args, os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}
