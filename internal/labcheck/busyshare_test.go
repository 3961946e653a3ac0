package labcheck

import (
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/netem"
)

// TestOneBusyShare: the rows' busy rule (document, which cannot import the
// lab) and the wire's late meter and the reference grid (netem) judge by
// the same share of late packets.
func TestOneBusyShare(t *testing.T) {
	if document.BusyShare != netem.BusyShare {
		t.Fatalf("document.BusyShare %v, netem.BusyShare %v: one threshold, two values", document.BusyShare, netem.BusyShare)
	}
}
