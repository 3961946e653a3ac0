package s3

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
)

// The SDK builds a stack of about 35 middlewares for every request. Some do
// nothing for objbench's requests yet run on each of them (a Date header
// parsed, context values set, empty lists walked); lean removes those, and
// only those: every header and byte a request puts on the wire stays the
// same (TestLeanStackSameRequest). The gain is small (2% of the SDK's
// instructions per GetObject, 5% per PutObject with the retry quota:
// bench/hotpath.sh): the stack itself is built anew for every request, and
// its allocations, not these middlewares, are most of the SDK's cost. Kept: signing, the
// invocation ID, the retry header and loop, the user agent, Accept-Encoding,
// the error wrappers and every serializer and deserializer.
//
// Removed, and why each is idle:
//   - ResolveEndpoint: the legacy (v1) endpoint resolver; returns at once
//     unless a v1 resolver is configured, and none is.
//   - disableHTTPS, setLegacyContextSigningOptions: act only on options and
//     context values objbench never sets.
//   - InterceptBeforeRetryLoop, InterceptAttempt: run the client's
//     interceptors, and it has none.
//   - RequestResponseLogger: logs only with a ClientLogMode, which is off.
//   - AWSChecksum:SetupOutputContext, AWSChecksum:ValidateOutputPayloadChecksum:
//     validate a response checksum only when the request asks for one
//     (ChecksumMode), and objbench never does; with validation "when
//     required" they do nothing else.
//   - RecordResponseTiming: parses each response's Date header so that the
//     retry loop can correct for a client clock off by minutes (the
//     client's DisableClockSkewCorrection says so too); with a clock that is
//     right, the requests are the same, and a clock that is wrong is an
//     error to see (access denied), not to hide in a benchmark.
//   - S3Shared:ARNLookup, S3:ProcessARNResource, S3:ObjectLambdaEndpoint:
//     act only on a bucket given as an access point ARN, removed only when
//     the bucket is a plain name.
var (
	idleInitialize  = []string{"AWSChecksum:SetupOutputContext"}
	idleSerialize   = []string{"ResolveEndpoint"}
	idleFinalize    = []string{"disableHTTPS", "setLegacyContextSigningOptions", "InterceptBeforeRetryLoop", "InterceptAttempt"}
	idleDeserialize = []string{"RequestResponseLogger", "AWSChecksum:ValidateOutputPayloadChecksum", "RecordResponseTiming"}
	arnInitialize   = []string{"S3Shared:ARNLookup"}
	arnSerialize    = []string{"S3:ProcessARNResource", "S3:ObjectLambdaEndpoint"}
)

// leanStack returns the API option that removes the idle middlewares of
// every operation of a client of bucket.
func leanStack(bucket string) func(*middleware.Stack) error {
	arn := strings.HasPrefix(bucket, "arn:")
	return func(s *middleware.Stack) error {
		// Each operation has its own stack; Get first, since a Remove of a
		// middleware the operation lacks builds an error to say so.
		for _, id := range idleInitialize {
			if _, ok := s.Initialize.Get(id); ok {
				_, _ = s.Initialize.Remove(id)
			}
		}
		for _, id := range idleSerialize {
			if _, ok := s.Serialize.Get(id); ok {
				_, _ = s.Serialize.Remove(id)
			}
		}
		for _, id := range idleFinalize {
			if _, ok := s.Finalize.Get(id); ok {
				_, _ = s.Finalize.Remove(id)
			}
		}
		for _, id := range idleDeserialize {
			if _, ok := s.Deserialize.Get(id); ok {
				_, _ = s.Deserialize.Remove(id)
			}
		}
		if !arn {
			for _, id := range arnInitialize {
				if _, ok := s.Initialize.Get(id); ok {
					_, _ = s.Initialize.Remove(id)
				}
			}
			for _, id := range arnSerialize {
				if _, ok := s.Serialize.Get(id); ok {
					_, _ = s.Serialize.Remove(id)
				}
			}
		}
		return nil
	}
}

// leanRetryer is the SDK's standard retryer (the same attempts, backoff and
// retryable errors, the same amz-sdk-request header, and the same type, which
// the user agent names) without its client-side retry quota: a token bucket
// locked twice per request that matters only once retries have failed many
// times over, and then hides errors from the measurement by refusing to
// retry. --max-attempts wraps it as it wraps the SDK's own.
func leanRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = ratelimit.None })
}
