package explain

import (
	"strings"
	"testing"

	"github.com/objbench/objbench/internal/realpath"
)

// TestPathNotice: what the path could not carry is said, and nothing when it
// carried everything.
func TestPathNotice(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   realpath.Stats
		want []string
	}{
		{"clean", realpath.Stats{Translated: 3, Lookups: 2}, nil},
		{"refused", realpath.Stats{Translated: 2, Refused: 1, LastRefusal: "dial tcp4 127.0.0.1:9: connect: connection refused"},
			[]string{"1 of the program's 3 connections were refused", "127.0.0.1:9: connect: connection refused"}},
		{"unreachable", realpath.Stats{Unreachable: 4}, []string{"4 packets went to destinations the path does not carry"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			pathNotice(&b, tc.st)
			if tc.want == nil && b.Len() > 0 {
				t.Errorf("notice %q, want none", b.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("notice %q lacks %q", b.String(), w)
				}
			}
		})
	}
}
