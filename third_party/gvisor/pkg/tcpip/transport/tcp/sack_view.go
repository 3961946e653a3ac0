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
	"sort"

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
)

// sackView is a snapshot of the scoreboard's ranges in order, with the
// bytes SACKed from each range up (objbench patch 0008). On every ACK in
// recovery, NextSeg asks for each segment of the window whether it is
// SACKed and whether it is lost, and the tree answers each with a descent:
// behind a quarter-BDP queue at 200 Mbit those lookups were a quarter of
// the lab's CPU, and the wire that waits for the stack's processing (patch
// 0006) was held late. A cursor over the view answers them in one pass up
// the window; the view is taken again only when the scoreboard changed.
type sackView struct {
	sb     *SACKScoreboard
	gen    uint64
	blocks []header.SACKBlock
	// above[j] is the bytes of blocks[j:].
	above     []seqnum.Size
	thresh    int
	lostBytes seqnum.Size
}

// snapshot refreshes v from s when s changed since v was taken.
func (s *SACKScoreboard) snapshot(v *sackView) *sackView {
	if v.sb == s && v.gen == s.gen {
		return v
	}
	v.sb, v.gen = s, s.gen
	v.blocks = v.blocks[:0]
	s.ranges.Ascend(func(b header.SACKBlock) bool {
		v.blocks = append(v.blocks, b)
		return true
	})
	n := len(v.blocks)
	if cap(v.above) < n+1 {
		v.above = make([]seqnum.Size, n+1)
	}
	v.above = v.above[:n+1]
	v.above[n] = 0
	for j := n - 1; j >= 0; j-- {
		v.above[j] = v.above[j+1] + v.blocks[j].Start.Size(v.blocks[j].End)
	}
	v.thresh = s.lostThresh()
	v.lostBytes = seqnum.Size((v.thresh - 1) * int(s.smss))
	return v
}

// sackCursor walks up the window against a view: it is asked about
// sequence numbers in increasing order.
type sackCursor struct {
	v *sackView
	k int // the first range that ends above the last number asked
}

// cursor starts at from.
func (v *sackView) cursor(from seqnum.Value) sackCursor {
	return sackCursor{v: v, k: sort.Search(len(v.blocks), func(i int) bool { return from.LessThan(v.blocks[i].End) })}
}

func (c *sackCursor) seek(seq seqnum.Value) {
	for c.k < len(c.v.blocks) && c.v.blocks[c.k].End.LessThanEq(seq) {
		c.k++
	}
}

// sacked says seq lies in a SACKed range (IsSACKED of its byte).
func (c *sackCursor) sacked(seq seqnum.Value) bool {
	c.seek(seq)
	return c.k < len(c.v.blocks) && c.v.blocks[c.k].Start.LessThanEq(seq)
}

// lost is IsLost(seq): not SACKed, and the ranges above it number the
// threshold or hold (threshold-1)*SMSS bytes.
func (c *sackCursor) lost(seq seqnum.Value) bool {
	if c.sacked(seq) {
		return false
	}
	return len(c.v.blocks)-c.k >= c.v.thresh || c.v.above[c.k] >= c.v.lostBytes
}
