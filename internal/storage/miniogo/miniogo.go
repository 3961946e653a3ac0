// Package miniogo is a second storage.Backend for S3 and S3-compatible
// servers, built on minio-go (the client MinIO's warp benchmark uses), so
// that users can see what their choice of client library costs and so that
// objbench can drive a server with less client CPU per request than
// aws-sdk-go-v2 needs. It is chosen with --client minio; the official SDK
// (package s3) stays the default. Requests go through the caller's
// instrumented transport, like every provider's.
package miniogo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/objbench/objbench/internal/storage"
)

// Backend is one S3 bucket through minio-go.
type Backend struct {
	client   *minio.Client
	core     minio.Core
	bucket   string
	region   string
	upload   storage.UploadStyle
	partSize int64
	parts    int
	// secure is HTTPS, where minio-go sends a payload unsigned (TLS
	// protects it) and objbench does as it does.
	secure bool
}

var _ storage.Backend = (*Backend)(nil)

// New returns a client of t.Bucket. With o.Endpoint, addressing is
// path-style (as the SDK backend's); without, it is AWS S3 in o.Region.
// Credentials come from o.Credentials (the lab, tests) or the environment,
// the shared credentials file (o.Profile) and the instance role, in the
// AWS chain's order.
func New(ctx context.Context, t storage.Target, o storage.Options) (*Backend, error) {
	if o.HTTPClient == nil {
		return nil, errors.New("minio-go: no HTTP client")
	}
	region := o.Region
	if region == "" {
		region = "us-east-1"
	}
	host, secure, lookup := "s3."+region+".amazonaws.com", true, minio.BucketLookupAuto
	if region == "us-east-1" {
		host = "s3.amazonaws.com"
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil {
			return nil, errors.New("bad endpoint: not a URL; use http://host:port or https://host")
		}
		if u.User != nil {
			return nil, fmt.Errorf("bad endpoint %q: no user or password in it; credentials come from the AWS chain", u.Redacted())
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("bad endpoint %q: use http://host:port or https://host", o.Endpoint)
		}
		host, secure, lookup = u.Host, u.Scheme == "https", minio.BucketLookupPath
	}
	var creds *credentials.Credentials
	if c := o.Credentials; c != nil {
		creds = credentials.NewStaticV4(c.AccessKeyID, c.SecretAccessKey, "")
	} else {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{},
			&credentials.FileAWSCredentials{Profile: o.Profile},
			&credentials.IAM{},
		})
	}
	transport := o.HTTPClient.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	mo := &minio.Options{Creds: creds, Secure: secure, Transport: inlineSmall{transport}, Region: region, BucketLookup: lookup}
	if o.MaxAttempts > 0 {
		mo.MaxRetries = o.MaxAttempts
	}
	client, err := minio.New(host, mo)
	if err != nil {
		return nil, fmt.Errorf("minio-go: %w", err)
	}
	return &Backend{client: client, core: minio.Core{Client: client}, bucket: t.Bucket, region: region,
		upload: o.Upload, partSize: o.PartSize, parts: o.PartConcurrency, secure: secure}, nil
}

// Region is the region requests are signed for.
func (b *Backend) Region() string { return b.region }

// Put implements storage.Backend. Styles: single is one PutObject, its
// payload signed whole over plain HTTP (putSigned); auto is that up to
// minio-go's part size and minio-go's PutObject (parts) above; multipart
// always uploads parts of the part size and completes them.
func (b *Backend) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	var err error
	switch b.upload {
	case storage.UploadResumable:
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient,
			Err: errors.New("no resumable upload on S3: use --upload auto, single or multipart")}
	case storage.UploadMultipart:
		if size > 0 {
			err = b.putMultipart(ctx, key, body, size)
			break
		}
		fallthrough // an empty object has no part to send
	case storage.UploadSingle:
		if !b.secure {
			err = b.putSigned(ctx, key, body, size)
			break
		}
		_, err = b.client.PutObject(ctx, b.bucket, key, body, size, minio.PutObjectOptions{DisableMultipart: true})
	default:
		if !b.secure && size <= b.singleLimit() {
			err = b.putSigned(ctx, key, body, size)
			break
		}
		opts := minio.PutObjectOptions{}
		if b.partSize > 0 {
			opts.PartSize = uint64(b.partSize)
		}
		if b.parts > 0 {
			opts.NumThreads = uint(b.parts)
			opts.ConcurrentStreamParts = true
		}
		_, err = b.client.PutObject(ctx, b.bucket, key, body, size, opts)
	}
	return mapErr("put", key, err)
}

