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

import "github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"

// objbench patch 0010: the congestion window grows only while it is what
// limits the sender, as Linux's tcp_cong_avoid asks tcp_is_cwnd_limited
// (tcp_cwnd_validate keeps the record), on endpoints whose stack sets
// tcpip.TCPCwndLimitedOption. Upstream grows it on every ACK, so a sender
// that its application or its send buffer held below the window still
// doubled it each round trip in slow start.

// cwndUse is Linux's is_cwnd_limited, max_packets_out and
// cwnd_usage_seq: for the window of data sent since seq, whether the
// sender ran into the congestion window, and the most it had out.
type cwndUse struct {
	limited bool
	maxOut  int
	seq     seqnum.Value
	set     bool
}

// cwndValidate is tcp_cwnd_validate, after a send: a new window of data
// starts the record again; within one, running into the window marks it
// limited, and otherwise the most outstanding is kept. Data the window's
// room held for the next ACK (held, patch 0015) counts as running into it.
// +checklocks:s.ep.mu
func (s *sender) cwndValidate(dataSent, held bool) {
	limited := s.Outstanding >= s.SndCwnd || held
	if !dataSent && !limited {
		return
	}
	u := &s.cwndUse
	if !u.set || !s.SndUna.LessThan(u.seq) || limited || (!u.limited && s.Outstanding > u.maxOut) {
		*u = cwndUse{limited: limited, maxOut: s.Outstanding, seq: s.SndNxt, set: true}
	}
}

// isCwndLimited is tcp_is_cwnd_limited: the window limited the sender in
// the current window of data, or, in slow start, it is under twice the
// most the sender had out.
// +checklocks:s.ep.mu
func (s *sender) isCwndLimited() bool {
	if s.cwndUse.limited {
		return true
	}
	if s.SndCwnd < s.Ssthresh {
		return s.SndCwnd < 2*s.cwndUse.maxOut
	}
	return false
}
