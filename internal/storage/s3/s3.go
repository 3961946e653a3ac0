// Package s3 is the storage.Backend for Amazon S3 and S3-compatible servers,
// built on aws-sdk-go-v2 with the caller's instrumented *http.Client.
package s3

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/objbench/objbench/internal/storage"
)

// Backend is one S3 bucket.
type Backend struct {
	client   *s3.Client
	tm       *transfermanager.Client // the SDK's uploader, for UploadAuto
	bucket   string
	upload   storage.UploadStyle
	partSize int64
	parts    int
	region   string
	sessions atomic.Int64 // CreateSession requests (directory buckets)
}

var _ storage.Backend = (*Backend)(nil)

// New returns a client of t.Bucket. Credentials come from o.Credentials when
// set (the lab, tests), else from the AWS default chain; the checksum
// settings are "when required" so that S3-compatible servers work. The
// SDK's own Expect: 100-continue (PutObject and UploadPart over 2 MB) is
// left as the SDK sends it, so that results show what it does: over
// HTTP/1.1 the body follows the header at once, since smithy-go's requests
// carry no protocol version and Go's transport then does not wait. The
// transport's ExpectContinue makes every upload wait.
func New(ctx context.Context, t storage.Target, o storage.Options) (*Backend, error) {
	return newBackend(ctx, t, o, true)
}

// sdkLogger routes the SDK's log to w, each line marked as the SDK's; nil
// discards it (the SDK's default writes to os.Stderr itself).
func sdkLogger(w io.Writer) logging.Logger {
	if w == nil {
		return logging.Nop{}
	}
	return logging.LoggerFunc(func(c logging.Classification, format string, v ...any) {
		fmt.Fprintf(w, "objbench: aws-sdk %s: %s\n", c, fmt.Sprintf(format, v...))
	})
}

// newBackend is New; lean false configures the SDK as it comes (the
// reference the lean client's requests are compared with).
func newBackend(ctx context.Context, t storage.Target, o storage.Options, lean bool) (*Backend, error) {
	if o.HTTPClient == nil {
		return nil, errors.New("s3: no HTTP client")
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil {
			// The parse error quotes the URL, which may hold a password.
			return nil, errors.New("bad endpoint: not a URL; use http://host:port or https://host")
		}
		if u.User != nil {
			return nil, fmt.Errorf("bad endpoint %q: no user or password in it; credentials come from the AWS chain", u.Redacted())
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("bad endpoint %q: use http://host:port or https://host", o.Endpoint)
		}
	}
	// The configuration is loaded with the SDK's own HTTP client, which
	// credential providers (IMDS, SSO, STS) keep and which honours
	// AWS_CA_BUNDLE; only S3 requests go through the instrumented client.
	var opts []func(*config.LoadOptions) error
	if o.Region != "" {
		opts = append(opts, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(o.Profile))
	}
	if c := o.Credentials; c != nil {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(c.AccessKeyID, c.SecretAccessKey, "")))
	}
	if o.MaxAttempts > 0 {
		opts = append(opts, config.WithRetryMaxAttempts(o.MaxAttempts))
	}
	opts = append(opts, config.WithLogger(sdkLogger(o.Log)))
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		var pe config.SharedConfigProfileNotExistError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("AWS profile %q not found in the shared config or credentials files", o.Profile)
		}
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	cfg.HTTPClient = o.HTTPClient
	b := &Backend{bucket: t.Bucket, upload: o.Upload, partSize: o.PartSize, parts: o.PartConcurrency, region: cfg.Region}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
			so.UsePathStyle = true
		}
		so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		// The same endpoint rules, evaluated once per bucket instead of twice
		// per request (fast.go).
		so.EndpointResolverV2 = newCachedResolver(s3.NewDefaultEndpointResolverV2())
		if lean {
			so.Retryer = leanRetryer()           // wrapped with RetryMaxAttempts after this
			so.DisableClockSkewCorrection = true // see RecordResponseTiming in lean.go
			so.APIOptions = append(so.APIOptions, leanStack(t.Bucket))
		}
		if storage.IsDirectoryBucket(t.Bucket) {
			so.APIOptions = append(so.APIOptions, countSessions(&b.sessions))
		}
	})
	// One uploader for every Put: it holds only its options (each upload
	// has its own state), so the requests are those of a new one per Put.
	tm := transfermanager.New(client, func(to *transfermanager.Options) {
		to.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		if o.PartSize > 0 {
			to.PartSizeBytes = o.PartSize
		}
		if o.PartConcurrency > 0 {
			to.Concurrency = o.PartConcurrency
		}
	})
	b.client, b.tm = client, tm
	return b, nil
}

