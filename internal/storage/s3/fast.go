package s3

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithy "github.com/aws/smithy-go"
	smithyauth "github.com/aws/smithy-go/auth"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
)

// cachedResolver runs the SDK's own endpoint rules once per distinct set of
// parameters and answers from a cache afterwards. The rules engine would
// otherwise run twice per request (auth scheme, then endpoint) and cost more
// CPU than signing it; its answer depends only on the client's options and
// the bucket, never on the key, so the cached endpoint is exactly the one the
// rules would give. Key, Prefix and CopySource, which the rules do not read,
// are left out of the cache key.
type cachedResolver struct {
	next s3.EndpointResolverV2
	mu   sync.RWMutex
	eps  map[endpointKey]smithyendpoints.Endpoint
}

// maxCachedEndpoints bounds the cache: one client sees one or two buckets.
const maxCachedEndpoints = 64

// endpointKey is the EndpointParameters the rules read, dereferenced.
type endpointKey struct {
	bucket, region, endpoint string
	// flags holds two bits per *bool parameter: set, and its value.
	flags uint32
}

func newCachedResolver(next s3.EndpointResolverV2) *cachedResolver {
	return &cachedResolver{next: next, eps: map[endpointKey]smithyendpoints.Endpoint{}}
}

func keyOf(p *s3.EndpointParameters) endpointKey {
	k := endpointKey{bucket: deref(p.Bucket), region: deref(p.Region), endpoint: deref(p.Endpoint)}
	for i, b := range []*bool{p.UseFIPS, p.UseDualStack, p.ForcePathStyle, p.Accelerate, p.UseGlobalEndpoint,
		p.UseObjectLambdaEndpoint, p.DisableAccessPoints, p.DisableMultiRegionAccessPoints, p.UseArnRegion,
		p.UseS3ExpressControlEndpoint, p.DisableS3ExpressSessionAuth} {
		if b != nil {
			k.flags |= 1 << (2 * i)
			if *b {
				k.flags |= 2 << (2 * i)
			}
		}
	}
	// Any presence bit of a nil string tells "unset" from "".
	if p.Bucket != nil {
		k.flags |= 1 << 30
	}
	if p.Endpoint != nil {
		k.flags |= 1 << 31
	}
	return k
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ResolveEndpoint implements s3.EndpointResolverV2.
func (r *cachedResolver) ResolveEndpoint(ctx context.Context, p s3.EndpointParameters) (smithyendpoints.Endpoint, error) {
	k := keyOf(&p)
	r.mu.RLock()
	ep, ok := r.eps[k]
	r.mu.RUnlock()
	if !ok {
		var err error
		if ep, err = r.next.ResolveEndpoint(ctx, p); err != nil {
			return ep, err
		}
		r.mu.Lock()
		if len(r.eps) < maxCachedEndpoints {
			r.eps[k] = ep
		}
		r.mu.Unlock()
	}
	return copyEndpoint(ep), nil
}

// copyEndpoint gives the caller its own properties and auth options: the
// SDK's auth resolver assigns to the options' fields (rebaseProps), which
// would race on a shared endpoint. The options' property sets are copied
// too: an option the resolver finds no base for (sigv4-s3express, a
// directory bucket's) keeps its own set, and the endpoint middleware then
// writes into it (SetAll), concurrent map writes on a shared one.
func copyEndpoint(ep smithyendpoints.Endpoint) smithyendpoints.Endpoint {
	var props smithy.Properties
	props.SetAll(&ep.Properties)
	if opts, ok := smithyauth.GetAuthOptions(&ep.Properties); ok {
		own := make([]*smithyauth.Option, len(opts))
		for i, o := range opts {
			c := *o
			c.SignerProperties, c.IdentityProperties = smithy.Properties{}, smithy.Properties{}
			c.SignerProperties.SetAll(&o.SignerProperties)
			c.IdentityProperties.SetAll(&o.IdentityProperties)
			own[i] = &c
		}
		smithyauth.SetAuthOptions(&props, own)
	}
	ep.Properties = props
	return ep
}
