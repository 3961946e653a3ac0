// Command grid holds the lab's TCP against Linux's on the same emulated
// wire, side by side: each case of the grid (RTT, rate, queue, loss, size,
// GET or PUT, cold or warm) is run 5 times between the lab's user-space
// stacks and 5 times between two network namespaces with the kernel's TCP
// at both ends, and their medians printed with the difference. Needs Linux
// and root (namespaces and TUN devices); run it with nice on a quiet machine.
//
//	go run ./bench/grid [-ci] [-match TEXT]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/objbench/objbench/internal/lab/netns"
	"github.com/objbench/objbench/internal/lab/reference"
)

func main() {
	ci := flag.Bool("ci", false, "only the representative subset the test runs")
	match := flag.String("match", "", "only cases whose description contains TEXT (e.g. \"50Mbit\", \"PUT\")")
	flag.Parse()
	if err := netns.Available(); err != nil {
		fmt.Fprintln(os.Stderr, "grid: the Linux reference needs network namespaces with TUN devices (Linux, root):", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cases := reference.Full()
	if *ci {
		cases = reference.CI
	}
	reference.WriteHeader(os.Stdout)
	outside := 0
	for _, c := range cases {
		if !strings.Contains(c.String(), *match) {
			continue
		}
		row, err := reference.Run(ctx, c)
		if err != nil {
			fmt.Fprintf(os.Stdout, "%-44s %v\n", c, err)
			outside++
			continue
		}
		reference.WriteRow(os.Stdout, row)
		if !row.Within() {
			outside++
		}
	}
	fmt.Printf("\n%d case(s) outside tolerance (±10%% of Linux's median; ±25%% with random loss)\n", outside)
}
