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

// objbench patch 0007: Linux's delayed acknowledgement
// (tcp_input.c's tcp_event_data_recv, tcp_measure_rcv_mss and
// __tcp_ack_snd_check; tcp_output.c's tcp_send_delayed_ack; tcp_timer.c's
// tcp_delack_timer_handler; tcp.c's tcp_cleanup_rbuf), on endpoints whose
// stack sets tcpip.TCPDelayedAckOption. Upstream acknowledges every batch
// of segments it processes; with segments processed one at a time (patch
// 0006) that was an ACK per segment, twice Linux's, and a sender clocked
// by them sent smaller bursts than Linux's does.
const (
	// delackATOMin is TCP_ATO_MIN and TCP_DELACK_MIN (HZ/25).
	delackATOMin = 40 * time.Millisecond
	// delackMax is TCP_DELACK_MAX (HZ/5).
	delackMax = 200 * time.Millisecond
	// delackMaxQuickAcks is TCP_MAX_QUICKACKS.
	delackMaxQuickAcks = 16
	// delackDefaultMSS is TCP_MSS_DEFAULT, the receive MSS assumed until
	// the peer's segments show theirs (tcp_initialize_rcv_mss).
	delackDefaultMSS = 536
)

// delackState is a receiver's delayed-ACK engine (Linux's icsk_ack).
type delackState struct {
	// ato is the delayed-ACK timeout; 0 until the first data segment.
	ato time.Duration
	// lastRcv is when the last data segment arrived (lrcvtime).
	lastRcv tcpip.MonotonicTime
	// quick is the number of quick ACKs left.
	quick int
	// pingpong is set when this end answers within ato of receiving
	// (an exchange of requests and answers): its ACKs then wait to ride
	// on the answer, and no quick ACK is sent.
	pingpong bool
	// rcvMSS is the peer's segment size as measured.
	rcvMSS int
	// now asks for an ACK at once (a hole in the sequence filled).
	now bool
	// pushed and pushed2 record one, and more than one, segment smaller
	// than rcvMSS since the last ACK (ICSK_ACK_PUSHED and PUSHED2); with
	// patch 0016 a full-sized one with PSH sets pushed too.
	pushed, pushed2 bool
}

// mss is the peer's segment size as measured, until the first data
// Linux's initial guess (tcp_initialize_rcv_mss).
// +checklocks:r.ep.mu
func (r *receiver) mss() int {
	if r.delack.rcvMSS == 0 {
		r.delack.rcvMSS = delackDefaultMSS
		if a := int(r.ep.amss); a > 0 && a < delackDefaultMSS {
			r.delack.rcvMSS = a
		}
	}
	return r.delack.rcvMSS
}

// dataReceived records an in-order data segment of segLen bytes, with
// PSH or not, arriving at arrived (tcp_measure_rcv_mss and
// tcp_event_data_recv).
// +checklocks:r.ep.mu
// +checklocksexclude:r.ep.snd.rtt.rttMutex
func (r *receiver) dataReceived(segLen int, psh bool, arrived tcpip.MonotonicTime) {
	d := &r.delack
	if segLen >= r.mss() {
		d.rcvMSS = min(segLen, int(r.ep.amss))
		// objbench patch 0016 (ack_clock.go): Linux 6.6 and later take a
		// full-sized segment with PSH for the end of a write too.
		if psh && r.ep.ackClock {
			d.pushed = true
		}
	} else {
		if d.pushed {
			d.pushed2 = true
		}
		d.pushed = true
	}
	if d.ato == 0 { // the first data: quick ACKs
		r.incrQuickAck()
		d.ato = delackATOMin
	} else {
		m := arrived.Sub(d.lastRcv)
		rto := r.ep.snd.RTO
		switch {
		case m <= delackATOMin/2:
			d.ato = d.ato/2 + delackATOMin/2
		case m < d.ato:
			d.ato = min(d.ato/2+m, rto)
		case m > rto: // the sender idled: quick ACKs again
			r.incrQuickAck()
		}
	}
	d.lastRcv = arrived
	// objbench patches 0011 and 0016: the window as Linux grows it, and
	// with 0016 the quick ACK tcp_grow_window sets when it grows.
	if r.ep.windowAck || r.ep.ackClock {
		if grew := r.windowGrow(); grew && r.ep.ackClock {
			d.quick |= 1
		}
	}
}

// incrQuickAck is tcp_incr_quickack: up to 16 quick ACKs, half the
// receive window in segments.
// +checklocks:r.ep.mu
func (r *receiver) incrQuickAck() {
	q := int(r.rcvWnd) / (2 * r.mss())
	if q == 0 {
		q = 2
	}
	r.delack.quick = max(r.delack.quick, min(q, delackMaxQuickAcks))
}

