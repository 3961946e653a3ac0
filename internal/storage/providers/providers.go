// Package providers opens a storage.Backend for a target: the one place
// where URL schemes map to provider packages.
package providers

import (
	"context"
	"fmt"
	"strings"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/storage/s3"
)

// Schemes lists the supported target schemes, as users write them.
func Schemes() []string { return []string{"s3://", "mem://"} }

// Open returns a backend for t. o.HTTPClient carries the instrumented transport.
func Open(ctx context.Context, t storage.Target, o storage.Options) (storage.Backend, error) {
	switch t.Scheme {
	case "s3":
		return s3.New(ctx, t, o)
	case "mem":
		return mem.New(t.Bucket, false), nil
	}
	return nil, fmt.Errorf("unknown scheme %q: supported are %s", t.Scheme, strings.Join(Schemes(), ", "))
}
