package lab

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/units"
)

// Profile is a named link, from the lab's network model
// (docs/design.md#the-labs-network-model).
type Profile struct {
	Name        string
	Link        Link
	Description string
	// Limit is the request-rate limits the profile's servers apply
	// (server.ParseLimits) unless --limit says otherwise; "" is none.
	Limit string
}

var profiles = []Profile{
	{Name: "local", Link: Link{}, Description: "no emulation: the servers reached directly"},
	{Name: "same-zone", Link: Link{RTT: 500 * time.Microsecond}, Description: "0.5 ms round trip"},
	{Name: "same-region", Link: Link{RTT: 2 * time.Millisecond}, Description: "2 ms round trip"},
	{Name: "cross-region", Link: Link{RTT: 80 * time.Millisecond}, Description: "80 ms round trip, us-east-1 to us-west-2"},
	{Name: "intercontinental", Link: Link{RTT: 200 * time.Millisecond}, Description: "200 ms round trip"},
	{Name: "home-wifi", Link: Link{RTT: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Bandwidth: 50_000_000}, Description: "30 ms round trip, 5 ms jitter, 50 Mbit/s"},
}

// Profiles lists the profiles in order of distance.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// LookupProfile finds a profile by name.
func LookupProfile(name string) (Profile, error) {
	if name == "" {
		name = "local"
	}
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Name
	}
	sort.Strings(names)
	return Profile{}, fmt.Errorf("unknown lab profile %q: use one of %s", name, strings.Join(names, ", "))
}

// ParseBandwidth reads "100Mbit", "50Mbps", "1Gbit", "800kbit" or a plain
// number of bits per second; "0" or "" means unlimited.
func ParseBandwidth(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "0" || t == "unlimited" {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gbit", 1e9}, {"gbps", 1e9}, {"mbit", 1e6}, {"mbps", 1e6}, {"kbit", 1e3}, {"kbps", 1e3}, {"bit", 1}, {"bps", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	var v float64
	if _, err := fmt.Sscanf(t, "%g", &v); err != nil || v < 0 || fmt.Sprint(v) == "NaN" {
		return 0, fmt.Errorf("bad bandwidth %q: use e.g. 100Mbit, 1Gbit, 800kbit", s)
	}
	bps := int64(v * float64(mult))
	if bps > 0 && bps < 8000 {
		return 0, fmt.Errorf("bad bandwidth %q: below 1 KB/s, the smallest rate the link can emulate", s)
	}
	if bps > 400e9 {
		return 0, fmt.Errorf("bad bandwidth %q: above 400 Gbit/s", s)
	}
	return bps, nil
}

// FormatBandwidth prints bits per second as "100Mbit".
func FormatBandwidth(bps int64) string {
	switch {
	case bps == 0:
		return ""
	case bps%1e9 == 0:
		return fmt.Sprintf("%dGbit", bps/1e9)
	case bps%1e6 == 0:
		return fmt.Sprintf("%dMbit", bps/1e6)
	case bps%1e3 == 0:
		return fmt.Sprintf("%dkbit", bps/1e3)
	}
	return fmt.Sprintf("%dbit", bps)
}

// ParseLoss reads a loss rate in percent, "0.5%" or "0.5", as a probability.
func ParseLoss(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v != v || v < 0 || v > 100 {
		return 0, fmt.Errorf("bad loss %q: use a percentage from 0 to 100, e.g. 0.5%%", s)
	}
	return v / 100, nil
}

// ParseQueue reads a queue depth in packets ("100", "100p", "100packets")
// or bytes ("256KiB", "1MB"), as bytes for packets of mtu bytes.
func ParseQueue(s string, mtu int) (int, error) {
	if mtu == 0 {
		mtu = defaultMTU
	}
	t := strings.ToLower(strings.TrimSpace(s))
	bad := fmt.Errorf("bad queue %q: use packets (e.g. 100 or 100p) or bytes (e.g. 256KiB), more than 0", s)
	for _, suf := range []string{"packets", "packet", "pkts", "p"} {
		if strings.HasSuffix(t, suf) {
			t = strings.TrimSpace(strings.TrimSuffix(t, suf))
			break
		}
	}
	if n, err := strconv.Atoi(t); err == nil {
		if n <= 0 || n > 1<<20 {
			return 0, bad
		}
		return n * mtu, nil
	}
	n, err := units.ParseSize(s)
	if err != nil || n < int64(mtu) || n > 1<<30 {
		if err == nil && n > 0 && n < int64(mtu) {
			return 0, fmt.Errorf("bad queue %q: smaller than one packet of %d bytes", s, mtu)
		}
		return 0, bad
	}
	return int(n), nil
}
