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

// objbench patch 0018 (see third_party/gvisor/PATCHES.md): a recovery RACK
// starts sends as the fork's SACK recovery does.
//
// Linux detects loss with RACK and sends what RACK marked lost from
// tcp_xmit_retransmit_queue, in sequence order, within the budget
// tcp_cwnd_reduction (proportional rate reduction) allows each ACK. Upstream
// gVisor's RACK recovery (rackControl.DoRecovery) sent every segment it
// marked lost at once, up to the window, with the pipe still counting them
// in flight; behind a quarter-BDP queue slow start's overshoot marks
// hundreds lost together, and their burst was dropped in turn (a cold 4 MiB
// GET at 100 ms behind 50 Mbit: 1,195 packets dropped, Linux's 156). With
// the option RACK still decides what is lost and when (its reordering
// window, its timer, TLP); the sending is the SACK recovery's walk
// (sackRecovery.handleSACKRecovery: NextSeg with the segments RACK marked
// counted lost, patch 0002's lost retransmissions, patch 0003's PRR), and a
// segment RACK marked lost is out of the pipe, as Linux's lost_out.

import "github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"

// rackRecovery reports whether RACK's recoveries send as SACK recovery.
//
// +checklocks:s.ep.mu
func (s *sender) rackRecovery() bool {
	return s.ep.rackRecovery && s.ep.SACKPermitted && s.ep.tcpRecovery&tcpip.TCPRACKLossDetection != 0
}

// rackLost reports whether RACK marked seg lost, under the option.
//
// +checklocks:s.ep.mu
func (s *sender) rackLost(seg *segment) bool {
	return seg.lost && s.rackRecovery()
}

// rackEnterRecovery starts a recovery RACK's reorder timer found, as an
// ACK's does: the undo's state and PRR's saved first.
//
// +checklocks:s.ep.mu
func (s *sender) rackEnterRecovery() {
	s.saveUndo()
	s.prrEnter(s.SndCwnd)
	s.prrBeforeAck()
}
