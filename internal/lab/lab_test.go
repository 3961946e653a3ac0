package lab

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/objbench/objbench/internal/lab/netem"
	"github.com/objbench/objbench/internal/usage"
)

// TestBadConfig: a Config built by hand with a value the settings would
// refuse does not reach the wire: Start's guard stops it (an internal
// error, not a usage one: the user's values are checked by Settings.Config).
func TestBadConfig(t *testing.T) {
	t.Parallel()
	neg := -time.Millisecond
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown profile", Config{Profile: "mars"}, "unknown lab profile"},
		{"negative rtt", Config{RTT: &neg}, "negative"},
		{"absurd rtt", Config{RTT: dur(time.Hour)}, "absurd"},
		{"unknown api", Config{APIs: []string{"ftp"}}, "unknown lab API"},
		{"loss above 100%", Config{Loss: ptr(1.5)}, "outside 0-100%"},
		{"negative loss", Config{Loss: ptr(-0.1)}, "outside 0-100%"},
		{"two loss models", Config{RTT: dur(time.Millisecond), Loss: ptr(0.01), Bursty: &netem.GilbertElliott{P: 0.01, R: 0.3, BadLoss: 1}}, "one loss model"},
		{"reorder without a delay", Config{Reorder: &netem.Reorder{Share: 0.25}}, "needs a round trip"},
		{"duplicate above 100%", Config{RTT: dur(time.Millisecond), Duplicate: ptr(2.0)}, "duplicate"},
		{"small mtu", Config{MTU: 500}, "MTU 500"},
		{"negative queue", Config{Queue: -1}, "queue"},
		{"negative dns time", Config{DNSTime: -time.Second}, "lookup time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Start(context.Background(), tc.cfg)
			if err == nil {
				l.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || usage.Is(err) {
				t.Errorf("err %v, want %q (not a usage error)", err, tc.want)
			}
		})
	}
}

func TestPortTaken(t *testing.T) {
	t.Parallel()
	a := startLab(t, Config{})
	port := a.endpoints["s3"].url[strings.LastIndex(a.endpoints["s3"].url, ":")+1:]
	var p int
	for _, c := range port {
		p = p*10 + int(c-'0')
	}
	_, err := Start(context.Background(), Config{Port: p})
	if err == nil || !strings.Contains(err.Error(), "port is taken") {
		t.Errorf("err %v, want a port-taken message", err)
	}
}

// TestStartAllError: a lab that does not start is StartAll's error, said
// once to be the lab's, for every command that starts one.
func TestStartAllError(t *testing.T) {
	t.Parallel()
	l, apis, noAzure, err := StartAll(context.Background(), Config{Port: 70000})
	if err == nil || err.Error() != "lab: lab port 70000 out of range" || l != nil || apis != nil || noAzure {
		t.Errorf("StartAll = %v, %v, %v, %v; want only the error \"lab: lab port 70000 out of range\"", l, apis, noAzure, err)
	}
}
