package lab

import (
	"testing"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/lab/netem"
)

// TestImpairmentsRecorded: a profile's bursty loss and the reordering and
// duplication given reach the wire and the document's lab, as tc writes
// them in the link's description.
func TestImpairmentsRecorded(t *testing.T) {
	t.Parallel()
	l := startLab(t, Config{Profile: "lossy-wifi", Network: NetworkNetstack, Reorder: &netem.Reorder{Share: 0.25, Correlation: 0.5}, Duplicate: ptr(0.01)})
	info := l.Info("s3")
	if info.Loss != 0 || info.LossModel == nil || *info.LossModel != (document.LossModel{Model: "gemodel", P: 0.005, R: 0.3, BadLoss: 1, MeanLoss: 0.005 / 0.305}) {
		t.Errorf("loss %v, model %+v", info.Loss, info.LossModel)
	}
	if info.Reorder == nil || *info.Reorder != (document.Reorder{Share: 0.25, Correlation: 0.5}) || info.Duplicate != 0.01 {
		t.Errorf("reorder %+v, duplicate %v", info.Reorder, info.Duplicate)
	}
	wire := l.netemConfig()
	if wire.Up.Bursty != l.Link().Bursty || wire.Down.Reorder.Share != 0.25 || wire.Up.Duplicate != 0.01 {
		t.Errorf("wire %+v", wire)
	}
	if got, want := l.Link().LossModel()+"; "+l.Link().Impairments(), "gemodel 0.5% 30% 100% 0%; reorder 25% 50%, duplicate 1%"; got != want {
		t.Errorf("described as %q, want %q", got, want)
	}
	plain := startLab(t, Config{Profile: "home-wifi", Network: NetworkNetstack})
	if i := plain.Info("s3"); i.LossModel != nil || i.Reorder != nil || i.Duplicate != 0 {
		t.Errorf("home-wifi: %+v %+v %v", i.LossModel, i.Reorder, i.Duplicate)
	}
}
