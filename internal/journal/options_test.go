package journal

import (
	"testing"
	"time"

	"github.com/objbench/objbench/internal/usage"
)

// TestOptions: a negative upload period is the user's to fix (its field
// named); a run is journaled only when it is saved and the journal is not
// off.
func TestOptions(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		o       Options
		noSave  bool
		wantOn  bool
		wantErr string // "" none
	}{
		"default":           {o: Options{ResultsEvery: time.Minute}, wantOn: true},
		"only at the end":   {wantOn: true},
		"not saved":         {o: Options{ResultsEvery: time.Minute}, noSave: true},
		"off":               {o: Options{Off: true}},
		"off and not saved": {o: Options{Off: true}, noSave: true},
		"negative period":   {o: Options{ResultsEvery: -time.Second}, wantOn: true, wantErr: "ResultsEvery must not be negative, got -1s"},
	}
	for name, tt := range tests {
		err := tt.o.Check()
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.wantErr || usage.FieldOf(err) != "ResultsEvery" {
				t.Errorf("%s: Check: %q (field %q), want %q", name, got, usage.FieldOf(err), tt.wantErr)
			}
		} else if tt.wantErr != "" {
			t.Errorf("%s: Check: nil, want %q", name, tt.wantErr)
		}
		if on := tt.o.On(tt.noSave); on != tt.wantOn {
			t.Errorf("%s: On(%v) = %v, want %v", name, tt.noSave, on, tt.wantOn)
		}
	}
}