// Region is the region the AWS configuration chain resolved (--region,
// AWS_REGION, the shared config), so that results name it when no flag did.
func (b *Backend) Region() string { return b.region }

// Put implements storage.Backend with one PutObject request.
//
// Styles: single is one PutObject; auto is the SDK's transfer manager (one
// request below its multipart threshold, parts above); multipart always
// uploads parts of the part size, parts at a time, and completes them.
func (b *Backend) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	var err error
	switch b.upload {
	case storage.UploadAuto:
		if _, ok := body.(io.ReaderAt); ok {
			// The transfer manager's requests without its buffers (it reads
			// the first 16 MiB, then each part, into memory): one PutObject
			// below its threshold, else parts of its size, as many at a time.
			if size < autoThreshold {
				_, err = b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.bucket, Key: &key, Body: body, ContentLength: &size})
				break
			}
			err = b.putMultipart(ctx, key, body, size)
			break
		}
		_, err = b.tm.UploadObject(ctx, &transfermanager.UploadObjectInput{Bucket: &b.bucket, Key: &key, Body: body})
	case storage.UploadMultipart:
		if size == 0 { // an empty object has no part to send
			_, err = b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.bucket, Key: &key, Body: body, ContentLength: &size})
			break
		}
		err = b.putMultipart(ctx, key, body, size)
	case storage.UploadResumable:
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient,
			Err: errors.New("no resumable upload on S3: use --upload auto, single or multipart")}
	default:
		_, err = b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.bucket, Key: &key, Body: body, ContentLength: &size})
	}
	return mapErr("put", key, err)
}

// autoThreshold is the transfer manager's default multipart threshold.
const autoThreshold = 16 << 20

// putMultipart is S3's multipart upload by hand, so that the part size and
// the parts in flight are exactly the ones asked for.
func (b *Backend) putMultipart(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	partSize := b.partSize
	if partSize <= 0 {
		partSize = 8 << 20
	}
	if size/partSize >= 10000 { // S3's most parts: larger ones, as the SDK's uploader does
		partSize = size/10000 + 1
	}
	parts := max(b.parts, 1)
	if b.parts == 0 {
		parts = 5
	}
	up, err := b.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return err
	}
	abort := func() {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = b.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &b.bucket, Key: &key, UploadId: up.UploadId})
	}
	n := max((size+partSize-1)/partSize, 1)
	completed := make([]types.CompletedPart, n)
	err = storage.UploadParts(ctx, body, size, partSize, parts, func(ctx context.Context, i int, part *io.SectionReader) error {
		num := int32(i + 1)
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &b.bucket, Key: &key, UploadId: up.UploadId,
			PartNumber: &num, Body: part, ContentLength: aws.Int64(part.Size())})
		if err != nil {
			return err
		}
		completed[i] = types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)}
		return nil
	})
	if err != nil {
		abort()
		return err
	}
	_, err = b.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &b.bucket, Key: &key,
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: completed}})
	if err != nil {
		abort()
	}
	return err
}

// Get implements storage.Backend, reading the body to its end.
func (b *Backend) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer out.Body.Close()
	n, err := storage.CopyBody(w, out.Body)
	if err != nil {
		return n, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading body after %d bytes: %w", n, err)}
	}
	return n, nil
}

// GetRange implements storage.RangeGetter with a ranged GetObject.
func (b *Backend) GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error) {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+n-1)
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &key, Range: &rng})
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer out.Body.Close()
	got, err := storage.CopyBody(w, out.Body)
	if err != nil {
		return got, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading range at %d after %d bytes: %w", off, got, err)}
	}
	return got, nil
}

