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

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// TestLinuxPerMSS: Linux's memory per segment for the MSS of a 1500-byte
// path with timestamps is 2,304 bytes, so the buffer at the initial window
// is the 46,080 bytes a connected socket reports on the reference's kernel
// (and netem.LinuxBuffers' SendDefault); a jumbo frame's rounds up to the
// next power of two.
func TestLinuxPerMSS(t *testing.T) {
	for _, c := range []struct{ mss, want int }{
		{1448, 2304}, {1460, 2304}, {536, 2304}, {300, 1280}, {8948, 16640},
	} {
		if got := linuxPerMSS(c.mss); got != c.want {
			t.Errorf("linuxPerMSS(%d) = %d, want %d", c.mss, got, c.want)
		}
	}
	if got := 2 * InitialCwnd * linuxPerMSS(1448); got != 46080 {
		t.Errorf("the buffer at the initial window: %d, want 46080", got)
	}
}

// TestCheckSpace: after an ACK's sending, a waiting writer's buffer grows
// to twice the window in Linux's memory per segment only where the sender
// has less out than its window (it ran out of data, not of window), up to
// the stack's maximum and never where SO_SNDBUF was set; the writer is
// woken once the free room is half of what is used (objbench patch 0014).
func TestCheckSpace(t *testing.T) {
	const max = 4 << 20
	for _, c := range []struct {
		name            string
		noSpace, locked bool
		cwnd, out, used int
		size            int64
		wantSize        int64
		wantWake        bool
	}{
		{name: "out of data: grown and woken", noSpace: true, cwnd: 100, out: 60, used: 300000, size: 200000, wantSize: 2 * 100 * 2304, wantWake: true},
		{name: "out of data: grown, a third not yet free", noSpace: true, cwnd: 100, out: 60, used: 400000, size: 200000, wantSize: 2 * 100 * 2304},
		{name: "window-limited: not grown", noSpace: true, cwnd: 100, out: 100, used: 190000, size: 200000, wantSize: 200000},
		{name: "window-limited, a third free: woken", noSpace: true, cwnd: 100, out: 100, used: 130000, size: 200000, wantSize: 200000, wantWake: true},
		{name: "no writer waiting", cwnd: 100, out: 60, used: 100000, size: 200000, wantSize: 200000},
		{name: "SO_SNDBUF set", noSpace: true, locked: true, cwnd: 100, out: 60, used: 150000, size: 200000, wantSize: 200000},
		{name: "capped at the maximum", noSpace: true, cwnd: 1000, out: 600, used: 300000, size: 200000, wantSize: max, wantWake: true},
		{name: "never shrunk", noSpace: true, cwnd: 10, out: 5, used: 100000, size: 200000, wantSize: 200000, wantWake: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := stack.New(stack.Options{TransportProtocols: []stack.TransportProtocolFactory{NewProtocol}})
			defer st.Destroy()
			if e := st.SetTransportProtocolOption(ProtocolNumber, &tcpip.TCPSendBufferSizeRangeOption{Min: 4096, Default: 46080, Max: max}); e != nil {
				t.Fatal(e)
			}
			var wq waiter.Queue
			e := newEndpoint(st, st.TransportProtocolInstance(ProtocolNumber).(*protocol), header.IPv4ProtocolNumber, &wq)
			e.snd = &sender{ep: e}
			e.snd.SndCwnd, e.snd.Outstanding, e.snd.MaxPayloadSize, e.snd.reordering = c.cwnd, c.out, 1448, 3
			e.ops.SetSendBufferSize(c.size, false)
			if c.locked {
				e.ops.SetSendBufferSize(c.size, true)
			}
			e.sndQueueInfo.SndBufUsed, e.sndQueueInfo.noSpace = c.used, c.noSpace
			entry, woke := waiter.NewChannelEntry(waiter.WritableEvents)
			wq.EventRegister(&entry)
			e.checkSpace()
			if got := e.ops.GetSendBufferSize(); got != c.wantSize {
				t.Errorf("buffer %d, want %d", got, c.wantSize)
			}
			gotWake := false
			select {
			case <-woke:
				gotWake = true
			default:
			}
			if gotWake != c.wantWake {
				t.Errorf("woken %v, want %v", gotWake, c.wantWake)
			}
			if e.sndQueueInfo.noSpace != (c.noSpace && !c.wantWake) {
				t.Errorf("still waiting %v", e.sndQueueInfo.noSpace)
			}
		})
	}
}
