package server

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestOpOf(t *testing.T) {
	t.Parallel()
	cases := []struct{ api, method, url, want string }{
		{"s3", "GET", "/objbench/a/b.obj", "get"},
		{"s3", "GET", "/objbench?list-type=2&prefix=a/", "list"},
		{"s3", "GET", "/objbench/", "list"},
		{"s3", "HEAD", "/objbench/a", "head"},
		{"s3", "HEAD", "/objbench", "head"},
		{"s3", "PUT", "/objbench/a", "put"},
		{"s3", "POST", "/objbench/a?uploads", "put"},
		{"s3", "DELETE", "/objbench/a", "delete"},
		{"gcs", "GET", "/storage/v1/b/objbench/o", "list"},
		{"gcs", "GET", "/storage/v1/b/objbench/o/a%2Fb?alt=json", "head"},
		{"gcs", "GET", "/storage/v1/b/objbench/o/a?alt=media", "get"},
		{"gcs", "GET", "/download/storage/v1/b/objbench/o/a", "get"},
		{"gcs", "GET", "/objbench/a", "get"},
		{"gcs", "POST", "/upload/storage/v1/b/objbench/o?uploadType=multipart", "put"},
		{"gcs", "DELETE", "/storage/v1/b/objbench/o/a", "delete"},
	}
	for _, c := range cases {
		if got := OpOf(c.api, httptest.NewRequest(c.method, c.url, nil)); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.api, c.method, c.url, got, c.want)
		}
	}
}

func TestParseUpstream(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want, err string }{
		{in: "http://127.0.0.1:9000", want: "s3=http://127.0.0.1:9000/objbench"},
		{in: "http://127.0.0.1:9000/mine/", want: "s3=http://127.0.0.1:9000/mine"},
		{in: "gcs=http://127.0.0.1:4443/b", want: "gcs=http://127.0.0.1:4443/b"},
		{in: "azure=http://x", err: "s3 or gcs"},
		{in: "127.0.0.1:9000", err: "http(s) URL"},
		{in: "http://h/a/b", err: "without slashes"},
	}
	for _, c := range cases {
		u, err := ParseUpstream(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.err == "" && u.String() != c.want:
			t.Errorf("%s: %s, want %s", c.in, u, c.want)
		}
	}
}
