// Package server is the lab servers' behaviour: the embedded S3 and GCS
// handlers, Azurite as a child process, an upstream server fronted, and
// what every one of them does to a request (service time, faults, pauses).
// Package lab puts them behind its network.
package server

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"path/filepath"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
)

// Bucket is the bucket (or container) every embedded server starts with.
const Bucket = "objbench"

var discardLog = log.New(io.Discard, "", 0)

// S3Handler serves an S3-compatible API (gofakes3) with the lab bucket,
// its objects' bytes in files in a temporary folder (see diskStore). The
// handler is an io.Closer: closing it removes the folder.
func S3Handler(string) (http.Handler, error) {
	dir, err := newStoreDir()
	if err != nil {
		return nil, fmt.Errorf("lab store: %w", err)
	}
	store := newDiskStore(dir.path)
	if err := store.CreateBucket(Bucket); err != nil {
		dir.Close()
		return nil, err
	}
	fake := gofakes3.New(store, gofakes3.WithLogger(gofakes3.DiscardLog()), gofakes3.WithTimeSkewLimit(0))
	return &closingHandler{Handler: s3Answers(decodeAWSChunked(fake.Server())), Closer: dir}, nil
}

// closingHandler is a handler with resources to release when its server
// stops.
type closingHandler struct {
	http.Handler
	io.Closer
}

// GCSHandler serves a GCS JSON API (fake-gcs-server) with the lab bucket;
// resumable upload sessions point back at publicURL. Objects are files in
// a store folder of their own (fake-gcs-server's filesystem backend), so
// they do not stay in memory; the handler is an io.Closer that removes
// the folder. Uploads stream to files (gcsUploads): fake-gcs-server's own
// upload handlers would hold each body whole in memory.
func GCSHandler(publicURL string) (http.Handler, error) {
	u, err := url.Parse(publicURL)
	if err != nil {
		return nil, err
	}
	dir, err := newStoreDir()
	if err != nil {
		return nil, fmt.Errorf("lab store: %w", err)
	}
	root := filepath.Join(dir.path, "objects")
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		NoListener:  true,
		Scheme:      u.Scheme,
		Host:        u.Hostname(),
		ExternalURL: publicURL,
		PublicHost:  u.Host,
		Writer:      io.Discard,
		StorageRoot: root,
	})
	if err != nil {
		dir.Close()
		return nil, err
	}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: Bucket})
	h, err := newGCSUploads(srv, srv.HTTPHandler(), root, filepath.Join(dir.path, "uploads"), publicURL)
	if err != nil {
		dir.Close()
		return nil, err
	}
	// fake-gcs-server takes any other host for a virtual-hosted bucket name;
	// a request made straight to the server, bypassing the link (lab
	// check's baseline), means the lab's bucket all the same.
	return &closingHandler{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = u.Host
		h.ServeHTTP(w, r)
	}), Closer: dir}, nil
}
