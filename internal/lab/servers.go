package lab

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/url"
	"syscall"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

var discardLog = log.New(io.Discard, "", 0)

func isAddrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// newS3Handler serves an in-memory S3-compatible API (gofakes3) with the
// lab bucket.
func newS3Handler(string) (http.Handler, error) {
	mem := s3mem.New()
	if err := mem.CreateBucket(Bucket); err != nil {
		return nil, err
	}
	fake := gofakes3.New(mem, gofakes3.WithLogger(gofakes3.DiscardLog()), gofakes3.WithTimeSkewLimit(0))
	return decodeAWSChunked(fake.Server()), nil
}

// newGCSHandler serves an in-memory GCS JSON API (fake-gcs-server) with the
// lab bucket; resumable upload sessions point back at publicURL.
func newGCSHandler(publicURL string) (http.Handler, error) {
	u, err := url.Parse(publicURL)
	if err != nil {
		return nil, err
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		NoListener:  true,
		Scheme:      u.Scheme,
		Host:        u.Hostname(),
		ExternalURL: publicURL,
		PublicHost:  u.Host,
		Writer:      io.Discard,
	})
	if err != nil {
		return nil, err
	}
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: Bucket})
	h := srv.HTTPHandler()
	// fake-gcs-server takes any other host for a virtual-hosted bucket name;
	// a request made straight to the server, bypassing the link (lab
	// check's baseline), means the lab's bucket all the same.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Host = u.Host
		h.ServeHTTP(w, r)
	}), nil
}
