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
	"math"
	"testing"
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/buffer"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// TestLinuxTSOSegs: the chunk is a millisecond at Linux's pacing rate, in
// whole segments: 3 for a window of 80 in slow start at 42 ms (as the
// reference's sender sent them), 4 for 170 after it, at least 2, and at
// most the 64 KiB of a GSO packet.
func TestLinuxTSOSegs(t *testing.T) {
	for _, c := range []struct {
		name                string
		cwnd, out, ssthresh int
		srtt                time.Duration
		want                int
	}{
		{name: "slow start", cwnd: 80, out: 80, ssthresh: math.MaxInt, srtt: 42 * time.Millisecond, want: 3},
		{name: "after slow start", cwnd: 170, out: 168, ssthresh: 170, srtt: 42 * time.Millisecond, want: 4},
		{name: "the initial window: the floor", cwnd: 10, ssthresh: math.MaxInt, srtt: 40 * time.Millisecond, want: 2},
		{name: "more out than the window", cwnd: 40, out: 80, ssthresh: math.MaxInt, srtt: 42 * time.Millisecond, want: 3},
		{name: "a GSO packet at most", cwnd: 10000, ssthresh: 10000, srtt: time.Millisecond, want: 45},
		{name: "no round trip yet", cwnd: 80, ssthresh: math.MaxInt, want: 2},
	} {
		if got := linuxTSOSegs(1448, c.cwnd, c.out, c.ssthresh, c.srtt); got != c.want {
			t.Errorf("%s: %d segments, want %d", c.name, got, c.want)
		}
	}
}

// TestTSOChunks: a window's room goes in whole chunks, and once it is
// less than a chunk the rest waits for the next ACK, unless the last
// write was over a millisecond ago, nothing was out, the oldest segment
// out left under half a round trip ago, the room is a third of the
// window, or one segment is left; a short application write goes whole
// (objbench patch 0015).
func TestTSOChunks(t *testing.T) {
	srtt := 42 * time.Millisecond
	clocked := tsoState{cwnd: 80, mss: 1448, sndWnd: 1 << 20, srtt: srtt, sinceWrite: 300 * time.Microsecond, out: true, sinceHead: 41 * time.Millisecond}
	for _, c := range []struct {
		name               string
		room, avail, chunk int
		t                  func(tsoState) tsoState
		want               int
		cwndLimited        bool
	}{
		{name: "less than a chunk: held", room: 2, avail: 100, chunk: 3, want: 0, cwndLimited: true},
		{name: "a chunk and one: the one held", room: 4, avail: 100, chunk: 3, want: 3, cwndLimited: true},
		{name: "two chunks", room: 6, avail: 100, chunk: 3, want: 6},
		{name: "last write over a millisecond ago", room: 2, avail: 100, chunk: 3, want: 2,
			t: func(s tsoState) tsoState { s.sinceWrite = 2 * time.Millisecond; return s }},
		{name: "nothing out", room: 4, avail: 100, chunk: 3, want: 4,
			t: func(s tsoState) tsoState { s.out, s.sinceHead = false, 0; return s }},
		{name: "the oldest left under half a round trip ago", room: 2, avail: 100, chunk: 3, want: 2,
			t: func(s tsoState) tsoState { s.sinceHead = 20 * time.Millisecond; return s }},
		{name: "a third of a small window", room: 2, avail: 100, chunk: 3, want: 2,
			t: func(s tsoState) tsoState { s.cwnd = 6; return s }},
		{name: "a third of the peer's window", room: 2, avail: 100, chunk: 3, want: 2,
			t: func(s tsoState) tsoState { s.sndWnd = 8000; return s }},
		{name: "a short write with room to spare", room: 80, avail: 3, chunk: 2, want: 3},
		{name: "one segment left", room: 2, avail: 1, chunk: 3, want: 1},
		{name: "the last data, as much as the room, short of a chunk", room: 2, avail: 2, chunk: 3, want: 0, cwndLimited: true},
		{name: "less data than room, short of a chunk", room: 3, avail: 2, chunk: 4, want: 0},
	} {
		st := clocked
		if c.t != nil {
			st = c.t(st)
		}
		got, limited := tsoChunks(c.room, c.avail, c.chunk, st)
		if got != c.want || limited != c.cwndLimited {
			t.Errorf("%s: %d segments (window-limited %v), want %d (%v)", c.name, got, limited, c.want, c.cwndLimited)
		}
	}
}

