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
	"time"

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
)

// objbench patch 0015: new data sent in Linux's GSO chunks, on endpoints
// whose stack sets tcpip.TCPTSODeferOption.
//
// Linux's TCP builds every packet as a GSO one, whatever the device
// (since 4.13), and splits its queue at transmit into chunks of about a
// millisecond at its pacing rate (tcp_tso_autosize: at least 2 segments).
// When the window has room for less than a chunk, tcp_tso_should_defer
// holds the data for the next ACK. Traced on the reference behind a
// quarter-BDP queue at 50 Mbit and 40 ms (a 4 MiB GET, the wire's queue
// at each admission), Linux's sender, ACKed for one segment at a time,
// sent 2 on each ACK while its chunk was 2, then 3, 3, nothing, 3, 3, and
// 6 after an ACK that came late; upstream gVisor sends what each ACK
// frees (4 on each ACK for two segments, the lab's receiver's pace).

// Linux's defaults for the chunk and the deferral.
const (
	linuxMinTSOSegs    = 2     // net.ipv4.tcp_min_tso_segs
	linuxGSOMaxSize    = 65536 // GSO_LEGACY_MAX_SIZE, the device's default
	linuxPacingShift   = 10    // sk_pacing_shift: a chunk is rate >> 10, about 1 ms
	linuxTSOWinDivisor = 3     // net.ipv4.tcp_tso_win_divisor
	linuxPacingSSRatio = 200   // net.ipv4.tcp_pacing_ss_ratio, percent
	linuxPacingCARatio = 120   // net.ipv4.tcp_pacing_ca_ratio, percent
)

// linuxTSOSegs is tcp_tso_segs: the chunk in segments, from the pacing
// rate tcp_update_pacing_rate sets (twice the window a round trip in slow
// start, below half ssthresh; 1.2 times after).
func linuxTSOSegs(mss, cwnd, out, ssthresh int, srtt time.Duration) int {
	if mss <= 0 || srtt <= 0 {
		return linuxMinTSOSegs
	}
	ratio := uint64(linuxPacingCARatio)
	if cwnd < ssthresh/2 {
		ratio = linuxPacingSSRatio
	}
	rate := uint64(mss) * ratio * uint64(max(cwnd, out)) * uint64(time.Second/100) / uint64(srtt) // bytes a second
	bytes := min(rate>>linuxPacingShift, linuxGSOMaxSize)
	return max(int(bytes)/mss, linuxMinTSOSegs)
}

// tsoState is what tcp_tso_should_defer reads besides the chunk.
type tsoState struct {
	cwnd, mss  int
	sndWnd     seqnum.Size
	srtt       time.Duration
	sinceWrite time.Duration // since the last segment left
	out        bool          // segments are out
	sinceHead  time.Duration // since the oldest of them left
}

// hold is tcp_tso_should_defer for a window's room of room segments,
// less than a chunk: hold the data for the next ACK unless the last
// write was over a millisecond ago, the room is a third of the window,
// nothing is out, or the oldest segment out left under half a smoothed
// round trip ago (the next ACK would come too late).
func (t tsoState) hold(room int) bool {
	if t.sinceWrite > time.Millisecond || !t.out || t.sinceHead < t.srtt/2 {
		return false
	}
	return uint64(room*t.mss)*linuxTSOWinDivisor < min(uint64(t.sndWnd), uint64(t.cwnd*t.mss))
}

// tsoChunks is tcp_write_xmit's loop over a window's room of room
// segments with avail segments of new data queued: whole chunks go, and
// once the room is less than a chunk the rest waits for the next ACK if
// hold says so, but for a last segment (Nagle's test decides that one).
// cwndLimited says the room, not the data, was what fell short then
// (Linux counts the sender window-limited).
func tsoChunks(room, avail, chunk int, t tsoState) (quota int, cwndLimited bool) {
	for room > 0 && avail > 0 {
		if room < chunk && avail > 1 && t.hold(room) {
			return quota, room <= avail
		}
		c := min(room, chunk, avail)
		quota += c
		room -= c
		avail -= c
		t.sinceWrite = 0
		if !t.out {
			t.out, t.sinceHead = true, 0
		}
	}
	return quota, false
}

// tsoQuota is how many of the room segments the sender may send now as
// Linux's tcp_write_xmit would (tsoChunks), whether the window held some
// back, and the chunk (0 before the first round-trip sample). A negative
// quota is no limit: in recovery Linux does not defer, nor data sent
// before, nor a FIN, nor before the first round-trip sample.
//
// +checklocks:s.ep.mu
// +checklocksexclude:s.rtt.rttMutex
func (s *sender) tsoQuota(room int) (quota int, cwndLimited bool, chunk int) {
	if !s.ep.tsoDefer || room <= 0 || s.MaxPayloadSize <= 0 {
		return -1, false, 0
	}
	s.rtt.Lock()
	srtt, inited := s.rtt.TCPRTTState.SRTT, s.rtt.TCPRTTState.SRTTInited
	s.rtt.Unlock()
	if !inited {
		return -1, false, 0
	}
	chunk = linuxTSOSegs(s.MaxPayloadSize, s.SndCwnd, s.Outstanding, s.Ssthresh, srtt)
	seg := s.writeNext
	if s.FastRecovery.Active || s.state == tcpip.RTORecovery || seg == nil || s.isAssignedSequenceNumber(seg) && seg.sequenceNumber.LessThan(s.SndNxt) {
		return -1, false, chunk
	}
	// The new data queued, as far as this send can reach.
	bytes := 0
	for ; seg != nil && bytes < (room+chunk)*s.MaxPayloadSize; seg = seg.Next() {
		if seg.payloadSize() == 0 { // a FIN: Linux sends it at once
			return -1, false, chunk
		}
		bytes += seg.payloadSize()
	}
	now := s.ep.stack.Clock().NowMonotonic()
	t := tsoState{cwnd: s.SndCwnd, mss: s.MaxPayloadSize, sndWnd: s.SndWnd, srtt: srtt, sinceWrite: now.Sub(s.LastSendTime), out: s.Outstanding > 0}
	if head := s.writeList.Front(); t.out && head != nil {
		t.sinceHead = now.Sub(head.xmitTime)
	}
	quota, cwndLimited = tsoChunks(room, (bytes+s.MaxPayloadSize-1)/s.MaxPayloadSize, chunk, t)
	return quota, cwndLimited, chunk
}
