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
	"math/bits"

	"github.com/objbench/objbench/third_party/gvisor/pkg/waiter"
)

// objbench patch 0014: the send buffer sized and grown as Linux's, on
// endpoints whose stack sets tcpip.TCPSendBufferExpandOption.
//
// Upstream sizes the buffer at twice the congestion window in bytes and
// grows it only when it wakes a writer, after the buffer has drained to
// half of the new size. While a recovery holds SND.UNA, no ACK frees
// room, so a sender whose buffer was sized some round trips earlier runs
// out of data to send: behind a quarter-BDP queue at 50 Mbit it sat idle
// for 23 ms with 65 segments of window unused, then sent them at once
// when the hole was filled, lost 25 of them and entered a second
// recovery. Linux's buffer is twice the window in its memory per segment
// (tcp_sndbuf_expand, 2,304 bytes for a 1,448-byte MSS on the reference's
// kernel: 46,080 bytes at the initial window, as a connected socket
// reports), grown on each ACK while a writer waits and less than the
// window is out (tcp_new_space), and the writer is woken once a third of
// it is free (sk_stream_write_space).

// Linux's sizes, in bytes, of what a segment costs beside its payload
// (x86-64): MAX_TCP_HEADER and the aligned skb_shared_info, which share
// the power-of-two head, and the aligned sk_buff.
const (
	linuxMaxTCPHeader = 256
	linuxSharedInfo   = 320
	linuxSKBuff       = 256
)

// linuxPerMSS is tcp_sndbuf_expand's per_mss.
func linuxPerMSS(mss int) int {
	head := uint(mss + linuxMaxTCPHeader + linuxSharedInfo)
	return 1<<bits.Len(head-1) + linuxSKBuff
}

// linuxSndBuf is tcp_sndbuf_expand's sndmem: room for twice the window
// (CUBIC's recovery needs 1.7 times it), at least the initial window and
// the reordering degree.
//
// +checklocks:e.mu
func (e *Endpoint) linuxSndBuf() int64 {
	segs := max(InitialCwnd, e.snd.SndCwnd, e.snd.reordering+1)
	n := int64(2 * segs * linuxPerMSS(e.snd.MaxPayloadSize))
	if ss := GetTCPSendBufferLimits(e.stack); int64(ss.Max) < n {
		n = int64(ss.Max)
	}
	return n
}

// checkSpace is tcp_check_space, after an ACK's sending: for a writer
// that found the buffer full, grow the buffer if the sender has less out
// than its window (it ran out of data, not of window), and wake the
// writer once the free room is half of what is used.
//
// +checklocks:e.mu
func (e *Endpoint) checkSpace() {
	e.sndQueueInfo.sndQueueMu.Lock()
	if !e.sndQueueInfo.noSpace {
		e.sndQueueInfo.sndQueueMu.Unlock()
		return
	}
	size := int64(e.getSendBufferSize())
	auto := e.sndQueueInfo.TCPSndBufState.AutoTuneSndBufDisabled.Load() == 0
	if auto && e.snd.Outstanding < e.snd.SndCwnd {
		if n := e.linuxSndBuf(); n > size {
			size = n
			e.ops.SetSendBufferSize(size, false /* notify */)
		}
	}
	used := int64(e.sndQueueInfo.SndBufUsed)
	wake := size-used >= used/2
	if wake {
		e.sndQueueInfo.noSpace = false
	}
	e.sndQueueInfo.sndQueueMu.Unlock()
	if wake {
		e.waiterQueue.Notify(waiter.WritableEvents)
	}
}