// enterQuickAck is tcp_enter_quickack_mode, for data the sender sent
// again: the ACKs go at once so that it learns what arrived.
// +checklocks:r.ep.mu
func (r *receiver) enterQuickAck() {
	r.incrQuickAck()
	r.delack.pingpong = false
	r.delack.ato = delackATOMin
}

// ackOrDelay acknowledges what arrived now or arms the delayed-ACK timer
// (__tcp_ack_snd_check and tcp_send_delayed_ack).
// +checklocks:r.ep.mu
// +checklocksexclude:r.ep.snd.rtt.rttMutex
func (r *receiver) ackOrDelay() {
	snd := r.ep.snd
	if r.RcvNxt == snd.MaxSentAck {
		return
	}
	d := &r.delack
	unacked := int(snd.MaxSentAck.Size(r.RcvNxt))
	if d.now || (unacked > r.mss() && (!r.ep.windowAck || r.windowMoves())) || (d.quick > 0 && !d.pingpong) || r.pendingRcvdSegments.Len() > 0 || r.closed {
		snd.sendAck()
		return
	}
	ato := d.ato
	if ato > delackATOMin {
		maxATO := 500 * time.Millisecond
		if d.pingpong || d.pushed {
			maxATO = delackMax
		}
		snd.rtt.Lock()
		srtt := snd.rtt.TCPRTTState.SRTT
		inited := snd.rtt.TCPRTTState.SRTTInited
		snd.rtt.Unlock()
		if inited {
			maxATO = min(maxATO, max(srtt, delackATOMin))
		}
		ato = min(ato, maxATO)
	}
	t := &snd.delackTimer
	if t.enabled() {
		// Due within a quarter of ato: acknowledge now; else the
		// earlier of the two stands.
		left := t.target.Sub(snd.ep.stack.Clock().NowMonotonic())
		if left <= ato/4 {
			snd.sendAck()
		}
		return
	}
	t.enable(ato)
}

// ackSent is called for every segment sent with an ACK: the ACK
// scheduled is sent (tcp_event_ack_sent, tcp_dec_quickack_mode).
// +checklocks:r.ep.mu
func (r *receiver) ackSent(rcvNxt seqnum.Value) {
	snd := r.ep.snd
	d := &r.delack
	if rcvNxt != snd.MaxSentAck && d.quick > 0 { // it acknowledges new data
		d.quick--
		if d.quick == 0 {
			d.ato = delackATOMin
		}
	}
	d.now, d.pushed, d.pushed2 = false, false, false
	if r.ep.windowAck { // objbench patch 0011
		r.windowAckSent(rcvNxt)
	}
	snd.delackTimer.disable()
}

// dataSent is called when this end sends data: an answer within ato of
// the last data received starts the exchange's (pingpong) mode
// (tcp_event_data_sent, TCP_PINGPONG_THRESH 1 as in Linux 6.x).
// +checklocks:r.ep.mu
func (r *receiver) dataSent(now tcpip.MonotonicTime) {
	d := &r.delack
	if d.ato > 0 && now.Sub(d.lastRcv) < d.ato {
		d.pingpong = true
	}
}

// delackTimerExpired sends the delayed ACK (tcp_delack_timer_handler).
// +checklocks:s.ep.mu
// +checklocksexclude:s.rtt.rttMutex
func (s *sender) delackTimerExpired() tcpip.Error {
	if s.delackTimer.isUninitialized() || !s.delackTimer.checkExpiration() {
		return nil
	}
	r := s.ep.rcv
	if r == nil || !s.ep.EndpointState().connected() || r.RcvNxt == s.MaxSentAck {
		return nil
	}
	d := &r.delack
	if d.pingpong { // the answer did not come: leave the exchange's mode
		d.pingpong = false
		d.ato = delackATOMin
	} else {
		d.ato = min(2*d.ato, s.RTO)
	}
	s.sendAck()
	return nil
}

// readDrained is tcp_cleanup_rbuf's rule: when the application has read
// everything after the end of a write (a segment smaller than the peer's,
// or with patch 0016 a full-sized one with PSH), the ACK goes at once
// unless this end is about to answer.
// +checklocks:e.mu
// +checklocksexclude:e.snd.rtt.rttMutex
func (e *Endpoint) readDrained() {
	if !e.delayedAck || e.rcv == nil || e.snd == nil || !e.EndpointState().connected() {
		return
	}
	r := e.rcv
	if r.RcvNxt == e.snd.MaxSentAck || !e.snd.delackTimer.enabled() {
		return
	}
	if r.delack.pushed2 || (r.delack.pushed && !r.delack.pingpong) {
		e.snd.sendAck()
	}
}
