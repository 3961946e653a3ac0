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

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// testReceiver is a receiver on a fresh endpoint with patch 0016's option
// as on says, past its first quick ACKs.
func testReceiver(t *testing.T, on bool, mss int) *receiver {
	t.Helper()
	st := stack.New(stack.Options{TransportProtocols: []stack.TransportProtocolFactory{NewProtocol}})
	t.Cleanup(st.Destroy)
	var wq waiter.Queue
	e := newEndpoint(st, st.TransportProtocolInstance(ProtocolNumber).(*protocol), header.IPv4ProtocolNumber, &wq)
	e.ackClock, e.delayedAck, e.amss = on, true, uint16(mss)
	e.snd = &sender{ep: e}
	e.snd.RTO = 200 * time.Millisecond
	r := &receiver{ep: e}
	e.rcv = r
	r.delack.rcvMSS, r.delack.ato = mss, delackATOMin
	r.delack.lastRcv = st.Clock().NowMonotonic()
	return r
}

// TestGSOPacketEnd: the segments Linux marks with PSH in a send cut into
// GSO packets: the last of each packet of two segments or more, the
// send's short last packet included; never a packet of one segment
// (objbench patch 0016).
func TestGSOPacketEnd(t *testing.T) {
	for _, c := range []struct {
		n, chunk int
		want     string // one mark per segment: P for PSH
	}{
		{n: 6, chunk: 3, want: "..P..P"},
		{n: 7, chunk: 3, want: "..P..P."},
		{n: 8, chunk: 3, want: "..P..P.P"},
		{n: 4, chunk: 2, want: ".P.P"},
		{n: 1, chunk: 2, want: "."},
		{n: 2, chunk: 45, want: ".P"},
		{n: 5, chunk: 0, want: "....."}, // no chunk: no round trip yet, or the option off
		{n: 5, chunk: 1, want: "....."},
	} {
		got := ""
		for i := 1; i <= c.n; i++ {
			if gsoPacketEnd(i, c.n, c.chunk) {
				got += "P"
			} else {
				got += "."
			}
		}
		if got != c.want {
			t.Errorf("%d segments in chunks of %d: %s, want %s", c.n, c.chunk, got, c.want)
		}
	}
}

// TestPushedFullSegment: with patch 0016 a full-sized segment with PSH
// counts as the end of a write (ICSK_ACK_PUSHED, Linux 6.6 and later), so
// the ACK goes once the reader drains; without it only a short segment
// does, as before.
func TestPushedFullSegment(t *testing.T) {
	const mss = 1448
	for _, c := range []struct {
		name    string
		on, psh bool
		size    int
		want    bool
	}{
		{name: "full-sized with PSH", on: true, psh: true, size: mss, want: true},
		{name: "full-sized with PSH, option off", psh: true, size: mss},
		{name: "full-sized without PSH", on: true, size: mss},
		{name: "short, option off", size: 100, want: true},
		{name: "short with PSH", on: true, psh: true, size: 100, want: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := testReceiver(t, c.on, mss)
			r.linuxWnd = linuxWindow{set: true, space: linuxRcvSpace, ssthresh: linuxRcvSpace} // grown: no quick ACK
			r.ep.mu.Lock()
			r.dataReceived(c.size, c.psh, r.ep.stack.Clock().NowMonotonic().Add(time.Millisecond))
			r.ep.mu.Unlock()
			if r.delack.pushed != c.want {
				t.Errorf("pushed %v, want %v", r.delack.pushed, c.want)
			}
		})
	}
}

// TestQuickAckWhileWindowGrows: with patch 0016 each segment that grows
// the receive window (rcv_ssthresh, toward the buffer's size) asks for an
// ACK at once, as tcp_grow_window's quick ACK does; once the window has
// reached the buffer, and without the option, the ACK for every second
// segment is the rule again.
func TestQuickAckWhileWindowGrows(t *testing.T) {
	const mss = 1448
	for _, c := range []struct {
		name      string
		on        bool
		ssthresh  int // rcv_ssthresh before the segment
		wantQuick int
	}{
		{name: "the window grows", on: true, ssthresh: 20 * mss, wantQuick: 1},
		{name: "the window at the buffer's size", on: true, ssthresh: linuxRcvSpace},
		{name: "option off", ssthresh: 20 * mss},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := testReceiver(t, c.on, mss)
			r.linuxWnd = linuxWindow{set: true, space: linuxRcvSpace, ssthresh: c.ssthresh}
			r.ep.mu.Lock()
			r.dataReceived(mss, false, r.ep.stack.Clock().NowMonotonic().Add(time.Millisecond))
			r.ep.mu.Unlock()
			if r.delack.quick != c.wantQuick {
				t.Errorf("quick ACKs %d, want %d", r.delack.quick, c.wantQuick)
			}
			grew := r.linuxWnd.ssthresh > c.ssthresh
			if want := c.on && c.ssthresh < linuxRcvSpace; grew != want {
				t.Errorf("rcv_ssthresh %d from %d: grew %v, want %v", r.linuxWnd.ssthresh, c.ssthresh, grew, want)
			}
		})
	}
}
