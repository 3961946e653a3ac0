package storage

import (
	"io"
	"net/http"
)

// Options configure a provider client. Credentials are never part of them:
// each provider reads its own standard credential chain.
type Options struct {
	// Endpoint overrides the provider's endpoint (an emulator, MinIO, the lab).
	// With an endpoint, S3 uses path-style addressing.
	Endpoint string
	// Region for providers that need one (S3); empty means the SDK's default
	// chain, then us-east-1.
	Region string
	// Profile names a shared-config profile (AWS).
	Profile string
	// HTTPClient carries the instrumented transport. Required.
	HTTPClient *http.Client
	// MaxAttempts bounds SDK attempts per operation (1 = no retries).
	// Zero means the SDK default.
	MaxAttempts int
	// Upload is the upload style; "" means UploadAuto.
	Upload UploadStyle
	// PartSize is the part (or chunk) size of multipart and chunked
	// uploads; 0 means the SDK's default.
	PartSize int64
	// PartConcurrency is how many parts are in flight; 0 means the SDK's default.
	PartConcurrency int
	// Credentials are explicit keys for the embedded lab and tests; nil
	// means the provider's standard chain.
	Credentials *StaticCredentials
	// Client is the S3 client library: "" or ClientSDK for aws-sdk-go-v2,
	// ClientMinio for minio-go. Other providers have one client.
	Client string
	// Log receives the SDK's own log lines (a credential fallback such as
	// "falling back to IMDSv1", a retry): objbench's verbose log. Nil
	// drops them, so that nothing but objbench speaks on stderr.
	Log io.Writer
}

// S3 client libraries (--client).
const (
	ClientSDK   = "sdk"
	ClientMinio = "minio"
)

// StaticCredentials are explicit access keys. They print as "[redacted]"
// so that no log line or error can leak them.
type StaticCredentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

// String hides the keys.
func (StaticCredentials) String() string { return "[redacted]" }

// GoString hides the keys from %#v too.
func (StaticCredentials) GoString() string { return "[redacted]" }
