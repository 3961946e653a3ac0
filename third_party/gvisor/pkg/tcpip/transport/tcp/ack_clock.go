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

// objbench patch 0016 (tcpip.TCPAckClockOption): the pace at which a
// Linux receiver acknowledges a bulk transfer, and the PSH marks on the
// sender's side that it reads.
//
// Traced behind a quarter-BDP queue at 50 Mbit and 40 ms (a 4 MiB GET,
// each packet's TCP header on the wire), Linux's receiver acknowledged
// every segment of slow start's third round, each ACK opening its window
// by two segments; the lab's acknowledged every second one. Linux's
// sender, answering one segment at a time, sent a pair per ACK, where the
// lab's sent two pairs per ACK for two, and its queue never overflowed
// where Linux's did: the lab took 0.9 s, Linux 1.13 s. Three rules make
// the pace:
//
//   - tcp_grow_window sets a quick ACK each time a segment raises
//     rcv_ssthresh, the window's growth toward the receive buffer
//     (patch 0011's model of the window, window_ack.go; delack.go).
//   - tcp_measure_rcv_mss, since Linux 6.6 (commit 4720852ed9af), takes
//     a full-sized segment with PSH for the end of a write: its ACK goes
//     once the application has read everything (delack.go).
//   - __tcp_transmit_skb puts PSH on every GSO packet of more than one
//     segment, to flush the receiver's GRO, and segmentation leaves it on
//     the packet's last segment: 941 to 1,274 of about 2,950 data packets
//     carried it, where the server's 64 KiB writes ended about 80 times,
//     the only places the lab marked (gsoPacketEnd, in sendData).

// gsoPacketEnd says whether the i-th segment (from 1) of a send of n
// segments cut into packets of chunk segments ends a packet of two
// segments or more: the one Linux marks with PSH.
func gsoPacketEnd(i, n, chunk int) bool {
	if chunk < 2 || i < 1 {
		return false
	}
	k := (i-1)%chunk + 1 // its place in its packet
	return k >= 2 && (k == chunk || i == n)
}
