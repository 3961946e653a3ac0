// Command grid holds the lab's TCP against Linux's on the same emulated
// wire, side by side: each case of the grid (RTT, rate, queue, loss, size,
// GET or PUT, cold or warm) is run 5 times between the lab's user-space
// stacks and 5 times between two network namespaces with the kernel's TCP
// at both ends, and their medians printed with the difference and the share
// of each path's packets the machine's CPU held late (a case where the
// reference's exceed 5% is not judged). Needs Linux and root (namespaces
// and TUN devices); run it on a quiet machine.
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
	outside, busy := 0, 0
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
		switch {
		case row.Busy():
			busy++
		case !row.Within():
			outside++
		}
	}
	fmt.Printf("\n%d case(s) outside tolerance (±10%% of Linux's median; ±25%% with random loss), %d not judged: the machine held over 5%% of the reference's packets more than 2 ms late\n", outside, busy)
	fmt.Println("late: the share of each path's packets (lab, linux) the wire delivered more than 2 ms after their time")
}
