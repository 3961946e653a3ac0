package storage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestClassifyStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		code   string
		want   ErrorClass
	}{
		{404, "NoSuchKey", ClassNotFound},
		{404, "", ClassNotFound},
		{401, "", ClassAccessDenied},
		{403, "AccessDenied", ClassAccessDenied},
		{429, "", ClassThrottled},
		{503, "SlowDown", ClassThrottled},
		{503, "", ClassThrottled},
		{0, "SlowDown", ClassThrottled},
		{400, "Throttling", ClassThrottled},
		{500, "ServerBusy", ClassThrottled},
		{500, "InternalError", ClassServer},
		{502, "", ClassServer},
		{400, "InvalidArgument", ClassClient},
		{409, "BucketAlreadyOwnedByYou", ClassClient},
		{412, "", ClassClient},
		{200, "", ClassOther},
		{0, "", ClassOther},
	}
	for _, tc := range tests {
		if got := ClassifyStatus(tc.status, tc.code); got != tc.want {
			t.Errorf("ClassifyStatus(%d, %q) = %q, want %q", tc.status, tc.code, got, tc.want)
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
	dial := func(errno syscall.Errno) error {
		return &url.Error{Op: "Get", URL: "http://127.0.0.1:1/b", Err: &net.OpError{Op: "dial", Net: "tcp",
			Err: &os.SyscallError{Syscall: "connect", Err: errno}}}
	}
	tests := []struct {
		name string
		err  error
		want ErrorClass
	}{
		{"nil", nil, ClassNone},
		{"provider class", &Error{Class: ClassThrottled}, ClassThrottled},
		{"provider class wrapped", wrapped(&Error{Class: ClassAccessDenied}), ClassAccessDenied},
		{"404", &Error{Status: 404, Class: ClassifyStatus(404, "")}, ClassNotFound},
		{"403", &Error{Status: 403, Class: ClassifyStatus(403, "")}, ClassAccessDenied},
		{"429", &Error{Status: 429, Class: ClassifyStatus(429, "")}, ClassThrottled},
		{"503 slowdown", &Error{Status: 503, Class: ClassifyStatus(503, "SlowDown")}, ClassThrottled},
		{"500", &Error{Status: 500, Class: ClassifyStatus(500, "")}, ClassServer},
		{"400", &Error{Status: 400, Class: ClassifyStatus(400, "")}, ClassClient},
		{"status without class", &Error{Status: 404, Code: "NoSuchKey"}, ClassNotFound},
		{"status without class, network cause", &Error{Status: 500, Err: syscall.ECONNRESET}, ClassReset},
		{"other class, network cause", &Error{Class: ClassOther, Err: wrapped(io.ErrUnexpectedEOF)}, ClassReset},
		{"provider class beats cause", &Error{Class: ClassNotFound, Err: io.EOF}, ClassNotFound},
		{"canceled", wrapped(context.Canceled), ClassCanceled},
		{"canceled in provider error", &Error{Op: "get", Err: wrapped(context.Canceled)}, ClassCanceled},
		{"deadline", wrapped(context.DeadlineExceeded), ClassTimeout},
		{"etimedout", dial(syscall.ETIMEDOUT), ClassTimeout},
		{"net timeout", wrapped(timeoutErr{}), ClassTimeout},
		{"net op timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, ClassTimeout},
		{"reset", &Error{Err: wrapped(syscall.ECONNRESET)}, ClassReset},
		{"refused", wrapped(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), ClassReset},
		{"refused in url.Error", dial(syscall.ECONNREFUSED), ClassReset},
		{"broken pipe", wrapped(syscall.EPIPE), ClassReset},
		{"aborted", wrapped(syscall.ECONNABORTED), ClassReset},
		{"closed", wrapped(net.ErrClosed), ClassReset},
		{"unexpected eof", wrapped(io.ErrUnexpectedEOF), ClassReset},
		{"eof", &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, ClassReset},
		{"tls record header", wrapped(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), ClassReset},
		{"other", errors.New("boom"), ClassOther},
		{"empty provider error", &Error{Op: "get"}, ClassOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Classify(tc.err); got != tc.want {
				t.Errorf("Classify(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestIsNotFound(t *testing.T) {
	t.Parallel()
	if !IsNotFound(&Error{Class: ClassNotFound}) || IsNotFound(nil) || IsNotFound(errors.New("x")) {
		t.Error("IsNotFound")
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	cause := errors.New("gone")
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Op: "get", Key: "k", Status: 404, Code: "NoSuchKey", Err: cause}, "get k: HTTP 404 NoSuchKey: gone"},
		{&Error{Op: "head bucket", Status: 403}, "head bucket: HTTP 403"},
		{&Error{Op: "put", Key: "a/b", Err: cause}, "put a/b: gone"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if tc.err.Err != nil && !errors.Is(tc.err, cause) {
			t.Errorf("%q does not unwrap to its cause", tc.err)
		}
	}
}

func TestStaticCredentialsRedacted(t *testing.T) {
	t.Parallel()
	c := &StaticCredentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "s3cr3t"}
	o := Options{Endpoint: "http://x", Credentials: c}
	for _, s := range []string{
		c.String(), c.GoString(), fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", *c, *c, *c, c),
		fmt.Sprintf("%v", o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o),
	} {
		if strings.Contains(s, "s3cr3t") || strings.Contains(s, "AKIDEXAMPLE") {
			t.Errorf("credentials print as %q", s)
		}
	}
}
