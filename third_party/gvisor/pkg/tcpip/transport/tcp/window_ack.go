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
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
)

// objbench patch 0011: the ACK for every second full-sized segment goes at
// once only while the window to advertise does not shrink, as Linux's
// __tcp_ack_snd_check has it, on endpoints whose stack sets
// tcpip.TCPWindowAckOption (with patch 0007's delayed ACK). Otherwise it
// waits for the application's next read (tcp_cleanup_rbuf) or the
// delayed-ACK timer. A receiver whose application reads behind the wire
// so sends one ACK per read, not per two segments, and its sender's
// bursts are Linux's.
//
// The window compared is the one a Linux receiver with the default
// buffers would advertise, kept beside gVisor's own: the lab's buffers
// start at their maximum (docs/design.md#socket-buffers), so gVisor's
// window hardly moves with what is unread, where Linux's, bound by
// rcv_ssthresh and a receive buffer autotuned from what the application
// read in the last round trip, does.

const (
	// linuxRcvSpace is tcp_win_from_space of the default tcp_rmem[1]
	// (131072) at the initial scaling ratio of one half: the data the
	// receive buffer holds before autotuning.
	linuxRcvSpace = 65536
	// linuxRcvSpaceMax is the same of tcp_rmem[2] (6 MiB).
	linuxRcvSpaceMax = 3 << 20
)

// linuxWindow is a Linux receiver's window state (tcp_sock's
// rcv_ssthresh, rcv_wnd and rcv_wup, window_clamp, rcvq_space).
type linuxWindow struct {
	set bool
	// space is what the receive buffer holds in data (window_clamp).
	space int
	// ssthresh is rcv_ssthresh: the window grows toward space by two
	// segments per segment received.
	ssthresh int
	// adv is the window last advertised, at advAt.
	adv   int
	advAt seqnum.Value
	// copied counts what the application read; measured, measuredAt and
	// prev are tcp_rcv_space_adjust's round-trip measure.
	copied, measured uint64
	measuredAt       tcpip.MonotonicTime
	prev             int
}

// lw is the receiver's Linux window, set up on first use.
// +checklocks:r.ep.mu
func (r *receiver) lw() *linuxWindow {
	w := &r.linuxWnd
	if !w.set {
		mss := r.mss()
		*w = linuxWindow{set: true, space: linuxRcvSpace, ssthresh: linuxRcvSpace / mss * mss, prev: InitialCwnd * mss, measuredAt: r.ep.stack.Clock().NowMonotonic()}
		w.adv, w.advAt = w.ssthresh, r.RcvNxt
	}
	return w
}

// linuxUnread is what arrived and the application has not read.
// +checklocks:r.ep.mu
func (r *receiver) linuxUnread() int {
	r.ep.rcvQueueMu.Lock()
	defer r.ep.rcvQueueMu.Unlock()
	return r.ep.RcvBufUsed
}

// linuxSelect is __tcp_select_window: the free space with unread bytes
// not yet read, at most rcv_ssthresh.
// +checklocks:r.ep.mu
func (r *receiver) linuxSelect(unread int) int {
	w := r.lw()
	return max(0, min(w.space-unread, w.ssthresh))
}

// windowGrow is tcp_grow_window, for each in-order data segment; it says
// whether the window grew (patch 0016 then sends a quick ACK).
// +checklocks:r.ep.mu
func (r *receiver) windowGrow() bool {
	w := r.lw()
	if w.ssthresh < w.space && w.ssthresh < w.space-r.linuxUnread() {
		w.ssthresh += min(2*r.mss(), w.space-w.ssthresh)
		return true
	}
	return false
}

// windowMoves is __tcp_ack_snd_check's condition on the ACK for every
// second segment: the application has read everything, or the window
// to advertise now is not smaller than the last.
// +checklocks:r.ep.mu
func (r *receiver) windowMoves() bool {
	unread := r.linuxUnread()
	return unread == 0 || r.linuxSelect(unread) >= r.lw().adv
}

// windowAckSent is tcp_select_window as an ACK leaves: the window never
// shrinks below what is left of the last one.
// +checklocks:r.ep.mu
func (r *receiver) windowAckSent(rcvNxt seqnum.Value) {
	w := r.lw()
	left := w.adv - int(w.advAt.Size(rcvNxt))
	w.adv, w.advAt = max(r.linuxSelect(r.linuxUnread()), left), rcvNxt
}

// windowRead is tcp_cleanup_rbuf and tcp_rcv_space_adjust after the
// application read n bytes: an ACK waiting for more than one full-sized
// segment goes now, as does one that opens the window to at least twice
// what is left of it; once a round trip, the buffer grows to twice what
// was read in it, and more while that grows. Patch 0016 needs only the
// buffer's growth (for windowGrow), not the ACKs.
// +checklocks:e.mu
// +checklocksexclude:e.snd.rtt.rttMutex
func (e *Endpoint) windowRead(n int) {
	if !(e.windowAck || e.ackClock) || e.rcv == nil || e.snd == nil || !e.EndpointState().connected() {
		return
	}
	r, s := e.rcv, e.snd
	w := r.lw()
	w.copied += uint64(n)
	s.rtt.Lock()
	srtt, inited := s.rtt.TCPRTTState.SRTT, s.rtt.TCPRTTState.SRTTInited
	s.rtt.Unlock()
	now := e.stack.Clock().NowMonotonic()
	if inited && now.Sub(w.measuredAt) >= srtt {
		if copied := int(w.copied - w.measured); copied > w.prev {
			mss := r.mss()
			win := 2*copied + 16*mss
			win += 2 * (win * (copied - w.prev) / w.prev)
			w.space = max(w.space, min(win, linuxRcvSpaceMax))
			w.prev = copied
		}
		w.measured, w.measuredAt = w.copied, now
	}
	if !e.windowAck {
		return
	}
	if r.RcvNxt == s.MaxSentAck {
		return
	}
	if s.delackTimer.enabled() && int(s.MaxSentAck.Size(r.RcvNxt)) > r.mss() {
		s.sendAck()
		return
	}
	left := w.adv - int(w.advAt.Size(r.RcvNxt))
	if 2*left <= w.space {
		if nw := r.linuxSelect(r.linuxUnread()); nw > 0 && nw >= 2*left {
			s.sendAck()
		}
	}
}
