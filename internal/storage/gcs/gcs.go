// Package gcs is the storage.Backend for Google Cloud Storage (JSON API),
// built on cloud.google.com/go/storage with the caller's instrumented
// transport underneath.
package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	gcs "cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/objbench/objbench/internal/storage"
)

// Backend is one GCS bucket.
type Backend struct {
	client     *gcs.Client
	hc         *http.Client
	bucket     *gcs.BucketHandle
	name       string
	uploadBase string // scheme://host for upload sessions
	upload     storage.UploadStyle
	chunk      int
	project    string
}

var _ storage.Backend = (*Backend)(nil)

// New returns a client of t.Bucket. With an endpoint (--endpoint or
// STORAGE_EMULATOR_HOST) it talks to an emulator without authentication;
// otherwise it uses Application Default Credentials.
func New(ctx context.Context, t storage.Target, o storage.Options) (*Backend, error) {
	if o.HTTPClient == nil {
		return nil, errors.New("gcs: no HTTP client")
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		if host := os.Getenv("STORAGE_EMULATOR_HOST"); host != "" {
			endpoint = host
			if !strings.Contains(endpoint, "://") {
				endpoint = "http://" + endpoint
			}
		}
	}
	b := &Backend{name: t.Bucket, upload: o.Upload, chunk: int(o.PartSize), project: os.Getenv("GOOGLE_CLOUD_PROJECT")}
	var opts []option.ClientOption
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("bad endpoint %q: use http://host:port", endpoint)
		}
		b.uploadBase = u.Scheme + "://" + u.Host
		b.hc = o.HTTPClient
		if b.project == "" {
			b.project = "objbench"
		}
		opts = append(opts, option.WithEndpoint(b.uploadBase+"/storage/v1/"), option.WithoutAuthentication())
	} else {
		creds, err := google.FindDefaultCredentials(ctx, gcs.ScopeFullControl)
		if err != nil {
			return nil, &storage.Error{Op: "credentials", Class: storage.ClassAccessDenied,
				Err: errors.New("no Google credentials found: run 'gcloud auth application-default login' or set GOOGLE_APPLICATION_CREDENTIALS")}
		}
		if b.project == "" {
			b.project = creds.ProjectID
		}
		b.uploadBase = "https://storage.googleapis.com"
		// The token source fetches tokens with its own client: only storage
		// requests go through the instrumented transport.
		b.hc = &http.Client{Transport: &oauth2.Transport{Source: creds.TokenSource, Base: o.HTTPClient.Transport}}
	}
	opts = append(opts, option.WithHTTPClient(b.hc))
	client, err := gcs.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("gcs client: %w", err)
	}
	switch {
	case o.MaxAttempts == 1:
		client.SetRetry(gcs.WithPolicy(gcs.RetryNever))
	case o.MaxAttempts > 1:
		client.SetRetry(gcs.WithMaxAttempts(o.MaxAttempts))
	}
	b.client, b.bucket = client, client.Bucket(t.Bucket)
	return b, nil
}

// Put implements storage.Backend in the chosen upload style: auto is the Go
// writer's default (one request below its 16 MiB chunk, a resumable session
// above), single one request, resumable a session-initiating request plus
// the data request(s).
func (b *Backend) Put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	switch b.upload {
	case storage.UploadResumable:
		return mapErr("put", key, b.putResumable(ctx, key, body, size))
	case storage.UploadMultipart:
		return &storage.Error{Op: "put", Key: key, Class: storage.ClassClient,
			Err: errors.New("no multipart upload on GCS: use --upload auto, single or resumable")}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := b.bucket.Object(key).NewWriter(wctx)
	if b.upload == storage.UploadSingle {
		w.ChunkSize = 0
	} else if b.chunk > 0 {
		w.ChunkSize = b.chunk
	}
	if _, err := io.Copy(w, body); err != nil {
		cancel() // abandons the upload
		_ = w.Close()
		return mapErr("put", key, err)
	}
	return mapErr("put", key, w.Close())
}

