package storage

import (
	"fmt"
	"net/url"
	"strings"
)

// Target is a parsed TARGET argument such as s3://bucket/prefix.
type Target struct {
	Scheme string // "s3", "mem", later "gs", "az"
	// Account is the storage account for az://account/container; empty otherwise.
	Account string
	Bucket  string
	// Prefix is the key prefix inside the bucket, without leading slash and,
	// when non-empty, with a trailing slash.
	Prefix string
}

// String returns the canonical URL form of t.
func (t Target) String() string {
	s := t.Scheme + "://"
	if t.Account != "" {
		s += t.Account + "/"
	}
	s += t.Bucket
	if t.Prefix != "" {
		s += "/" + escapePrefix(strings.TrimSuffix(t.Prefix, "/"))
	}
	return s
}

// escapePrefix escapes only what ParseTarget would otherwise read as URL
// syntax ('%', '?', '#'), so that String round-trips through ParseTarget and
// spaces or non-ASCII letters stay readable.
func escapePrefix(p string) string {
	if !strings.ContainsAny(p, "%?#") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ParseTarget parses scheme://bucket[/prefix]. It rejects URLs that would let
// a run write outside the named prefix (".." segments) and malformed buckets.
func ParseTarget(raw string) (Target, error) {
	if raw == "" {
		return Target{}, fmt.Errorf("empty target: expected scheme://bucket[/prefix], e.g. s3://my-bucket/bench")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || !strings.Contains(raw, "://") {
		return Target{}, fmt.Errorf("malformed target %q: expected scheme://bucket[/prefix], e.g. s3://my-bucket/bench", raw)
	}
	// A bare '?' or '#' leaves RawQuery and Fragment empty, and "bucket:"
	// an empty port: look at the raw text. Escaped (%3F, %23) they are
	// part of the prefix.
	if u.User != nil || strings.ContainsAny(raw, "?#") || strings.Contains(u.Host, ":") {
		return Target{}, fmt.Errorf("malformed target %q: no user, port, query or fragment allowed; use --endpoint for a custom server", raw)
	}
	t := Target{Scheme: strings.ToLower(u.Scheme)}
	path := strings.TrimPrefix(u.Path, "/")
	host := u.Host
	if t.Scheme == "az" {
		t.Account = host
		bucket, rest, _ := strings.Cut(path, "/")
		host, path = bucket, rest
		if t.Account == "" {
			return Target{}, fmt.Errorf("malformed target %q: expected az://account/container[/prefix]", raw)
		}
		if err := checkAccountName(t.Account); err != nil {
			return Target{}, fmt.Errorf("malformed target %q: %w", raw, err)
		}
	}
	if host == "" {
		return Target{}, fmt.Errorf("malformed target %q: bucket name is empty", raw)
	}
	if err := checkBucketName(host); err != nil {
		return Target{}, fmt.Errorf("malformed target %q: %w", raw, err)
	}
	t.Bucket = host
	for _, seg := range strings.Split(path, "/") {
		if seg == ".." || seg == "." {
			return Target{}, fmt.Errorf("malformed target %q: prefix may not contain %q segments", raw, seg)
		}
	}
	for _, r := range path {
		if r < 0x20 || r == 0x7f {
			return Target{}, fmt.Errorf("malformed target %q: prefix may not contain control characters", raw)
		}
	}
	path = strings.Trim(path, "/")
	if path != "" {
		t.Prefix = path + "/"
	}
	return t, nil
}

func checkBucketName(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("bucket name %q must be 3 to 63 characters", b)
	}
	for _, r := range b {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
			return fmt.Errorf("bucket name %q may hold only lower-case letters, digits, '-', '.' and '_'", b)
		}
	}
	if !isAlnum(b[0]) || !isAlnum(b[len(b)-1]) {
		return fmt.Errorf("bucket name %q must begin and end with a letter or digit", b)
	}
	return nil
}

// checkAccountName applies Azure's storage account rule: 3 to 24 lower-case
// letters and digits.
func checkAccountName(a string) error {
	if len(a) < 3 || len(a) > 24 {
		return fmt.Errorf("storage account name %q must be 3 to 24 characters", a)
	}
	for i := 0; i < len(a); i++ {
		if !isAlnum(a[i]) {
			return fmt.Errorf("storage account name %q may hold only lower-case letters and digits", a)
		}
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
