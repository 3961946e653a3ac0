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

// objbench patch 0002 (see third_party/gvisor/PATCHES.md): detection of a
// lost retransmission during SACK recovery, as Linux's TCP does.
//
// Upstream gVisor's RFC 6675 recovery (RACK off) retransmits each hole once:
// NextSeg only looks above HighRxt, and SetPipe counts a retransmission as in
// flight until it is acknowledged. When a retransmission is lost too, as
// behind a small queue still full after slow start's overshoot, the sender
// waits for its retransmission timer, then goes back to a window of one.
// Linux detects the loss from SACKs instead: once data sent after a
// retransmission has been SACKed (by more than the reordering allowance),
// the retransmission is lost and is sent again within the same recovery
// (tcp_mark_lost_retrans before Linux 4.18; RACK's time order since).

import "github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"

// markLostRetransmissions marks the unacknowledged retransmissions sent
// before data that has since been SACKed, beyond the duplicate-ACK
// threshold's worth of reordering (Linux's tcp_mark_lost_retrans:
// received_upto beyond the retransmission's snd_nxt plus
// tp->reordering * mss).
//
// +checklocks:s.ep.mu
func (s *sender) markLostRetransmissions() {
	fack := s.ep.scoreboard.MaxSACKED()
	allowance := seqnum.Size(s.dupThresh() * s.MaxPayloadSize)
	for seg := s.writeList.Front(); seg != nil && seg.xmitCount != 0 && seg.sequenceNumber.LessThan(s.SndNxt); seg = seg.Next() {
		if seg.xmitCount < 2 || seg.rtxLost || !seg.rtxNxt.Add(allowance).LessThanEq(fack) {
			continue
		}
		if s.ep.scoreboard.IsSACKED(seg.sackBlock()) {
			continue
		}
		seg.rtxLost = true
		s.rtxLostCount++
	}
}

// lostRetransmission returns the lowest unacknowledged segment whose
// retransmission was marked lost, to be sent again before anything else
// NextSeg would choose.
//
// +checklocks:s.ep.mu
func (s *sender) lostRetransmission() *segment {
	if s.rtxLostCount <= 0 {
		return nil
	}
	for seg := s.writeList.Front(); seg != nil && seg.xmitCount != 0 && seg.sequenceNumber.LessThan(s.SndNxt); seg = seg.Next() {
		if seg.rtxLost && !s.ep.scoreboard.IsSACKED(seg.sackBlock()) {
			return seg
		}
	}
	return nil
}

// clearRtxLost unmarks seg, sent again or acknowledged.
//
// +checklocks:s.ep.mu
func (s *sender) clearRtxLost(seg *segment) {
	if seg.rtxLost {
		seg.rtxLost = false
		s.rtxLostCount--
	}
}

// setPipe is RFC 6675's SetPipe as upstream computes it (per SMSS of each
// sent segment: one unless SACKed or lost, one more when at or below
// HighRxt and, with this patch, not a retransmission known lost), in one
// walk over the segments and the sorted SACK ranges instead of two tree
// lookups per segment. A range is lost when the SACKed ranges starting
// above it number the threshold or hold (threshold-1)*SMSS bytes, as in
// SACKScoreboard.IsRangeLost.
//
// +checklocks:s.ep.mu
func (s *sender) setPipe() int {
	sb := s.ep.scoreboard
	// bytes[j]: the bytes of the ranges from j on (objbench patch 0008's
	// view, taken again only when the scoreboard changed).
	v := sb.snapshot(&s.sackView)
	blocks, bytes, thresh, lostBytes := v.blocks, v.above, v.thresh, v.lostBytes
	smss := seqnum.Size(sb.SMSS())
	pipe, k := 0, 0
	for s1 := s.writeList.Front(); s1 != nil && s1.payloadSize() != 0 && s.isAssignedSequenceNumber(s1); s1 = s1.Next() {
		if !s1.sequenceNumber.LessThan(s.SndNxt) {
			break
		}
		segEnd := s1.sequenceNumber.Add(seqnum.Size(s1.payloadSize()))
		for startSeq := s1.sequenceNumber; startSeq.LessThan(segEnd); startSeq = startSeq.Add(smss) {
			endSeq := startSeq.Add(smss)
			if segEnd.LessThan(endSeq) {
				endSeq = segEnd
			}
			for k < len(blocks) && blocks[k].End.LessThanEq(startSeq) {
				k++
			}
			j := k
			if k < len(blocks) && blocks[k].Start.LessThanEq(startSeq) {
				if endSeq.LessThanEq(blocks[k].End) {
					continue // SACKed
				}
				j = k + 1 // partly SACKed: count the ranges above
			}
			// (objbench patch 0018: nor one RACK marked lost.)
			if n := len(blocks) - j; n < thresh && bytes[j] < lostBytes && !s.rackLost(s1) {
				pipe++
			}
			if s1.sequenceNumber.LessThanEq(s.FastRecovery.HighRxt) && !s1.rtxLost {
				pipe++
			}
		}
	}
	return pipe
}
