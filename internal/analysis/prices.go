package analysis

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PriceTable is one provider's list prices: requests per 1,000 by
// operation, and internet egress per GB (GBBytes says whether the provider
// bills GB of 10^9 or GiB of 2^30 bytes). Source and Date say where the
// figures come from.
type PriceTable struct {
	Name        string             `json:"name" yaml:"name"`
	Source      string             `json:"source" yaml:"source"`
	Date        string             `json:"date" yaml:"date"`
	Notes       string             `json:"notes,omitempty" yaml:"notes"`
	PerThousand map[string]float64 `json:"per_1000_requests" yaml:"per_1000_requests"`
	EgressPerGB float64            `json:"egress_per_gb" yaml:"egress_per_gb"`
	GBBytes     float64            `json:"gb_bytes" yaml:"gb_bytes"`
	// UploadPerGB and RetrievalPerGB are per-GB charges on the bytes
	// written and read, whatever the destination (S3 Express One Zone's
	// data upload and retrieval); 0 elsewhere.
	UploadPerGB    float64 `json:"upload_per_gb,omitempty" yaml:"upload_per_gb"`
	RetrievalPerGB float64 `json:"retrieval_per_gb,omitempty" yaml:"retrieval_per_gb"`
}

// Prices are the price tables by provider: s3, gcs, azure, and s3express
// (S3 Express One Zone, for an s3 target whose bucket is a directory
// bucket's).
type Prices map[string]*PriceTable

//go:embed prices.json
var embeddedPrices []byte

// priceOps are the operations a price table prices.
var priceOps = []string{"put", "get", "head", "delete", "list"}

// DefaultPrices are the list prices objbench ships with (prices.json).
func DefaultPrices() Prices {
	var p Prices
	if err := json.Unmarshal(embeddedPrices, &p); err != nil {
		panic("analysis: embedded prices.json: " + err.Error()) // a build defect, caught by tests
	}
	return p
}

// ErrPrices marks a --prices file that cannot be used (a usage error).
var ErrPrices = errors.New("prices")

// LoadPrices is the default prices with FILE's entries laid over them: a
// provider's fields that FILE gives replace the shipped ones. FILE is JSON,
// or YAML when it ends in .yaml or .yml. A missing file, bad syntax, an
// unknown provider or operation, or a negative price is an error wrapping
// ErrPrices.
func LoadPrices(path string) (Prices, error) {
	p := DefaultPrices()
	if path == "" {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --prices: %w", ErrPrices, err)
	}
	var over map[string]map[string]any
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".yaml" || ext == ".yml" {
		err = yaml.Unmarshal(b, &over)
	} else {
		err = json.Unmarshal(b, &over)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: --prices %s: %s", ErrPrices, path, oneLine(err.Error()))
	}
	for prov, fields := range over {
		t, ok := p[prov]
		if !ok {
			return nil, fmt.Errorf("%w: --prices %s: unknown provider %q: use %s", ErrPrices, path, prov, strings.Join(slices.Sorted(maps.Keys(p)), ", "))
		}
		// Round-trip the fields through JSON onto the shipped table.
		raw, err := json.Marshal(fields)
		if err == nil {
			err = json.Unmarshal(raw, t)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: --prices %s: %s: %s", ErrPrices, path, prov, oneLine(err.Error()))
		}
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%w: --prices %s: %w", ErrPrices, path, err)
	}
	return p, nil
}

func (p Prices) check() error {
	for _, prov := range slices.Sorted(maps.Keys(p)) {
		t := p[prov]
		for op, v := range t.PerThousand {
			if !slices.Contains(priceOps, op) {
				return fmt.Errorf("%s: unknown operation %q in per_1000_requests: use %s", prov, op, strings.Join(priceOps, ", "))
			}
			if v < 0 {
				return fmt.Errorf("%s: negative price %g for %s", prov, v, op)
			}
		}
		if t.EgressPerGB < 0 || t.UploadPerGB < 0 || t.RetrievalPerGB < 0 {
			return fmt.Errorf("%s: negative per-GB price", prov)
		}
		if t.GBBytes < 0 {
			return fmt.Errorf("%s: negative gb_bytes %g", prov, t.GBBytes)
		}
	}
	return nil
}

// For is the price table of a document's provider: the lab's API for lab
// runs, else the target's provider (s3, gs or gcs, az or azure); nil and
// false when there is none.
func (p Prices) For(provider, labAPI string) (string, *PriceTable, bool) {
	key := provider
	if labAPI != "" {
		key = labAPI
	}
	switch key {
	case "gs":
		key = "gcs"
	case "az":
		key = "azure"
	}
	t, ok := p[key]
	return key, t, ok
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
