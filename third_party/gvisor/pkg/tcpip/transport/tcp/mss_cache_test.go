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

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/stack"
	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// testOptionsEndpoint is an established-looking endpoint that sends
// timestamps and may send SACK blocks, with patch 0017 as on says.
func testOptionsEndpoint(t *testing.T, on bool) *Endpoint {
	t.Helper()
	st := stack.New(stack.Options{TransportProtocols: []stack.TransportProtocolFactory{NewProtocol}})
	t.Cleanup(st.Destroy)
	var wq waiter.Queue
	e := newEndpoint(st, st.TransportProtocolInstance(ProtocolNumber).(*protocol), header.IPv4ProtocolNumber, &wq)
	e.mssCache, e.SendTSOk, e.SACKPermitted = on, true, true
	return e
}

// TestSegmentOptionSize: the payload of a data segment on a 1460-byte MSS
// with timestamps is Linux's 1448 with patch 0017 (mss_cache: the
// timestamps' 12 bytes), upstream's 1420 without (room for three SACK
// blocks in every segment).
func TestSegmentOptionSize(t *testing.T) {
	for _, c := range []struct {
		on   bool
		want int
	}{{on: true, want: 1448}, {on: false, want: 1420}} {
		e := testOptionsEndpoint(t, c.on)
		if got := 1460 - e.segmentOptionSize(); got != c.want {
			t.Errorf("option %v: %d bytes of payload on a 1460-byte MSS, want %d", c.on, got, c.want)
		}
	}
}

// TestSACKBlocksThatFit: with patch 0017 a data segment carries the SACK
// blocks that fit beside its payload in the MTU its payload was sized
// for, none beside a full-sized one; pure ACKs and upstream's segments
// carry them all.
func TestSACKBlocksThatFit(t *testing.T) {
	blocks := []header.SACKBlock{{Start: 100, End: 200}, {Start: 300, End: 400}, {Start: 500, End: 600}}
	for _, c := range []struct {
		on      bool
		payload int
		want    int
	}{
		{on: true, payload: 1448, want: 0}, // full-sized: 12 bytes of room, the timestamps'
		{on: true, payload: 1436, want: 1}, // 24 bytes: one block (2 NOPs, 2 + 8)
		{on: true, payload: 1429, want: 1}, // 31 bytes: not two (32 with the timestamps)
		{on: true, payload: 1420, want: 3}, // 40 bytes: all three
		{on: true, payload: 0, want: 3},    // a pure ACK
		{on: false, payload: 1420, want: 3},
	} {
		e := testOptionsEndpoint(t, c.on)
		e.snd = &sender{ep: e}
		e.snd.MaxPayloadSize = 1460 - e.segmentOptionSize()
		got := e.sackBlocksThatFit(blocks, c.payload)
		if len(got) != c.want {
			t.Errorf("option %v, %d bytes of payload: %d SACK blocks, want %d", c.on, c.payload, len(got), c.want)
		}
		options := e.makeOptions(got)
		if c.payload > 0 && c.on && len(options)+c.payload > 1460 {
			t.Errorf("option %v, %d bytes of payload: %d bytes of options overflow the MSS", c.on, c.payload, len(options))
		}
		putOptions(options)
	}
}
