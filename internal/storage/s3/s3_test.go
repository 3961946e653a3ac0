package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func open(t *testing.T, bucket, endpoint string, creds *storage.StaticCredentials) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: endpoint, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testBucket creates a fresh bucket on the test MinIO and removes it when
// the test is done (the suite has deleted its objects by then).
func testBucket(t *testing.T, ep string, creds *storage.StaticCredentials) string {
	t.Helper()
	bucket := storagetest.RandomBucket()
	b := open(t, bucket, ep, creds)
	ok, err := b.BucketExists(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if err := b.CreateBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := b.client.DeleteBucket(context.Background(), &s3.DeleteBucketInput{Bucket: &bucket}); err != nil {
			t.Errorf("delete bucket %s: %v", bucket, err)
		}
	})
	return bucket
}

func TestConformanceMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return open(t, bucket, ep, creds) })
}

func TestConformanceEmbedded(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		return open(t, lab.Bucket, l.Endpoint("s3"), labcheck.StorageCredentials(l, "s3"))
	})
}

func TestBadInputMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	ctx := context.Background()
	wrong := &storage.StaticCredentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: "not-the-secret"}
	tests := []struct {
		name  string
		b     *Backend
		class storage.ErrorClass
	}{
		{"wrong secret", open(t, storagetest.RandomBucket(), ep, wrong), storage.ClassAccessDenied},
		{"refused", open(t, storagetest.RandomBucket(), "http://127.0.0.1:1", creds), storage.ClassReset},
		{"wrong key id", open(t, storagetest.RandomBucket(), ep, &storage.StaticCredentials{AccessKeyID: "nobody", SecretAccessKey: "x"}), storage.ClassAccessDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.BucketExists(ctx)
			if c := storage.Classify(err); c != tc.class {
				t.Errorf("class %q (%v), want %q", c, err, tc.class)
			}
			if err == nil {
				return
			}
			if msg := err.Error(); strings.Contains(msg, creds.SecretAccessKey) || strings.Contains(msg, wrong.SecretAccessKey) {
				t.Error("error contains the secret key")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	missing := open(t, storagetest.RandomBucket(), ep, creds)
	if ok, err := missing.BucketExists(ctx); ok || err != nil {
		t.Errorf("missing bucket: exists %v err %v", ok, err)
	}
	if err := missing.Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("put into a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	// Deleting in a missing bucket is an error, unlike deleting a missing key.
	if err := missing.Delete(ctx, "k"); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("delete in a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	if err := missing.List(ctx, "", func(storage.ObjectInfo) error { return nil }); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("list of a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
}

func TestBadEndpoint(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{"ftp://x", "127.0.0.1:9000", "http://", "http://user:s3cr3t@host:9000", "http://x:s3cr3t%zz@h"} {
		_, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: "abc"},
			storage.Options{Endpoint: ep, HTTPClient: &http.Client{}})
		if err == nil || !strings.Contains(err.Error(), "bad endpoint") {
			t.Errorf("%s: err %v", ep, err)
		} else if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: error shows the password: %v", ep, err)
		}
	}
	if _, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: "abc"}, storage.Options{}); err == nil {
		t.Error("no HTTP client: no error")
	}
}

// TestNoCredentials runs the AWS chain with nothing configured.
func TestNoCredentials(t *testing.T) {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", dir+"/config")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/credentials")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request sent without credentials: %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: "abc"},
		storage.Options{Endpoint: srv.URL, HTTPClient: &http.Client{}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.BucketExists(context.Background())
	if c := storage.Classify(err); c != storage.ClassAccessDenied {
		t.Errorf("class %q (%v), want access_denied", c, err)
	}
	want := "head bucket: no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or --profile"
	if err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}

	// A profile that is not there is named.
	_, err = New(context.Background(), storage.Target{Scheme: "s3", Bucket: "abc"},
		storage.Options{Endpoint: srv.URL, HTTPClient: &http.Client{}, Profile: "nosuchprofile"})
	if err == nil || !strings.Contains(err.Error(), `"nosuchprofile" not found`) {
		t.Errorf("missing profile: %v", err)
	}
}

