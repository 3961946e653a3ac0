// Package providers opens a storage.Backend for a target: the one place
// where URL schemes map to provider packages.
package providers

import (
	"context"
	"fmt"
	"strings"

	"github.com/objbench/objbench/internal/storage"
	"github.com/objbench/objbench/internal/storage/azure"
	"github.com/objbench/objbench/internal/storage/gcs"
	"github.com/objbench/objbench/internal/storage/mem"
	"github.com/objbench/objbench/internal/storage/miniogo"
	"github.com/objbench/objbench/internal/storage/s3"
)

// SchemeNames lists the supported target schemes: s3, gs, az, mem.
func SchemeNames() []string { return []string{"s3", "gs", "az", "mem"} }

// Schemes lists the supported target schemes, as users write them.
func Schemes() []string {
	names := SchemeNames()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + "://"
	}
	return out
}

// Open returns a backend for t. o.HTTPClient carries the instrumented transport.
func Open(ctx context.Context, t storage.Target, o storage.Options) (storage.Backend, error) {
	switch t.Scheme {
	case "s3":
		if o.Client == storage.ClientMinio {
			return miniogo.New(ctx, t, o)
		}
		return s3.New(ctx, t, o)
	case "gs":
		return gcs.New(ctx, t, o)
	case "az":
		return azure.New(ctx, t, o)
	case "mem":
		// An in-process bucket has nothing to check: it exists once named.
		return mem.New(t.Bucket, true), nil
	}
	return nil, fmt.Errorf("unknown scheme %q: supported are %s", t.Scheme, strings.Join(Schemes(), ", "))
}