// putResumable is the JSON API's resumable upload by hand: the Go writer
// sends small objects in one request, and the session request is exactly
// what the SDK's own resumable upload sends first.
func (b *Backend) putResumable(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	u := b.uploadBase + "/upload/storage/v1/b/" + url.PathEscape(b.name) + "/o?uploadType=resumable&name=" + url.QueryEscape(key)
	req, err := http.NewRequestWithContext(ctx, "POST", u, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=UTF-8")
	req.Header.Set("X-Upload-Content-Length", strconv.FormatInt(size, 10))
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return &googleapi.Error{Code: resp.StatusCode, Message: "starting resumable upload: " + resp.Status}
	}
	session := resp.Header.Get("Location")
	if session == "" {
		return errors.New("resumable upload: no session URI in the answer")
	}
	req, err = http.NewRequestWithContext(ctx, "PUT", session, io.NopCloser(body))
	if err != nil {
		return err
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	resp, err = b.hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return &googleapi.Error{Code: resp.StatusCode, Message: "resumable upload data: " + resp.Status}
	}
	return nil
}

// Get implements storage.Backend, reading the body to its end.
func (b *Backend) Get(ctx context.Context, key string, w io.Writer) (int64, error) {
	r, err := b.bucket.Object(key).ReadCompressed(true).NewReader(ctx)
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer r.Close()
	n, err := storage.CopyBody(w, r)
	if err != nil {
		return n, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading body after %d bytes: %w", n, err)}
	}
	return n, nil
}

// GetRange implements storage.RangeGetter with a range reader.
func (b *Backend) GetRange(ctx context.Context, key string, off, n int64, w io.Writer) (int64, error) {
	r, err := b.bucket.Object(key).NewRangeReader(ctx, off, n)
	if err != nil {
		return 0, mapErr("get", key, err)
	}
	defer r.Close()
	got, err := storage.CopyBody(w, r)
	if err != nil {
		return got, &storage.Error{Op: "get", Key: key, Err: fmt.Errorf("reading range at %d after %d bytes: %w", off, got, err)}
	}
	return got, nil
}

// Head implements storage.Backend.
func (b *Backend) Head(ctx context.Context, key string) (storage.ObjectInfo, error) {
	a, err := b.bucket.Object(key).Attrs(ctx)
	if err != nil {
		return storage.ObjectInfo{}, mapErr("head", key, err)
	}
	return storage.ObjectInfo{Key: key, Size: a.Size, Modified: a.Updated, ETag: a.Etag}, nil
}

// List implements storage.Backend.
func (b *Backend) List(ctx context.Context, prefix string, fn func(storage.ObjectInfo) error) error {
	it := b.bucket.Objects(ctx, &gcs.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			return mapErr("list", prefix, err)
		}
		if err := fn(storage.ObjectInfo{Key: a.Name, Size: a.Size, Modified: a.Updated, ETag: a.Etag}); err != nil {
			return err
		}
	}
}

// Delete implements storage.Backend; a missing key is not an error.
func (b *Backend) Delete(ctx context.Context, key string) error {
	err := b.bucket.Object(key).Delete(ctx)
	if errors.Is(err, gcs.ErrObjectNotExist) {
		return nil
	}
	return mapErr("delete", key, err)
}

// BucketExists implements storage.Backend.
func (b *Backend) BucketExists(ctx context.Context) (bool, error) {
	_, err := b.bucket.Attrs(ctx)
	if errors.Is(err, gcs.ErrBucketNotExist) {
		return false, nil
	}
	if err != nil {
		return false, mapErr("head bucket", "", err)
	}
	return true, nil
}

// CreateBucket implements storage.Backend in GOOGLE_CLOUD_PROJECT (or the
// credentials' project).
func (b *Backend) CreateBucket(ctx context.Context) error {
	if b.project == "" {
		return errors.New("creating a GCS bucket needs a project: set GOOGLE_CLOUD_PROJECT")
	}
	return mapErr("create bucket", "", b.bucket.Create(ctx, b.project, nil))
}

// Close implements storage.Backend.
func (b *Backend) Close() error { return b.client.Close() }

func mapErr(op, key string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	e := &storage.Error{Op: op, Key: key, Err: err}
	var ge *googleapi.Error
	switch {
	case errors.Is(err, gcs.ErrObjectNotExist), errors.Is(err, gcs.ErrBucketNotExist):
		e.Status, e.Class = 404, storage.ClassNotFound
	case errors.As(err, &ge):
		e.Status = ge.Code
		if len(ge.Errors) > 0 {
			e.Code = ge.Errors[0].Reason
		}
		e.Class = storage.ClassifyStatus(ge.Code, e.Code)
	}
	return e
}
