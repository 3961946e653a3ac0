package storage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// ErrorClass is the provider-neutral category an error is counted under.
// Errors are counted per class and never folded into success latency.
type ErrorClass string

// The error classes shared by every provider.
const (
	ClassNone         ErrorClass = ""
	ClassNotFound     ErrorClass = "not_found"     // 404 for an object or bucket
	ClassAccessDenied ErrorClass = "access_denied" // 401/403, wrong or missing credentials
	ClassClient       ErrorClass = "4xx"           // any other 4xx
	ClassThrottled    ErrorClass = "throttled"     // 429, 503 SlowDown
	ClassServer       ErrorClass = "5xx"           // any other 5xx
	ClassTimeout      ErrorClass = "timeout"       // deadline exceeded, no answer
	ClassReset        ErrorClass = "reset"         // connection reset, refused, closed mid-body
	ClassCanceled     ErrorClass = "canceled"      // the run was interrupted
	ClassCorrupt      ErrorClass = "corrupt"       // a body whose bytes are not the ones written
	ClassTruncated    ErrorClass = "truncated"     // a body shorter than the object
	ClassOther        ErrorClass = "other"
)

// Classes lists every error class in report order.
var Classes = []ErrorClass{ClassNotFound, ClassAccessDenied, ClassClient, ClassThrottled,
	ClassServer, ClassTimeout, ClassReset, ClassCanceled, ClassCorrupt, ClassTruncated, ClassOther}

// Error is a provider error mapped to a class. Providers return it (wrapping
// the SDK error) so that callers never need SDK types.
type Error struct {
	Op     string // "put", "get", …
	Key    string
	Status int    // HTTP status, 0 when none was received
	Code   string // provider error code such as "NoSuchKey", when known
	Class  ErrorClass
	Err    error
}

func (e *Error) Error() string {
	msg := e.Op
	if e.Key != "" {
		msg += " " + e.Key
	}
	if e.Status != 0 {
		msg += fmt.Sprintf(": HTTP %d", e.Status)
	}
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ClassifyStatus maps an HTTP status and provider error code to a class.
func ClassifyStatus(status int, code string) ErrorClass {
	switch {
	case status == 404:
		return ClassNotFound
	case status == 401 || status == 403:
		return ClassAccessDenied
	case status == 429 || code == "SlowDown" || code == "Throttling" || code == "ServerBusy":
		return ClassThrottled
	case status == 503:
		return ClassThrottled
	case status >= 500:
		return ClassServer
	case status >= 400:
		return ClassClient
	}
	return ClassOther
}

// Classify returns the class of err: the class a provider attached, or one
// derived from the network error in the chain.
func Classify(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	var se *Error
	if errors.As(err, &se) && se.Class != ClassNone && se.Class != ClassOther {
		return se.Class
	}
	switch {
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return ClassTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return ClassReset
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	var re tls.RecordHeaderError
	if errors.As(err, &re) {
		return ClassReset
	}
	if errors.Is(err, io.EOF) {
		return ClassReset
	}
	if se != nil && se.Class != ClassNone {
		return se.Class
	}
	if se != nil && se.Status != 0 {
		// A provider that set a status but no class.
		return ClassifyStatus(se.Status, se.Code)
	}
	return ClassOther
}

// IsNotFound reports whether err means the object or bucket does not exist.
func IsNotFound(err error) bool { return Classify(err) == ClassNotFound }
