// Copyright 2026 The objbench Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package tcp

import (
	"testing"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
)

// manualClock is a tcpip.Clock that moves only when told.
type manualClock struct{ now tcpip.MonotonicTime }

func (c *manualClock) Now() time.Time                              { return time.Unix(0, 0).Add(c.now.Sub(tcpip.MonotonicTime{})) }
func (c *manualClock) NowMonotonic() tcpip.MonotonicTime           { return c.now }
func (c *manualClock) AfterFunc(time.Duration, func()) tcpip.Timer { return stoppedTimer{} }

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool          { return false }
func (stoppedTimer) Reset(time.Duration) {}

// TestCubicEpochAfterFastConvergence: a second loss below the last
// maximum (fast convergence lowers WMax from 167 to 142) leaves a window of
// 116 after recovery. With patch 0013's option the curve starts from that
// window, as Linux's bictcp_update starts its epoch, and the window grows
// from the first round trip; upstream's curve starts at WMax*0.7 = 99,
// under the window, which then stays flat for most of a second (the lab's
// slow mode behind a quarter-BDP queue at 50 Mbit and 40 ms, docs/lab.md).
func TestCubicEpochAfterFastConvergence(t *testing.T) {
	const rtt = 40 * time.Millisecond
	trace := func(on bool) []int {
		clk := &manualClock{}
		st := stack.New(stack.Options{Clock: clk})
		defer st.Destroy()
		s := &sender{ep: &Endpoint{stack: st, linuxCubic: on}}
		s.rtt.TCPRTTState.SRTT = rtt
		c := newCubicCC(s)
		s.cc = c
		loss := func(cwnd int) {
			s.SndCwnd = cwnd
			c.HandleLossDetected()
			clk.now = clk.now.Add(rtt)
			s.SndCwnd = s.Ssthresh // leaveRecovery
			c.PostRecovery()
		}
		loss(200)
		clk.now = clk.now.Add(2 * time.Second)
		loss(167)
		if s.SndCwnd != 116 || c.WMax > 142 || c.WMax < 141 {
			t.Fatalf("after the second loss: cwnd %d, WMax %.1f; want 116 and 141.95", s.SndCwnd, c.WMax)
		}
		// A second of round trips, each acknowledging the window two
		// segments at a time; the window every 100 ms.
		var ws []int
		next := clk.now
		for end := clk.now.Add(time.Second); clk.now.Before(end); {
			acks := max(s.SndCwnd/2, 1)
			for range acks {
				clk.now = clk.now.Add(rtt / time.Duration(acks))
				c.Update(2, rtt, clk.now)
				if !clk.now.Before(next) {
					ws = append(ws, s.SndCwnd)
					next = next.Add(100 * time.Millisecond)
				}
			}
		}
		return ws
	}
	on, off := trace(true), trace(false)
	t.Logf("window every 100 ms: %v with the option, %v without", on, off)
	if len(on) < 10 || len(off) < 10 {
		t.Fatalf("%d and %d samples in a second: want 10", len(on), len(off))
	}
	// Linux's on the lab's wire: 116, 120, 123, 126, 129 (docs/lab.md).
	if on[5]-on[0] < 4 || on[9] <= on[5] {
		t.Errorf("with the option the window went %v: want it growing from the first samples", on)
	}
	if off[5] != off[0] {
		t.Errorf("without the option the window went %v: upstream's curve starts under it and should hold it for half a second; if upstream changed, the option may no longer be needed", off)
	}
}
