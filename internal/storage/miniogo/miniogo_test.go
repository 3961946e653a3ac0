package miniogo

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/objbench/objbench/internal/lab"
	"github.com/objbench/objbench/internal/labcheck"
	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

func open(t testing.TB, bucket, endpoint string, creds *storage.StaticCredentials, upload storage.UploadStyle) *Backend {
	t.Helper()
	b, err := New(context.Background(), storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: endpoint, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{}, MaxAttempts: 1,
			Upload: upload, PartSize: 5 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testBucket(t *testing.T, ep string, creds *storage.StaticCredentials) string {
	t.Helper()
	bucket := storagetest.RandomBucket()
	b := open(t, bucket, ep, creds, "")
	if err := b.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.client.RemoveBucket(context.Background(), bucket); err != nil {
			t.Errorf("delete bucket %s: %v", bucket, err)
		}
	})
	return bucket
}

func TestConformanceMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	storagetest.Run(t, func(t *testing.T) storage.Backend { return open(t, bucket, ep, creds, "") })
}

func TestConformanceEmbedded(t *testing.T) {
	l, err := lab.Start(context.Background(), lab.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	storagetest.Run(t, func(t *testing.T) storage.Backend {
		return open(t, lab.Bucket, l.Endpoint("s3"), labcheck.StorageCredentials(l, "s3"), "")
	})
}

// Every upload style stores the same bytes, including an empty object and
// one of several parts.
func TestUploadStylesMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	ctx := context.Background()
	for _, style := range []storage.UploadStyle{storage.UploadAuto, storage.UploadSingle, storage.UploadMultipart} {
		for _, size := range []int{0, 1024, 11 << 20} {
			b := open(t, bucket, ep, creds, style)
			key := "styles/" + string(style) + "/" + strings.Repeat("x", size%7)
			data := make([]byte, size)
			_, _ = rand.Read(data)
			if err := b.Put(ctx, key, bytes.NewReader(data), int64(size)); err != nil {
				t.Fatalf("%s %d: %v", style, size, err)
			}
			var got bytes.Buffer
			if n, err := b.Get(ctx, key, &got); err != nil || n != int64(size) || !bytes.Equal(got.Bytes(), data) {
				t.Errorf("%s %d: read back %d bytes, equal %v, err %v", style, size, n, bytes.Equal(got.Bytes(), data), err)
			}
			if err := b.Delete(ctx, key); err != nil {
				t.Error(err)
			}
		}
	}
	if err := open(t, bucket, ep, creds, storage.UploadResumable).Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassClient {
		t.Errorf("resumable upload on S3: class %q (%v), want a client error", storage.Classify(err), err)
	}
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
		{"wrong secret", open(t, storagetest.RandomBucket(), ep, wrong, ""), storage.ClassAccessDenied},
		{"refused", open(t, storagetest.RandomBucket(), "http://127.0.0.1:1", creds, ""), storage.ClassReset},
		{"wrong key id", open(t, storagetest.RandomBucket(), ep, &storage.StaticCredentials{AccessKeyID: "nobody", SecretAccessKey: "x"}, ""), storage.ClassAccessDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.BucketExists(ctx)
			if c := storage.Classify(err); c != tc.class {
				t.Errorf("class %q (%v), want %q", c, err, tc.class)
			}
			if err != nil && (strings.Contains(err.Error(), creds.SecretAccessKey) || strings.Contains(err.Error(), wrong.SecretAccessKey)) {
				t.Error("error contains the secret key")
			}
		})
	}
	missing := open(t, storagetest.RandomBucket(), ep, creds, "")
	if ok, err := missing.BucketExists(ctx); ok || err != nil {
		t.Errorf("missing bucket: exists %v err %v", ok, err)
	}
	if err := missing.Put(ctx, "k", strings.NewReader("x"), 1); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("put into a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	if err := missing.Delete(ctx, "k"); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("delete in a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	if err := missing.List(ctx, "", func(storage.ObjectInfo) error { return nil }); storage.Classify(err) != storage.ClassNotFound {
		t.Errorf("list of a missing bucket: class %q (%v)", storage.Classify(err), err)
	}
	for _, ep := range []string{"ftp://x", "http://u:p@127.0.0.1:1", "http://127.0.0.1:1/path", "::"} {
		if _, err := New(ctx, storage.Target{Scheme: "s3", Bucket: "b"}, storage.Options{Endpoint: ep, HTTPClient: &http.Client{}}); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		} else if strings.Contains(err.Error(), ":p@") {
			t.Errorf("endpoint error shows the password: %v", err)
		}
	}
}

