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

// objbench patch 0001 (see third_party/gvisor/PATCHES.md): undo of a
// spurious window reduction, as Linux's TCP does.
//
// Upstream gVisor detects a spurious fast recovery (RFC 3522, Eifel, with
// timestamps) but only counts it. Under heavy reordering every jump then
// cuts the window for good. Linux instead remembers cwnd and ssthresh when it
// enters recovery (tp->prior_cwnd, tp->prior_ssthresh) and restores them when
// an ACK shows the hole was filled by the original transmission rather than
// the retransmission (tcp_try_undo_partial, tcp_try_undo_recovery,
// tcp_undo_cwnd_reduction). It also measures a reordering degree from SACKs
// (tcp_check_sack_reordering, tp->reordering); that is measured here too, but
// is a duplicate-ACK threshold only with reorderingRaisesDupThresh.

import (
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
)

// maxReordering bounds the reordering degree, as Linux's default
// net.ipv4.tcp_max_reordering.
const maxReordering = 300

// reorderingRaisesDupThresh makes the measured reordering degree the
// duplicate-ACK threshold and the number of segments SACKed above a hole
// that make it lost, as Linux's tp->reordering does with RACK off
// (net.ipv4.tcp_recovery=0). Off: Linux's default loss detection is RACK,
// which does not take tp->reordering as a threshold, and with it on the
// lab's heavy-reordering GET took 1.1 s where Linux takes 9 s (undo alone:
// 8.0 s); see third_party/gvisor/PATCHES.md.
const reorderingRaisesDupThresh = false

// undoState is what the sender had before it reduced its window on entering
// recovery, to be restored if the recovery proves spurious.
type undoState struct {
	// active is set from entering fast recovery until the episode ends or
	// is undone (Linux's tp->undo_marker).
	active   bool
	cwnd     int
	ssthresh int
	// cubic is CUBIC's state before the reduction (nil with another
	// congestion control).
	cubic       *TCPCubicState
	cubicEvents int
	cubicEpoch  cubicEpoch
}

// saveUndo remembers the window before HandleLossDetected reduces it
// (Linux's tcp_init_undo: prior_ssthresh, prior_cwnd).
//
// +checklocks:s.ep.mu
func (s *sender) saveUndo() {
	u := undoState{active: true, cwnd: s.SndCwnd, ssthresh: s.Ssthresh}
	if c, ok := s.cc.(*cubicState); ok {
		st := c.TCPCubicState
		u.cubic = &st
		u.cubicEvents = c.numCongestionEvents
		u.cubicEpoch = c.epoch
	}
	s.undo = u
}

// undoReduction restores the window saved by saveUndo (Linux's
// tcp_undo_cwnd_reduction: cwnd = max(cwnd, prior_cwnd), ssthresh =
// max(ssthresh, prior_ssthresh)); CUBIC's state goes back with it, as if the
// reduction had not happened.
//
// +checklocks:s.ep.mu
func (s *sender) undoReduction() {
	u := s.undo
	s.undo = undoState{}
	if !u.active {
		return
	}
	s.SndCwnd = max(s.SndCwnd, u.cwnd)
	s.Ssthresh = max(s.Ssthresh, u.ssthresh)
	if c, ok := s.cc.(*cubicState); ok && u.cubic != nil {
		c.TCPCubicState = *u.cubic
		c.numCongestionEvents = u.cubicEvents
		c.epoch = u.cubicEpoch
	}
}

// noteReordering raises the reordering degree when data at low arrived
// after data up to fack (the highest SACKed sequence before this ACK) had:
// Linux's tcp_check_sack_reordering.
//
// +checklocks:s.ep.mu
func (s *sender) noteReordering(fack, low seqnum.Value) {
	if !low.LessThan(fack) || s.MaxPayloadSize <= 0 {
		return
	}
	mss := s.MaxPayloadSize
	metric := int(low.Size(fack))
	if metric > s.reordering*mss {
		s.reordering = min((metric+mss-1)/mss, maxReordering)
		if reorderingRaisesDupThresh {
			s.ep.scoreboard.setReordering(s.reordering)
		}
	}
}

// dupThresh is the number of duplicate ACKs that starts a recovery.
//
// +checklocks:s.ep.mu
func (s *sender) dupThresh() int {
	if reorderingRaisesDupThresh {
		return s.reordering
	}
	return nDupAckThreshold
}

// lowestOriginal returns the lowest sequence number in [start, end) of a
// segment sent once and not acknowledged before, for measuring reordering
// from a newly SACKed range.
//
// +checklocks:s.ep.mu
func (s *sender) lowestOriginal(start, end seqnum.Value) (seqnum.Value, bool) {
	for seg := s.writeList.Front(); seg != nil && seg.sequenceNumber.LessThan(end); seg = seg.Next() {
		if seg.xmitCount == 0 {
			break
		}
		if seg.xmitCount == 1 && start.LessThanEq(seg.sequenceNumber) {
			return seg.sequenceNumber, true
		}
	}
	return 0, false
}

// retransOut counts the retransmitted segments not yet acknowledged
// (Linux's tp->retrans_out).
//
// +checklocks:s.ep.mu
func (s *sender) retransOut() int {
	n := 0
	for seg := s.writeList.Front(); seg != nil && seg.xmitCount != 0 && seg.sequenceNumber.LessThan(s.SndNxt); seg = seg.Next() {
		if seg.xmitCount > 1 && !s.ep.scoreboard.IsSACKED(seg.sackBlock()) {
			n++
		}
	}
	return n
}

// packetDelayed says the ACK was sent for an original transmission sent
// before the episode's first retransmission (Linux's tcp_packet_delayed:
// its timestamp echo predates retrans_stamp).
//
// +checklocks:s.ep.mu
func (s *sender) packetDelayed(rcvdSeg *segment) bool {
	return s.ep.SendTSOk && rcvdSeg.parsedOptions.TS && s.retransmitTS != 0 &&
		rcvdSeg.parsedOptions.TSEcr != 0 && rcvdSeg.parsedOptions.TSEcr < s.retransmitTS
}

// maybeUndo runs on an ACK that advanced SND.UNA from priorUna while the
// sender was in (or just left) fast recovery. When the hole at priorUna was
// filled by its original transmission, the reordering degree rises to that
// distance, and the reduction is undone once no retransmission is
// outstanding (tcp_try_undo_partial) or the episode ended with this ACK
// (tcp_try_undo_recovery).
//
// +checklocks:s.ep.mu
func (s *sender) maybeUndo(rcvdSeg *segment, priorUna, priorFack seqnum.Value) {
	if !s.undo.active || !s.packetDelayed(rcvdSeg) {
		return
	}
	s.noteReordering(priorFack, priorUna)
	if s.FastRecovery.Active {
		if s.retransOut() != 0 {
			return
		}
		s.FastRecovery.Active = false
		s.FastRecovery.MaxCwnd = 0
		s.DupAckCount = 0
		s.undoReduction()
		// Linux's tcp_try_keep_open: out of recovery, and not yet past
		// the episode's last sequence number.
		s.state = tcpip.Open
		return
	}
	s.undoReduction()
}
