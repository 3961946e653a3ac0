// Command grid holds the lab's TCP against Linux's on the same emulated
// wire, side by side: each case of the grid (RTT, rate, queue, loss, size,
// GET or PUT, cold or warm) is run 5 times between the lab's user-space
// stacks and 5 times between two network namespaces with the kernel's TCP
// at both ends, and their medians printed with the difference and the share
// of each path's packets the machine's CPU held late (a case where the
// reference's exceed 5% is not judged). Needs Linux and root (namespaces
// and TUN devices); run it on a quiet machine.
//
// A row the lab misses otherwise is measured once more on Linux, on a wire
// that delivers each packet at its own time as the lab's does
// (reference.CheckTimer): where that moves Linux's median beyond the
// tolerance, the wire's timer decides the row, and the lab is held to
// Linux's runs on both wires.
//
// -netns adds the lab's netns path (objbench's own client there: the
// kernel's TCP and CUBIC at both ends, the reference's setup measured a
// second time, so its difference is the reference's own spread); -part 2/4 runs the
// second quarter of the cases, so that the grid can be measured in pieces
// on a shared machine. -readtime adds, in place of that, Linux on a wire
// that admits each packet when its reader gets it from the TUN device, as
// the reference did before 2026-11-27, not when the kernel sent it.
//
// -counts prints under each row what each path's TCP did (the client's
// reads, the data segments each ACK answered, the sender's retransmissions
// and timeouts, the packets the wire dropped and in how many episodes (a
// window's drops, one cut of the sender's window), the bursts the sender
// sent its packets in: reference.Counts), to tell an ACK pace from a loss, and a
// spurious retransmission (more retransmitted than dropped) from a real one.
//
// The rows where the wire's own precision moves TCP (a queue of 16
// packets or fewer at 30 Mbit/s and up: Case.NeedsExact) run both
// paths on an exact wire (netem.Config.Exact), marked so: its CPU stays
// awake for the last 300 µs before each packet's time, where a sleeping
// one wakes 100 to 250 µs late and, behind 8 packets, that moves either
// TCP by up to three times (docs/lab.md, "The wire's own precision behind
// 8 packets"). It costs up to a core a way while packets are in flight.
// -exact puts every row there; -usual none (as before 2026-11-28, with
// the check on the lab's timer); -netns and -readtime keep every row on
// the usual wire, as the third path's is.
//
//	go run ./bench/grid [-ci] [-netns | -readtime] [-exact | -usual] [-counts] [-match TEXT] [-runs N] [-part I/N] [-list]
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
	skip := flag.String("skip", "", "leave out cases whose description contains TEXT (e.g. \"Mbit\": the rows behind a bottleneck)")
	withNetns := flag.Bool("netns", false, "also measure the lab's netns path (a third column)")
	exact := flag.Bool("exact", false, "both paths on an exact wire, whose CPU stays awake for the last 300 µs before each packet's time (costs up to a core a way; the rows behind a bottleneck: Linux's autotuning stalls on it without one)")
	usual := flag.Bool("usual", false, "every row on the usual wire, the rows behind a small queue too (by default those run on an exact wire)")
	readTime := flag.Bool("readtime", false, "also measure Linux on a wire that admits each packet when its reader gets it from the device, not when the kernel sent it (a third column)")
	part := flag.String("part", "1/1", "run only the I-th of N equal pieces of the cases (e.g. 2/4)")
	list := flag.Bool("list", false, "list the cases and exit")
	counts := flag.Bool("counts", false, "under each row, each path's TCP counts (medians): the client's reads, segments an ACK, retransmissions, timeouts; the wire's drops and the sender's bursts")
	runs := flag.Int("runs", 0, "transfers per case and path, for each median (default 5; 7 with loss, reordering or duplication)")
	flag.Parse()
	var i, n int
	if _, err := fmt.Sscanf(*part, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n {
		fmt.Fprintf(os.Stderr, "grid: -part %q: want I/N with 1 <= I <= N\n", *part)
		os.Exit(2)
	}
	all := reference.Full()
	if *ci {
		all = reference.CI
	}
	var cases []reference.Case
	for _, c := range all {
		if strings.Contains(c.String(), *match) && (*skip == "" || !strings.Contains(c.String(), *skip)) {
			c.N = *runs
			cases = append(cases, c)
		}
	}
	cases = cases[(i-1)*len(cases)/n : i*len(cases)/n]
	if *withNetns && *readTime {
		fmt.Fprintln(os.Stderr, "grid: -netns and -readtime are both a third column: take one")
		os.Exit(2)
	}
	if *exact && (*withNetns || *readTime) {
		fmt.Fprintln(os.Stderr, "grid: -exact puts both paths on an exact wire; -netns and -readtime measure a third path on the usual one: take one")
		os.Exit(2)
	}
	if *exact && *usual {
		fmt.Fprintln(os.Stderr, "grid: -exact puts every row on an exact wire, -usual none: take one")
		os.Exit(2)
	}
	paths, third := reference.Paths, ""
	if *exact {
		paths = reference.ExactPaths
	}
	switch {
	case *withNetns:
		paths, third = append(paths, reference.NetnsPath), "netns"
	case *readTime:
		paths, third = append(paths, reference.ReadPath), "read"
	}
	// onExact: both paths on an exact wire for c (-exact, or where the
	// wire's precision moves TCP, unless -usual or a third path).
	onExact := func(c reference.Case) bool { return *exact || third == "" && !*usual && c.NeedsExact() }
	if *list {
		for _, c := range cases {
			if onExact(c) {
				fmt.Println(c, " [exact wire]")
				continue
			}
			fmt.Println(c)
		}
		return
	}
	if err := netns.Available(); err != nil {
		fmt.Fprintln(os.Stderr, "grid: the Linux reference needs network namespaces with TUN devices (Linux, root):", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	reference.WriteHeader(os.Stdout, third)
	outside, busy, spreads, timers, exacts := 0, 0, 0, 0, 0
	for _, c := range cases {
		ps, exactRow := paths, onExact(c)
		if exactRow {
			ps = reference.ExactPaths
		}
		row, err := reference.RunWith(ctx, c, ps)
		row.Exact = exactRow
		if err == nil && !row.Exact {
			row, err = reference.CheckTimer(ctx, row)
		}
		if err != nil {
			fmt.Fprintf(os.Stdout, "%-44s %v\n", c, err)
			outside++
			continue
		}
		if row.Exact {
			exacts++
		}
		reference.WriteRow(os.Stdout, row)
		if *counts {
			reference.WriteCounts(os.Stdout, row, third)
		}
		switch {
		case row.Busy():
			busy++
		case row.Within():
		case row.LinuxSpreads() && row.InsideLinux():
			spreads++
		case row.TimerDecides() && row.InsideTimers():
			timers++
		default:
			outside++
		}
	}
	fmt.Printf("\n%d case(s) outside tolerance (±10%% of Linux's median; ±25%% with random loss, reordering or duplication), %d not judged: the machine held over 5%% of either path's packets late; %d where Linux's own runs spread over twice the tolerance, with the lab's median inside them; %d where the wire's timer decides (Linux's median moves beyond the tolerance when the wire delivers each packet at its own time, as the lab's does), with the lab's median inside Linux's runs on both\n", outside, busy, spreads, timers)
	fmt.Println("late: the share of each path's packets (lab, linux) the wire delivered late: over 2 ms (a 20th of the round trip beyond 40 ms) after their time")
	fmt.Println("spread: Linux's own runs, slowest less fastest, against their median")
	if exacts > 0 {
		fmt.Printf("exact wire (%d of the rows): both paths on a wire that keeps its CPU awake for the last 300 µs before each packet's time (netem.Config.Exact), where a sleeping CPU's wake-ups alone move the row (a queue of 16 packets or fewer at 30 Mbit/s and up; every row with -exact); no check on the lab's timer there\n", exacts)
	}
	switch {
	case *withNetns:
		fmt.Println("netns: the lab's netns path (the reference's setup: kernel TCP, CUBIC at both ends), measured again; its diff is the reference's own spread")
	case *readTime:
		fmt.Println("read: Linux on a wire that admits each packet when its reader gets it from the TUN device (as before 2026-11-27), not when the kernel sent it; its diff is what the kernel's send times change")
	}
}
