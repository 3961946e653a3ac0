package storage

import "fmt"

// UploadStyle is how a provider sends one object: what differs between
// providers' SDK defaults (docs/strategies.md).
type UploadStyle string

// Upload styles.
const (
	// UploadAuto is the SDK's default for the object's size: what a naive
	// program gets (the GCS writer's chunked upload, the S3 upload
	// manager's multipart above its threshold, azblob's block upload).
	UploadAuto UploadStyle = "auto"
	// UploadSingle sends the object in one request.
	UploadSingle UploadStyle = "single"
	// UploadResumable (GCS) starts a session, then sends the data.
	UploadResumable UploadStyle = "resumable"
	// UploadMultipart (S3 multipart, Azure staged blocks) sends parts of
	// Options.PartSize, Options.PartConcurrency at a time, then commits.
	UploadMultipart UploadStyle = "multipart"
)

// ParseUploadStyle validates an --upload value.
func ParseUploadStyle(s string) (UploadStyle, error) {
	switch u := UploadStyle(s); u {
	case UploadAuto, UploadSingle, UploadResumable, UploadMultipart:
		return u, nil
	case "":
		return UploadAuto, nil
	}
	return "", fmt.Errorf("unknown upload style %q: use auto, single, resumable (GCS) or multipart (S3, Azure)", s)
}
