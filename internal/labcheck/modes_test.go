package labcheck

import (
	"slices"
	"testing"

	"github.com/objbench/objbench/internal/lab"
)

func TestSettingsTLSModes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tls, noTLS bool
		want       []bool
	}{{false, false, []bool{false, true}}, {true, false, []bool{true}}, {false, true, []bool{false}}} {
		if got := tlsModes(lab.Settings{TLS: c.tls, NoTLS: c.noTLS}); !slices.Equal(got, c.want) {
			t.Errorf("tls %v no-tls %v: modes %v, want %v", c.tls, c.noTLS, got, c.want)
		}
	}
}
