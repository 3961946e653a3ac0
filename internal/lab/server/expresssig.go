package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// sigV4 is a request's header signature (AWS Signature Version 4), as
// its Authorization header gives it: whose key signed it, for which date,
// region and service, over which headers.
type sigV4 struct {
	AccessKey, Date, Region, Service string
	SignedHeaders                    []string
	Signature                        string
}

var errNoSigV4 = errors.New("not signed with AWS Signature Version 4")

// parseSigV4 reads r's Authorization header; errNoSigV4 when it has none
// of that kind (anonymous, or a presigned URL, which the lab's directory
// bucket does not take).
func parseSigV4(r *http.Request) (sigV4, error) {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return sigV4{}, errNoSigV4
	}
	var s sigV4
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			f := strings.Split(v, "/")
			if len(f) != 5 || f[4] != "aws4_request" {
				return sigV4{}, errors.New("malformed credential scope")
			}
			s.AccessKey, s.Date, s.Region, s.Service = f[0], f[1], f[2], f[3]
		case "SignedHeaders":
			s.SignedHeaders = strings.Split(v, ";")
		case "Signature":
			s.Signature = v
		}
	}
	if s.AccessKey == "" || len(s.SignedHeaders) == 0 || s.Signature == "" {
		return sigV4{}, errors.New("malformed Authorization header")
	}
	return s, nil
}

// verify checks the signature against secret: the canonical request
// rebuilt from what arrived (the path as sent, S3's single encoding), the
// string to sign over it, and the key derived for the scope.
func (s sigV4) verify(r *http.Request, secret string) bool {
	amzDate := r.Header.Get("X-Amz-Date")
	if !strings.HasPrefix(amzDate, s.Date) {
		return false
	}
	sum := sha256.Sum256([]byte(canonicalRequest(r, s.SignedHeaders)))
	scope := s.Date + "/" + s.Region + "/" + s.Service + "/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := hmacSHA256([]byte("AWS4"+secret), s.Date)
	for _, part := range []string{s.Region, s.Service, "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	return hmac.Equal([]byte(want), []byte(s.Signature))
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// canonicalRequest is SigV4's canonical form of r over signed.
func canonicalRequest(r *http.Request, signed []string) string {
	path := r.RequestURI
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if u, err := url.Parse(path); err == nil && u.IsAbs() { // a proxy's absolute form
		path = u.EscapedPath()
	}
	if path == "" {
		path = "/"
	}
	var b strings.Builder
	b.WriteString(r.Method + "\n" + path + "\n" + canonicalQuery(r.URL.RawQuery) + "\n")
	for _, h := range signed {
		b.WriteString(h + ":" + headerValue(r, h) + "\n")
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	b.WriteString("\n" + strings.Join(signed, ";") + "\n" + payload)
	return b.String()
}

// headerValue is a signed header's canonical value: its values trimmed,
// inner runs of spaces made one, joined by commas. Host and
// Content-Length are where Go's server keeps them.
func headerValue(r *http.Request, name string) string {
	switch name {
	case "host":
		return r.Host
	case "content-length":
		if v := r.Header.Get("Content-Length"); v != "" {
			return v
		}
		return strconv.FormatInt(r.ContentLength, 10)
	}
	vs := r.Header.Values(name)
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ",")
}

// canonicalQuery is the query's parameters sorted by name then value,
// each name and value encoded as SigV4 encodes them.
func canonicalQuery(raw string) string {
	q, _ := url.ParseQuery(raw)
	var pairs [][2]string
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, [2]string{sigEscape(k), sigEscape(v)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p[0] + "=" + p[1]
	}
	return strings.Join(out, "&")
}

// sigEscape percent-encodes every byte but the unreserved ones
// (A-Z a-z 0-9 - _ . ~), in upper-case hex.
func sigEscape(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
