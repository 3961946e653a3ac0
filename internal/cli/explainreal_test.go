package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestExplainRealUsage: the real-path flags that do not go together are
// usage errors (exit 2), said before anything runs.
func TestExplainRealUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a lab flag with --real", []string{"explain", "--real", "--tls", "--", "true"}, "--tls apply to the lab"},
		{"--pcap without --real", []string{"explain", "--pcap", "x.pcapng", "--", "true"}, "--pcap writes the capture of a --real run"},
		{"--real and --pcap-in", []string{"explain", "--real", "--pcap-in", "x.pcapng"}, "give one"},
		{"--pcap-in with a command", []string{"explain", "--pcap-in", "x.pcapng", "--", "true"}, "takes no PROFILE or command"},
		{"--keylog without --pcap-in", []string{"explain", "--real", "--keylog", "k.txt", "--", "true"}, "--keylog goes with --pcap-in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(context.Background(), append([]string{"--db", t.TempDir() + "/r.db"}, tc.args...), &out, &errb)
			if code != ExitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), ExitUsage, tc.want)
			}
		})
	}
}