// TestTSOQuota: the sender holds back only new data, with the option on,
// outside recovery, once a round trip is measured, and not for a last
// segment of one MSS; the unsent rest of a segment split at the last
// send is new data (objbench patch 0015).
func TestTSOQuota(t *testing.T) {
	const mss = 1448
	for _, c := range []struct {
		name          string
		off, recovery bool
		noRTT         bool
		next          int  // the unsent segment's payload
		last          bool // nothing queued after it
		resent        bool // it was sent before (after a timeout)
		split         bool // the rest of a segment the last send split
		want          int
	}{
		{name: "ACK-clocked: a chunk, the rest held", next: 64 << 10, want: 3},
		{name: "the rest of a split segment", next: 64 << 10, split: true, want: 3},
		{name: "option off", off: true, next: 64 << 10, want: -1},
		{name: "in recovery", recovery: true, next: 64 << 10, want: -1},
		{name: "no round trip yet", noRTT: true, next: 64 << 10, want: -1},
		{name: "sent before", resent: true, next: 64 << 10, want: -1},
		{name: "a last segment of one MSS", next: mss, last: true, want: 1},
		{name: "the last data, a chunk and a segment: all", next: 4 * mss, last: true, want: 4},
		{name: "the last data, a chunk and two: two held", next: 5 * mss, last: true, want: 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := stack.New(stack.Options{TransportProtocols: []stack.TransportProtocolFactory{NewProtocol}})
			defer st.Destroy()
			var wq waiter.Queue
			e := newEndpoint(st, st.TransportProtocolInstance(ProtocolNumber).(*protocol), header.IPv4ProtocolNumber, &wq)
			e.tsoDefer = !c.off
			s := &sender{ep: e}
			s.writeList.set = make(map[*segment]struct{})
			e.snd = s
			now := st.Clock().NowMonotonic()
			una := seqnum.Value(1000)
			head := newOutgoingSegment(e.TransportEndpointInfo.ID, st.Clock(), buffer.MakeWithData(make([]byte, 78*mss)), 0)
			head.sequenceNumber, head.flags, head.xmitTime = una, header.TCPFlagAck, now.Add(-41*time.Millisecond)
			s.writeList.PushBack(head)
			next := newOutgoingSegment(e.TransportEndpointInfo.ID, st.Clock(), buffer.MakeWithData(make([]byte, c.next)), 0)
			s.writeList.PushBack(next)
			if !c.last {
				s.writeList.PushBack(newOutgoingSegment(e.TransportEndpointInfo.ID, st.Clock(), buffer.MakeWithData(make([]byte, 64<<10)), 0))
			}
			defer func() {
				for seg := s.writeList.Front(); seg != nil; {
					n := seg.Next()
					s.writeList.Remove(seg)
					seg.DecRef()
					seg = n
				}
			}()
			s.writeNext = next
			s.SndUna, s.SndNxt = una, una.Add(78*mss)
			switch {
			case c.resent:
				next.sequenceNumber, next.flags = una, header.TCPFlagAck
			case c.split:
				next.sequenceNumber, next.flags = s.SndNxt, header.TCPFlagAck|header.TCPFlagPsh
			}
			s.SndCwnd, s.Outstanding, s.Ssthresh, s.MaxPayloadSize, s.SndWnd = 80, 78, math.MaxInt, mss, 1<<20
			s.LastSendTime = now.Add(-300 * time.Microsecond)
			s.FastRecovery.Active = c.recovery
			if !c.noRTT {
				s.rtt.TCPRTTState.SRTT, s.rtt.TCPRTTState.SRTTInited = 42*time.Millisecond, true
			}
			s.state = tcpip.Open
			e.mu.Lock()
			got, _, chunk := s.tsoQuota(4)
			e.mu.Unlock()
			if got != c.want {
				t.Errorf("quota %d, want %d", got, c.want)
			}
			// The chunk is known wherever a round trip is, recovery
			// included: patch 0016 marks the packets cut from it.
			if wantChunk := 3; c.off || c.noRTT {
				if chunk != 0 {
					t.Errorf("chunk %d, want 0", chunk)
				}
			} else if chunk != wantChunk {
				t.Errorf("chunk %d, want %d", chunk, wantChunk)
			}
		})
	}
}
