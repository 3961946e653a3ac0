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

// objbench patch 0003 (see third_party/gvisor/PATCHES.md): proportional rate
// reduction (RFC 6937) in SACK recovery, as Linux's tcp_cwnd_reduction.
//
// Upstream gVisor's RFC 6675 recovery sends whenever the pipe estimate is
// below cwnd. When one ACK marks many segments lost at once, the pipe
// estimate falls by as many and the sender retransmits them back to back:
// behind a small drop-tail queue that burst is lost in part, and a second
// recovery follows the first. PRR sends in proportion to what was
// delivered instead, so the pipe comes down to ssthresh smoothly.

// prrState is RFC 6937's state for one recovery.
type prrState struct {
	// priorCwnd is cwnd before the reduction (RecoverFS; Linux's
	// tp->prior_cwnd).
	priorCwnd int
	// delivered and out are prr_delivered and prr_out, in segments.
	delivered, out int
	// priorUna and priorSacked are SND.UNA and the SACKed bytes before
	// the ACK being processed, to count what it delivered.
	priorUna    uint32
	priorSacked uint32
}

// prrBeforeAck remembers what had been delivered before an ACK.
//
// +checklocks:s.ep.mu
func (s *sender) prrBeforeAck() {
	s.prr.priorUna = uint32(s.SndUna)
	s.prr.priorSacked = uint32(s.ep.scoreboard.Sacked())
}

// prrEnter starts a recovery's PRR; priorCwnd is cwnd before the cut.
//
// +checklocks:s.ep.mu
func (s *sender) prrEnter(priorCwnd int) {
	s.prr.priorCwnd = max(priorCwnd, 1)
	s.prr.delivered, s.prr.out = 0, 0
}

// prrSetCwnd sets cwnd for this ACK's sending in recovery: the pipe plus
// RFC 6937's sndcnt, as Linux's tcp_cwnd_reduction computes it
// (proportional while the pipe is above ssthresh, slow-start reduction
// bound once below). SetPipe must have run.
//
// +checklocks:s.ep.mu
func (s *sender) prrSetCwnd() {
	mss := max(s.MaxPayloadSize, 1)
	bytes := int(uint32(s.SndUna)-s.prr.priorUna) + int(uint32(s.ep.scoreboard.Sacked())) - int(s.prr.priorSacked)
	newly := 0
	if bytes > 0 {
		newly = (bytes + mss - 1) / mss
	}
	s.prr.delivered += newly
	pipe := s.Outstanding
	var sndcnt int
	if delta := s.Ssthresh - pipe; delta < 0 {
		sndcnt = (s.Ssthresh*s.prr.delivered+s.prr.priorCwnd-1)/s.prr.priorCwnd - s.prr.out
	} else {
		sndcnt = max(s.prr.delivered-s.prr.out, newly)
		if uint32(s.SndUna) != s.prr.priorUna {
			sndcnt++
		}
		sndcnt = min(delta, sndcnt)
	}
	// A fast retransmit is always sent on entering recovery.
	if s.prr.out == 0 {
		sndcnt = max(sndcnt, 1)
	}
	s.SndCwnd = pipe + max(sndcnt, 0)
}
