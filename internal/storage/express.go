package storage

import "strings"

// IsDirectoryBucket reports whether an S3 bucket name is a directory
// bucket's (S3 Express One Zone: bucket-base-name--zone-id--x-s3). SDKs
// that know the class switch to its session authentication on the suffix;
// a client that does not (minio-go) cannot reach one.
func IsDirectoryBucket(name string) bool { return strings.HasSuffix(name, "--x-s3") }

// SessionCounter is a backend whose client creates sessions of its own
// before its requests (S3 Express One Zone's CreateSession, which
// aws-sdk-go-v2 sends and refreshes by itself): how many it created.
type SessionCounter interface {
	CreateSessions() int64
}
