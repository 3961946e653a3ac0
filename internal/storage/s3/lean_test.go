package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/storagetest"
)

// recordingTransport keeps what each request put on the wire.
type recordingTransport struct {
	mu   sync.Mutex
	reqs []wireRequest
}

type wireRequest struct {
	method, path, query string
	header              http.Header
	length              int64
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, wireRequest{method: req.Method, path: req.URL.EscapedPath(), query: req.URL.RawQuery,
		header: req.Header.Clone(), length: req.ContentLength})
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// Headers that differ between any two requests: a fresh invocation ID, the
// signing time, and the signature over both.
var perRequestHeaders = map[string]bool{"Amz-Sdk-Invocation-Id": true, "X-Amz-Date": true, "Authorization": true}

// describe is a request without what differs between any two requests: the
// header values above and the upload ID the server chose. The
// Authorization header keeps its scheme, credential scope and signed
// headers, only the signature is dropped.
func (w wireRequest) describe() string {
	q, _ := url.ParseQuery(w.query)
	if q.Has("uploadId") {
		q.Set("uploadId", "ID")
	}
	var b strings.Builder
	b.WriteString(w.method + " " + w.path + "?" + q.Encode() + "\n")
	names := make([]string, 0, len(w.header))
	for k := range w.header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := strings.Join(w.header[k], ", ")
		switch {
		case k == "Authorization":
			v, _, _ = strings.Cut(v, ", Signature=")
			if scheme, rest, ok := strings.Cut(v, " Credential="); ok {
				// the date in the scope is the day's, the same for both
				v = scheme + " Credential=" + rest
			}
		case perRequestHeaders[k]:
			v = "(per request)"
		}
		b.WriteString("  " + k + ": " + v + "\n")
	}
	return b.String()
}

// The lean client puts on the wire exactly what the SDK as it comes does,
// request by request, for every operation objbench makes and every upload
// style, errors included.
func TestLeanStackSameRequest(t *testing.T) {
	ep, creds := storagetest.MinIO(t)
	bucket := testBucket(t, ep, creds)
	ctx := context.Background()
	run := func(lean bool, attempts int, prefix string) []wireRequest {
		rt := &recordingTransport{}
		open := func(up storage.UploadStyle) *Backend {
			b, err := newBackend(ctx, storage.Target{Scheme: "s3", Bucket: bucket}, storage.Options{Endpoint: ep, Region: "us-east-1",
				Credentials: creds, HTTPClient: &http.Client{Transport: rt}, MaxAttempts: attempts, Upload: up, PartSize: 5 << 20, PartConcurrency: 1}, lean)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		small, big := bytes.Repeat([]byte("x"), 1024), bytes.Repeat([]byte("y"), 6<<20)
		for _, up := range []storage.UploadStyle{storage.UploadSingle, storage.UploadAuto, storage.UploadMultipart} {
			b := open(up)
			for _, data := range [][]byte{nil, small, big} {
				key := prefix + string(up) + "/" + string(rune('a'+len(data)%26))
				if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data))); err != nil {
					t.Fatalf("put %s: %v", key, err)
				}
			}
		}
		b := open(storage.UploadSingle)
		if _, err := b.Get(ctx, prefix+"single/a", io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Get(ctx, prefix+"missing", io.Discard); storage.Classify(err) != storage.ClassNotFound {
			t.Fatalf("get of a missing key: %v", err)
		}
		if _, err := b.Head(ctx, prefix+"auto/a"); err != nil {
			t.Fatal(err)
		}
		var keys []string
		if err := b.List(ctx, prefix, func(o storage.ObjectInfo) error { keys = append(keys, o.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := b.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := b.BucketExists(ctx); !ok || err != nil {
			t.Fatalf("bucket exists: %v %v", ok, err)
		}
		return rt.reqs
	}
	for _, attempts := range []int{0, 2} { // the SDK's default, and --max-attempts
		want, got := run(false, attempts, "ref/"), run(true, attempts, "ref/")
		if len(got) != len(want) {
			t.Fatalf("attempts %d: %d requests, the SDK as it comes makes %d", attempts, len(got), len(want))
		}
		for i := range want {
			if w, g := want[i].describe(), got[i].describe(); w != g {
				t.Errorf("attempts %d, request %d:\n%s\nthe SDK as it comes:\n%s", attempts, i, g, w)
			}
		}
	}
}

// The lean stack lacks the idle middlewares and keeps the rest.
func TestLeanStackRemovesIdle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, bucket := range []string{"bench", "arn:aws:s3:us-east-1:123456789012:accesspoint/bench"} {
		b, err := New(ctx, storage.Target{Scheme: "s3", Bucket: bucket}, storage.Options{Region: "us-east-1", MaxAttempts: 1,
			Credentials: &storage.StaticCredentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"},
			HTTPClient:  &http.Client{Transport: &cannedTransport{}}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		errStop := errors.New("stop")
		_, err = b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("k")}, func(o *s3.Options) {
			o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
				for _, l := range [][]string{s.Initialize.List(), s.Serialize.List(), s.Build.List(), s.Finalize.List(), s.Deserialize.List()} {
					ids = append(ids, l...)
				}
				return errStop
			})
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("GetObject: %v", err)
		}
		has := map[string]bool{}
		for _, id := range ids {
			has[id] = true
		}
		arn := strings.HasPrefix(bucket, "arn:")
		for _, l := range [][]string{idleInitialize, idleSerialize, idleFinalize, idleDeserialize} {
			for _, id := range l {
				if has[id] {
					t.Errorf("bucket %s: %s still in the stack", bucket, id)
				}
			}
		}
		for _, id := range append(arnInitialize, arnSerialize...) {
			if has[id] != arn {
				t.Errorf("bucket %s: %s in the stack %v", bucket, id, has[id])
			}
		}
		for _, id := range []string{"Signing", "Retry", "UserAgent", "ClientRequestID", "OperationSerializer", "OperationDeserializer", "ResolveEndpointV2"} {
			if !has[id] {
				t.Errorf("bucket %s: %s missing", bucket, id)
			}
		}
	}
}