// fakeS3 answers every request with status and an S3 XML error of code,
// or for a GET of "short", a body cut off before its Content-Length.
func fakeS3(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if key == "short" {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(200)
			_, _ = w.Write(make([]byte, 300))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		status, code, _ := strings.Cut(key, "-")
		n, err := strconv.Atoi(status)
		if err != nil {
			t.Errorf("fake S3: bad key %q", key)
			n = 400
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(n)
		if r.Method != http.MethodHead {
			fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code><Message>m</Message><RequestId>r</RequestId></Error>", code)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestErrorMapping(t *testing.T) {
	t.Parallel()
	srv := fakeS3(t)
	b := open(t, "abc", srv.URL, &storage.StaticCredentials{AccessKeyID: "a", SecretAccessKey: "s3cr3t"})
	ctx := context.Background()
	tests := []struct {
		key    string
		status int
		code   string
		class  storage.ErrorClass
	}{
		{"404-NoSuchKey", 404, "NoSuchKey", storage.ClassNotFound},
		{"404-NoSuchBucket", 404, "NoSuchBucket", storage.ClassNotFound},
		{"403-AccessDenied", 403, "AccessDenied", storage.ClassAccessDenied},
		{"403-InvalidAccessKeyId", 403, "InvalidAccessKeyId", storage.ClassAccessDenied},
		{"403-SignatureDoesNotMatch", 403, "SignatureDoesNotMatch", storage.ClassAccessDenied},
		{"503-SlowDown", 503, "SlowDown", storage.ClassThrottled},
		{"429-TooManyRequests", 429, "TooManyRequests", storage.ClassThrottled},
		{"500-InternalError", 500, "InternalError", storage.ClassServer},
		{"400-InvalidArgument", 400, "InvalidArgument", storage.ClassClient},
		{"400-SlowDown", 400, "SlowDown", storage.ClassThrottled},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			_, err := b.Get(ctx, tc.key, io.Discard)
			var se *storage.Error
			if !errors.As(err, &se) {
				t.Fatalf("not a *storage.Error: %T %v", err, err)
			}
			if se.Op != "get" || se.Key != tc.key || se.Status != tc.status || se.Code != tc.code || se.Class != tc.class {
				t.Errorf("got %+v, want status %d code %s class %s", se, tc.status, tc.code, tc.class)
			}
			if storage.Classify(err) != tc.class {
				t.Errorf("Classify = %q", storage.Classify(err))
			}
			var ae smithy.APIError
			if !errors.As(err, &ae) {
				t.Error("the SDK error is not in the chain")
			}
			if msg := err.Error(); strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "\n") {
				t.Errorf("message %q", msg)
			}
		})
	}
	t.Run("head", func(t *testing.T) {
		t.Parallel()
		// HEAD answers have no body: the class comes from the status.
		_, err := b.Head(ctx, "404-")
		if !storage.IsNotFound(err) {
			t.Errorf("head 404: %v", err)
		}
		_, err = b.Head(ctx, "403-")
		if c := storage.Classify(err); c != storage.ClassAccessDenied {
			t.Errorf("head 403: class %q (%v)", c, err)
		}
	})
	t.Run("delete missing", func(t *testing.T) {
		t.Parallel()
		if err := b.Delete(ctx, "404-NoSuchKey"); err != nil {
			t.Errorf("delete of a missing key: %v", err)
		}
		if err := b.Delete(ctx, "404-NoSuchBucket"); !storage.IsNotFound(err) {
			t.Errorf("delete in a missing bucket: %v", err)
		}
	})
	t.Run("short body", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		n, err := b.Get(ctx, "short", &buf)
		if n != 300 || buf.Len() != 300 {
			t.Errorf("Get returned %d, wrote %d bytes; want the 300 received", n, buf.Len())
		}
		if c := storage.Classify(err); c != storage.ClassReset {
			t.Errorf("class %q (%v), want reset", c, err)
		}
	})
}

func TestBucketExistsStatus(t *testing.T) {
	t.Parallel()
	srv := fakeS3(t)
	creds := &storage.StaticCredentials{AccessKeyID: "a", SecretAccessKey: "b"}
	tests := []struct {
		bucket string
		exists bool
		class  storage.ErrorClass
	}{
		{"404-", false, storage.ClassNone},
		{"403-", false, storage.ClassAccessDenied},
		{"503-", false, storage.ClassThrottled},
		{"200-", true, storage.ClassNone},
	}
	for _, tc := range tests {
		ok, err := open(t, tc.bucket, srv.URL, creds).BucketExists(context.Background())
		if ok != tc.exists || storage.Classify(err) != tc.class {
			t.Errorf("%s: %v, %v (class %q); want %v, class %q", tc.bucket, ok, err, storage.Classify(err), tc.exists, tc.class)
		}
	}
}
