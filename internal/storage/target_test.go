package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
)

func TestParseTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Target
		wantErr string
	}{
		{in: "s3://bucket", want: Target{Scheme: "s3", Bucket: "bucket"}},
		{in: "s3://bucket/", want: Target{Scheme: "s3", Bucket: "bucket"}},
		{in: "s3://bucket/a/b", want: Target{Scheme: "s3", Bucket: "bucket", Prefix: "a/b/"}},
		{in: "S3://my.bucket-1/p/", want: Target{Scheme: "s3", Bucket: "my.bucket-1", Prefix: "p/"}},
		{in: "az://acct/cont/pre", want: Target{Scheme: "az", Account: "acct", Bucket: "cont", Prefix: "pre/"}},
		{in: "mem://test-bucket", want: Target{Scheme: "mem", Bucket: "test-bucket"}},
		{in: "", wantErr: "empty target"},
		{in: "bucket", wantErr: "malformed"},
		{in: "s3:/bucket", wantErr: "malformed"},
		{in: "s3://", wantErr: "bucket name is empty"},
		{in: "s3://ab", wantErr: "3 to 63"},
		{in: "s3://Bucket", wantErr: "lower-case"},
		{in: "s3://bucket/../x", wantErr: "\"..\""},
		{in: "s3://bucket/a/./x", wantErr: "\".\""},
		{in: "s3://user@bucket", wantErr: "no user"},
		{in: "s3://bucket:9000", wantErr: "--endpoint"},
		{in: "s3://bucket?x=1", wantErr: "query"},
		{in: "az://acct", wantErr: "bucket name is empty"},
	}
	for _, tc := range tests {
		got, err := ParseTarget(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseTarget(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if err == nil {
			if back, err := ParseTarget(got.String()); err != nil || back != got {
				t.Errorf("round trip of %q via %q: %+v %v", tc.in, got.String(), back, err)
			}
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestClassify(t *testing.T) {
	t.Parallel()
	wrapped := func(err error) error { return fmt.Errorf("operation failed: %w", err) }
	tests := []struct {
		name string
		err  error
		want ErrorClass
	}{
		{"nil", nil, ClassNone},
		{"provider class", &Error{Class: ClassThrottled}, ClassThrottled},
		{"404", &Error{Status: 404, Class: ClassifyStatus(404, "")}, ClassNotFound},
		{"403", &Error{Status: 403, Class: ClassifyStatus(403, "")}, ClassAccessDenied},
		{"429", &Error{Status: 429, Class: ClassifyStatus(429, "")}, ClassThrottled},
		{"503 slowdown", &Error{Status: 503, Class: ClassifyStatus(503, "SlowDown")}, ClassThrottled},
		{"500", &Error{Status: 500, Class: ClassifyStatus(500, "")}, ClassServer},
		{"400", &Error{Status: 400, Class: ClassifyStatus(400, "")}, ClassClient},
		{"canceled", wrapped(context.Canceled), ClassCanceled},
		{"deadline", wrapped(context.DeadlineExceeded), ClassTimeout},
		{"net timeout", wrapped(timeoutErr{}), ClassTimeout},
		{"reset", &Error{Err: wrapped(syscall.ECONNRESET)}, ClassReset},
		{"refused", wrapped(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), ClassReset},
		{"unexpected eof", wrapped(io.ErrUnexpectedEOF), ClassReset},
		{"other", errors.New("boom"), ClassOther},
	}
	for _, tc := range tests {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("%s: Classify = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	e := &Error{Op: "get", Key: "k", Status: 404, Code: "NoSuchKey", Err: errors.New("gone")}
	if got := e.Error(); got != "get k: HTTP 404 NoSuchKey: gone" {
		t.Errorf("Error() = %q", got)
	}
}