// singleLimit is the largest size that minio-go's PutObject (upload style
// auto) sends in one request: the part size asked for, else minio-go's
// default part size (its minPartSize, 16 MiB).
func (b *Backend) singleLimit() int64 {
	if b.partSize > 0 {
		return b.partSize
	}
	return 16 << 20
}

// putSigned uploads body in one PutObject whose payload is signed whole:
// its SHA-256 goes in x-amz-content-sha256 and into the SigV4 signature
// (what aws-sdk-go-v2 sends over plain HTTP). minio-go's own PutObject
// instead signs a plain-HTTP payload as a stream of 64 KiB chunks
// (STREAMING-AWS4-HMAC-SHA256-PAYLOAD: a signing key, a SHA-256 and an
// HMAC per chunk plus a final empty chunk, and a 64 KiB buffer per
// request), which costs a small object about twice the signing work for
// the same protection: either way the server refuses a payload that is
// not the one signed. It is used over plain HTTP only: over HTTPS minio-go
// sends UNSIGNED-PAYLOAD, TLS protecting the bytes, and so does objbench.
// The body is read twice (hashed, then sent), as the SDK reads it.
func (b *Backend) putSigned(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	start, err := body.Seek(0, io.SeekCurrent)
	if err != nil {
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient, Err: fmt.Errorf("body: %w", err)}
	}
	h := sha256.New()
	if n, err := io.CopyN(h, body, size); err != nil {
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient, Err: fmt.Errorf("hashing the body after %d of %d bytes: %w", n, size, err)}
	}
	if _, err := body.Seek(start, io.SeekStart); err != nil {
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient, Err: fmt.Errorf("body: %w", err)}
	}
	var sum [sha256.Size]byte
	// DisableContentSha256 only turns off minio-go's streaming signature:
	// with sha256Hex given, the request carries and signs that digest.
	_, err = b.core.PutObject(ctx, b.bucket, key, body, size, "", hex.EncodeToString(h.Sum(sum[:0])),
		minio.PutObjectOptions{DisableContentSha256: true})
	return err
}

// putMultipart is S3's multipart upload by hand, so that the part size and
// the parts in flight are exactly the ones asked for.
func (b *Backend) putMultipart(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	partSize := b.partSize
	if partSize <= 0 {
		partSize = 8 << 20
	}
	parts := b.parts
	if parts <= 0 {
		parts = 5
	}
	id, err := b.core.NewMultipartUpload(ctx, b.bucket, key, minio.PutObjectOptions{})
	if err != nil {
		return err
	}
	abort := func() {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = b.core.AbortMultipartUpload(actx, b.bucket, key, id)
	}
	n := max((size+partSize-1)/partSize, 1)
	done := make([]minio.CompletePart, n)
	err = storage.UploadParts(ctx, body, size, partSize, parts, func(ctx context.Context, i int, part *io.SectionReader) error {
		p, err := b.core.PutObjectPart(ctx, b.bucket, key, id, i+1, part, part.Size(), minio.PutObjectPartOptions{})
		if err != nil {
			return err
		}
		done[i] = minio.CompletePart{PartNumber: i + 1, ETag: p.ETag}
		return nil
	})
	if err != nil {
		abort()
		return err
	}
	if _, err = b.core.CompleteMultipartUpload(ctx, b.bucket, key, id, done, minio.PutObjectOptions{}); err != nil {
		abort()
	}
	return err
}

// Get implements storage.Backend with one GetObject request read to its
// end (minio.Core: no background reader per object).
func (b *Backend) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	body, _, _, err := b.core.GetObject(ctx, b.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer body.Close()
	n, err := storage.CopyBody(w, body)
	if err != nil {
		return n, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading body after %d bytes: %w", n, err)}
	}
	return n, nil
}

// GetRange implements storage.RangeGetter with a ranged GetObject.
func (b *Backend) GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error) {
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, off+n-1); err != nil {
		return 0, &storage.Error{Op: "get", Key: key, Class: storage.ClassClient, Err: err}
	}
	body, _, _, err := b.core.GetObject(ctx, b.bucket, key, opts)
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer body.Close()
	got, err := storage.CopyBody(w, body)
	if err != nil {
		return got, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading range at %d after %d bytes: %w", off, got, err)}
	}
	return got, nil
}

