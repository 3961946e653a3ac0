package s3

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyauth "github.com/aws/smithy-go/auth"
)

// The cached resolver answers exactly what the SDK's rules answer, for
// path-style endpoints and AWS's virtual hosts alike, and per bucket.
func TestCachedResolverMatchesRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rules := s3.NewDefaultEndpointResolverV2()
	cached := newCachedResolver(rules)
	params := []s3.EndpointParameters{
		{Bucket: aws.String("bench"), Region: aws.String("us-east-1"), Endpoint: aws.String("http://127.0.0.1:9000"), ForcePathStyle: aws.Bool(true)},
		{Bucket: aws.String("other"), Region: aws.String("us-east-1"), Endpoint: aws.String("http://127.0.0.1:9000"), ForcePathStyle: aws.Bool(true)},
		{Bucket: aws.String("bench"), Region: aws.String("eu-west-1")},
		{Bucket: aws.String("bench"), Region: aws.String("eu-west-1"), Key: aws.String("a/b")},
		{Bucket: aws.String("bench"), Region: aws.String("eu-west-1"), UseDualStack: aws.Bool(true)},
		{Bucket: aws.String("bench.with.dots"), Region: aws.String("us-west-2")},
		{Region: aws.String("us-west-2")},
	}
	for round := range 2 { // the second round answers from the cache
		for _, p := range params {
			want, werr := rules.ResolveEndpoint(ctx, p)
			got, gerr := cached.ResolveEndpoint(ctx, p)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("round %d %+v: error %v, rules %v", round, p, gerr, werr)
			}
			if got.URI.String() != want.URI.String() || !reflect.DeepEqual(got.Headers, want.Headers) {
				t.Errorf("round %d bucket %q region %q: %s, rules %s", round, aws.ToString(p.Bucket), aws.ToString(p.Region), got.URI.String(), want.URI.String())
			}
			wo, _ := smithyauth.GetAuthOptions(&want.Properties)
			go_, _ := smithyauth.GetAuthOptions(&got.Properties)
			if len(wo) != len(go_) {
				t.Fatalf("auth options: %d, rules %d", len(go_), len(wo))
			}
			for i := range wo {
				if wo[i].SchemeID != go_[i].SchemeID || !reflect.DeepEqual(wo[i].SignerProperties.Values(), go_[i].SignerProperties.Values()) {
					t.Errorf("auth option %d: %+v, rules %+v", i, go_[i], wo[i])
				}
			}
		}
	}
	if n := len(cached.eps); n != 6 { // the key, not read by the rules, shares an entry
		t.Errorf("%d cached endpoints, want 6", n)
	}
}

// Each caller gets auth options of its own: the SDK assigns to them.
func TestCachedResolverCopiesAuthOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cached := newCachedResolver(s3.NewDefaultEndpointResolverV2())
	p := s3.EndpointParameters{Bucket: aws.String("bench"), Region: aws.String("us-east-1"), Endpoint: aws.String("http://127.0.0.1:9000"), ForcePathStyle: aws.Bool(true)}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				ep, err := cached.ResolveEndpoint(ctx, p)
				if err != nil {
					t.Error(err)
					return
				}
				opts, _ := smithyauth.GetAuthOptions(&ep.Properties)
				for _, o := range opts {
					o.SchemeID = "mutated" // as rebaseProps assigns to the options
				}
			}
		})
	}
	wg.Wait()
	ep, _ := cached.ResolveEndpoint(ctx, p)
	opts, _ := smithyauth.GetAuthOptions(&ep.Properties)
	if len(opts) == 0 || opts[0].SchemeID == "mutated" {
		t.Errorf("cached auth options changed by a caller: %+v", opts)
	}
}
