package s3

import (
	"context"
	"strings"
	"sync/atomic"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/objbench/objbench/internal/storage"
)

// S3 Express One Zone directory buckets need nothing of objbench but a
// name: aws-sdk-go-v2 sees the --x-s3 suffix, resolves the zonal endpoint
// (bucket.s3express-ZONE.REGION.amazonaws.com) or, with --endpoint, signs
// for service s3express at that endpoint, and sends CreateSession before
// the first request to the bucket, with the account's credentials. It
// caches the session's credentials per bucket and client and refreshes
// them in the background once they are within a minute of expiring (the
// SDK's s3ExpressRefreshWindow, not configurable): with S3's 5-minute
// sessions, one CreateSession per client every 4 minutes. (S3 wants
// HeadBucket and CopyObject signed with the account's credentials; this
// SDK release signs HeadBucket with the session too, and the lab takes
// either.) objbench counts the CreateSession requests (sessionCounter) so that a
// run can say how many sessions its clients made.

var _ storage.SessionCounter = (*Backend)(nil)

// CreateSessions is the number of CreateSession requests this client has
// sent (0 on a general purpose bucket).
func (b *Backend) CreateSessions() int64 { return b.sessions.Load() }

// countSessions counts each CreateSession operation the client starts
// (one per session, and one more for each failed attempt to make one).
func countSessions(n *atomic.Int64) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("objbench:CountCreateSession",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if awsmiddleware.GetOperationName(ctx) == "CreateSession" {
					n.Add(1)
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	}
}

// listPrefix is the prefix a directory bucket can list: one ending in "/"
// (ListObjectsV2 there takes no other), and the filter that keeps the keys
// under the prefix asked for. A general purpose bucket lists any prefix.
func listPrefix(bucket, prefix string) (string, func(key string) bool) {
	if !storage.IsDirectoryBucket(bucket) || prefix == "" || strings.HasSuffix(prefix, "/") {
		return prefix, nil
	}
	dir := prefix[:strings.LastIndexByte(prefix, '/')+1]
	return dir, func(key string) bool { return strings.HasPrefix(key, prefix) }
}