// Head implements storage.Backend.
func (b *Backend) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &key})
	if err != nil {
		return storage.ObjectInfo{}, mapErr("head", key, err)
	}
	info := storage.ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag)}
	if out.LastModified != nil {
		info.Modified = *out.LastModified
	}
	return info, nil
}

// List implements storage.Backend with ListObjectsV2 pages.
func (b *Backend) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	listed, keep := listPrefix(b.bucket, prefix)
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.bucket, Prefix: &listed})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return mapErr("list", prefix, err)
		}
		for _, o := range page.Contents {
			if keep != nil && !keep(aws.ToString(o.Key)) {
				continue
			}
			info := storage.ObjectInfo{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)}
			if o.LastModified != nil {
				info.Modified = *o.LastModified
			}
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete implements storage.Backend; a missing key is not an error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &key})
	if err = mapErr("delete", key, err); err != nil && storage.Classify(err) == storage.ClassNotFound && !isBucketMissing(err) {
		return nil
	}
	return err
}

// BucketExists implements storage.Backend with HeadBucket.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	_, err := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &b.bucket})
	if err == nil {
		return true, nil
	}
	err = mapErr("head bucket", "", err)
	var se *storage.Error
	if errors.As(err, &se) {
		switch {
		case se.Status == 404:
			return false, nil
		case se.Status == 301:
			return false, fmt.Errorf("bucket %q is in another region: pass its --region: %w", b.bucket, err)
		}
	}
	return false, err
}

// CreateBucket implements storage.Backend.
func (b *Backend) CreateBucket(ctx context.Context) error {
	_, err := b.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b.bucket})
	return mapErr("create bucket", "", err)
}

// Close implements storage.Backend.
func (b *Backend) Close() error { return nil }

func isBucketMissing(err error) bool {
	var se *storage.Error
	return errors.As(err, &se) && se.Code == "NoSuchBucket"
}

// mapErr maps an SDK error to a classified *storage.Error; network errors
// stay in the chain so that storage.Classify finds them.
func mapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	e := &storage.Error{Op: op, Key: key, Err: err}
	if errors.Is(err, context.Canceled) {
		return e // Classify finds the cancellation in the chain
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		e.Status = re.HTTPStatusCode()
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		e.Code = ae.ErrorCode()
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
	if e.Status == 0 && isCredentialsError(err) {
		e.Class = storage.ClassAccessDenied
		e.Err = &credentialsError{err: err}
	}
	return e
}

// credentialsError says in one line what to do when the credential chain
// found nothing; the SDK's long account of each provider it tried stays in
// the chain, for errors.As, but out of the message.
type credentialsError struct{ err error }

func (e *credentialsError) Error() string {
	msg := "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile"
	// The usual case, nothing configured, ends at the EC2 role provider;
	// anything else (an expired SSO session, a broken profile) is named.
	detail := e.err.Error()
	if strings.Contains(detail, "no EC2 IMDS role found") || strings.Contains(detail, "static credentials are empty") {
		return msg
	}
	if _, after, ok := strings.Cut(detail, "get credentials: "); ok {
		detail = after
	}
	return msg + " (" + strings.Join(strings.Fields(detail), " ") + ")"
}

func (e *credentialsError) Unwrap() error { return e.err }

// isCredentialsError reports whether err is the SDK failing to find
// credentials; the SDK has no exported type for it, only its messages.
func isCredentialsError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "failed to retrieve credentials") || strings.Contains(msg, "failed to refresh cached credentials") ||
		strings.Contains(msg, "no EC2 IMDS role found") || strings.Contains(msg, "static credentials are empty")
}

// RootCAs returns the system roots plus the AWS_CA_BUNDLE certificates, for
// the instrumented transport, or nil when AWS_CA_BUNDLE is not set.
func RootCAs() (*x509.CertPool, error) {
	path := os.Getenv("AWS_CA_BUNDLE")
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("AWS_CA_BUNDLE %s: no PEM certificate in it", path)
	}
	return pool, nil
}
