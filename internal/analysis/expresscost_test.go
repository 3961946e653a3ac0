package analysis

import (
	"math"
	"testing"

	"github.com/objbench/objbench/internal/document"
)

// TestExpressCost: a run on a directory bucket (a real one, or the lab's)
// is priced at S3 Express One Zone's table, with its per-GB upload and
// retrieval charges on every byte; the same run on a general purpose
// bucket at S3 Standard's, with none. The expected figures are worked out
// from the shipped tables, so a price change does not break the test but
// a wrong formula does.
func TestExpressCost(t *testing.T) {
	t.Parallel()
	results := []document.Result{
		{Workload: "latency", Op: "get", SizeBytes: 4096, Count: 1000, RequestsPerOp: 1.004, WallS: 10},
		{Workload: "latency", Op: "put", SizeBytes: 1 << 20, Count: 200, RequestsPerOp: 1, WallS: 5},
		{Workload: "latency", Op: "delete", SizeBytes: 0, Count: 200, RequestsPerOp: 1, WallS: 1},
	}
	p := DefaultPrices()
	x := p["s3express"]
	if x == nil || x.UploadPerGB <= 0 || x.RetrievalPerGB <= 0 {
		t.Fatalf("no S3 Express table with data charges: %+v", x)
	}
	getReq, putReq := int64(1004), int64(200)
	wantReq := float64(getReq)*x.PerThousand["get"]/1000 + float64(putReq)*x.PerThousand["put"]/1000
	getBytes, putBytes := float64(1000*4096), float64(200<<20)
	wantData := (getBytes*x.RetrievalPerGB + putBytes*x.UploadPerGB) / x.GBBytes
	wantEgress := getBytes * x.EgressPerGB / x.GBBytes
	for _, tc := range []struct {
		name string
		env  document.Envelope
		key  string
	}{
		{"a real directory bucket", document.Envelope{Target: document.TargetInfo{URL: "s3://logs--usw2-az1--x-s3/p/", Provider: "s3"}}, "s3express"},
		{"the lab's directory bucket", document.Envelope{Target: document.TargetInfo{URL: "s3://objbench--lab-az1--x-s3", Provider: "s3"}, Lab: &document.LabInfo{API: "s3"}}, "s3express"},
		{"a general purpose bucket", document.Envelope{Target: document.TargetInfo{URL: "s3://logs/p/", Provider: "s3"}}, "s3"},
		{"a GCS bucket named like one", document.Envelope{Target: document.TargetInfo{URL: "gs://logs--usw2-az1--x-s3", Provider: "gs"}}, "gcs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &document.Document{Envelope: tc.env, Results: results}
			c := RunCost(d, p)
			if c == nil || c.Provider != tc.key {
				t.Fatalf("cost %+v, want the %s table", c, tc.key)
			}
			if tc.key != "s3express" {
				if c.DataUSD != 0 || c.UploadBytes != 0 {
					t.Errorf("data charge %g on %d bytes without an S3 Express table", c.DataUSD, c.UploadBytes)
				}
				return
			}
			near := func(name string, got, want float64) {
				if math.Abs(got-want) > 2e-6 {
					t.Errorf("%s %g, want %g", name, got, want)
				}
			}
			near("requests_usd", c.RequestsUSD, wantReq)
			near("data_usd", c.DataUSD, wantData)
			near("egress_usd", c.EgressUSD, wantEgress)
			near("total_usd", c.TotalUSD, wantReq+wantData+wantEgress)
			if c.UploadBytes != int64(putBytes) || c.Requests != getReq+putReq+200 {
				t.Errorf("upload bytes %d, requests %d", c.UploadBytes, c.Requests)
			}
		})
	}
}
