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

import "github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"

// objbench patch 0017: data segments sized as Linux's mss_cache, on
// endpoints whose stack sets tcpip.TCPMSSCacheOption. Linux subtracts from
// the MSS the options every segment carries (tcp_established_options
// without SACK blocks: the timestamps, 12 bytes), so a 1500-byte MTU
// carries 1448 bytes; upstream gVisor subtracted the largest set of
// options, SACK blocks included (40 bytes), and carried 1420.

// segmentOptionSize is the option room a data segment's payload is sized
// around: every option with the SACK blocks (upstream), or only those
// every segment carries (patch 0017).
// +checklocks:e.mu
func (e *Endpoint) segmentOptionSize() int {
	if !e.mssCache {
		return e.maxOptionSize()
	}
	options := e.makeOptions(nil)
	defer putOptions(options)
	return len(options)
}

// sackBlocksThatFit drops the last of blocks until a segment of n payload
// bytes with them fits the MTU the payload was sized for. Linux shrinks the
// segment instead (tcp_current_mss); a sender with SACK blocks due is
// receiving out of order while it sends, which the lab's transfers, one
// direction at a time, do not do.
// +checklocks:e.mu
func (e *Endpoint) sackBlocksThatFit(blocks []header.SACKBlock, n int) []header.SACKBlock {
	if !e.mssCache || n == 0 || len(blocks) == 0 || e.snd == nil {
		return blocks
	}
	room := e.segmentOptionSize() + e.snd.MaxPayloadSize - n
	for len(blocks) > 0 {
		options := e.makeOptions(blocks)
		size := len(options)
		putOptions(options)
		if size <= room {
			break
		}
		blocks = blocks[:len(blocks)-1]
	}
	return blocks
}