// Head implements storage.Backend with StatObject (HEAD).
func (b *Backend) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	info, err := b.client.StatObject(ctx, b.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return storage.ObjectInfo{}, mapErr("head", key, err)
	}
	return storage.ObjectInfo{Key: key, Size: info.Size, ETag: quoted(info.ETag), Modified: info.LastModified}, nil
}

// quoted gives an ETag the quotes S3 sends and the SDK keeps: minio-go
// strips them.
func quoted(etag string) string {
	if etag == "" || strings.HasPrefix(etag, `"`) {
		return etag
	}
	return `"` + etag + `"`
}

// List implements storage.Backend with ListObjectsV2 pages.
func (b *Backend) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops minio-go's lister when fn returns early
	for o := range b.client.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return mapErr("list", prefix, o.Err)
		}
		if err := fn(storage.ObjectInfo{Key: o.Key, Size: o.Size, ETag: quoted(o.ETag), Modified: o.LastModified}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Delete implements storage.Backend; a missing key is not an error, a
// missing bucket is.
func (b *Backend) Delete(ctx context.Context, key string) error {
	err := mapErr("delete", key, b.client.RemoveObject(ctx, b.bucket, key, minio.RemoveObjectOptions{}))
	var se *storage.Error
	if errors.As(err, &se) && se.Code == "NoSuchKey" {
		return nil
	}
	return err
}

// BucketExists implements storage.Backend.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	ok, err := b.client.BucketExists(ctx, b.bucket)
	if err != nil {
		err = mapErr("head bucket", "", err)
		var se *storage.Error
		if errors.As(err, &se) && se.Status == 301 {
			return false, fmt.Errorf("bucket %q is in another region: pass its --region: %w", b.bucket, err)
		}
		return false, err
	}
	return ok, nil
}

// CreateBucket implements storage.Backend.
func (b *Backend) CreateBucket(ctx context.Context) error {
	return mapErr("create bucket", "", b.client.MakeBucket(ctx, b.bucket, minio.MakeBucketOptions{Region: b.region}))
}

// Close implements storage.Backend.
func (b *Backend) Close() error { return nil }

// mapErr maps a minio-go error to a classified *storage.Error; network
// errors stay in the chain so that storage.Classify finds them.
func mapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	e := &storage.Error{Op: op, Key: key, Err: err}
	if errors.Is(err, context.Canceled) {
		return e
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.StatusCode != 0 {
		e.Status, e.Code = er.StatusCode, er.Code
		// The message names the server's error; the request id and host
		// are noise in a one-line error.
		e.Err = errors.New(oneLine(er.Message))
		if er.Message == "" {
			e.Err = errors.New(strings.ToLower(er.Code))
		}
	}
	switch e.Code {
	case "NoSuchKey", "NoSuchBucket", "NotFound":
		e.Class = storage.ClassNotFound
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden", "ExpiredToken", "InvalidToken":
		e.Class = storage.ClassAccessDenied
	case "SlowDown", "Throttling", "ThrottlingException", "RequestLimitExceeded":
		e.Class = storage.ClassThrottled
	}
	if e.Class == storage.ClassNone && e.Status != 0 {
		e.Class = storage.ClassifyStatus(e.Status, e.Code)
	}
	return e
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// maxInline is the largest request body inlineSmall sends from memory:
// with a request's headers (about 700 bytes for a signed PUT) it fits the
// 4 KiB write buffer of Go's HTTP/1.1 transport.
const maxInline = 3 << 10

// inlineSmall reads a small request body into memory before the request
// goes out. minio-go hands the transport its body behind wrappers that
// net/http does not know as in-memory, so the transport writes the headers
// and then the body: two writes, two segments, and a server that wakes for
// each. An in-memory body of that size goes out with its headers in one
// write. The bytes on the wire are the same.
type inlineSmall struct{ next http.RoundTripper }

func (t inlineSmall) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody || req.ContentLength <= 0 || req.ContentLength > maxInline {
		return t.next.RoundTrip(req)
	}
	buf := make([]byte, req.ContentLength)
	_, err := io.ReadFull(req.Body, buf)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	r := *req // a RoundTripper may consume the body, not change the request
	r.Body = io.NopCloser(bytes.NewReader(buf))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
	return t.next.RoundTrip(&r)
}
