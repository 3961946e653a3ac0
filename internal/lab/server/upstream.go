package server

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"
)

// Upstream is a real S3- or GCS-compatible server (MinIO, Ceph,
// fake-gcs-server) that the lab serves instead of its embedded one, behind
// the same wire: a user's own storage as if it were far away, or a target
// whose true settings a test knows.
type Upstream struct {
	// API is "s3" or "gcs".
	API string
	// URL is the server's base URL (scheme and host).
	URL *url.URL
	// Bucket is the bucket the lab's target names; default objbench.
	Bucket string
}

// ParseUpstream reads "[s3=|gcs=]http(s)://host:port[/bucket]"; the API
// is s3 unless named.
func ParseUpstream(s string) (*Upstream, error) {
	api, raw := "s3", s
	if k, v, ok := strings.Cut(s, "="); ok && !strings.Contains(k, "/") {
		api, raw = strings.ToLower(k), v
	}
	if api != "s3" && api != "gcs" {
		return nil, fmt.Errorf("upstream %q: the API is s3 or gcs (e.g. gcs=http://127.0.0.1:4443)", s)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: use an http(s) URL such as http://127.0.0.1:9000 or http://127.0.0.1:9000/mybucket", s)
	}
	bucket := strings.Trim(u.Path, "/")
	if strings.Contains(bucket, "/") {
		return nil, fmt.Errorf("upstream %q: the path is a bucket name, without slashes", s)
	}
	if bucket == "" {
		bucket = Bucket
	}
	return &Upstream{API: api, URL: &url.URL{Scheme: u.Scheme, Host: u.Host}, Bucket: bucket}, nil
}

// String prints the upstream the way ParseUpstream reads it.
func (u *Upstream) String() string { return u.API + "=" + u.URL.String() + "/" + u.Bucket }

// Handler forwards every request to the upstream server. An S3 request
// keeps its Host header (SigV4 signs it); a GCS request takes the
// server's (fake-gcs-server reads another host as a bucket name), and the
// upload session URLs it answers with are turned back to the lab's, so
// that the data crosses the wire too.
func (u *Upstream) Handler(publicURL string) (http.Handler, error) {
	pub, err := url.Parse(publicURL)
	if err != nil {
		return nil, err
	}
	base := u.URL.String()
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u.URL)
			if u.API == "s3" {
				pr.Out.Host = pr.In.Host
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, base) {
				resp.Header.Set("Location", pub.Scheme+"://"+pub.Host+strings.TrimPrefix(loc, base))
			}
			return nil
		},
		FlushInterval: -1,
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute,
			ResponseHeaderTimeout: 5 * time.Minute},
		ErrorLog: discardLog,
	}, nil
}