// rewrite is a RoundTripper that records each PUT's payload headers and,
// when tamper is set, flips one byte of the body after it was signed.
type rewrite struct {
	tamper bool
	sha    []string // x-amz-content-sha256 of each PUT
	signed []string // the SignedHeaders of its Authorization
	length []int64
}

func (rw *rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut {
		rw.sha = append(rw.sha, req.Header.Get("X-Amz-Content-Sha256"))
		_, sh, _ := strings.Cut(req.Header.Get("Authorization"), "SignedHeaders=")
		sh, _, _ = strings.Cut(sh, ",")
		rw.signed = append(rw.signed, sh)
		rw.length = append(rw.length, req.ContentLength)
		if rw.tamper && req.Body != nil {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return nil, err
			}
			body[len(body)/2] ^= 1
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// A single-request PUT (styles single and auto) signs its payload whole:
// the header carries the body's SHA-256, the signature covers that header,
// and the server refuses a body changed after signing. This is the
// protection minio-go's streaming signature gives, at half the signing
// work (see putSigned).
func TestSignedPayloadMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	ctx := context.Background()
	for _, style := range []storage.UploadStyle{storage.UploadSingle, storage.UploadAuto} {
		for _, size := range []int{0, 1024, 70 << 10} {
			data := make([]byte, size)
			_, _ = rand.Read(data)
			want := sha256.Sum256(data)
			key := fmt.Sprintf("signed/%s/%d", style, size)
			for _, tamper := range []bool{false, true} {
				rw := &rewrite{tamper: tamper}
				b, err := New(ctx, storage.Target{Scheme: "s3", Bucket: bucket},
					storage.Options{Endpoint: ep, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{Transport: rw},
						MaxAttempts: 1, Upload: style})
				if err != nil {
					t.Fatal(err)
				}
				err = b.Put(ctx, key, bytes.NewReader(data), int64(size))
				if len(rw.sha) != 1 {
					t.Fatalf("%s %d: %d PUT requests, want 1", style, size, len(rw.sha))
				}
				if rw.sha[0] != hex.EncodeToString(want[:]) || !strings.Contains(rw.signed[0], "x-amz-content-sha256") || rw.length[0] != int64(size) {
					t.Errorf("%s %d: x-amz-content-sha256 %q, signed headers %q, length %d; want the body's SHA-256, signed, and length %d",
						style, size, rw.sha[0], rw.signed[0], rw.length[0], size)
				}
				switch {
				case !tamper && err != nil:
					t.Errorf("%s %d: %v", style, size, err)
				case tamper && size > 0 && err == nil:
					t.Errorf("%s %d: a body changed after signing was stored", style, size)
				case tamper && size > 0:
					var se *storage.Error
					if !errors.As(err, &se) || se.Code != "XAmzContentSHA256Mismatch" {
						t.Errorf("%s %d: changed body refused with %v, want the server's XAmzContentSHA256Mismatch", style, size, err)
					}
				}
			}
			if err := open(t, bucket, ep, creds, "").Delete(ctx, key); err != nil {
				t.Error(err)
			}
		}
	}
}

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A small PUT goes out in one write, headers and body together (inlineSmall);
// a larger one still arrives whole.
func TestSmallPutOneWriteMinIO(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	ctx := context.Background()
	var writes atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return countingConn{c, &writes}, err
	}}
	defer tr.CloseIdleConnections()
	b, err := New(ctx, storage.Target{Scheme: "s3", Bucket: bucket},
		storage.Options{Endpoint: ep, Region: "us-east-1", Credentials: creds, HTTPClient: &http.Client{Transport: tr}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size      int
		maxWrites int64
	}{{1024, 1}, {maxInline, 1}, {64 << 10, 3}} {
		data := make([]byte, tc.size)
		_, _ = rand.Read(data)
		key := fmt.Sprintf("writes/%d", tc.size)
		writes.Store(0)
		if err := b.Put(ctx, key, bytes.NewReader(data), int64(tc.size)); err != nil {
			t.Fatal(err)
		}
		if n := writes.Load(); n > tc.maxWrites {
			t.Errorf("%d B PUT: %d writes, want at most %d", tc.size, n, tc.maxWrites)
		}
		var got bytes.Buffer
		if _, err := b.Get(ctx, key, &got); err != nil || !bytes.Equal(got.Bytes(), data) {
			t.Errorf("%d B: read back %d bytes, equal %v, err %v", tc.size, got.Len(), bytes.Equal(got.Bytes(), data), err)
		}
		if err := b.Delete(ctx, key); err != nil {
			t.Error(err)
		}
	}
}
