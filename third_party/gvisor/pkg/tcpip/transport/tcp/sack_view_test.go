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
	"math/rand"
	"testing"

	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/header"
	"github.com/objbench/objbench/third_party/gvisor/pkg/tcpip/seqnum"
)

// TestSACKViewAgreesWithScoreboard: a cursor over the view answers
// IsSACKED and IsLost as the scoreboard's tree does, for every sequence
// number of random windows (across the sequence space's wrap too), and
// the view follows the scoreboard's insertions, deletions and threshold
// (objbench patch 0008).
func TestSACKViewAgreesWithScoreboard(t *testing.T) {
	const smss = 1000
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		iss := seqnum.Value(rng.Uint32())
		sb := NewSACKScoreboard(smss, iss)
		var v sackView
		una := iss.Add(1)
		for step := 0; step < 30; step++ {
			switch rng.Intn(5) {
			case 0:
				una = una.Add(seqnum.Size(rng.Intn(3 * smss)))
				sb.Delete(una)
			case 1:
				sb.setReordering(rng.Intn(8))
			default:
				start := una.Add(seqnum.Size(rng.Intn(40 * smss)))
				sb.Insert(header.SACKBlock{Start: start, End: start.Add(seqnum.Size(1 + rng.Intn(4*smss)))})
			}
			cur := sb.snapshot(&v).cursor(una)
			for off := seqnum.Size(0); off < 50*smss; off += seqnum.Size(1 + rng.Intn(300)) {
				seq := una.Add(off)
				want := sb.IsSACKED(header.SACKBlock{Start: seq, End: seq.Add(1)})
				if got := cur.sacked(seq); got != want {
					t.Fatalf("trial %d: sacked(%d) = %v, the tree says %v: %s", trial, seq, got, want, sb)
				}
				if got, want := cur.lost(seq), sb.IsLost(seq); got != want {
					t.Fatalf("trial %d: lost(%d) = %v, the tree says %v: %s", trial, seq, got, want, sb)
				}
			}
		}
	}
}
